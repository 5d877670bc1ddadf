package h5

import (
	"fmt"
	"math"
	"strings"

	"github.com/voxlab/voxlab/processing/volume"
	"gonum.org/v1/hdf5"
)

// Paths of the NeXus tomography layout (NXtomo, as Diamond's beamlines
// write it and httomo reads it).
const (
	TomoImageKey = "/entry1/tomo_entry/instrument/detector/image_key"
	TomoAngles   = "/entry1/tomo_entry/data/rotation_angle"
)

// Image keys of NXtomo.
const (
	KeyProjection = 0
	KeyFlat       = 1
	KeyDark       = 2
)

// NeXus is an open tomography scan. Projections, Flats and Darks are lazy
// volumes over the frames of Data with that image key, in file order
// (flats taken before and after the scan become one stack); Flats and
// Darks are nil when the scan has none. Close the NeXus, not the volumes.
type NeXus struct {
	Path string
	// Data is every frame as stored: frames x rows x cols.
	Data                      *volume.Volume
	Projections, Flats, Darks *volume.Volume
	// ImageKey is the key of each frame of Data (all 0 when the file has
	// no image_key).
	ImageKey []int
	// Angles are the projections' rotation angles as stored (degrees in
	// Diamond's files), one per projection; nil when the file has none.
	Angles []float64
	// ProjectionFrames, FlatFrames and DarkFrames are the indices into
	// Data of each kind's frames.
	ProjectionFrames, FlatFrames, DarkFrames []int
	data                                     *dataset
}

// IsNeXus reports whether path is an HDF5 file with a tomography scan:
// frames at TomoData, or an NXtomo entry elsewhere (see findTomo).
func IsNeXus(p string) bool {
	ok := false
	withFile(p, func(f *file) error {
		_, ok = findTomo(f)
		return nil
	})
	return ok
}

// OpenNeXus opens a NeXus tomography scan. It reads the image keys and
// angles, never the frames. A scan without projections is an error.
func OpenNeXus(p string) (*NeXus, error) {
	nx, err := openNeXus(p)
	if err != nil {
		return nil, err
	}
	if err := nx.split(); err != nil {
		nx.Close()
		return nil, err
	}
	return nx, nil
}

