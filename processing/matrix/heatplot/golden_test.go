package heatplot

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/matrix"
)

var update = flag.Bool("update", false, "rewrite the golden images under testdata")

// goldenScatter is three groups on curves, the last a ground truth:
// the panels of an embedding as svd writes it.
func goldenScatter() matrix.Scatter {
	s := matrix.Scatter{Title: "common embedding", XLabel: "Z1", YLabel: "Z2"}
	for g, label := range []string{"sub_a", "sub_b", "gt"} {
		var grp matrix.Group
		grp.Label = label
		for i := range 12 {
			t := float64(i)/11*2*math.Pi + float64(g)
			grp.X = append(grp.X, math.Cos(t)*(1+0.2*float64(g)))
			grp.Y = append(grp.Y, math.Sin(2*t)+0.3*float64(g))
		}
		s.Groups = append(s.Groups, grp)
	}
	return s
}

// goldenCurves is a training run's loss and accuracy over 6 epochs,
// training and validation, the validation's first epoch missing (NaN).
func goldenCurves() []Curves {
	var x, loss, vloss, acc, vacc []float64
	for e := range 6 {
		f := float64(e)
		x = append(x, f+1)
		loss, vloss = append(loss, 0.7*math.Exp(-f/3)+0.1), append(vloss, 0.75*math.Exp(-f/4)+0.15)
		acc, vacc = append(acc, 1-0.5*math.Exp(-f/2)), append(vacc, 0.95-0.45*math.Exp(-f/2.5))
	}
	vloss[0], vacc[0] = math.NaN(), math.NaN()
	return []Curves{
		{Title: "loss", XLabel: "epoch", Lines: []Line{{Label: "training", X: x, Y: loss}, {Label: "validation", X: x, Y: vloss, Dashed: true}}},
		{Title: "accuracy", XLabel: "epoch", YRange: [2]float64{0, 1}, LegendBottom: true,
			Lines: []Line{{Label: "training", X: x, Y: acc}, {Label: "validation", X: x, Y: vacc, Dashed: true}}},
	}
}

func goldenHeatmap() matrix.Heatmap {
	v := make([]float64, 5*4)
	for i := range v {
		v[i] = math.Sin(float64(i))
	}
	v[7] = math.NaN()
	return matrix.Heatmap{Title: "svd_distance", XLabel: "set", YLabel: "set", Unit: "svd_metric", Rows: 5, Cols: 4, Values: v}
}

// TestGoldenImages compares the drawings with images checked by eye
// (`go test -run TestGoldenImages -update` rewrites them; look at
// them before committing), pixel by pixel within a tolerance as
// gonum/plot's cmpimg does (without its PDF dependency), so that a
// change of antialiasing passes and a moved panel, lost legend or other
// colour does not.
func TestGoldenImages(t *testing.T) {
	for _, c := range []struct {
		name string
		draw func() (*image.RGBA, error)
	}{
		{"scatter.png", func() (*image.RGBA, error) {
			w, h := ScatterSize(3)
			return ScatterImage(goldenScatter(), w, h, Paper)
		}},
		{"heatmap.png", func() (*image.RGBA, error) { return HeatmapImage(goldenHeatmap(), 500, 400) }},
		{"curves.png", func() (*image.RGBA, error) { return CurvesImage(goldenCurves(), 800, 340, Paper) }},
	} {
		img, err := c.draw()
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var got bytes.Buffer
		if err := png.Encode(&got, img); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join("testdata", c.name)
		if *update {
			if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatalf("%v (run with -update to write it)", err)
		}
		want, err := png.Decode(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if n, total := differing(img, want); n*1000 > total {
			bad := filepath.Join(t.TempDir(), c.name)
			os.WriteFile(bad, got.Bytes(), 0o644)
			t.Errorf("%s: %d of %d pixels differ from its golden image; the drawing is in %s", c.name, n, total, bad)
		}
	}
}

// differing counts the pixels of a and b (all of them when their sizes
// differ) whose colours differ by more than 24 of 255 in a channel.
func differing(a *image.RGBA, b image.Image) (n, total int) {
	r := a.Bounds()
	total = r.Dx() * r.Dy()
	if b.Bounds().Size() != r.Size() {
		return total, total
	}
	o := b.Bounds().Min.Sub(r.Min)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c := a.RGBAAt(x, y)
			w := rgba(b.At(x+o.X, y+o.Y))
			if absDiff(c.R, w.R) > 24 || absDiff(c.G, w.G) > 24 || absDiff(c.B, w.B) > 24 || absDiff(c.A, w.A) > 24 {
				n++
			}
		}
	}
	return n, total
}

// TestScatterPanelPerGroup: each group's colour lies in its own panel
// (scatterCols a row) and no other, and a bad group is refused.
func TestScatterPanelPerGroup(t *testing.T) {
	s := goldenScatter()
	s.Groups = append(s.Groups, s.Groups[0])
	s.Groups[3].Label = "fourth"
	w, h := ScatterSize(4)
	if w != 1200 || h != 640 {
		t.Fatalf("size %d x %d for 4 groups, want 3 panels a row, 2 rows", w, h)
	}
	img, err := ScatterImage(s, w, h, Paper)
	if err != nil {
		t.Fatal(err)
	}
	for g := range 4 {
		col := GroupColours[g%len(GroupColours)]
		for p := range 6 {
			r := image.Rect(p%3*w/3, 40+p/3*(h-40)/2, (p%3+1)*w/3, 40+(p/3+1)*(h-40)/2)
			_, n := meanY(img.SubImage(r).(*image.RGBA), w, col)
			if own := p == g; own && n < 200 || !own && n > 0 {
				t.Errorf("group %d's colour: %d pixels in panel %d", g, n, p)
			}
		}
	}
	bad := matrix.Scatter{Title: "bad", Groups: []matrix.Group{{Label: "x", X: []float64{1}, Y: nil}}}
	if _, err := ScatterImage(bad, 400, 300, Paper); err == nil {
		t.Error("a group of 1 x and 0 y coordinates was drawn")
	}
	if _, err := ScatterImage(matrix.Scatter{Title: "none"}, 400, 300, Paper); err == nil {
		t.Error("a scatter plot without groups was drawn")
	}
}

// TestCurvesRefusesRaggedLines: a line of more x than y is an error
// naming it, not a plot of part of it; no panel is an error too.
func TestCurvesRefusesRaggedLines(t *testing.T) {
	c := Curves{Title: "loss", Lines: []Line{{Label: "training", X: []float64{1, 2}, Y: []float64{0.5}}}}
	if _, err := CurvesImage([]Curves{c}, 400, 300, Paper); err == nil || !strings.Contains(err.Error(), "training") {
		t.Errorf("ragged line: %v", err)
	}
	if _, err := CurvesImage(nil, 400, 300, Paper); err == nil {
		t.Error("no panel drawn without an error")
	}
}
