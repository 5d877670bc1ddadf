package h5

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
	"gonum.org/v1/hdf5"
)

// TomoData is where NeXus tomography scans keep their frames; without a
// dataset path it is opened when the file has no single 3D dataset.
const TomoData = "/entry1/tomo_entry/data/data"

func init() {
	volume.RegisterFormat(&volume.Format{
		Name:       "hdf5",
		Extensions: []string{".h5", ".hdf5", ".hdf", ".nxs", ".nx5"},
		Open:       Open,
		Inspect:    Inspect,
		Create:     createVolume,
		NumberAttr: numberAttr,
	})
}

// file is an open HDF5 file shared by the volumes read from it; it is
// closed when the last of them closes.
type file struct {
	path string
	f    *hdf5.File
	refs int
}

// openFile opens path read-only after checking that it is an HDF5 file.
// Call with lib held.
func openFile(p string) (*file, error) {
	if _, err := os.Stat(p); err != nil {
		return nil, err
	}
	if !hdf5.IsHDF5(p) {
		return nil, fmt.Errorf("%s: not an HDF5 file (no HDF5 signature)", p)
	}
	f, err := hdf5.OpenFile(p, hdf5.F_ACC_RDONLY)
	if err != nil {
		return nil, fmt.Errorf("%s: HDF5 file cannot be opened: it is damaged or truncated", p)
	}
	return &file{path: p, f: f, refs: 1}, nil
}

// withFile opens path read-only and calls fn with lib held; the file is
// released when fn returns (datasets fn opened keep their own reference).
func withFile(p string, fn func(f *file) error) error {
	lib.Lock()
	defer lib.Unlock()
	f, err := openFile(p)
	if err != nil {
		return err
	}
	defer f.release()
	return fn(f)
}

// release drops one reference. Call with lib held.
func (f *file) release() error {
	f.refs--
	if f.refs > 0 {
		return nil
	}
	return f.f.Close()
}

// dataset is a Source over an HDF5 dataset of rank 2 (one plane) or 3.
type dataset struct {
	info volume.Info
	file *file
	ds   *hdf5.Dataset
	name string
	rank int
	big  bool
	elem int
	// chunk is the chunk shape (nil: contiguous) and cache the bytes of
	// libhdf5's chunk cache for the dataset.
	chunk []int
	cache int64
	// track counts the chunk cache's tracked bytes while the dataset is
	// open (SetReadMemory).
	track   *plan.Tracker
	tracked int64
	// filters is the chunks' filter pipeline.
	filters []Filter
	// st is what a checked read needs.
	st storage
	// vds holds the mappings of a virtual dataset (nil for others).
	vds *virtual
}

// openDataset opens name in f as a Source. Call with lib held.
func openDataset(f *file, name string) (*dataset, error) {
	if !exists(f.f, name) {
		return nil, fmt.Errorf("%s: no dataset %s%s", f.path, name, suggest(f, name))
	}
	ds, err := f.f.OpenDataset(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %s is not a dataset (a group?)%s", f.path, name, suggest(f, name))
	}
	d, err := describeDataset(f.path, name, ds)
	if err != nil {
		ds.Close()
		return nil, err
	}
	if d.filters, err = filters(d.ds); err != nil {
		d.ds.Close()
		return nil, fmt.Errorf("%s:%s: %w", f.path, name, err)
	}
	if err := checkFilters(d.filters); err != nil {
		d.ds.Close()
		return nil, fmt.Errorf("%s:%s: %w", f.path, name, err)
	}
	if err := d.sizeCache(f, name); err != nil {
		if d.ds != nil {
			d.ds.Close()
		}
		return nil, err
	}
	if err := d.checkStored(f); err != nil {
		d.ds.Close()
		return nil, err
	}
	d.st = storage{path: f.path, name: name, shape: d.dims(), chunk: d.chunk, elem: d.elem, filters: d.filters}
	if isVirtual(d.ds) {
		if d.vds, err = openVirtual(f.path, d); err != nil {
			d.ds.Close()
			return nil, err
		}
	}
	f.refs++
	d.file = f
	return d, nil
}