func openNeXus(p string) (nx *NeXus, err error) {
	err = withFile(p, func(f *file) error {
		at, ok := findTomo(f)
		if !ok {
			return fmt.Errorf("%s: not a NeXus tomography scan: no %s and no NXtomo entry with data and image_key", p, TomoData)
		}
		d, err := openDataset(f, at.data)
		if err != nil {
			return err
		}
		nx = &NeXus{Path: p, data: d, Data: volume.New(p+":"+at.data, d)}
		if err := nx.readKeys(f, at); err != nil {
			d.closeLocked()
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return nx, nil
}

// maxFrames bounds the frames of a scan whose image keys voxlab reads
// (keys and angles are held whole: 2^28 frames take 2 GiB each as int
// and float64), so that a small file declaring 10^12 frames is an error,
// not an allocation that ends the process.
const maxFrames = 1 << 28

// readKeys reads image_key and rotation_angle. Call with lib held.
func (nx *NeXus) readKeys(f *file, at tomoLayout) error {
	n := nx.Data.Shape[0]
	if n > maxFrames {
		return fmt.Errorf("%s:%s: %d frames, more than the %d voxlab reads image keys for", nx.Path, at.data, n, maxFrames)
	}
	nx.ImageKey = make([]int, n)
	if at.key != "" {
		keys, err := readNumbers(f, at.key)
		if err != nil {
			return err
		}
		if len(keys) != n {
			return fmt.Errorf("%s:%s: %d keys for %d frames", nx.Path, at.key, len(keys), n)
		}
		for i, k := range keys {
			if k != math.Trunc(k) {
				return fmt.Errorf("%s:%s: key %v of frame %d is not an integer", nx.Path, at.key, k, i)
			}
			nx.ImageKey[i] = int(k)
		}
	}
	if at.angles == "" {
		return nil
	}
	all, err := readNumbers(f, at.angles)
	if err != nil {
		return err
	}
	var proj []float64
	for i, k := range nx.ImageKey {
		if k == KeyProjection && i < len(all) {
			proj = append(proj, all[i])
		}
	}
	switch {
	case len(all) == n:
		nx.Angles = proj
	case len(all) == len(proj) || len(all) == countKey(nx.ImageKey, KeyProjection):
		nx.Angles = all // one angle per projection only
	default:
		return fmt.Errorf("%s:%s: %d angles for %d frames", nx.Path, at.angles, len(all), n)
	}
	return nil
}

func countKey(keys []int, k int) int {
	n := 0
	for _, x := range keys {
		if x == k {
			n++
		}
	}
	return n
}

// split builds the three subset volumes.
func (nx *NeXus) split() error {
	for i, k := range nx.ImageKey {
		switch k {
		case KeyProjection:
			nx.ProjectionFrames = append(nx.ProjectionFrames, i)
		case KeyFlat:
			nx.FlatFrames = append(nx.FlatFrames, i)
		case KeyDark:
			nx.DarkFrames = append(nx.DarkFrames, i)
		}
	}
	if len(nx.ProjectionFrames) == 0 {
		return fmt.Errorf("%s: the scan has no projections (no frame has image_key 0)", nx.Path)
	}
	for _, s := range []struct {
		frames []int
		dst    **volume.Volume
		name   string
	}{{nx.ProjectionFrames, &nx.Projections, "projections"}, {nx.FlatFrames, &nx.Flats, "flats"}, {nx.DarkFrames, &nx.Darks, "darks"}} {
		if len(s.frames) == 0 {
			continue
		}
		src, err := volume.Subset(nx.data, s.frames)
		if err != nil {
			return err
		}
		*s.dst = volume.New(nx.Path+" "+s.name, src)
	}
	return nil
}

// Counts returns the number of frames of each kind.
func (nx *NeXus) Counts() *volume.FrameCounts {
	return &volume.FrameCounts{Projections: countKey(nx.ImageKey, KeyProjection), Flats: countKey(nx.ImageKey, KeyFlat),
		Darks: countKey(nx.ImageKey, KeyDark), Angles: nx.Angles != nil}
}

// part says what the projections leave out of the scan's frames; ok is
// false when they are every frame (or there are none).
func (nx *NeXus) part() (volume.Part, bool) {
	c := nx.Counts()
	other := len(nx.ImageKey) - c.Projections - c.Flats - c.Darks
	if c.Projections == 0 || c.Projections == len(nx.ImageKey) {
		return volume.Part{}, false
	}
	var left []string
	for _, k := range []struct {
		n    int
		name string
	}{{c.Darks, "dark"}, {c.Flats, "flat"}, {other, "frame of other keys"}} {
		if k.n > 0 {
			left = append(left, plural(k.n, k.name))
		}
	}
	text := strings.Join(left, ", ")
	if i := strings.LastIndex(text, ", "); i >= 0 {
		text = text[:i] + " and " + text[i+2:]
	}
	return volume.Part{Kept: plural(c.Projections, "projection"), Left: text + " (image_key)", Whole: nx.Data.Name}, true
}

// plural says "1 dark", "2 darks", "2 frames of other keys".
func plural(n int, noun string) string {
	if n != 1 {
		noun, rest, _ := strings.Cut(noun, " ")
		return strings.TrimSpace(fmt.Sprintf("%d %ss %s", n, noun, rest))
	}
	return fmt.Sprintf("%d %s", n, noun)
}

// projections is a scan's projections as the volume a bare path opens:
// closing it closes the scan.
type projections struct {
	src  volume.Source
	part volume.Part
	nx   *NeXus
}

func (p *projections) Info() volume.Info                     { return p.src.Info() }
func (p *projections) ReadSlab(z0, z1 int, dst []byte) error { return p.src.ReadSlab(z0, z1, dst) }

// Source returns the projections' subset of the frames (for ReadBox and
// the chunk layout).
func (p *projections) Source() volume.Source { return p.src }

// Part implements volume.PartOf.
func (p *projections) Part() volume.Part { return p.part }

func (p *projections) Close() error { return p.nx.Close() }

// openProjections opens the projections of p when it is a NeXus scan
// with frames of other kinds; ok is false (nothing open) when it is not
// a scan, or its frames are all projections or none: then the dataset is
// the volume.
func openProjections(p string) (v *volume.Volume, ok bool, err error) {
	if !IsNeXus(p) {
		return nil, false, nil
	}
	nx, err := openNeXus(p)
	if err != nil {
		return nil, true, err
	}
	part, ok := nx.part()
	if !ok {
		nx.Close()
		return nil, false, nil
	}
	if err := nx.split(); err != nil {
		nx.Close()
		return nil, true, err
	}
	return volume.New(p+" (projections)", &projections{src: nx.Projections.Source(), part: part, nx: nx}), true, nil
}

// Close closes the scan's file.
func (nx *NeXus) Close() error {
	if nx.data == nil {
		return nil
	}
	err := nx.data.Close()
	nx.data = nil
	return err
}

// readNumbers reads a 1D numeric dataset. Call with lib held.
func readNumbers(f *file, name string) ([]float64, error) {
	ds, err := f.f.OpenDataset(name)
	if err != nil {
		return nil, fmt.Errorf("%s:%s: not a dataset", f.path, name)
	}
	defer ds.Close()
	s := ds.Space()
	if s == nil {
		return nil, fmt.Errorf("%s:%s: cannot read the dataspace", f.path, name)
	}
	shape, err := dims(s)
	s.Close()
	if err != nil {
		return nil, fmt.Errorf("%s:%s: %w", f.path, name, err)
	}
	if len(shape) != 1 {
		return nil, fmt.Errorf("%s:%s: shape %v, want one value per frame", f.path, name, shape)
	}
	n := shape[0]
	t, err := ds.Datatype()
	if err != nil {
		return nil, fmt.Errorf("%s:%s: cannot read the datatype", f.path, name)
	}
	ft, tname, ok := typeOf(t)
	t.Close()
	if !ok {
		return nil, fmt.Errorf("%s:%s: values of type %s, want numbers", f.path, name, tname)
	}
	if n > maxFrames {
		return nil, fmt.Errorf("%s:%s: %d values, more than the %d frames voxlab reads", f.path, name, n, maxFrames)
	}
	if n == 0 {
		return nil, nil
	}
	fs, err := filters(ds)
	if err == nil {
		err = checkFilters(fs)
	}
	if err != nil {
		return nil, fmt.Errorf("%s:%s: %w", f.path, name, err)
	}
	st := storage{path: f.path, name: name, shape: shape, chunk: chunkShape(ds), elem: ft.size, filters: fs}
	buf := make([]byte, n*ft.size)
	if err := st.read(ds, []int{0}, []int{n}, buf); err != nil {
		return nil, err
	}
	return ft.decode(buf), nil
}

// WriteNeXus writes a tomography scan in the NXtomo layout: the frames of
// data (read slab by slab, so the scan need not fit in memory) at
// TomoData, imageKey (one per frame) at TomoImageKey as int32 and, when
// not nil, angles (degrees, one per frame) at TomoAngles. The file is
// written beside path and renamed when complete.
func WriteNeXus(p string, data volume.Source, imageKey []int, angles []float64) (err error) {
	in := data.Info()
	n := in.Shape[0]
	if len(imageKey) != n || (angles != nil && len(angles) != n) {
		return fmt.Errorf("write %s: %d frames, %d image keys, %d angles", p, n, len(imageKey), len(angles))
	}
	f, err := Create(p)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Abort()
		}
	}()
	groups := map[string]string{
		"/entry1": "NXentry", "/entry1/tomo_entry": "NXsubentry", "/entry1/tomo_entry/data": "NXdata",
		"/entry1/tomo_entry/instrument": "NXinstrument", "/entry1/tomo_entry/instrument/detector": "NXdetector",
	}
	for g, class := range groups {
		attrs := map[string]any{"NX_class": class}
		if class == "NXsubentry" {
			attrs["definition"] = "NXtomo"
		}
		if class == "NXdata" {
			attrs["signal"] = "data"
		}
		if err := f.SetAttrs(g, attrs); err != nil {
			return err
		}
	}
	if err := writeKeys(f, imageKey, angles); err != nil {
		return err
	}
	w, err := f.CreateDataset(TomoData, in.DType, in.Shape[:])
	if err != nil {
		return err
	}
	step := max(1, int((64<<20)/in.PlaneBytes()))
	buf := make([]byte, int64(min(step, n))*in.PlaneBytes())
	for z := 0; z < n; z += step {
		z1 := min(z+step, n)
		b := buf[:int64(z1-z)*in.PlaneBytes()]
		if err := data.ReadSlab(z, z1, b); err != nil {
			return fmt.Errorf("write %s: %w", p, err)
		}
		if err := w.WriteSlab(z, b); err != nil {
			return err
		}
	}
	return f.Commit()
}

func writeKeys(f *File, imageKey []int, angles []float64) error {
	keys := make([]int32, len(imageKey))
	for i, k := range imageKey {
		keys[i] = int32(k)
	}
	kw, err := f.createDataset(TomoImageKey, hdf5.T_NATIVE_INT32, 4, []int{len(keys)})
	if err != nil {
		return err
	}
	if err := kw.WriteSlab(0, int32Bytes(keys)); err != nil {
		return err
	}
	if angles == nil {
		return nil
	}
	aw, err := f.CreateDataset(TomoAngles, volume.Float64, []int{len(angles)})
	if err != nil {
		return err
	}
	if err := aw.WriteSlab(0, volume.Bytes(angles)); err != nil {
		return err
	}
	return f.SetAttrs(TomoAngles, map[string]any{"units": "degrees"})
}

func int32Bytes(s []int32) []byte {
	b := make([]byte, 4*len(s))
	for i, v := range s {
		u := uint32(v)
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(u), byte(u>>8), byte(u>>16), byte(u>>24)
	}
	return b
}
