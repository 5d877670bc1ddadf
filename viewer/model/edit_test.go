package model

import (
	"math"
	"slices"
	"testing"

	"github.com/voxlab/voxlab/processing/points"
)

func pt(z, y, x float64, typ string) Point { return Point{Z: z, Y: y, X: x, Type: typ} }

// TestEditUndoRedoDirty: each edit is one undo step; a new edit drops
// the redo stack; the set is modified until it is back at the saved
// edit, and an undone add leaves no point to select.
func TestEditUndoRedoDirty(t *testing.T) {
	m := NewPointSet([]Point{pt(1, 2, 3, "cell"), pt(4, 5, 6, "non-cell")})
	calls := 0
	m.Watch(func() { calls++ })
	if m.Modified() || m.CanUndo() || m.CanRedo() {
		t.Fatal("a fresh set is modified or has history")
	}
	i := m.AddPoint(pt(7, 8, 9, "cell"))
	if i != 2 || m.Len() != 3 || !m.Modified() || !m.CanUndo() {
		t.Fatalf("after an add: index %d, %d points, modified %v", i, m.Len(), m.Modified())
	}
	m.SetSelected(false, 0, 2)
	m.MoveSelected(1, -1, 0.5)
	if p, _ := m.Point(0); p != pt(2, 1, 3.5, "cell") {
		t.Errorf("moved point 0 to %v", p)
	}
	m.MarkSaved()
	if m.Modified() {
		t.Error("modified right after MarkSaved")
	}
	if !m.Undo() || !m.Modified() {
		t.Error("undo after saving: not modified")
	}
	if p, _ := m.Point(0); p != pt(1, 2, 3, "cell") {
		t.Errorf("undone move: point 0 at %v", p)
	}
	if !m.Redo() || m.Modified() {
		t.Error("redone to the saved edit: still modified")
	}
	m.Undo()
	m.Undo() // the add
	if _, ok := m.Point(2); ok || m.Len() != 2 {
		t.Errorf("undone add: point 2 still there, %d points", m.Len())
	}
	m.SetSelected(false, 2)
	if m.NumSelected() != 0 {
		t.Errorf("selected an undone add: %v", m.Selected())
	}
	m.SetSelected(false, 1)
	m.DeleteSelected() // a new edit: the redo stack goes
	if m.CanRedo() || m.Redo() {
		t.Error("redo after a new edit")
	}
	if got := m.Points(); !slices.Equal(got, []Point{pt(1, 2, 3, "cell")}) {
		t.Errorf("after deleting point 1: %v", got)
	}
	if m.NumSelected() != 0 {
		t.Error("a deleted point stays selected")
	}
	if calls == 0 {
		t.Error("the observer was never told")
	}
}

// TestSetSelectedClassKeepsNames: classing reuses the set's own type
// name for the class, counts the points reviewed, and classing points
// already of that class is no edit.
func TestSetSelectedClassKeepsNames(t *testing.T) {
	m := NewPointSet([]Point{pt(0, 0, 0, "artifact"), pt(0, 1, 1, "cell"), pt(0, 2, 2, "unknown")})
	m.SetSelected(false, 1, 2)
	if n := m.SetSelectedClass(points.NonCell); n != 2 {
		t.Errorf("classed %d points, want 2", n)
	}
	got := m.Points()
	if got[1].Type != "artifact" || got[2].Type != "artifact" {
		t.Errorf("types %q %q, want the set's own name for non-cells, artifact", got[1].Type, got[2].Type)
	}
	if c := m.Counts(); c[points.NonCell] != 3 || c[points.Cell] != 0 {
		t.Errorf("counts %v", c)
	}
	if done, total := m.Reviewed(); done != 2 || total != 3 || m.Progress() != "2 of 3 reviewed" {
		t.Errorf("reviewed %d of %d (%q)", done, total, m.Progress())
	}
	m.Undo()
	if m.CanUndo() {
		t.Error("classing was more than one edit")
	}
	m.SetSelected(false, 0)
	m.SetSelectedClass(points.NonCell) // already non-cell
	if m.CanUndo() {
		t.Error("classing a point as its own class made an edit")
	}
	if m.TypeName(points.Unknown) != "unknown" || NewPointSet(nil).TypeName(points.Cell) != "cell" {
		t.Error("type names of classes the set has not seen")
	}
}