// checkStored refuses a contiguous dataset whose declared shape the file
// does not hold: its data are uncompressed, so a dataset that stores
// fewer bytes than its shape and type take (a header declaring 10^12
// frames in a file of kilobytes) is damaged or was never written, and a
// run over it would only read fill values. Call with lib held.
func (d *dataset) checkStored(f *file) error {
	stored, ok := contiguousStored(d.ds)
	if !ok || stored >= d.info.Bytes() {
		return nil
	}
	return fmt.Errorf("%s:%s: the dataset declares %v of %s (%s) but the file stores %s of it: it is damaged, truncated or was never written",
		f.path, d.name, d.info.Shape, d.info.DType, plan.FormatBytes(d.info.Bytes()), plan.FormatBytes(stored))
}

// describeDataset checks that ds is a 2D or 3D dataset of a type voxlab
// reads and returns a source over it (file not set).
func describeDataset(p, name string, ds *hdf5.Dataset) (*dataset, error) {
	space := ds.Space()
	if space == nil {
		return nil, fmt.Errorf("%s:%s: cannot read the dataspace", p, name)
	}
	defer space.Close()
	shape, err := dims(space)
	if err != nil {
		return nil, fmt.Errorf("%s:%s: %w", p, name, err)
	}
	t, err := ds.Datatype()
	if err != nil {
		return nil, fmt.Errorf("%s:%s: cannot read the datatype", p, name)
	}
	defer t.Close()
	ft, tname, ok := typeOf(t)
	if !ok || ft.dt == volume.InvalidDType {
		return nil, fmt.Errorf("%s:%s: unsupported dtype %s (voxlab reads int8, uint8, int16, uint16, int32, uint32, float32 and float64)", p, name, tname)
	}
	info := volume.Info{DType: ft.dt}
	switch len(shape) {
	case 2:
		info.Shape = [3]int{1, shape[0], shape[1]}
	case 3:
		info.Shape = [3]int{shape[0], shape[1], shape[2]}
	default:
		return nil, fmt.Errorf("%s:%s: dataset of shape %v: voxlab opens 2D and 3D datasets as volumes", p, name, shape)
	}
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("%s:%s: %w", p, name, err)
	}
	info.VoxelSize = voxelSize(ds)
	return &dataset{info: info, ds: ds, name: name, rank: len(shape), big: ft.big, elem: ft.size}, nil
}

func (d *dataset) Info() volume.Info { return d.info }

// defaultChunkCache is libhdf5's own chunk cache per dataset.
const defaultChunkCache = 1 << 20

// maxChunkCache bounds the chunk cache voxlab asks for without a plan.
const maxChunkCache = 256 << 20

// filterState is what a filter holds besides its input and output (a
// deflate window, a plugin's scratch).
const filterState = 1 << 20

// sizeCache records the chunk layout and sizes libhdf5's chunk cache for
// how voxlab reads when no plan sizes it (SetReadMemory). Chunks that
// span several planes get a cache holding one layer of chunks across the
// plane: a block of planes that ends inside a chunk then finds it
// decoded when the next block starts, instead of decoding it twice.
// Chunks of one plane get no cache: a block reads each whole, once, and
// a y or x slice (ReadBox) touches each once, where an uncompressed
// chunk small enough for the default 1 MiB cache would be read whole for
// the one row the slice needs. Call with lib held.
func (d *dataset) sizeCache(f *file, name string) error {
	d.chunk = chunkShape(d.ds)
	if d.chunk == nil {
		return nil
	}
	d.cache = defaultChunkCache
	if d.rank != 3 {
		return nil
	}
	want := int64(0) // one-plane chunks: no cache
	if d.chunk[0] > 1 {
		if want = min(d.layout().Layer, maxChunkCache); want <= defaultChunkCache {
			return nil
		}
	}
	return d.setCache(f, want)
}

