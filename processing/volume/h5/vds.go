package h5

// Virtual datasets (VDS, libhdf5 1.10 on): a dataset whose planes are
// mapped from datasets of other files, the way Diamond's detectors write
// a scan (each writer process fills its own chunked, compressed file;
// the scan's file maps them into one dataset). libhdf5 would decode the
// sources' chunks inside one read of the virtual dataset, where voxlab's
// filter guard cannot know which source's chunk it is decoding, so
// voxlab reads the sources itself: each mapping's source is opened as a
// dataset of its own (its chunks checked as any dataset's are, checked.go)
// and its elements are placed where the mapping puts them, following
// libhdf5's VDS rules (the RFC "HDF5 Virtual Dataset", 2014, and
// H5Pset_virtual): the n-th element selected in the virtual dataset is
// the n-th selected in the source; a relative source file name is looked
// for under HDF5_VDS_PREFIX, beside the file holding the virtual dataset,
// then in the working directory; "." is that file itself; what no
// mapping covers reads as the dataset's fill value.
//
// voxlab reads mappings whose selections are regular hyperslabs (or
// whole dataspaces) that agree dimension by dimension once dimensions of
// one element are set aside: blocks of planes, frames interleaved over
// writers, one 2D image per plane, column blocks. A source file that is
// missing is an error (libhdf5 reads it as fill values), and so is an
// unlimited mapping (a scan still being written).

// #include <stdlib.h>
// #include <hdf5.h>
//
// typedef struct {
// 	int rank;
// 	hsize_t start[32], stride[32], count[32], block[32];
// } vox_sel;
//
// // selOf describes selection sp as a regular hyperslab: 0, -2 when it
// // is of another kind, -3 when unlimited, -1 on error. A source's
// // dataspace as stored may have no extent (libhdf5 sets it when it opens
// // the source), so the rank and dims of the source are given (rank > 0).
// static int selOf(hid_t sp, int rank, const hsize_t *dims, vox_sel *s) {
// 	hsize_t own[32];
// 	if (rank <= 0) {
// 		rank = H5Sget_simple_extent_ndims(sp);
// 		if (rank < 0 || rank > 32 || H5Sget_simple_extent_dims(sp, own, NULL) < 0) return -1;
// 		dims = own;
// 	}
// 	s->rank = rank;
// 	switch (H5Sget_select_type(sp)) {
// 	case H5S_SEL_ALL:
// 		for (int i = 0; i < rank; i++) s->start[i] = 0, s->stride[i] = 1, s->count[i] = 1, s->block[i] = dims[i];
// 		return 0;
// 	case H5S_SEL_HYPERSLABS:
// 		if (H5Sis_regular_hyperslab(sp) <= 0) return -2;
// 		if (H5Sget_regular_hyperslab(sp, s->start, s->stride, s->count, s->block) < 0) return -1;
// 		for (int i = 0; i < rank; i++)
// 			if (s->count[i] == H5S_UNLIMITED || s->block[i] == H5S_UNLIMITED) return -3;
// 		return 0;
// 	default:
// 		return -2;
// 	}
// }
//
// // isVirtual reports whether ds is a virtual dataset (1), 0, or -1.
// static int isVirtual(hid_t ds) {
// 	hid_t dcpl = H5Dget_create_plist(ds);
// 	if (dcpl < 0) return -1;
// 	int v = H5Pget_layout(dcpl) == H5D_VIRTUAL;
// 	H5Pclose(dcpl);
// 	return v;
// }
//
// // vdsCount returns the number of mappings of ds, -1 on error.
// static long long vdsCount(hid_t ds) {
// 	hid_t dcpl = H5Dget_create_plist(ds);
// 	if (dcpl < 0) return -1;
// 	size_t n = 0;
// 	herr_t r = H5Pget_virtual_count(dcpl, &n);
// 	H5Pclose(dcpl);
// 	return r < 0 ? -1 : (long long)n;
// }
//
// // vdsNames fetches the source file and dataset names of mapping i.
// static int vdsNames(hid_t ds, size_t i, char *file, size_t flen, char *dset, size_t dlen) {
// 	hid_t dcpl = H5Dget_create_plist(ds);
// 	if (dcpl < 0) return -1;
// 	int r = H5Pget_virtual_filename(dcpl, i, file, flen) < 0 || H5Pget_virtual_dsetname(dcpl, i, dset, dlen) < 0 ? -1 : 0;
// 	H5Pclose(dcpl);
// 	return r;
// }
//
// // vdsSel describes the virtual (src 0) or source (src 1) selection of
// // mapping i, as selOf does; rank and dims are the source's.
// static int vdsSel(hid_t ds, size_t i, int src, int rank, const hsize_t *dims, vox_sel *s) {
// 	hid_t dcpl = H5Dget_create_plist(ds);
// 	if (dcpl < 0) return -1;
// 	hid_t sp = src ? H5Pget_virtual_srcspace(dcpl, i) : H5Pget_virtual_vspace(dcpl, i);
// 	int r = sp < 0 ? -1 : selOf(sp, src ? rank : 0, dims, s);
// 	if (sp >= 0) H5Sclose(sp);
// 	H5Pclose(dcpl);
// 	return r;
// }
//
// // vdsFill writes the fill value of ds, in its file type, to buf (n
// // bytes): 0, or -1 on error.
// static int vdsFill(hid_t ds, void *buf, size_t n) {
// 	hid_t dcpl = H5Dget_create_plist(ds), t = H5Dget_type(ds);
// 	int r = -1;
// 	if (dcpl >= 0 && t >= 0 && H5Tget_size(t) == n && H5Pget_fill_value(dcpl, t, buf) >= 0) r = 0;
// 	if (t >= 0) H5Tclose(t);
// 	if (dcpl >= 0) H5Pclose(dcpl);
// 	return r;
// }
//
// // fileName writes the name of the file holding object id to buf.
// static long long fileName(hid_t id, char *buf, size_t n) { return (long long)H5Fget_name(id, buf, n); }
import "C"

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unsafe"

	"github.com/voxlab/voxlab/processing/volume"
	"gonum.org/v1/hdf5"
)

