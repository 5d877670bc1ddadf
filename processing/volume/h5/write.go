package h5

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"syscall"

	"github.com/voxlab/voxlab/internal/bytesize"
	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/volume"
	"gonum.org/v1/hdf5"
)

// File is an HDF5 file being written under a temporary name beside its
// target; Commit renames it into place, Abort removes it.
type File struct {
	target, tmp string
	f           *hdf5.File
	sets        []*DatasetWriter
	done        bool
	// layout, when set, chunks and compresses 3-D datasets (export.go).
	layout *exportLayout
}

// Create starts a new HDF5 file at path (written to a temporary file in
// the same folder until Commit).
func Create(p string) (*File, error) {
	// outfile names the temporary after its owner, and removes those of
	// writers that died (kill -9) before their commit.
	tf, err := outfile.NewTemp(p)
	if err != nil {
		return nil, err
	}
	tmp := tf.Name()
	tf.Close()
	lib.Lock()
	defer lib.Unlock()
	f, err := hdf5.CreateFile(tmp, hdf5.F_ACC_TRUNC)
	if err != nil {
		os.Remove(tmp)
		return nil, fmt.Errorf("create output %s: %w", p, err)
	}
	return &File{target: p, tmp: tmp, f: f}, nil
}

// Target returns the final path.
func (f *File) Target() string { return f.target }

// DatasetWriter writes one dataset slab by slab along its first dimension.
type DatasetWriter struct {
	file    *File
	name    string
	ds      *hdf5.Dataset
	dims    []int
	elem    int
	rowLen  int // elements per index of dimension 0
	written planeSet
}

// CreateDataset adds a dataset of type dt and shape dims (1D, 2D or 3D)
// at name, creating missing parent groups. Write it with WriteSlab.
func (f *File) CreateDataset(name string, dt volume.DType, dims []int) (*DatasetWriter, error) {
	t, err := nativeType(dt)
	if err != nil {
		return nil, fmt.Errorf("create %s:%s: %w", f.target, name, err)
	}
	return f.createDataset(name, t, dt.Size(), dims)
}

func (f *File) createDataset(name string, t *hdf5.Datatype, elem int, shape []int) (*DatasetWriter, error) {
	if len(shape) < 1 || len(shape) > 3 {
		return nil, fmt.Errorf("create %s:%s: shape %v: datasets have 1 to 3 dimensions", f.target, name, shape)
	}
	ud := make([]uint, len(shape))
	total := int64(elem)
	for i, n := range shape {
		if n <= 0 || total > (1<<62)/int64(n) {
			return nil, fmt.Errorf("create %s:%s: bad shape %v", f.target, name, shape)
		}
		total *= int64(n)
		ud[i] = uint(n)
	}
	name = "/" + strings.Trim(name, "/")
	lib.Lock()
	defer lib.Unlock()
	if f.done {
		return nil, errors.New("h5: file already committed or aborted")
	}
	if err := f.groups(filepath.Dir(name)); err != nil {
		return nil, err
	}
	if exists(f.f, name) {
		return nil, fmt.Errorf("create %s:%s: it already exists", f.target, name)
	}
	space, err := hdf5.CreateSimpleDataspace(ud, nil)
	if err != nil {
		return nil, fmt.Errorf("create %s:%s: %w", f.target, name, err)
	}
	defer space.Close()
	ds, err := f.createChunked(name, t, space, shape, elem)
	if err != nil {
		return nil, fmt.Errorf("create %s:%s: %w", f.target, name, err)
	}
	w := &DatasetWriter{file: f, name: name, ds: ds, dims: shape, elem: elem, rowLen: 1}
	for _, n := range shape[1:] {
		w.rowLen *= n
	}
	f.sets = append(f.sets, w)
	return w, nil
}

// WriterCacheBytes is the host memory libhdf5 may hold for a file being
// written: the default chunk cache of its one large dataset (planes are
// written whole, chunk by chunk, so nothing else is buffered).
const WriterCacheBytes = defaultChunkCache