// setCache reopens the dataset with a chunk cache of want bytes. libhdf5
// evicts chunks already read whole first (w0 = 1): those a sequential
// reader is done with. libhdf5 applies an access list's cache only when
// it opens a dataset no handle holds open, so the handle is closed first.
// Call with lib held.
func (d *dataset) setCache(f *file, want int64) error {
	dapl, err := hdf5.NewPropList(hdf5.P_DATASET_ACCESS)
	if err != nil {
		return fmt.Errorf("%s:%s: %w", f.path, d.name, err)
	}
	defer dapl.Close()
	// libhdf5 wants a hash table of about 100 slots per cached chunk,
	// preferably prime.
	slots := 10007
	if chunk := d.layout().Chunk; chunk > 0 && want/chunk > 100 {
		slots = 1000003
	}
	if err := dapl.SetChunkCache(slots, int(want), 1); err != nil {
		return fmt.Errorf("%s:%s: set the chunk cache: %w", f.path, d.name, err)
	}
	d.ds.Close()
	ds, err := f.f.OpenDatasetWith(d.name, dapl)
	if err != nil {
		// Keep a handle with libhdf5's own cache, so that reads go on.
		ds, _ = f.f.OpenDataset(d.name)
	}
	d.ds = ds
	if ds == nil {
		return fmt.Errorf("%s:%s: reopen with a chunk cache: %w", f.path, d.name, err)
	}
	// What libhdf5 applied: another handle of the dataset open elsewhere
	// keeps the cache it was opened with.
	if d.cache = cacheInEffect(ds); d.cache < 0 {
		d.cache = want
	}
	return err
}

// layout returns the chunk layout of a chunked dataset. libhdf5 decodes
// one chunk at a time (voxlab holds its lock): a decoder holds what the
// checked read allows one chunk in flight (storage.decodeBytes: the
// stored chunk and the decoded one, which becomes the cached chunk or is
// dropped once copied), the chunk map of the read (readMapBytes) and,
// when filtered, the filters' own state.
func (d *dataset) layout() volume.ChunkLayout {
	if d.chunk == nil {
		return volume.ChunkLayout{}
	}
	n := int64(d.elem)
	for _, c := range d.chunk {
		n *= int64(c)
	}
	st := storage{chunk: d.chunk, elem: d.elem, filters: d.filters}
	l := volume.ChunkLayout{Depth: 1, Layers: 1, Chunk: n, Layer: n, PerDecoder: st.decodeBytes() + readMapBytes, MaxDecoders: 1}
	if len(d.filters) > 0 {
		l.PerDecoder += filterState
	}
	plane := d.chunk
	if d.rank == 3 {
		l.Depth, plane = d.chunk[0], d.chunk[1:]
		l.Layers = (d.info.Shape[0] + l.Depth - 1) / l.Depth
	}
	shape := d.info.Shape[1:]
	for i, c := range plane {
		l.Layer *= int64((shape[i] + c - 1) / c)
	}
	return l
}

// ChunkLayout implements volume.Chunked.
func (d *dataset) ChunkLayout() volume.ChunkLayout { return d.layout() }

// ReadMemory implements volume.Chunked: libhdf5's chunk cache and the
// buffers of the chunk it decodes.
func (d *dataset) ReadMemory() volume.ReadMemory {
	lib.Lock()
	defer lib.Unlock()
	return volume.ReadMemory{Decoders: 1, PerDecoder: d.layout().PerDecoder, Cache: d.cache}
}

