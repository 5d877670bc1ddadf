package viewer

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 25's "lighter viewer": viewer.go under 500 lines, no type of the
// package with more than 40 methods. The Viewer got there in steps (layer
// stack, status bar and widgets moved out; then, issue 34, dialogs, dims
// bar, opener, ortho, saver, pointer, redraws and the kinds' own methods;
// then the API the panel and the app call went onto Dims, Panels, Scene,
// Curation, Dialogs, Dock, Offer and Async); its count is held where the
// last step left it, so that it can only go down.
const (
	maxViewerGoLines = 500
	// maxFileLines holds every file of viewer/ and viewer/model, tests
	// included, to a size one can read (issue 34).
	maxFileLines = 600
	maxMethods   = 40
	// viewerMethods is the Viewer's method count today, under
	// maxMethods; lower it as methods move to their own types.
	viewerMethods = 39
)

// TestViewerSize counts viewer.go's lines and, with go/parser, the
// methods declared on each type of the package (tests left out).
func TestViewerSize(t *testing.T) {
	data, err := os.ReadFile("viewer.go")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n >= maxViewerGoLines {
		t.Errorf("viewer.go has %d lines, want fewer than %d", n, maxViewerGoLines)
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	methods := map[string]int{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range af.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
				continue
			}
			typ := fd.Recv.List[0].Type
			if s, ok := typ.(*ast.StarExpr); ok {
				typ = s.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				methods[id.Name]++
			}
		}
	}
	if methods["Viewer"] == 0 || methods["PointsLayer"] == 0 {
		t.Fatalf("no methods found on Viewer or PointsLayer: %v", methods)
	}
	for typ, n := range methods {
		limit := maxMethods
		if typ == "Viewer" {
			limit = viewerMethods
		}
		if n > limit {
			t.Errorf("%s has %d methods, want at most %d", typ, n, limit)
		}
	}
	t.Logf("Viewer: %d methods (goal %d); viewer.go: %d lines", methods["Viewer"], maxMethods, strings.Count(string(data), "\n"))
}

// TestFileSizes: no file of viewer/ or viewer/model is over maxFileLines.
func TestFileSizes(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	more, err := filepath.Glob("model/*.go")
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, more...)
	if len(more) == 0 || len(files) == len(more) {
		t.Fatalf("no files found: %v", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), "\n"); n > maxFileLines {
			t.Errorf("%s has %d lines, want at most %d", f, n, maxFileLines)
		}
	}
}

// TestKindsInOnePlace: no type switch or assertion on a layer kind in
// the package outside the kinds' own table (kinds.go); code that acts
// on one kind asks the layer (imageLayer, pointsLayer, heatmapLayer),
// so that a new kind is one type with its methods (issue 34).
func TestKindsInOnePlace(t *testing.T) {
	kinds := map[string]bool{"ImageLayer": true, "PointsLayer": true, "HeatmapLayer": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	isKind := func(e ast.Expr) bool {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		id, ok := e.(*ast.Ident)
		return ok && kinds[id.Name]
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || f == "kinds.go" {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		ast.Inspect(af, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				if n.Type != nil && isKind(n.Type) {
					t.Errorf("%s: assertion on a layer kind outside kinds.go", fset.Position(n.Pos()))
				}
			case *ast.CaseClause:
				for _, e := range n.List {
					if isKind(e) {
						t.Errorf("%s: type switch case on a layer kind outside kinds.go", fset.Position(e.Pos()))
					}
				}
			}
			return true
		})
	}
	if checked == 0 {
		t.Fatal("no files checked")
	}
}
