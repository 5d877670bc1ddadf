package h5

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
	"gonum.org/v1/hdf5"
)

// writeChunked writes /data, uint16 of shape with chunks (and gzip level
// 1 when deflate), holding v(z, y, x), or nothing when v is nil (a
// sparse dataset whose chunks are never written); it returns the voxels.
func writeChunked(t *testing.T, p string, shape, chunks []uint, deflate bool, v func(z, y, x int) uint16) []uint16 {
	t.Helper()
	hf, err := hdf5.CreateFile(p, hdf5.F_ACC_TRUNC)
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	space, err := hdf5.CreateSimpleDataspace(shape, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer space.Close()
	dcpl, err := hdf5.NewPropList(hdf5.P_DATASET_CREATE)
	if err != nil {
		t.Fatal(err)
	}
	defer dcpl.Close()
	if chunks != nil {
		if err := dcpl.SetChunk(chunks); err != nil {
			t.Fatal(err)
		}
	}
	if deflate {
		if err := dcpl.SetDeflate(1); err != nil {
			t.Fatal(err)
		}
	}
	ds, err := hf.CreateDatasetWith("data", hdf5.T_NATIVE_UINT16, space, dcpl)
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	if v == nil {
		return nil
	}
	data := make([]uint16, shape[0]*shape[1]*shape[2])
	i := 0
	for z := range int(shape[0]) {
		for y := range int(shape[1]) {
			for x := range int(shape[2]) {
				data[i] = v(z, y, x)
				i++
			}
		}
	}
	if err := ds.Write(&data); err != nil {
		t.Fatal(err)
	}
	return data
}

func noisy(z, y, x int) uint16 {
	h := uint32(z*73856093 ^ y*19349663 ^ x*83492791)
	return uint16(h ^ h>>16)
}

// TestChunkedReadMemory: a gzip dataset of chunks spanning several
// planes says what libhdf5 holds to read it (the chunk cache, and a
// decoded chunk twice over while its filter runs), and reads the same
// voxels block after block at every level of read memory, its chunk
// cache sized as the level says and counted in the tracker while open.
func TestChunkedReadMemory(t *testing.T) {
	p := filepath.Join(t.TempDir(), "gzip.h5")
	shape := []uint{37, 11, 9}
	data := writeChunked(t, p, shape, []uint{8, 5, 4}, true, noisy)
	v, err := volume.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := volume.ChunkedOf(v.Source())
	if !ok {
		t.Fatal("a chunked dataset is not volume.Chunked")
	}
	l := c.ChunkLayout()
	chunk := int64(8 * 5 * 4 * 2)
	if l.Depth != 8 || l.Chunk != chunk || l.Layer != 9*chunk || l.PerDecoder != maxStored(chunk)+chunk+readMapBytes+filterState || l.MaxDecoders != 1 {
		t.Errorf("layout %+v", l)
	}
	for level, m := range volume.ReadOptions(c, 2) {
		tr := plan.NewTracker()
		m.Track = tr
		c.SetReadMemory(m)
		if got := c.ReadMemory(); got.Cache != m.Cache || got.Decoders != 1 || got.PerDecoder != l.PerDecoder {
			t.Errorf("level %d: set %+v, reads %+v", level, m, got)
		}
		if tr.Current() != m.Cache {
			t.Errorf("level %d: tracker holds %d bytes of a %d-byte cache", level, tr.Current(), m.Cache)
		}
		// libhdf5 applies a cache only to a dataset it opens afresh.
		lib.Lock()
		inEffect := cacheInEffect(c.(*dataset).ds)
		lib.Unlock()
		if inEffect != m.Cache {
			t.Errorf("level %d: libhdf5's chunk cache is %d bytes, the plan set %d", level, inEffect, m.Cache)
		}
		for _, block := range []int{1, 3, 8, 10} {
			for b0 := 0; b0 < 37; b0 += block {
				z0, z1 := max(b0-1, 0), min(b0+block+1, 37)
				buf := make([]byte, int64(z1-z0)*v.PlaneBytes())
				if err := v.ReadSlab(z0, z1, buf); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf, volume.Bytes(data[z0*11*9:z1*11*9])) {
					t.Fatalf("level %d, blocks of %d: planes %d-%d differ", level, block, z0, z1)
				}
			}
		}
	}
	tr := plan.NewTracker()
	c.SetReadMemory(volume.ReadMemory{Cache: 5000, Track: tr})
	v.Close()
	if tr.Current() != 0 || tr.Peak() != 5000 {
		t.Errorf("after Close the tracker holds %d bytes (peak %d), want 0 (5000)", tr.Current(), tr.Peak())
	}
	if _, ok := volume.ChunkedOf(openContiguous(t)); ok {
		t.Error("a contiguous dataset says it is chunked")
	}
}

func openContiguous(t *testing.T) volume.Source {
	p := filepath.Join(t.TempDir(), "plain.h5")
	writeChunked(t, p, []uint{3, 4, 5}, nil, false, noisy)
	v, err := volume.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { v.Close() })
	return v.Source()
}