// SetReadMemory implements volume.Chunked: libhdf5's chunk cache gets
// m.Cache bytes (none when 0: every chunk is decoded for each read that
// needs it). The cache's bytes are counted in m.Track while the dataset
// is open; libhdf5 decodes one chunk at a time whatever m.Decoders says.
func (d *dataset) SetReadMemory(m volume.ReadMemory) {
	lib.Lock()
	defer lib.Unlock()
	if d.ds == nil || d.chunk == nil {
		return
	}
	if m.Cache != d.cache {
		// On failure the dataset keeps its cache: reads go on, and the
		// tracker counts what it is.
		_ = d.setCache(d.file, m.Cache)
	}
	d.track.Add(volume.LabelCache, -d.tracked)
	d.track, d.tracked = m.Track, d.cache
	d.track.Add(volume.LabelCache, d.tracked)
}

// DecodeBytes returns the host memory a read holds in flight for each
// chunk it decodes, beyond the chunk cache and the destination: the
// chunk as stored (at most maxStored of its decoded size: a chunk index
// saying more is refused) and as decoded (never more than the chunk's
// size: a chunk whose header or stream says more is refused before
// anything is allocated); with two filters or more, the largest input
// and output of one filter. 0 for a contiguous dataset. A plan counts it
// once per reading thread (reads are serialised: one).
func (d *dataset) DecodeBytes() int64 {
	if d.vds != nil {
		return d.vds.decodeBytes()
	}
	return d.st.decodeBytes()
}

// dims returns the dataset's dimensions (rank 2 or 3).
func (d *dataset) dims() []int {
	if d.rank == 2 {
		return []int{d.info.Shape[1], d.info.Shape[2]}
	}
	return d.info.Shape[:]
}

// Chunks returns the dataset's chunk shape, nil when contiguous.
func (d *dataset) Chunks() []int { return d.chunk }

// ReadSlab reads planes [z0, z1) with one hyperslab selection.
func (d *dataset) ReadSlab(z0, z1 int, dst []byte) error {
	if err := volume.CheckSlab(d.info, z0, z1, len(dst)); err != nil {
		return err
	}
	return d.read(volume.Box{Z0: z0, Z1: z1, Y1: d.info.Shape[1], X1: d.info.Shape[2]}, dst)
}

// ReadBox reads part of each plane with one hyperslab selection: a y or
// x slice of a scan chunked one frame per chunk reads one row or column
// of each chunk instead of every frame whole.
func (d *dataset) ReadBox(b volume.Box, dst []byte) error {
	if err := volume.CheckBox(d.info, b, len(dst)); err != nil {
		return err
	}
	return d.read(b, dst)
}

// read reads box b. The memory dataspace has the selection's own 3-D
// shape: with a flat 1-D one, libhdf5 maps a chunked dataset element by
// element, which the field measured at ~100x slower for frame-per-chunk
// scans (FIELD_NOTES.md, "Compressed HDF5").
func (d *dataset) read(b volume.Box, dst []byte) error {
	if b.Len() == 0 {
		return nil
	}
	lib.Lock()
	defer lib.Unlock()
	return d.readLocked(b, dst)
}

// readLocked reads box b. Call with lib held.
func (d *dataset) readLocked(b volume.Box, dst []byte) error {
	if d.ds == nil {
		return errors.New("dataset is closed")
	}
	if d.vds != nil { // the sources come in native byte order
		return d.vds.read(b, d.elem, dst)
	}
	off := []int{b.Z0, b.Y0, b.X0}
	count := []int{b.Z1 - b.Z0, b.Y1 - b.Y0, b.X1 - b.X0}
	if d.rank == 2 {
		off, count = off[1:], count[1:]
	}
	// The memory type is the file type, so libhdf5 copies bytes without
	// converting; big-endian data are swapped here.
	if err := d.st.read(d.ds, off, count, dst); err != nil {
		return fmt.Errorf("%w (reading %s)", err, d.boxText(b))
	}
	if d.big {
		swap(dst, d.elem)
	}
	return nil
}

