package volume

import (
	"runtime"
	"testing"
)

// fakeChunked is a source stored in chunks of depth planes.
type fakeChunked struct {
	*Memory
	depth, layers int
	set           ReadMemory
}

func (f *fakeChunked) ChunkLayout() ChunkLayout {
	return ChunkLayout{Depth: f.depth, Layers: f.layers, Chunk: 100, Layer: 400, PerDecoder: 250, Decoded: 100, MaxDecoders: 64}
}
func (f *fakeChunked) ReadMemory() ReadMemory     { return f.set }
func (f *fakeChunked) SetReadMemory(m ReadMemory) { f.set = m }

// wrapped is a pipeline's view of a volume (app's volSource).
type wrapped struct{ v *Volume }

func (w wrapped) Info() Info                            { return w.v.Info }
func (w wrapped) ReadSlab(z0, z1 int, dst []byte) error { return w.v.ReadSlab(z0, z1, dst) }
func (w wrapped) Close() error                          { return nil }
func (w wrapped) Source() Source                        { return w.v.Source() }

// layersShared is the reference for ReadOptions' cache: the most chunk
// layers (of depth planes) any overlap consecutive planes straddle,
// found by trying every start.
func layersShared(depth, overlap int) int {
	most := 1
	for start := 0; start < 3*depth; start++ {
		first, last := start/depth, (start+max(overlap, 1)-1)/depth
		most = max(most, last-first+1)
	}
	return most
}

// TestReadOptionsLayers: the cached levels hold every layer reads that
// share overlap planes can straddle (and a chunk more for each decoder
// but one, which decode into its slots), the one-layer level one, and
// the others none; chunks of one plane get no cache.
func TestReadOptionsLayers(t *testing.T) {
	w := min(64, runtime.GOMAXPROCS(0))
	for depth := 1; depth <= 9; depth++ {
		for overlap := 0; overlap <= 12; overlap++ {
			opts := ReadOptions(&fakeChunked{depth: depth}, overlap)
			want := int64(layersShared(depth, overlap)) * 400
			if depth == 1 {
				want = 0
			}
			slack := int64(0)
			if want > 0 {
				slack = int64(w-1) * 100
			}
			if got := opts[ReadAllCached].Cache; got != want+slack {
				t.Errorf("depth %d, overlap %d: cache %d bytes, want %d + %d", depth, overlap, got, want, slack)
			}
			if opts[ReadOneCached].Cache != want || opts[ReadOneLayer].Cache != min(want, 400) || opts[ReadAll].Cache != 0 || opts[ReadOne].Cache != 0 {
				t.Errorf("depth %d, overlap %d: levels %+v", depth, overlap, opts)
			}
			if opts[ReadAllCached].Decoders != w || opts[ReadAll].Decoders != w || opts[ReadOne].Decoders != 1 || opts[ReadOneCached].Decoders != 1 {
				t.Errorf("depth %d, overlap %d: decoders %+v (GOMAXPROCS %d)", depth, overlap, opts, w)
			}
			for k, o := range opts {
				// Decoders decode into the cache's slots where it has some.
				per := int64(250)
				if o.Cache > 0 {
					per = 150
				}
				if o.PerDecoder != per || o.Keep != overlap {
					t.Errorf("level %d: %+v", k, o)
				}
			}
		}
	}
	// A volume of one layer of chunks never needs two.
	if c := ReadOptions(&fakeChunked{depth: 8, layers: 1}, 4)[ReadOneCached].Cache; c != 400 {
		t.Errorf("one layer in all: cache %d, want 400", c)
	}
}

// TestReadersShareAReader: the projections, darks and flats picked out
// of one dataset (subsets, a float32 view, a volume) are one reader,
// planned and set once; a source that decodes no chunks adds its buffer.
func TestReadersShareAReader(t *testing.T) {
	info := Info{Shape: [3]int{10, 2, 3}, DType: Uint16}
	mem, err := NewMemory(info, make([]byte, info.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	fc := &fakeChunked{Memory: mem, depth: 4}
	proj, _ := Subset(fc, []int{2, 3, 4, 5, 6, 7})
	darks, _ := Subset(fc, []int{0, 1})
	view, err := AsFloat32(fc)
	if err != nil {
		t.Fatal(err)
	}
	r := ReadersOf(proj, darks, nil, view, wrapped{New("v", fc)}, mem)
	if len(r.list) != 1 || r.Depth() != 4 || r.Levels() != ReadLevels || r.Other != 0 {
		t.Fatalf("readers %+v", r)
	}
	r = r.Overlap(2)
	arrays := r.Arrays(ReadOneCached)
	if len(arrays) != 2 || arrays[0].Name != LabelDecode || arrays[0].Fixed != 150 || arrays[1].Name != LabelCache || arrays[1].Fixed != 800 {
		t.Errorf("arrays %+v", arrays)
	}
	restore := r.Apply(ReadOneCached, nil)
	if fc.set.Cache != 800 || fc.set.Decoders != 1 || fc.set.Keep != 2 {
		t.Errorf("set %+v", fc.set)
	}
	restore()
	if fc.set != (ReadMemory{}) {
		t.Errorf("restored %+v", fc.set)
	}
	if none := ReadersOf(mem); none.Chunked() || none.Levels() != 1 || len(none.Arrays(0)) != 0 || none.Describe(0) != "" {
		t.Errorf("a memory source: %+v", none)
	}
}