// ioCause says why libhdf5 failed to write tmp, which it reports only as
// "code -1": when the disk holding it has less room than the write needed
// (need bytes, or 1 MiB), the disk is full. Otherwise err is returned.
func ioCause(tmp string, need int64, err error) error {
	var st syscall.Statfs_t
	if syscall.Statfs(filepath.Dir(tmp), &st) != nil {
		return err
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	if free < max(need, 1<<20) {
		return fmt.Errorf("no space left on the disk holding %s (%s free): %w", filepath.Dir(tmp), bytesize.Format(free), syscall.ENOSPC)
	}
	return err
}

// MaxChunkBytes bounds the chunks of 3-D outputs.
const MaxChunkBytes = 16 << 20

// OutputChunks returns the chunk shape voxlab writes a 3-D dataset of
// this shape with: one plane per chunk (as beamlines write projections,
// and as the next reader — voxlab's viewer, or a reconstruction reading
// blocks of projections — reads them), split into bands of rows when a
// plane is over MaxChunkBytes. It returns nil (contiguous) for 1-D and
// 2-D datasets, which are read whole.
func OutputChunks(shape []int, elem int) []uint {
	if len(shape) != 3 {
		return nil
	}
	rowBytes := int64(shape[2]) * int64(elem)
	rows := int64(shape[1])
	if rows*rowBytes > MaxChunkBytes {
		rows = max(1, MaxChunkBytes/rowBytes)
	}
	return []uint{1, uint(rows), uint(shape[2])}
}

// createChunked creates a dataset with the chunks OutputChunks gives.
// Call with lib held.
func (f *File) createChunked(name string, t *hdf5.Datatype, space *hdf5.Dataspace, shape []int, elem int) (*hdf5.Dataset, error) {
	if f.layout != nil && len(shape) == 3 {
		return f.createLaidOut(name, t, space)
	}
	chunks := OutputChunks(shape, elem)
	if chunks == nil {
		return f.f.CreateDataset(name, t, space)
	}
	dcpl, err := hdf5.NewPropList(hdf5.P_DATASET_CREATE)
	if err != nil {
		return nil, err
	}
	defer dcpl.Close()
	if err := dcpl.SetChunk(chunks); err != nil {
		return nil, err
	}
	return f.f.CreateDatasetWith(name, t, space, dcpl)
}

// groups creates the groups of an absolute path that do not exist yet.
// Call with lib held.
func (f *File) groups(p string) error {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	cur := ""
	for _, part := range parts {
		if part == "" {
			continue
		}
		cur += "/" + part
		if f.f.LinkExists(cur) {
			continue
		}
		g, err := f.f.CreateGroup(cur)
		if err != nil {
			return fmt.Errorf("create group %s in %s: %w", cur, f.target, err)
		}
		g.Close()
	}
	return nil
}

// WriteSlab writes src, whole rows of dimension 0 starting at z0, in
// native byte order. Slabs may come in any order, each row once.
func (w *DatasetWriter) WriteSlab(z0 int, src []byte) error {
	rowBytes := w.rowLen * w.elem
	if len(src)%rowBytes != 0 {
		return fmt.Errorf("write %s:%s: slab of %d bytes is not a whole number of %d-byte planes", w.file.target, w.name, len(src), rowBytes)
	}
	z1 := z0 + len(src)/rowBytes
	if z0 < 0 || z1 > w.dims[0] {
		return fmt.Errorf("write %s:%s: planes %d-%d outside [0,%d)", w.file.target, w.name, z0, z1, w.dims[0])
	}
	if z0 == z1 {
		return nil
	}
	lib.Lock()
	defer lib.Unlock()
	if w.ds == nil {
		return fmt.Errorf("write %s:%s: the file was committed or aborted", w.file.target, w.name)
	}
	fs := w.ds.Space()
	if fs == nil {
		return fmt.Errorf("write %s:%s: cannot read the dataspace", w.file.target, w.name)
	}
	defer fs.Close()
	off := make([]uint, len(w.dims))
	count := make([]uint, len(w.dims))
	off[0], count[0] = uint(z0), uint(z1-z0)
	for i := 1; i < len(w.dims); i++ {
		count[i] = uint(w.dims[i])
	}
	if err := fs.SelectHyperslab(off, nil, count, nil); err != nil {
		return fmt.Errorf("write %s:%s: %w", w.file.target, w.name, err)
	}
	// The memory dataspace has the selection's shape, so that libhdf5
	// copies whole chunks instead of mapping element by element.
	ms, err := hdf5.CreateSimpleDataspace(count, nil)
	if err != nil {
		return err
	}
	defer ms.Close()
	if err := w.ds.WriteSubset(&src, ms, fs); err != nil {
		return fmt.Errorf("write planes %d-%d of %s:%s: %w", z0, z1, w.file.target, w.name, ioCause(w.file.tmp, int64(len(src)), err))
	}
	w.written.add(z0, z1)
	return nil
}

// SetAttrs sets attributes on a group (created with its parents if
// missing) or on an existing dataset. Values may be string, int, int64,
// float64, []float64, []int or bool (stored as uint8 0/1, since HDF5 has
// no boolean type).
func (f *File) SetAttrs(object string, attrs map[string]any) error {
	object = "/" + strings.Trim(object, "/")
	lib.Lock()
	defer lib.Unlock()
	if f.done {
		return errors.New("h5: file already committed or aborted")
	}
	var create func(name string, t *hdf5.Datatype, s *hdf5.Dataspace) (*hdf5.Attribute, error)
	if ds, err := f.openDataset(object); err == nil {
		defer ds.Close()
		create = ds.CreateAttribute
	} else {
		if err := f.groups(object); err != nil {
			return err
		}
		g, err := f.f.OpenGroup(object)
		if err != nil {
			return fmt.Errorf("set attributes of %s in %s: %w", object, f.target, err)
		}
		defer g.Close()
		create = g.CreateAttribute
	}
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if err := writeAttr(create, k, attrs[k]); err != nil {
			return fmt.Errorf("attribute %s of %s in %s: %w", k, object, f.target, err)
		}
	}
	return nil
}