// TestDeclaredShapeNotStored: a tiny file declaring 10^12 frames is
// refused when its dataset is contiguous (its data, uncompressed, would
// fill the declared size: the file stores none of it), and opens when it
// is chunked (missing chunks read as the fill value; what a run writes
// of it is checked against the disk by the plan).
func TestDeclaredShapeNotStored(t *testing.T) {
	dir := t.TempDir()
	contiguous := filepath.Join(dir, "contiguous.h5")
	writeChunked(t, contiguous, []uint{1e12, 4, 4}, nil, false, nil)
	_, err := volume.Open(contiguous)
	if err == nil || !strings.Contains(err.Error(), "declares [1000000000000 4 4]") || !strings.Contains(err.Error(), "stores 0 B") {
		t.Errorf("contiguous dataset of 10^12 frames never written: %v", err)
	}
	sparse := filepath.Join(dir, "sparse.h5")
	writeChunked(t, sparse, []uint{1e12, 4, 4}, []uint{1, 4, 4}, false, nil)
	v, err := volume.Open(sparse)
	if err != nil {
		t.Fatalf("chunked sparse dataset: %v", err)
	}
	defer v.Close()
	buf := make([]byte, 2*v.PlaneBytes())
	if err := v.ReadSlab(5e11, 5e11+2, buf); err != nil || !bytes.Equal(buf, make([]byte, len(buf))) {
		t.Errorf("sparse frames: %v %v", err, buf)
	}
}

// TestReadsInSlabsOfChunks: a read over more than maxReadChunks chunks
// goes to libhdf5 in slabs of whole chunk layers (its chunk map holds a
// copy of the selections per chunk a read touches) and gives the voxels
// one read would: whole planes and boxes of rows, starting and ending
// inside a layer of chunks, plain and gzip, one-plane chunks (a scan's
// projections) and deeper ones.
func TestReadsInSlabsOfChunks(t *testing.T) {
	for _, c := range []struct {
		name          string
		shape, chunks []uint
		deflate       bool
	}{
		{"one-plane chunks", []uint{150, 12, 10}, []uint{1, 12, 10}, false},
		{"one-plane chunks, gzip", []uint{150, 12, 10}, []uint{1, 12, 10}, true},
		{"3x5x4 chunks, gzip", []uint{100, 12, 10}, []uint{3, 5, 4}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "chunks.h5")
			data := writeChunked(t, p, c.shape, c.chunks, c.deflate, noisy)
			v, err := volume.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			br, ok := volume.AsBoxReader(v.Source())
			if !ok {
				t.Fatal("an HDF5 dataset is not a volume.BoxReader")
			}
			ny, nx := int(c.shape[1]), int(c.shape[2])
			for _, b := range []volume.Box{
				{Z0: 0, Z1: int(c.shape[0]), Y0: 0, Y1: ny, X0: 0, X1: nx},
				{Z0: 1, Z1: int(c.shape[0]) - 2, Y0: 3, Y1: 9, X0: 0, X1: nx},
				{Z0: 2, Z1: int(c.shape[0]) - 1, Y0: 1, Y1: 11, X0: 2, X1: 9},
			} {
				chunks := 1
				for i, n := range []int{b.Z1 - b.Z0, b.Y1 - b.Y0, b.X1 - b.X0} {
					lo := []int{b.Z0, b.Y0, b.X0}[i]
					chunks *= (lo+n-1)/int(c.chunks[i]) - lo/int(c.chunks[i]) + 1
				}
				if chunks <= maxReadChunks {
					t.Fatalf("box %+v touches %d chunks, not more than one read's %d", b, chunks, maxReadChunks)
				}
				got := make([]byte, b.Len()*2)
				if err := br.ReadBox(b, got); err != nil {
					t.Fatal(err)
				}
				i := 0
				for z := b.Z0; z < b.Z1; z++ {
					for y := b.Y0; y < b.Y1; y++ {
						for x := b.X0; x < b.X1; x++ {
							want := data[(z*ny+y)*nx+x]
							if g := binary.LittleEndian.Uint16(got[2*i:]); g != want {
								t.Fatalf("box %+v, voxel (%d, %d, %d): %d, want %d", b, z, y, x, g, want)
							}
							i++
						}
					}
				}
			}
		})
	}
}

// TestSlabsAllocateNoMoreThanOne: a box read in many slabs of chunks
// allocates on the Go heap no more than one within a single slab: the
// arguments each slab passes to C are kept (callArgs), where made per
// slab they were a block's garbage, which piled up to the CLI's soft
// memory limit over a long reconstruction.
func TestSlabsAllocateNoMoreThanOne(t *testing.T) {
	p := filepath.Join(t.TempDir(), "chunks.h5")
	writeChunked(t, p, []uint{600, 12, 10}, []uint{1, 12, 10}, false, noisy)
	v, err := volume.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	br, _ := volume.AsBoxReader(v.Source())
	allocs := func(b volume.Box) float64 {
		dst := make([]byte, b.Len()*2)
		return testing.AllocsPerRun(5, func() {
			if err := br.ReadBox(b, dst); err != nil {
				t.Fatal(err)
			}
		})
	}
	one := allocs(volume.Box{Z0: 0, Z1: maxReadChunks / 2, Y0: 0, Y1: 12, X0: 0, X1: 10})
	many := allocs(volume.Box{Z0: 0, Z1: 600, Y0: 0, Y1: 12, X0: 0, X1: 10}) // 600/64: 10 slabs
	if many > one {
		t.Errorf("a box of 10 slabs allocates %.0f times, one of a single slab %.0f", many, one)
	}
}
