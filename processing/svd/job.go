package svd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
)

// set is one input: its label (the file's stem, or gt) and its maps.
type set struct {
	Label, Path string
	Stack       *volume.Stack
}

// analysis is an opened svd run.
type analysis struct {
	subsArg, outDir, maskArg string
	subs                     []set
	gt                       *set
	mask                     []float64
	rank, planes             int
	pre                      Preprocess
	start                    time.Time
}

func open(r pipeline.Request) (pipeline.Job, error) {
	v := r.Values
	a := &analysis{subsArg: r.Args[0], outDir: r.Arg(1), maskArg: v.String("mask"), rank: v.Int("rank"), planes: r.Batch, start: time.Now()}
	ok := false
	defer func() {
		if !ok {
			a.Close()
		}
	}()
	paths, err := submissionPaths(a.subsArg)
	if err != nil {
		return nil, err
	}
	for _, p := range paths {
		s, err := volume.OpenStack(p)
		if err != nil {
			return nil, err
		}
		a.subs = append(a.subs, set{Label: stem(p), Path: p, Stack: s})
	}
	if g := v.String("gt"); g != "" {
		s, err := volume.OpenStack(g)
		if err != nil {
			return nil, err
		}
		a.gt = &set{Label: "gt", Path: g, Stack: s}
	}
	if err := a.check(); err != nil {
		return nil, err
	}
	a.pre = Preprocess{BFactor: v.Float("bfactor"), BoxDS: v.Int("box-size-ds"), VoxelSize: v.Float("voxel-size")}
	if err := a.checkPreprocess(); err != nil {
		return nil, err
	}
	if a.maskArg != "" {
		if a.mask, err = readMask(a.maskArg, a.subs[0].Stack.Map.Shape); err != nil {
			return nil, err
		}
	}
	ok = true
	return a, nil
}

// check refuses maps of different shapes, labels taken twice and ranks
// a set cannot have.
func (a *analysis) check() error {
	first := a.subs[0]
	seen := map[string]string{}
	for _, s := range a.all() {
		if s.Stack.Map.Shape != first.Stack.Map.Shape {
			return fmt.Errorf("box sizes differ: %s holds maps of %v voxels but %s of %v", first.Path, first.Stack.Map.Shape, s.Path, s.Stack.Map.Shape)
		}
		if vs, v0 := s.Stack.Map.VoxelSize, first.Stack.Map.VoxelSize; vs != ([3]float64{}) && v0 != ([3]float64{}) && vs != v0 {
			return fmt.Errorf("pixel sizes differ: %s has %v Å but %s %v Å", first.Path, v0, s.Path, vs)
		}
		if p, dup := seen[s.Label]; dup {
			return fmt.Errorf("%s and %s have the same name %s; their outputs would collide", p, s.Path, s.Label)
		}
		seen[s.Label] = s.Path
		if a.rank >= s.Stack.N {
			return pipeline.Usagef("--rank %d: %s holds %d maps, which span %d directions once their mean is removed", a.rank, s.Path, s.Stack.N, s.Stack.N-1)
		}
	}
	return nil
}

// checkPreprocess checks the B-factor's voxel size (the flag's, else
// the headers') and the downsampled box against the maps.
func (a *analysis) checkPreprocess() error {
	m := a.subs[0].Stack
	if box := m.Box(); a.pre.BoxDS > 0 && (box == 0 || a.pre.BoxDS > box) {
		return pipeline.Usagef("--box-size-ds %d: the maps of %s are %v voxels; the downsampled box must be at most theirs", a.pre.BoxDS, m.Name, m.Map.Shape)
	}
	if a.pre.BFactor == 0 {
		return nil
	}
	if a.pre.VoxelSize == 0 {
		a.pre.VoxelSize = m.Map.VoxelSize[0]
	}
	if !(a.pre.VoxelSize > 0) {
		return pipeline.Usagef("--bfactor needs the voxel size: give --voxel-size Å (%s has none in its header)", m.Name)
	}
	return nil
}

func (a *analysis) all() []set {
	if a.gt == nil {
		return a.subs
	}
	return append(slices.Clone(a.subs), *a.gt)
}

