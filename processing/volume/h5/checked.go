package h5

// Checked reads: every read of a chunked dataset first looks up the
// chunks it touches in the file's chunk index (their stored sizes and
// filter masks), then reads with voxlab's filter guard told which
// filters each chunk runs and how many bytes it holds (guard.c). A read
// that fails is retried chunk by chunk to name the chunk at fault.

// #include <stdlib.h>
// #include <hdf5.h>
// #include "guard.h"
import "C"

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"gonum.org/v1/hdf5"
)

// storage is what a checked read of one dataset needs to know.
type storage struct {
	path, name string
	shape      []int // the dataset's dimensions
	chunk      []int // nil: contiguous
	elem       int
	filters    []Filter
}

// chunkBytes is the decoded size of one chunk, 0 when contiguous.
func (s *storage) chunkBytes() int64 {
	if s.chunk == nil {
		return 0
	}
	n := int64(s.elem)
	for _, c := range s.chunk {
		n *= int64(c)
	}
	return n
}

// maxStored bounds the bytes a chunk of n decoded bytes may be stored in:
// what the filters' encoders write for incompressible data (a few bytes
// of header per block on top of the data) with room to spare. A chunk
// index that says more is refused before libhdf5 allocates for it. It is
// also the most an intermediate filter may produce.
func maxStored(n int64) int64 { return n + n/8 + 4096 }

// decodeBytes is the host memory a read holds per chunk it decodes: the
// stored chunk and the decoded one (with two or more filters, the
// largest pair of a filter's input and output).
func (s *storage) decodeBytes() int64 {
	n := s.chunkBytes()
	switch {
	case n == 0:
		return 0
	case len(s.filters) == 0:
		return n
	case len(s.filters) == 1:
		return maxStored(n) + n
	}
	return 2 * maxStored(n)
}

// sequence lists the ids of the filters a chunk with filter mask mask
// runs when read, in the order they run.
func (s *storage) sequence(mask uint32) []C.int {
	var ids []C.int
	for i := len(s.filters) - 1; i >= 0; i-- {
		if mask&(1<<uint(i)) == 0 {
			ids = append(ids, C.int(s.filters[i].ID))
		}
	}
	return ids
}

// maxReadChunks bounds the chunks one H5Dread touches. For each chunk a
// read touches libhdf5 keeps a copy of the file's and the memory's
// selection until the read ends (H5S_select_copy in its chunk map, about
// chunkMapBytes a chunk): heaptrack measured 15 MB for one read of 32
// rows across a scan of 1,800 one-projection chunks (BENCHMARKS.md,
// "Where the C heap goes"). A box over more chunks is read in slabs of
// whole chunk layers along its first axis, and the readers' plan counts
// what one read's map holds (readMapBytes).
const (
	maxReadChunks = 64
	chunkMapBytes = 8 << 10
	readMapBytes  = maxReadChunks * chunkMapBytes
)

// callArgs is the arguments scan and readBox pass to C, kept from call
// to call (under lib, which every caller holds): made per call, they
// escaped to the heap, ~50 KB of garbage a block of 32 rows of a
// one-projection-a-chunk scan (29 slabs), which the collector left to
// pile up to the CLI's soft memory limit, 17 MB over the reconstruction's
// plan on a 10 GB scan (BENCHMARKS.md, "Reconstruction").
var callArgs struct {
	a, b, c, d  [C.H5S_MAX_RANK]C.hsize_t
	mask        C.uint
	msg, reason [C.VOX_MSG]C.char
}

// read reads the box [off, off+count) of ds into dst, which holds it, in
// slabs of at most maxReadChunks chunks (at least one layer of chunks).
// Call with lib held.
func (s *storage) read(ds *hdf5.Dataset, off, count []int, dst []byte) error {
	if s.chunk == nil {
		return s.readBox(ds, off, count, off, count, dst, nil)
	}
	perLayer := 1
	for i := 1; i < len(off); i++ {
		perLayer *= (off[i]+count[i]-1)/s.chunk[i] - off[i]/s.chunk[i] + 1
	}
	layers := max(1, maxReadChunks/perLayer)
	pOff, pCount := slices.Clone(off), slices.Clone(count)
	for z, end := off[0], off[0]+count[0]; z < end; {
		next := min(end, (z/s.chunk[0]+layers)*s.chunk[0])
		pOff[0], pCount[0] = z, next-z
		if err := s.readSlab(ds, pOff, pCount, off, count, dst); err != nil {
			return err
		}
		z = next
	}
	return nil
}

// readSlab reads the box [off, off+count) of ds into dst, which holds
// the box [moff, moff+mcount).
func (s *storage) readSlab(ds *hdf5.Dataset, off, count, moff, mcount []int, dst []byte) error {
	mask, mixed, err := s.scan(ds, off, count)
	if err != nil {
		return err
	}
	if mixed {
		return s.readChunks(ds, off, count, moff, mcount, dst)
	}
	err = s.readBox(ds, off, count, moff, mcount, dst, s.sequence(mask))
	if err != nil && len(s.filters) > 0 {
		if cerr := s.readChunks(ds, off, count, moff, mcount, dst); cerr != nil {
			return cerr
		}
	}
	return err
}

