package dezing

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/iocheck"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// memContainer is a container format kept in memory, registered under
// the names of HDF5 and Zarr so that the spec's output layout is tested
// without their C libraries (the real ones are app's tests').
type memContainer struct {
	mu        sync.Mutex
	arrays    map[string]*bytes.Buffer
	shapes    map[string][]int
	attrs     map[string]map[string]any
	image     map[string][3]float64
	committed bool
}

var (
	memMu    sync.Mutex
	memFiles = map[string]*memContainer{}
)

type memArray struct {
	c    *memContainer
	name string
}

func (a memArray) WriteSlab(z0 int, src []byte) error {
	a.c.mu.Lock()
	defer a.c.mu.Unlock()
	a.c.arrays[a.name].Write(src)
	return nil
}

func (c *memContainer) CreateArray(name string, dt volume.DType, shape []int) (volume.SlabWriter, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.arrays[name], c.shapes[name] = &bytes.Buffer{}, shape
	return memArray{c, name}, nil
}
func (c *memContainer) SetAttrs(name string, attrs map[string]any) error {
	c.attrs[name] = attrs
	return nil
}
func (c *memContainer) SetImage(name string, voxel [3]float64) error {
	c.image[name] = voxel
	return nil
}
func (c *memContainer) Commit() error { c.committed = true; return nil }
func (c *memContainer) Abort() error  { return nil }

func init() {
	for _, f := range []struct {
		name, ext string
	}{{"hdf5", ".h5"}, {"zarr", ".zarr"}} {
		volume.RegisterContainer(&volume.ContainerFormat{Name: f.name, Extensions: []string{f.ext}, Folders: f.ext == ".zarr",
			Create: func(path string) (volume.Container, error) {
				c := &memContainer{arrays: map[string]*bytes.Buffer{}, shapes: map[string][]int{}, attrs: map[string]map[string]any{}, image: map[string][3]float64{}}
				memMu.Lock()
				memFiles[path] = c
				memMu.Unlock()
				return c, nil
			},
			WriterBytes: func(int64) int64 { return 1 << 20 }})
	}
}

func cpuDevice(t *testing.T) pipeline.Device {
	be := gpu.NewCPU()
	t.Cleanup(func() { be.Close() })
	b := plan.Budget{Shared: true, Host: 2 << 30, HostSource: "test"}
	return pipeline.Device{Backend: be, Budget: b, BudgetFor: func(gpu.DeviceInfo) (plan.Budget, error) { return b, nil }}
}