// boxText names a box in messages: "planes 3-7", with the rows and
// columns when it holds part of each plane.
func (d *dataset) boxText(b volume.Box) string {
	s := fmt.Sprintf("planes %d-%d", b.Z0, b.Z1)
	if b.Y0 != 0 || b.X0 != 0 || b.Y1 != d.info.Shape[1] || b.X1 != d.info.Shape[2] {
		s += fmt.Sprintf(", rows %d-%d, columns %d-%d", b.Y0, b.Y1, b.X0, b.X1)
	}
	return s
}

func (d *dataset) Close() error {
	lib.Lock()
	defer lib.Unlock()
	return d.closeLocked()
}

// closeLocked closes the dataset. Call with lib held.
func (d *dataset) closeLocked() error {
	if d.ds == nil {
		return nil
	}
	err := d.ds.Close()
	d.ds = nil
	if d.vds != nil {
		err = errors.Join(err, d.vds.close())
	}
	d.track.Add(volume.LabelCache, -d.tracked)
	d.tracked = 0
	return errors.Join(err, d.file.release())
}

// Open opens a dataset of an HDF5 file as a volume. Without a dataset
// path it picks one (defaultDataset: the only 3D dataset, links
// followed, or a tomography scan's frames, or the only NXdata signal);
// otherwise the error lists the candidates.
//
// A NeXus tomography scan named without a dataset opens as its
// projections (frames with image_key 0), as it does in every command;
// volume.PartOf says what it left out and how to name every frame.
func Open(p, name string) (*volume.Volume, error) {
	if name == "" {
		if v, ok, err := openProjections(p); ok {
			return v, err
		}
	}
	return openNamed(p, name)
}

// openNamed opens dataset name of p (Open's pick when empty), whole.
func openNamed(p, name string) (*volume.Volume, error) {
	var v *volume.Volume
	err := withFile(p, func(f *file) (err error) {
		if name == "" {
			if name, err = defaultDataset(f); err != nil {
				return err
			}
		}
		name = "/" + strings.Trim(name, "/")
		d, err := openDataset(f, name)
		if err != nil {
			return err
		}
		v = volume.New(p+":"+name, d)
		return nil
	})
	return v, err
}

// exists reports whether every link on the path exists (H5Lexists fails
// on a path whose parent is missing). Call with lib held.
func exists(f *hdf5.File, name string) bool {
	parts := strings.Split(strings.Trim(name, "/"), "/")
	for i := range parts {
		if !f.LinkExists("/" + strings.Join(parts[:i+1], "/")) {
			return false
		}
	}
	return len(parts) > 0 && parts[0] != ""
}

// suggest lists the datasets of the named path's deepest existing group.
// Call with lib held.
func suggest(f *file, name string) string {
	nodes, err := walk(f)
	if err != nil {
		return ""
	}
	var ds []string
	for _, n := range nodes {
		if n.Kind == "dataset" {
			ds = append(ds, n.Path)
		}
	}
	if len(ds) == 0 {
		return " (the file holds no datasets)"
	}
	if len(ds) > 12 {
		ds = append(ds[:12], "...")
	}
	return " (datasets: " + strings.Join(ds, ", ") + ")"
}

// voxelSize reads the (z, y, x) voxel size from the dataset's
// "voxel_size" attribute (voxlab's) or "element_size_um" (ilastik's and
// BigStitcher's); zero when absent. Call with lib held.
func voxelSize(ds *hdf5.Dataset) [3]float64 {
	for _, name := range []string{"voxel_size", "element_size_um"} {
		a, err := ds.OpenAttribute(name)
		if err != nil {
			continue
		}
		var v [3]float64
		ok := false
		if s := a.Space(); s != nil {
			ok = s.SimpleExtentNPoints() == 3
			s.Close()
		}
		t := hdf5.Datatype{Identifier: a.GetType()}
		ok = ok && (t.Class() == hdf5.T_FLOAT || t.Class() == hdf5.T_INTEGER)
		t.Close()
		if ok {
			ok = a.Read(&v, hdf5.T_NATIVE_DOUBLE) == nil
		}
		a.Close()
		if ok {
			return v
		}
	}
	return [3]float64{}
}
