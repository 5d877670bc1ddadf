package panel

import (
	"errors"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"fyne.io/fyne/v2/canvas"

	"github.com/voxlab/voxlab/processing/svd"
)

// TestFiguresShowWhenTheRunEnds: the figures a spec names (svd's
// embeddings) open in tabs of their own when its run ends, those not
// written are left out, and a failed run opens none.
func TestFiguresShowWhenTheRunEnds(t *testing.T) {
	hl, _ := themedHeadless(t, 1200, 800)
	out := t.TempDir()
	figs := svd.Spec.Live.Figures([]string{"subs", out})
	if len(figs) != 2 || filepath.Base(figs[0]) != "common_embedding.png" {
		t.Fatalf("svd's figures: %v", figs)
	}
	f, err := os.Create(figs[0])
	if err != nil {
		t.Fatal(err)
	}
	png.Encode(f, image.NewRGBA(image.Rect(0, 0, 40, 30)))
	f.Close()

	failed := newMatrixLive(hl.Viewer, "SVD", []string{"subs"}, out)
	failed.figures = figs
	failed.Done(errors.New("box sizes differ"))
	ended := newMatrixLive(hl.Viewer, "SVD", []string{"subs"}, out)
	ended.figures = figs
	ended.Done(nil)
	var shown []string
	err = hl.Until(time.Minute, func() bool {
		shown = shown[:0]
		for _, tab := range viewTabs(t, hl.Viewer) {
			if img, ok := tab.Content.(*canvas.Image); ok {
				shown = append(shown, tab.Text+" "+img.File)
			}
		}
		return hl.Drain() == 0 && len(shown) > 0
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "common embedding " + figs[0]; len(shown) != 1 || shown[0] != want {
		t.Errorf("figure tabs %q, want only %q (gt_embedding.png was not written; the failed run shows none)", shown, want)
	}
}