// openDataset opens an existing dataset of the file. Call with lib held.
func (f *File) openDataset(name string) (*hdf5.Dataset, error) {
	if !exists(f.f, name) {
		return nil, errors.New("no such dataset")
	}
	return f.f.OpenDataset(name)
}

func writeAttr(create func(string, *hdf5.Datatype, *hdf5.Dataspace) (*hdf5.Attribute, error), name string, v any) error {
	var ptr any // what Attribute.Write reads: a pointer to the first value
	var t *hdf5.Datatype
	n := -1 // scalar
	switch x := v.(type) {
	case string:
		ptr, t = &x, hdf5.T_GO_STRING
	case int:
		y := int64(x)
		ptr, t = &y, hdf5.T_NATIVE_INT64
	case int64:
		ptr, t = &x, hdf5.T_NATIVE_INT64
	case float64:
		ptr, t = &x, hdf5.T_NATIVE_DOUBLE
	case bool:
		var b uint8
		if x {
			b = 1
		}
		ptr, t = &b, hdf5.T_NATIVE_UINT8
	case []float64:
		if len(x) == 0 {
			return errors.New("empty list")
		}
		ptr, t, n = &x[0], hdf5.T_NATIVE_DOUBLE, len(x)
	case []int:
		if len(x) == 0 {
			return errors.New("empty list")
		}
		y := make([]int64, len(x))
		for i := range x {
			y[i] = int64(x[i])
		}
		ptr, t, n = &y[0], hdf5.T_NATIVE_INT64, len(x)
	default:
		return fmt.Errorf("unsupported value type %s", reflect.TypeOf(v))
	}
	var space *hdf5.Dataspace
	var err error
	if n < 0 {
		space, err = hdf5.CreateDataspace(hdf5.S_SCALAR)
	} else {
		space, err = hdf5.CreateSimpleDataspace([]uint{uint(n)}, nil)
	}
	if err != nil {
		return err
	}
	defer space.Close()
	a, err := create(name, t, space)
	if err != nil {
		return fmt.Errorf("cannot create it (set twice?): %w", err)
	}
	defer a.Close()
	return a.Write(ptr, t)
}

// Commit checks that every dataset was written whole, closes the file and
// renames it into place. On error nothing is left behind.
func (f *File) Commit() error {
	lib.Lock()
	if f.done {
		lib.Unlock()
		return errors.New("h5: file already committed or aborted")
	}
	var missing error
	for _, w := range f.sets {
		if z := w.written.firstMissing(w.dims[0]); z < w.dims[0] {
			missing = fmt.Errorf("write %s: dataset %s: plane %d of %d was never written; nothing was saved", f.target, w.name, z, w.dims[0])
			break
		}
	}
	err := f.close()
	lib.Unlock()
	if err == nil {
		err = missing
	}
	if err == nil {
		err = os.Chmod(f.tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(f.tmp, f.target)
	}
	if err != nil {
		os.Remove(f.tmp)
		return err
	}
	return nil
}

// Abort closes and removes the temporary file. It is safe to call after
// Commit (it then does nothing), so it can be deferred.
func (f *File) Abort() error {
	lib.Lock()
	if f.done {
		lib.Unlock()
		return nil
	}
	f.close()
	lib.Unlock()
	return os.Remove(f.tmp)
}

// close closes the datasets and the file. Call with lib held.
func (f *File) close() error {
	f.done = true
	var errs []error
	for _, w := range f.sets {
		errs = append(errs, w.ds.Close())
		w.ds = nil
	}
	errs = append(errs, f.f.Close())
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("write %s: %w", f.target, ioCause(f.tmp, 0, err))
	}
	return nil
}

// volumeWriter is volume.Create's writer for "out.h5:/dataset": one
// dataset (default /data) in a new file.
type volumeWriter struct {
	info volume.Info
	f    *File
	w    *DatasetWriter
}

func createVolume(p, name string, info volume.Info) (volume.Writer, error) {
	if name == "" {
		name = "/data"
	}
	f, err := Create(p)
	if err != nil {
		return nil, err
	}
	w, err := f.CreateDataset(name, info.DType, info.Shape[:])
	if err != nil {
		f.Abort()
		return nil, err
	}
	if info.VoxelSize != [3]float64{} {
		if err := f.SetAttrs(name, map[string]any{"voxel_size": info.VoxelSize[:]}); err != nil {
			f.Abort()
			return nil, err
		}
	}
	return &volumeWriter{info: info, f: f, w: w}, nil
}

func (v *volumeWriter) Info() volume.Info                  { return v.info }
func (v *volumeWriter) WriteSlab(z0 int, src []byte) error { return v.w.WriteSlab(z0, src) }
func (v *volumeWriter) Commit() error                      { return v.f.Commit() }
func (v *volumeWriter) Abort() error                       { return v.f.Abort() }