// maxVDSDepth bounds virtual datasets over virtual datasets (a file
// mapping itself would otherwise open itself for ever).
const maxVDSDepth = 8

// vdsDepth counts the virtual datasets being opened, one inside the
// other. Guarded by lib.
var vdsDepth int

// maxOpenSources bounds the source files a virtual dataset holds open:
// a scan written one file per frame or per block maps thousands, past
// the process's file descriptors. The least recently read are closed
// and reopened when read again. A variable for tests.
var maxOpenSources = 64

// axis is a regular hyperslab along one dimension: count blocks of block
// elements, stride apart from start.
type axis struct{ start, stride, count, block int }

// extent is the number of elements the axis selects.
func (a axis) extent() int { return a.count * a.block }

// index returns the rank of coordinate c among the selected ones, or -1
// when c is not selected.
func (a axis) index(c int) int {
	if c < a.start {
		return -1
	}
	q, r := 0, c-a.start // one block: the stride does not matter
	if a.count > 1 {
		q, r = (c-a.start)/a.stride, (c-a.start)%a.stride
	}
	if q >= a.count || r >= a.block {
		return -1
	}
	return q*a.block + r
}

// coord returns the coordinate of the j-th selected element.
func (a axis) coord(j int) int { return a.start + (j/a.block)*a.stride + j%a.block }

// mapping is one mapping of a virtual dataset: the virtual and source
// selections, three dimensions each (a 2D one gets a leading dimension
// of one element), and the source dataset once open.
type mapping struct {
	file, name string
	v, s       [3]axis
	// from is, for each source dimension, the virtual dimension whose
	// coordinates drive it; -1 when the source selects one element there.
	from [3]int
	// path is the source file found (sourcePath); src the source while
	// open (nil once closed), used when it was last read.
	path string
	src  *dataset
	used uint64
	// decode, cache and codec are the source's DecodeBytes, chunk cache
	// and filters, kept while it is closed.
	decode, cache int64
	codec         string
}