// submissionPaths lists SUBMISSIONS: one stack, or a folder's stacks
// (NPY, MRC, MRCS files and folders of MRC files), sorted naturally.
func submissionPaths(arg string) ([]string, error) {
	st, err := os.Stat(arg)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() || hasMRC(arg) {
		return []string{arg}, nil
	}
	es, err := os.ReadDir(arg)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range es {
		p := filepath.Join(arg, e.Name())
		switch ext := strings.ToLower(filepath.Ext(e.Name())); {
		case e.IsDir() && hasMRC(p), ext == ".npy" || ext == ".mrc" || ext == ".mrcs":
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("%s holds no submission (NPY or MRC stacks, or folders of MRC files)", arg)
	}
	volume.SortNatural(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = filepath.Join(arg, n)
	}
	return out, nil
}

// hasMRC: the folder holds MRC files (it is one stack, a map a file).
func hasMRC(dir string) bool {
	m, _ := filepath.Glob(filepath.Join(dir, "*.mrc"))
	return len(m) > 0
}

func stem(p string) string {
	b := filepath.Base(p)
	return strings.TrimSuffix(b, filepath.Ext(b))
}

// readMask reads the mask, which must have the maps' shape.
func readMask(path string, shape [3]int) ([]float64, error) {
	v, err := volume.Open(path)
	if err != nil {
		return nil, err
	}
	defer v.Close()
	if v.Shape != shape {
		return nil, fmt.Errorf("mask %s is %v voxels; the maps are %v", path, v.Shape, shape)
	}
	src := v.Source()
	if src, err = volume.AsFloat32(src); err != nil {
		return nil, fmt.Errorf("mask %s: %w", path, err)
	}
	b := make([]byte, v.Len()*4)
	if err := src.ReadSlab(0, shape[0], b); err != nil {
		return nil, fmt.Errorf("mask %s: %w", path, err)
	}
	out := make([]float64, v.Len())
	for i, x := range volume.Float32s(b) {
		out[i] = float64(x)
	}
	return out, nil
}

func (a *analysis) Close() error {
	for _, s := range a.all() {
		s.Stack.Close()
	}
	return nil
}

// Run computes every set's SVD, then the distance matrix, and writes OUT.
func (a *analysis) Run(ctx context.Context, p *job.Progress, d pipeline.Device) (*pipeline.Report, error) {
	pl, err := a.Plan(d)
	if err != nil {
		return nil, err
	}
	sets := a.all()
	nz := sets[0].Stack.Map.Shape[0]
	if a.pre.BoxDS > 0 {
		nz = a.pre.BoxDS
	}
	p.Stage("SVD", int64(2*len(sets)*nz), "planes")
	results := make([]*Result, len(sets))
	for k, s := range sets {
		src, err := a.source(s, p)
		if err != nil {
			return nil, err
		}
		if results[k], err = GramSVD(ctx, src, a.rank, pl.Block()*a.plane(), workers(d)); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Path, err)
		}
	}
	return a.write(results, pl, p)
}

// workers is the threads of the SVD's products: the CPU backend's
// workers; on another backend (the SVD runs on the host whatever the
// device) every core.
func workers(d pipeline.Device) int {
	if c, ok := d.Backend.(interface{ Workers() int }); ok {
		return c.Workers()
	}
	return runtime.GOMAXPROCS(0)
}

// plane is the voxels of a plane of the maps the SVD reads (after any
// downsampling).
func (a *analysis) plane() int {
	m := a.subs[0].Stack.Map
	if a.pre.BoxDS > 0 {
		return a.pre.BoxDS * a.pre.BoxDS
	}
	return m.Shape[1] * m.Shape[2]
}

// source is what the SVD of s reads: its maps slab by slab, or, when a
// preprocessing wants whole maps, the preprocessed maps held in memory.
func (a *analysis) source(s set, p *job.Progress) (Source, error) {
	var src Source
	var err error
	if a.pre.Active() {
		src, err = preprocessed(s.Stack, a.mask, a.pre)
	} else {
		src, err = newStackSource(s.Stack, a.mask)
	}
	if err != nil {
		return nil, err
	}
	return &progressSource{src, a.plane(), p}, nil
}

// progressSource counts the planes read.
type progressSource struct {
	Source
	plane int
	p     *job.Progress
}

func (s *progressSource) Read(v0, v1 int, dst []float64) error {
	if err := s.Source.Read(v0, v1, dst); err != nil {
		return err
	}
	s.p.Add(int64((v1 - v0 + s.plane - 1) / s.plane))
	return nil
}