// scan looks up the chunks of the box: the filter mask they share, or
// mixed when their masks differ.
func (s *storage) scan(ds *hdf5.Dataset, off, count []int) (mask uint32, mixed bool, err error) {
	rank := len(s.shape)
	c := &callArgs
	start, n, cdim, bad := c.a[:rank], c.b[:rank], c.c[:rank], c.d[:rank]
	for i := range start {
		start[i], n[i], cdim[i] = C.hsize_t(off[i]), C.hsize_t(count[i]), C.hsize_t(s.chunk[i])
	}
	cb := s.chunkBytes()
	m, msg := &c.mask, &c.msg
	r := C.vox_scan(C.hid_t(ds.ID()), C.int(rank), &start[0], &n[0], &cdim[0], C.int(len(s.filters)),
		C.size_t(cb), C.size_t(maxStored(cb)), m, &bad[0], &msg[0], C.VOX_MSG)
	if r < 0 {
		at := make([]int, rank)
		for i := range at {
			at[i] = int(bad[i])
		}
		return 0, false, fmt.Errorf("%s: %s", s.chunkText(at), C.GoString(&msg[0]))
	}
	return uint32(*m), r == 1, nil
}

// readChunks reads the box [off, off+count) into dst, which holds the
// box [moff, moff+mcount), one chunk at a time, each with its own filter
// mask: for boxes whose chunks' masks differ, and to name the chunk a
// failed read stumbled on.
func (s *storage) readChunks(ds *hdf5.Dataset, off, count, moff, mcount []int, dst []byte) error {
	rank := len(s.shape)
	lo, hi, at := make([]int, rank), make([]int, rank), make([]int, rank)
	for i := range lo {
		lo[i] = off[i] / s.chunk[i]
		hi[i] = (off[i] + count[i] - 1) / s.chunk[i]
		at[i] = lo[i]
	}
	sub0, subN := make([]int, rank), make([]int, rank)
	for {
		for i := range at {
			c0 := at[i] * s.chunk[i]
			sub0[i] = max(c0, off[i])
			subN[i] = min(c0+s.chunk[i], off[i]+count[i]) - sub0[i]
		}
		mask, _, err := s.scan(ds, sub0, subN)
		if err != nil {
			return err
		}
		if err := s.readBox(ds, sub0, subN, moff, mcount, dst, s.sequence(mask)); err != nil {
			c := make([]int, rank)
			for i := range c {
				c[i] = at[i] * s.chunk[i]
			}
			return fmt.Errorf("%s: %s", s.chunkText(c), strings.TrimPrefix(err.Error(), s.path+":"+s.name+": "))
		}
		i := rank - 1
		for i >= 0 && at[i] == hi[i] {
			at[i] = lo[i]
			i--
		}
		if i < 0 {
			return nil
		}
		at[i]++
	}
}

// readBox reads the box [off, off+count) of the file into dst, which
// holds the box [moff, moff+mcount), with the guard expecting each
// chunk to run the filters seq.
func (s *storage) readBox(ds *hdf5.Dataset, off, count, moff, mcount []int, dst []byte, seq []C.int) error {
	rank := len(s.shape)
	c := &callArgs
	fo, fc, md, mo := c.a[:rank], c.b[:rank], c.c[:rank], c.d[:rank]
	for i := range fo {
		fo[i], fc[i] = C.hsize_t(off[i]), C.hsize_t(count[i])
		md[i], mo[i] = C.hsize_t(mcount[i]), C.hsize_t(off[i]-moff[i])
	}
	var ids *C.int
	if len(seq) > 0 {
		ids = &seq[0]
	}
	cb := s.chunkBytes()
	C.vox_begin(ids, C.int(len(seq)), C.size_t(cb), C.size_t(maxStored(cb)), C.size_t(s.elem))
	stack, reason := &c.msg, &c.reason
	r := C.vox_read_box(C.hid_t(ds.ID()), C.int(rank), &fo[0], &fc[0], &md[0], &mo[0], unsafe.Pointer(&dst[0]), &stack[0], C.VOX_MSG)
	failed := C.vox_end(&reason[0], C.VOX_MSG) != 0
	if r == 0 && !failed {
		return nil
	}
	why := C.GoString(&stack[0])
	if failed {
		why = C.GoString(&reason[0])
	}
	if why == "" {
		why = "libhdf5 gave no reason"
	}
	return fmt.Errorf("%s:%s: %s", s.path, s.name, why)
}

// chunkText names the chunk at element offset at: "FILE:/data: chunk
// at (4, 0, 0) (planes 4-5)".
func (s *storage) chunkText(at []int) string {
	parts := make([]string, len(at))
	for i, v := range at {
		parts[i] = fmt.Sprint(v)
	}
	t := fmt.Sprintf("%s:%s: chunk at (%s)", s.path, s.name, strings.Join(parts, ", "))
	if len(s.shape) == 3 {
		t += fmt.Sprintf(" (planes %d-%d)", at[0], min(at[0]+s.chunk[0], s.shape[0]))
	}
	return t
}

// peakDecode returns the largest buffer voxlab's decoders allocated
// since resetPeak (tests). Call with lib held.
func peakDecode() int64 { return int64(C.vox_peak()) }

func resetPeak() { C.vox_peak_reset() }

// zfpBytes returns the decoded size of the field ZFP's client values
// declare (tests).
func zfpBytes(cd []uint) uint64 {
	c := make([]C.uint, len(cd)+1)
	for i, v := range cd {
		c[i] = C.uint(v)
	}
	return uint64(C.vox_zfp_bytes(&c[0], C.size_t(len(cd))))
}