// virtual is what reading a virtual dataset needs: its mappings and its
// fill value (elem bytes, in native byte order as reads return them).
type virtual struct {
	maps []*mapping
	fill []byte
	// plane is the bytes of one plane, for DecodeBytes.
	plane int64
	// scratch holds what one source read returns (at most a plane),
	// reused: reads hold lib, one at a time.
	scratch []byte
	// open counts the sources open; clock orders their reads.
	open  int
	clock uint64
	// cacheCap bounds each source's chunk cache (0: their own).
	cacheCap int64
	// home and d are the file holding the virtual dataset and the
	// dataset, for reopening sources and for messages.
	home string
	d    *dataset
}

// isVirtual reports whether ds is a virtual dataset. Call with lib held.
func isVirtual(ds *hdf5.Dataset) bool { return C.isVirtual(C.hid_t(ds.ID())) == 1 }

// openVirtual reads the mappings of the virtual dataset d (of file p)
// and opens their sources. Call with lib held.
func openVirtual(p string, d *dataset) (*virtual, error) {
	if vdsDepth >= maxVDSDepth {
		return nil, fmt.Errorf("%s:%s: virtual datasets nest more than %d deep (does it map itself?)", p, d.name, maxVDSDepth)
	}
	vdsDepth++
	defer func() { vdsDepth-- }()
	id := C.hid_t(d.ds.ID())
	n := int64(C.vdsCount(id))
	if n < 0 {
		return nil, fmt.Errorf("%s:%s: cannot read the virtual dataset's mappings", p, d.name)
	}
	vd := &virtual{fill: make([]byte, d.elem), plane: int64(d.info.Shape[1]) * int64(d.info.Shape[2]) * int64(d.elem)}
	if C.vdsFill(id, unsafe.Pointer(&vd.fill[0]), C.size_t(d.elem)) < 0 {
		return nil, fmt.Errorf("%s:%s: cannot read the virtual dataset's fill value", p, d.name)
	}
	if d.big {
		swap(vd.fill, d.elem)
	}
	vd.home, vd.d = holder(p, d.ds), d
	for i := int64(0); i < n; i++ {
		m, err := readMapping(p, vd.home, d, int(i))
		if m != nil {
			vd.maps = append(vd.maps, m)
			vd.open += boolInt(m.src != nil)
		}
		if err != nil {
			vd.close()
			return nil, err
		}
		m.decode, m.cache, m.codec = m.src.st.decodeBytes(), m.src.cache, codecText(m.src.filters)
		if n > int64(maxOpenSources) { // opened again when read
			vd.closeSource(m)
		}
	}
	vd.shareCache()
	return vd, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// shareCache bounds the chunk caches of the sources together by what one
// dataset gets without a plan (maxChunkCache): each source sized its own
// (a layer of its chunks), and a scan of many writers' files would hold
// them all. Call with lib held.
func (vd *virtual) shareCache() {
	var sum int64
	for _, m := range vd.maps {
		sum += m.cache
	}
	if sum <= maxChunkCache {
		return
	}
	vd.cacheCap = int64(maxChunkCache) / int64(min(len(vd.maps), maxOpenSources))
	for _, m := range vd.maps {
		vd.capCache(m)
	}
}

// capCache applies cacheCap to an open source. Call with lib held.
func (vd *virtual) capCache(m *mapping) {
	if vd.cacheCap == 0 || m.src == nil || m.src.chunk == nil || m.src.cache <= vd.cacheCap {
		return
	}
	_ = m.src.setCache(m.src.file, vd.cacheCap) // on failure it keeps its own
	m.cache = m.src.cache
}

// closeSource closes m's source. Call with lib held.
func (vd *virtual) closeSource(m *mapping) error {
	if m.src == nil {
		return nil
	}
	err := m.src.closeLocked()
	m.src = nil
	vd.open--
	return err
}

// source returns m's source, reopened if it was closed, closing the
// least recently read one past maxOpenSources. Call with lib held.
func (vd *virtual) source(m *mapping) (*dataset, error) {
	vd.clock++
	m.used = vd.clock
	if m.src != nil {
		return m.src, nil
	}
	if vd.open >= maxOpenSources {
		var lru *mapping
		for _, o := range vd.maps {
			if o.src != nil && (lru == nil || o.used < lru.used) {
				lru = o
			}
		}
		if lru != nil {
			if err := vd.closeSource(lru); err != nil {
				return nil, err
			}
		}
	}
	if err := m.openAt(m.path, vd.home, vd.d); err != nil {
		return nil, err
	}
	vd.open++
	vd.capCache(m)
	return m.src, nil
}

// holder returns the path of the file that holds ds: p, or the file an
// external link led to.
func holder(p string, ds *hdf5.Dataset) string {
	var buf [4096]C.char
	if n := C.fileName(C.hid_t(ds.ID()), &buf[0], C.size_t(len(buf))); n <= 0 || int(n) >= len(buf) {
		return p
	}
	name := C.GoString(&buf[0])
	if !filepath.IsAbs(name) && filepath.IsAbs(p) {
		// libhdf5 names the file as it was opened: relative to the
		// working directory, or to the linking file's folder.
		if _, err := os.Stat(name); err != nil {
			name = filepath.Join(filepath.Dir(p), name)
		}
	}
	return name
}

// readMapping reads mapping i of d, opens its source (of home's folder
// when its file name is relative) and pairs the selections. Call with
// lib held.
func readMapping(p, home string, d *dataset, i int) (*mapping, error) {
	var file, name [4096]C.char
	id := C.hid_t(d.ds.ID())
	if C.vdsNames(id, C.size_t(i), &file[0], C.size_t(len(file)), &name[0], C.size_t(len(name))) < 0 {
		return nil, fmt.Errorf("%s:%s: cannot read mapping %d of the virtual dataset", p, d.name, i)
	}
	m := &mapping{file: C.GoString(&file[0]), name: C.GoString(&name[0])}
	what := fmt.Sprintf("%s:%s: mapping %d (from %s:%s)", p, d.name, i, m.file, m.name)
	var v, s C.vox_sel
	if err := selErr(C.vdsSel(id, C.size_t(i), 0, 0, nil, &v)); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	var err error
	if m.v, err = axes(&v); err != nil {
		return nil, fmt.Errorf("%s: virtual selection: %w", what, err)
	}
	if err := m.open(home, d); err != nil {
		return m, err
	}
	sd := m.src.dims()
	dims := make([]C.hsize_t, len(sd))
	for k, n := range sd {
		dims[k] = C.hsize_t(n)
	}
	if err := selErr(C.vdsSel(id, C.size_t(i), 1, C.int(len(sd)), &dims[0], &s)); err != nil {
		return m, fmt.Errorf("%s: %w", what, err)
	}
	if m.s, err = axes(&s); err != nil {
		return m, fmt.Errorf("%s: source selection: %w", what, err)
	}
	if err := m.pair(); err != nil {
		return m, fmt.Errorf("%s: %w", what, err)
	}
	sh := m.src.info.Shape
	for k, a := range m.s {
		if a.coord(a.extent()-1) >= sh[k] {
			return m, fmt.Errorf("%s: the mapping selects beyond the source, of shape %v", what, sd)
		}
	}
	return m, nil
}

// selErr is the error of vdsSel's status.
func selErr(r C.int) error {
	switch r {
	case 0:
		return nil
	case -2:
		return errors.New("its selection is not a regular hyperslab, which voxlab does not read")
	case -3:
		return errors.New("the mapping is unlimited (a scan still being written?); voxlab reads virtual datasets of fixed size")
	}
	return errors.New("cannot read the mapping's selection")
}

// axes converts a selection of rank 2 or 3 to three axes.
func axes(s *C.vox_sel) ([3]axis, error) {
	out := [3]axis{{0, 1, 1, 1}, {0, 1, 1, 1}, {0, 1, 1, 1}}
	rank := int(s.rank)
	if rank < 2 || rank > 3 {
		return out, fmt.Errorf("of rank %d (voxlab maps 2D and 3D datasets)", rank)
	}
	for i := 0; i < rank; i++ {
		a := axis{int(s.start[i]), int(s.stride[i]), int(s.count[i]), int(s.block[i])}
		if a.block < 1 || a.count < 1 {
			return out, errors.New("selects nothing")
		}
		if a.count > 1 && a.stride < a.block {
			return out, errors.New("has overlapping blocks")
		}
		out[3-rank+i] = a
	}
	return out, nil
}

// pair matches the dimensions of the source selection with those of the
// virtual one: dimensions selecting more than one element, in order,
// must select as many in both.
func (m *mapping) pair() error {
	var vd, sd []int
	for i := range 3 {
		if m.v[i].extent() > 1 {
			vd = append(vd, i)
		}
		if m.s[i].extent() > 1 {
			sd = append(sd, i)
		}
		m.from[i] = -1
	}
	ok := len(vd) == len(sd)
	for k := 0; ok && k < len(vd); k++ {
		ok = m.v[vd[k]].extent() == m.s[sd[k]].extent()
		m.from[sd[k]] = vd[k]
	}
	if !ok {
		return fmt.Errorf("the virtual selection %s and the source's %s do not match dimension by dimension, which voxlab does not read",
			extents(m.v), extents(m.s))
	}
	return nil
}

func extents(a [3]axis) string {
	return fmt.Sprintf("(%d, %d, %d)", a[0].extent(), a[1].extent(), a[2].extent())
}

// open opens the mapping's source dataset, of home's folder when its
// file name is relative. Call with lib held.
func (m *mapping) open(home string, d *dataset) error {
	p, err := sourcePath(home, m.file)
	if err != nil {
		return fmt.Errorf("%s:%s: planes mapped from %s:%s: %w", home, d.name, m.file, m.name, err)
	}
	m.path = p
	return m.openAt(p, home, d)
}

// openAt opens the source dataset in file p. Call with lib held.
func (m *mapping) openAt(p, home string, d *dataset) error {
	f, err := openFile(p)
	if err != nil {
		return fmt.Errorf("%s:%s: source of the virtual dataset: %w", home, d.name, err)
	}
	defer f.release()
	src, err := openDataset(f, "/"+strings.TrimLeft(m.name, "/"))
	if err != nil {
		return fmt.Errorf("%s:%s: source of the virtual dataset: %w", home, d.name, err)
	}
	m.src = src
	if src.info.DType != d.info.DType {
		return fmt.Errorf("%s:%s: source %s:%s holds %s, the virtual dataset %s (voxlab reads sources of the dataset's own type)",
			home, d.name, p, m.name, src.info.DType, d.info.DType)
	}
	return nil
}

// sourcePath finds a source file as libhdf5 does (H5Pset_virtual): "."
// is home itself; a relative name is looked for under each folder of
// HDF5_VDS_PREFIX (where "${ORIGIN}" is home's folder), beside home,
// then from the working directory.
func sourcePath(home, name string) (string, error) {
	if name == "." {
		return home, nil
	}
	if filepath.IsAbs(name) {
		if _, err := os.Stat(name); err != nil {
			return "", fmt.Errorf("the source file %s is missing", name)
		}
		return name, nil
	}
	dir := filepath.Dir(home)
	var tried []string
	if pre := os.Getenv("HDF5_VDS_PREFIX"); pre != "" {
		for _, d := range filepath.SplitList(pre) {
			tried = append(tried, filepath.Join(strings.ReplaceAll(d, "${ORIGIN}", dir), name))
		}
	}
	tried = append(tried, filepath.Join(dir, name), name)
	for _, p := range tried {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("the source file %s is missing (looked for %s)", name, strings.Join(tried, ", "))
}

// close closes the sources. Call with lib held.
func (vd *virtual) close() error {
	var errs []error
	for _, m := range vd.maps {
		errs = append(errs, vd.closeSource(m))
	}
	return errors.Join(errs...)
}

// decodeBytes is what a read holds beyond its destination: the largest
// of the sources' decoding buffers, one plane read from a source, and the
// sources' chunk caches (the plan sees the virtual dataset as unchunked,
// so they are counted here).
func (vd *virtual) decodeBytes() int64 {
	var n, cache int64
	for _, m := range vd.maps {
		n = max(n, m.decode)
		cache += m.cache
	}
	return n + vd.plane + cache
}

// codecs lists the sources' filter pipelines, each once.
func (vd *virtual) codecs() string {
	seen := map[string]bool{}
	var out []string
	for _, m := range vd.maps {
		if c := m.codec; !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return strings.Join(out, "; ")
}

// read reads box b of the virtual dataset (three dimensions; a 2D one
// has one plane) into dst, plane by plane so that a source read holds at
// most a plane. Call with lib held.
func (vd *virtual) read(b volume.Box, elem int, dst []byte) error {
	lo, hi := [3]int{b.Z0, b.Y0, b.X0}, [3]int{b.Z1, b.Y1, b.X1}
	plane := (hi[1] - lo[1]) * (hi[2] - lo[2]) * elem
	for z := lo[0]; z < hi[0]; z++ {
		out := dst[(z-lo[0])*plane : (z-lo[0]+1)*plane]
		fillWith(out, vd.fill)
		for _, m := range vd.maps {
			if err := vd.readPlane(m, z, lo, hi, elem, out); err != nil {
				return err
			}
		}
	}
	return nil
}

// fillWith fills out with copies of value, doubling what is filled at
// each copy.
func fillWith(out, value []byte) {
	if len(out) == 0 {
		return
	}
	n := copy(out, value)
	for n < len(out) {
		n += copy(out[n:], out[:n])
	}
}

// hit is a coordinate of the box the mapping selects: its place in the
// box and its rank among the selected ones.
type hit struct{ at, j int }

// hits lists the coordinates in [lo, hi) axis a selects.
func hits(a axis, lo, hi int) []hit {
	var out []hit
	for c := max(lo, a.start); c < hi; c++ {
		if j := a.index(c); j >= 0 {
			out = append(out, hit{c - lo, j})
		}
	}
	return out
}

// readPlane reads what mapping m puts in plane z of box [lo, hi) into
// out, that plane of the box. Call with lib held.
func (vd *virtual) readPlane(m *mapping, z int, lo, hi [3]int, elem int, out []byte) error {
	var h [3][]hit
	if h[0] = hits(m.v[0], z, z+1); len(h[0]) == 0 {
		return nil
	}
	for i := 1; i < 3; i++ {
		if h[i] = hits(m.v[i], lo[i], hi[i]); len(h[i]) == 0 {
			return nil
		}
	}
	// The source box: each dimension's first and last coordinate.
	var s0, s1 [3]int
	for i, a := range m.s {
		if f := m.from[i]; f >= 0 {
			s0[i], s1[i] = a.coord(h[f][0].j), a.coord(h[f][len(h[f])-1].j)+1
		} else {
			s0[i], s1[i] = a.start, a.start+1
		}
	}
	box := volume.Box{Z0: s0[0], Z1: s1[0], Y0: s0[1], Y1: s1[1], X0: s0[2], X1: s1[2]}
	n := box.Len() * int64(elem)
	if int64(cap(vd.scratch)) < n {
		vd.scratch = make([]byte, n)
	}
	buf := vd.scratch[:n]
	src, err := vd.source(m)
	if err != nil {
		return err
	}
	if err := src.readLocked(box, buf); err != nil {
		return err
	}
	m.scatter(h, s0, s1, elem, hi[2]-lo[2], buf, out)
	return nil
}

// scatter copies the source box buf, [s0, s1), to the box positions of
// the hits; rows of consecutive elements on both sides are copied whole.
func (m *mapping) scatter(h [3][]hit, s0, s1 [3]int, elem, width int, buf, out []byte) {
	sy, sx := s1[1]-s0[1], s1[2]-s0[2]
	var sc [3]int
	at := func(d int, hh hit) {
		for i, f := range m.from {
			if f == d {
				sc[i] = m.s[i].coord(hh.j) - s0[i]
			}
		}
	}
	run := m.from[2] == 2 // source x follows box x
	for _, hz := range h[0] {
		at(0, hz)
		for _, hy := range h[1] {
			at(1, hy)
			xs := h[2]
			for k := 0; k < len(xs); {
				at(2, xs[k])
				n := 1
				for run && k+n < len(xs) && xs[k+n].at == xs[k].at+n && m.s[2].coord(xs[k+n].j) == m.s[2].coord(xs[k].j)+n {
					n++
				}
				from := ((sc[0]*sy+sc[1])*sx + sc[2]) * elem
				to := (hy.at*width + xs[k].at) * elem
				copy(out[to:to+n*elem], buf[from:from+n*elem])
				k += n
			}
		}
	}
}