// TestSpecWritesTheLayout: a run through the spec writes the projections
// Run computes, laid out as the output's format has them — /data and
// /voxlab/params in an HDF5 file, the image "0" (with its voxel size)
// and the "voxlab" attributes in an OME-Zarr store — and commits.
func TestSpecWritesTheLayout(t *testing.T) {
	dir := t.TempDir()
	args, err := Spec.Example(dir)
	if err != nil {
		t.Fatal(err)
	}
	v, err := volume.Open(args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	want := newMemOutput(OutInfo(Shapes{Projections: v.Info}, DefaultConfig()))
	ref, err := Run(context.Background(), job.NewProgress("ref", func(job.Event) {}), gpu.NewCPU(), DefaultConfig(), Input{Projections: volSource{v}}, want)
	if err != nil {
		t.Fatal(err)
	}
	if ref.Replaced.Projections == 0 {
		t.Fatal("the example's zingers were not replaced: the counts below test nothing")
	}
	for _, tc := range []struct {
		out, data, params string
		image             bool
	}{{"out.h5", "/data", "/voxlab/params", false}, {"out.ome.zarr", "0", "voxlab", true}} {
		out := filepath.Join(dir, tc.out)
		j, err := Spec.Open(pipeline.Request{Args: []string{args[0], out}, Values: Spec.Defaults()})
		if err != nil {
			t.Fatal(err)
		}
		rep, err := j.Run(context.Background(), job.NewProgress("dezing", func(job.Event) {}), cpuDevice(t))
		j.Close()
		if err != nil {
			t.Fatal(err)
		}
		memMu.Lock()
		c := memFiles[out]
		memMu.Unlock()
		if c == nil || !c.committed {
			t.Fatalf("%s: no committed container", tc.out)
		}
		if !bytes.Equal(c.arrays[tc.data].Bytes(), want.data) || fmt.Sprint(c.shapes[tc.data]) != "[24 32 40]" {
			t.Errorf("%s: %s holds %d bytes of shape %v, want Run's %d", tc.out, tc.data, c.arrays[tc.data].Len(), c.shapes[tc.data], len(want.data))
		}
		if a := c.attrs[tc.params]; a["kernel"] != 3 || a["input"] != args[0] || a["projections"] != 24 {
			t.Errorf("%s: params %v", tc.out, a)
		}
		if _, ok := c.image[tc.data]; ok != tc.image {
			t.Errorf("%s: image recorded %v, want %v", tc.out, ok, tc.image)
		}
		if s := rep.Summary.(Summary); s.Projections != 24 || s.Output != out || s.Replaced != ref.Replaced || s.Dezinged.Projections != 24*32*40 {
			t.Errorf("%s: summary %+v", tc.out, s)
		}
		// What the median replaced: in the attributes and the notes.
		if a := c.attrs[tc.params]; a["replaced_projections"] != ref.Replaced.Projections || a["replaced_darks"] != int64(0) {
			t.Errorf("%s: replaced counts in the attributes %v, %v; want %d, 0", tc.out, a["replaced_projections"], a["replaced_darks"], ref.Replaced.Projections)
		}
		if note := fmt.Sprintf("dezing: replaced %d of 30720 projection voxels", ref.Replaced.Projections); !strings.Contains(strings.Join(rep.Notes, "\n"), note) {
			t.Errorf("%s: the notes %q do not say %q", tc.out, rep.Notes, note)
		}
		if got, want := Spec.Live.Result([]string{args[0], out}), map[bool]string{false: out + ":/data", true: out}[tc.image]; got != want {
			t.Errorf("%s: the viewer opens %q, want %q", tc.out, got, want)
		}
	}
}

// TestSpecRefusesBadRequests: the request's values are checked as the
// configuration's (usage errors), the output before any work (an output
// that is the input by Spec.Paths, before Open).
func TestSpecRefusesBadRequests(t *testing.T) {
	dir := t.TempDir()
	args, err := Spec.Example(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		set   func(pipeline.Values)
		out   string
		usage bool
		want  string
	}{
		"even kernel":     {func(v pipeline.Values) { v["kernel"] = 4 }, "o.h5", true, "kernel 4"},
		"minus-log alone": {func(v pipeline.Values) { v["minus-log"] = true }, "o.h5", true, "flat-field"},
		"reduction":       {func(v pipeline.Values) { v["darks-flats"] = "mode" }, "o.h5", true, "mean or median"},
		"output folder":   {func(pipeline.Values) {}, "missing/o.h5", false, "does not exist"},
		"output is input": {func(pipeline.Values) {}, args[0], false, "is the input"},
	} {
		v := Spec.Defaults()
		tc.set(v)
		out := tc.out
		if !filepath.IsAbs(out) {
			out = filepath.Join(dir, out)
		}
		// As the application does: the paths checked, then Open.
		r := pipeline.Request{Args: []string{args[0], out}, Values: v}
		err := iocheck.Check(Spec.Paths(r))
		if err == nil {
			_, err = Spec.Open(r)
		}
		var ue pipeline.UsageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || (tc.usage != (fmt.Sprintf("%T", err) == fmt.Sprintf("%T", ue))) {
			t.Errorf("%s: %v (%T), want a usage error %v saying %q", name, err, err, tc.usage, tc.want)
		}
	}
}