// TestSelectionAcrossPlanes: picking and box selection see only the
// planes asked for, along each axis; a selection made on one plane
// holds when another is shown, and points off the volume (negative, NaN)
// are counted but on no plane.
func TestSelectionAcrossPlanes(t *testing.T) {
	pts := []Point{pt(2, 10, 10, "cell"), pt(3, 10, 10, "cell"), pt(2, 30, 40, "cell"), pt(-1, 10, 10, "cell"), pt(math.NaN(), 1, 1, "cell")}
	m := NewPointSet(pts)
	if i := m.Pick(Z, 2, 0, 10.4, 9.8, 2); i != 0 {
		t.Errorf("pick on plane 2: %d, want 0", i)
	}
	if i := m.Pick(Z, 3, 1, 10, 10, 2); i != 1 {
		t.Errorf("pick on plane 3 with plane 2 shown faint: %d, want 1 (the plane's own)", i)
	}
	if i := m.Pick(Z, 4, 0, 10, 10, 2); i != -1 {
		t.Errorf("pick on empty plane 4: %d", i)
	}
	if i := m.Pick(Z, 2, 0, 13, 10, 2); i != -1 {
		t.Errorf("pick 3 px away within 2: %d", i)
	}
	// Along x, plane 10 holds points 0, 1 and 3 at (z, y) = (2|3|-1, 10).
	if got := m.InBox(nil, X, 10, 0, 0, 0, 5, 20); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("box on x plane 10: %v, want [0 1]", got)
	}
	if got := m.InBox(nil, Y, 10, 0, -5, 0, 5, 50); !slices.Equal(got, []int{0, 1, 3}) {
		t.Errorf("box on y plane 10 over rows -5..5: %v, want [0 1 3] (point 3 is on y plane 10 at z -1)", got)
	}
	m.SetSelected(false, m.InBox(nil, Z, 2, 0, 0, 0, 50, 50)...)
	m.SetSelected(true, m.Pick(Z, 3, 0, 10, 10, 1))
	if got := m.Selected(); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("selection over planes 2 and 3: %v", got)
	}
	m.ToggleSelected(2)
	m.ToggleSelected(3)
	if got := m.Selected(); !slices.Equal(got, []int{0, 1, 3}) || m.NumSelected() != 3 {
		t.Errorf("after toggling 2 and 3: %v", got)
	}
	if m.Len() != 5 || m.Outside([3]int{5, 50, 50}) != 2 || m.Outside([3]int{}) != 0 {
		t.Errorf("%d points, %d outside", m.Len(), m.Outside([3]int{5, 50, 50}))
	}
	if e := m.Extent(); e != [3]int{4, 31, 41} {
		t.Errorf("extent %v, want [4 31 41]", e)
	}
	var onPlane []int32
	m.VisitPlane(Z, 2, func(i int32, _ *Point, _ points.Class, sel bool) {
		if sel {
			onPlane = append(onPlane, i)
		}
	})
	if !slices.Equal(onPlane, []int32{0}) {
		t.Errorf("selected points visited on plane 2: %v, want [0]", onPlane)
	}
}

// TestPreviewThenCommit: a drag previews a move without an edit, and
// Commit makes it one undoable step.
func TestPreviewThenCommit(t *testing.T) {
	m := NewPointSet([]Point{pt(1, 1, 1, "cell"), pt(1, 5, 5, "cell")})
	idx := []int32{1}
	from := m.States(idx)
	next := []PointState{{P: pt(1, 9, 9, "cell")}}
	m.Preview(idx, next)
	if m.CanUndo() || m.Pick(Z, 1, 0, 9, 9, 1) != 1 {
		t.Fatal("preview: an edit, or the point not where it was moved")
	}
	m.Commit(idx, from, m.States(idx))
	m.Undo()
	if p, _ := m.Point(1); p != pt(1, 5, 5, "cell") {
		t.Errorf("undone drag: %v", p)
	}
}

// TestAppendIsNoEdit: points appended with Extend (a job's detections) are neither
// undone nor mark the set modified, and an index reserved by an add is
// not taken by them.
func TestAppendIsNoEdit(t *testing.T) {
	m := NewPointSet(nil)
	m.Extend(pt(0, 0, 0, "cell"), pt(1, 1, 1, "non-cell"))
	if m.Modified() || m.CanUndo() || m.Len() != 2 {
		t.Fatalf("append: modified %v, %d points", m.Modified(), m.Len())
	}
	v := m.Version()
	i := m.AddPoint(pt(2, 2, 2, "cell"))
	m.Extend(pt(3, 3, 3, "cell"))
	if p, _ := m.Point(i); p != pt(2, 2, 2, "cell") || m.Version() == v {
		t.Errorf("added point %d is %v", i, p)
	}
	n := 0
	m.EachLive(func(Point, points.Class) { n++ })
	if n != 4 {
		t.Errorf("EachLive visited %d points, want 4", n)
	}
}
