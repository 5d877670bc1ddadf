package reconstruct

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// chunkDepth is the ".chunktest" format's chunk depth: deeper than the
// planner's largest block by itself (maxBlockRows), as OME-Zarr's 64.
const chunkDepth = 40

// chunkLevels writes NPY and refuses, as the Zarr writer does, a slab
// that is not whole chunks of chunkDepth slices from where the last
// ended (the output's last chunk may be short).
type chunkLevels struct {
	w          volume.Writer
	next, n    int
	planeBytes int
}

func (c *chunkLevels) WriteLevel(_, z0 int, src []byte) error {
	z1 := z0 + len(src)/c.planeBytes
	if z0 != c.next || (z1-z0)%chunkDepth != 0 && z1 != c.n {
		return fmt.Errorf("planes %d-%d: want whole layers of %d planes from %d", z0, z1, chunkDepth, c.next)
	}
	c.next = z1
	return c.w.WriteSlab(z0, src)
}
func (c *chunkLevels) Align(int) int { return chunkDepth }
func (c *chunkLevels) Commit() error { return c.w.Commit() }
func (c *chunkLevels) Abort() error  { return c.w.Abort() }

func init() {
	create := func(path, _ string, info volume.Info) (volume.Writer, error) { return volume.CreateNPY(path, info) }
	volume.RegisterFormat(&volume.Format{Name: "chunktest", Extensions: []string{".chunktest"}, Create: create})
	volume.RegisterExporter("chunktest", &volume.Exporter{
		Align: func(volume.Info, volume.ExportOptions) []int { return []int{chunkDepth} },
		Create: func(path, ds string, info volume.Info, o volume.ExportOptions) (volume.LevelWriter, error) {
			w, err := create(path, ds, info)
			if err != nil {
				return nil, err
			}
			return &chunkLevels{w: w, n: info.Shape[0], planeBytes: int(info.PlaneBytes())}, nil
		}})
}

// TestRunChunkedWriter: an output written in whole chunks deeper than
// the planner's own largest block (OME-Zarr's 64 slices; `voxlab
// reconstruct scan.nxs out.zarr` failed with "want whole layers of 64
// planes" on a scan of 512 rows) gets planned blocks of whole chunks, and
// the same slices as NPY; a batch size that is not whole chunks is
// refused before anything runs, naming the output.
func TestRunChunkedWriter(t *testing.T) {
	dir := t.TempDir()
	e := exampleScan{nproj: 12, rows: 2*chunkDepth + 5, cols: 16, axis: 8, x: 2, y: -1, r: 3, mu: 0.05}
	proj, darks, flats, err := e.write(dir)
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]any{"darks": darks, "flats": flats, "algorithm": "gridrec"}
	npy, chunked := filepath.Join(dir, "slices.npy"), filepath.Join(dir, "slices.chunktest")
	if _, err := runSpec(t, proj, npy, 3, flags); err != nil {
		t.Fatal(err)
	}
	if _, err := runSpec(t, proj, chunked, 0, flags); err != nil {
		t.Fatalf("planned blocks into a chunked output: %v", err)
	}
	a, err := os.ReadFile(npy)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(chunked)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("the chunked output's slices differ from the NPY's")
	}
	if err := os.Remove(chunked); err != nil {
		t.Fatal(err)
	}
	_, err = runSpec(t, proj, chunked, 10, flags)
	if err == nil || !strings.Contains(err.Error(), "multiple of 40") || !strings.Contains(err.Error(), chunked) {
		t.Errorf("batch size 10 into chunks of %d: got %v, want a refusal naming the output and the multiple", chunkDepth, err)
	}
	if _, serr := os.Stat(chunked); serr == nil {
		t.Error("the refused run left an output")
	}
}
