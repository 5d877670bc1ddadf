package zarr

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/volume"
)

// OME-Zarr images with their pyramids (voxlab convert): NGFF 0.4 on
// Zarr v2 or NGFF 0.5 on Zarr v3 (https://ngff.openmicroscopy.org/0.5/),
// each level an array "0", "1", ... chunked as asked, compressed with
// zstd, Blosc (zstd inside, byte shuffle) or gzip, and on Zarr v3
// optionally sharded (sharding_indexed, index at the end with crc32c, as
// zarr-python writes by default).
func init() {
	volume.RegisterExporter("zarr", &volume.Exporter{
		Create:       createImage,
		Bytes:        imageBytes,
		Align:        imageAlign,
		Compressions: []string{"zstd", "blosc", "gzip", "none"},
		Pyramids:     true,
	})
}

// imageWriter writes the levels of an OME-Zarr image.
type imageWriter struct {
	dir     *outfile.Dir
	target  string
	v3      bool
	codec   string
	clevel  int
	levels  []*levelArray
	workers int
	// ws are the encoding workers' own encoders and buffers, made on
	// first use and kept across chunks, slabs and levels.
	ws  []*encWorker
	ctx context.Context
}

// encWorker is what one encoding worker owns: its encoders (a shared
// zstd.Encoder built for one goroutine serialises EncodeAll calls), the
// chunk it gathers and the encoding (a chunk's, or a shard's chunks
// and index) it writes.
type encWorker struct {
	zstd  *zstd.Encoder
	gzip  *gzip.Writer
	chunk []byte
	dst   bytesBuffer
	index []byte
}

// SetContext makes WriteLevel stop between chunks once ctx is done.
func (w *imageWriter) SetContext(ctx context.Context) { w.ctx = ctx }

// levelArray is one level: its shape, chunk and shard shapes (shard ==
// chunk without sharding) and the next plane to write.
type levelArray struct {
	name         string
	info         volume.Info
	chunk, shard [3]int
	next         int
}

// imageOwned are the names an image store holds at its top.
func imageOwned(name string) bool {
	if owned[name] {
		return true
	}
	_, err := strconv.Atoi(name)
	return err == nil
}

// DefaultChunks is the chunk shape of a level when none is asked for:
// 64 planes of 256 x 256 (8 MiB of uint16), clipped to the level.
var DefaultChunks = [3]int{64, 256, 256}

// levelLayout fills each level's chunk and shard shapes from o.
func levelLayout(info volume.Info, o volume.ExportOptions) ([]*levelArray, error) {
	levels := o.Levels
	if len(levels) == 0 {
		levels = []volume.Info{info}
	}
	var out []*levelArray
	for i, li := range levels {
		la := &levelArray{name: strconv.Itoa(i), info: li}
		for d := range 3 {
			c := o.Chunks[d]
			if c <= 0 {
				c = DefaultChunks[d]
			}
			la.chunk[d] = max(1, min(c, li.Shape[d]))
			la.shard[d] = la.chunk[d]
			if s := o.Shards[d]; s > 0 {
				if s%max(1, o.Chunks[d]) != 0 && o.Chunks[d] > 0 {
					return nil, fmt.Errorf("shard shape %v is not a multiple of the chunk shape %v", o.Shards, o.Chunks)
				}
				// A shard holds whole chunks: clipped to the level, it
				// is rounded up to the chunk.
				n := (min(s, li.Shape[d]) + la.chunk[d] - 1) / la.chunk[d]
				la.shard[d] = n * la.chunk[d]
			}
		}
		out = append(out, la)
	}
	return out, nil
}

func createImage(path, dataset string, info volume.Info, o volume.ExportOptions) (volume.LevelWriter, error) {
	if dataset != "" {
		return nil, fmt.Errorf("create %s: voxlab writes one OME-Zarr image per store; drop %q", path, dataset)
	}
	w := &imageWriter{target: path, codec: o.Compression, clevel: o.Level, workers: runtime.GOMAXPROCS(0)}
	switch o.OMEVersion {
	case "", "0.4":
	case "0.5":
		w.v3 = true
	default:
		return nil, fmt.Errorf("create %s: OME-Zarr version %q: voxlab writes 0.4 and 0.5", path, o.OMEVersion)
	}
	if w.codec == "" {
		w.codec = "zstd"
	}
	switch w.codec {
	case "zstd", "blosc", "gzip", "none":
	default:
		return nil, fmt.Errorf("create %s: compression %q: OME-Zarr is written with zstd, blosc, gzip or none", path, w.codec)
	}
	if o.Shards != [3]int{} && !w.v3 {
		return nil, fmt.Errorf("create %s: shards need Zarr v3: add --ome-version 0.5", path)
	}
	var err error
	if w.levels, err = levelLayout(info, o); err != nil {
		return nil, fmt.Errorf("create %s: %w", path, err)
	}
	if w.dir, err = outfile.ReplaceDir(path, imageOwned); err != nil {
		return nil, err
	}
	if err := w.writeMeta(info, o); err != nil {
		w.dir.Abort()
		return nil, err
	}
	return w, nil
}

// axes are the image's axes, in micrometres when the voxel size is known.
func axes(voxel [3]float64) []any {
	var out []any
	for i, n := range []string{"z", "y", "x"} {
		a := map[string]string{"name": n, "type": "space"}
		if voxel[i] > 0 {
			a["unit"] = "micrometer"
		}
		out = append(out, a)
	}
	return out
}

// writeMeta writes the group's multiscales and each level's array
// metadata.
func (w *imageWriter) writeMeta(info volume.Info, o volume.ExportOptions) error {
	var datasets []any
	for i, la := range w.levels {
		f := [3]float64{1, 1, 1}
		if i < len(o.Scales) {
			f = o.Scales[i]
		}
		scale := make([]float64, 3)
		for d := range 3 {
			v := info.VoxelSize[d]
			if v <= 0 {
				v = 1
			}
			scale[d] = v * f[d]
		}
		datasets = append(datasets, map[string]any{"path": la.name,
			"coordinateTransformations": []any{map[string]any{"type": "scale", "scale": scale}}})
	}
	ms := map[string]any{"name": filepath.Base(w.target), "axes": axes(info.VoxelSize), "datasets": datasets}
	if o.Method != "" && len(w.levels) > 1 {
		ms["type"] = o.Method
	}
	attrs := make(map[string]any, len(o.Attrs)+1)
	for k, v := range o.Attrs {
		attrs[k] = v
	}
	if w.v3 {
		attrs["ome"] = map[string]any{"version": "0.5", "multiscales": []any{ms}}
		if err := w.writeJSON("zarr.json", map[string]any{"zarr_format": 3, "node_type": "group", "attributes": attrs}); err != nil {
			return err
		}
	} else {
		ms["version"] = "0.4"
		if err := w.writeJSON(".zgroup", map[string]any{"zarr_format": 2}); err != nil {
			return err
		}
		attrs["multiscales"] = []any{ms}
		if err := w.writeJSON(".zattrs", attrs); err != nil {
			return err
		}
	}
	for _, la := range w.levels {
		if err := w.writeArrayMeta(la); err != nil {
			return err
		}
	}
	return nil
}

func (w *imageWriter) writeJSON(name string, v any) error {
	return writeJSON(w.dir, w.target, name, v)
}

// level returns the codec's level: the asked one, or its default.
func (w *imageWriter) level() int {
	if w.clevel != 0 {
		return w.clevel
	}
	switch w.codec {
	case "blosc":
		return 5
	case "gzip":
		return 6
	}
	return 3
}

func dtypeV2(dt volume.DType) string {
	kind := "u"
	switch {
	case dt.IsSigned():
		kind = "i"
	case dt.IsFloat():
		kind = "f"
	}
	order := "<"
	if dt.Size() == 1 {
		order = "|"
	}
	return order + kind + strconv.Itoa(dt.Size())
}

func (w *imageWriter) writeArrayMeta(la *levelArray) error {
	dt := la.info.DType
	if !w.v3 {
		var comp any
		switch w.codec {
		case "zstd":
			comp = map[string]any{"id": "zstd", "level": w.level()}
		case "gzip":
			comp = map[string]any{"id": "gzip", "level": w.level()}
		case "blosc":
			comp = map[string]any{"id": "blosc", "cname": "zstd", "clevel": w.level(), "shuffle": shuffleOf(dt), "blocksize": 0}
		}
		return w.writeJSON(la.name+"/.zarray", map[string]any{
			"zarr_format": 2, "shape": la.info.Shape, "chunks": la.chunk, "dtype": dtypeV2(dt),
			"compressor": comp, "fill_value": 0, "order": "C", "filters": nil, "dimension_separator": "/",
		})
	}
	codecs := []any{map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}}
	switch w.codec {
	case "zstd":
		codecs = append(codecs, map[string]any{"name": "zstd", "configuration": map[string]any{"level": w.level(), "checksum": false}})
	case "gzip":
		codecs = append(codecs, map[string]any{"name": "gzip", "configuration": map[string]any{"level": w.level()}})
	case "blosc":
		sh := [...]string{"noshuffle", "shuffle"}[shuffleOf(dt)]
		codecs = append(codecs, map[string]any{"name": "blosc", "configuration": map[string]any{
			"cname": "zstd", "clevel": w.level(), "shuffle": sh, "typesize": dt.Size(), "blocksize": 0}})
	}
	grid := la.chunk
	if la.shard != la.chunk {
		grid = la.shard
		codecs = []any{map[string]any{"name": "sharding_indexed", "configuration": map[string]any{
			"chunk_shape": la.chunk, "codecs": codecs, "index_location": "end",
			"index_codecs": []any{
				map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}},
				map[string]any{"name": "crc32c"},
			}}}}
	}
	return w.writeJSON(la.name+"/zarr.json", map[string]any{
		"zarr_format": 3, "node_type": "array", "shape": la.info.Shape, "data_type": dt.String(),
		"chunk_grid":         map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": grid}},
		"chunk_key_encoding": map[string]any{"name": "default", "configuration": map[string]any{"separator": "/"}},
		"fill_value":         0, "codecs": codecs, "dimension_names": []string{"z", "y", "x"},
	})
}

// shuffleOf is Blosc's byte shuffle for multi-byte types, none for bytes.
func shuffleOf(dt volume.DType) int {
	if dt.Size() > 1 {
		return 1
	}
	return 0
}

// Align is a level's shard (or chunk) depth: slabs hold whole layers of
// shards, so no shard is written twice.
func (w *imageWriter) Align(level int) int { return w.levels[level].shard[0] }

// WriteLevel writes planes [z0, z0+n) of level, whole layers of shards
// (the last may be short), encoding the shards in parallel.
func (w *imageWriter) WriteLevel(level, z0 int, src []byte) error {
	if level < 0 || level >= len(w.levels) {
		return fmt.Errorf("write %s: level %d of %d", w.target, level, len(w.levels))
	}
	la := w.levels[level]
	pb := la.info.PlaneBytes()
	if int64(len(src))%pb != 0 {
		return fmt.Errorf("write %s/%s: %d bytes is not a whole number of planes", w.target, la.name, len(src))
	}
	z1 := z0 + int(int64(len(src))/pb)
	if z0 != la.next || z1 > la.info.Shape[0] || (z1-z0)%la.shard[0] != 0 && z1 != la.info.Shape[0] {
		return fmt.Errorf("write %s/%s: planes %d-%d: want whole layers of %d planes from %d", w.target, la.name, z0, z1, la.shard[0], la.next)
	}
	var grid [3]int
	grid[0] = (z1 - z0 + la.shard[0] - 1) / la.shard[0]
	for d := 1; d < 3; d++ {
		grid[d] = (la.info.Shape[d] + la.shard[d] - 1) / la.shard[d]
	}
	n := grid[0] * grid[1] * grid[2]
	for len(w.ws) < w.workers {
		w.ws = append(w.ws, &encWorker{})
	}
	var next atomic.Int64
	var failed atomic.Bool
	var once sync.Once
	var firstErr error
	var wg sync.WaitGroup
	for _, wk := range w.ws[:max(1, min(w.workers, n))] {
		wg.Go(func() {
			for !failed.Load() {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				err := w.ctxErr()
				if err == nil {
					o := [3]int{z0 + i/(grid[1]*grid[2])*la.shard[0], i / grid[2] % grid[1] * la.shard[1], i % grid[2] * la.shard[2]}
					err = w.writeShard(wk, la, src, z0, o)
				}
				if err != nil {
					failed.Store(true)
					once.Do(func() { firstErr = err })
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return fmt.Errorf("write %s/%s: %w", w.target, la.name, firstErr)
	}
	la.next = z1
	return nil
}

// ctxErr is the context's error, nil without one.
func (w *imageWriter) ctxErr() error {
	if w.ctx == nil {
		return nil
	}
	return w.ctx.Err()
}

// key is the file of the chunk (or shard) at grid position g.
func (w *imageWriter) key(la *levelArray, g [3]int) string {
	k := strconv.Itoa(g[0]) + "/" + strconv.Itoa(g[1]) + "/" + strconv.Itoa(g[2])
	if w.v3 {
		k = "c/" + k
	}
	return filepath.Join(w.dir.Path, la.name, filepath.FromSlash(k))
}

// writeShard writes, with wk's encoders and buffers, the chunk, or the
// shard of chunks, whose first voxel is at origin; src holds the level's
// planes from z0.
func (w *imageWriter) writeShard(wk *encWorker, la *levelArray, src []byte, z0 int, origin [3]int) error {
	g := [3]int{origin[0] / la.shard[0], origin[1] / la.shard[1], origin[2] / la.shard[2]}
	p := w.key(la, g)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	cb := la.chunk[0] * la.chunk[1] * la.chunk[2] * la.info.DType.Size()
	if cap(wk.chunk) < cb {
		wk.chunk = make([]byte, cb)
	}
	chunk := wk.chunk[:cb]
	data := wk.dst[:0]
	defer func() { wk.dst = data[:0] }()
	if la.shard == la.chunk {
		gather(chunk, src, la, z0, origin)
		var err error
		if data, err = w.encode(wk, data, chunk, la.info.DType); err != nil {
			return err
		}
		return os.WriteFile(p, data, 0o644)
	}
	var n [3]int
	for d := range 3 {
		n[d] = la.shard[d] / la.chunk[d]
	}
	index := wk.index[:0]
	defer func() { wk.index = index[:0] }()
	for cz := range n[0] {
		for cy := range n[1] {
			for cx := range n[2] {
				o := [3]int{origin[0] + cz*la.chunk[0], origin[1] + cy*la.chunk[1], origin[2] + cx*la.chunk[2]}
				if o[0] >= la.info.Shape[0] || o[1] >= la.info.Shape[1] || o[2] >= la.info.Shape[2] {
					index = binary.LittleEndian.AppendUint64(index, math.MaxUint64)
					index = binary.LittleEndian.AppendUint64(index, math.MaxUint64)
					continue
				}
				gather(chunk, src, la, z0, o)
				n := len(data)
				var err error
				if data, err = w.encode(wk, data, chunk, la.info.DType); err != nil {
					return err
				}
				index = binary.LittleEndian.AppendUint64(index, uint64(n))
				index = binary.LittleEndian.AppendUint64(index, uint64(len(data)-n))
			}
		}
	}
	index = binary.LittleEndian.AppendUint32(index, crc32.Checksum(index, castagnoli))
	data = append(data, index...)
	return os.WriteFile(p, data, 0o644)
}

// gather copies the chunk whose first voxel is at o from src (the
// level's planes from z0) into dst, a whole chunk; what lies beyond the
// array is the fill value 0, as Zarr stores edge chunks.
func gather(dst, src []byte, la *levelArray, z0 int, o [3]int) {
	es := la.info.DType.Size()
	sy, sx := la.info.Shape[1], la.info.Shape[2]
	cz, cy, cx := la.chunk[0], la.chunk[1], la.chunk[2]
	nz := min(cz, la.info.Shape[0]-o[0])
	ny, nx := min(cy, sy-o[1]), min(cx, sx-o[2])
	if nz < cz || ny < cy || nx < cx {
		clear(dst)
	}
	row := nx * es
	for z := range nz {
		for y := range ny {
			s := ((int64(o[0]-z0+z)*int64(sy)+int64(o[1]+y))*int64(sx) + int64(o[2])) * int64(es)
			d := ((z*cy + y) * cx) * es
			copy(dst[d:d+row], src[s:s+int64(row)])
		}
	}
}

// encode appends the encoding of chunk to dst with wk's encoders, made
// on first use.
func (w *imageWriter) encode(wk *encWorker, dst, chunk []byte, dt volume.DType) ([]byte, error) {
	switch w.codec {
	case "zstd":
		if wk.zstd == nil {
			e, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(w.level())))
			if err != nil {
				return nil, err
			}
			wk.zstd = e
		}
		return wk.zstd.EncodeAll(chunk, dst), nil
	case "blosc":
		enc, err := bloscEncode(chunk, dt.Size(), "zstd", w.level(), shuffleOf(dt))
		return append(dst, enc...), err
	case "gzip":
		b := bytesBuffer(dst)
		if wk.gzip == nil {
			zw, err := gzip.NewWriterLevel(&b, w.level())
			if err != nil {
				return nil, err
			}
			wk.gzip = zw
		} else {
			wk.gzip.Reset(&b)
		}
		if _, err := wk.gzip.Write(chunk); err != nil {
			return nil, err
		}
		if err := wk.gzip.Close(); err != nil {
			return nil, err
		}
		return b, nil
	}
	return append(dst, chunk...), nil
}

// bytesBuffer is an io.Writer appending to itself.
type bytesBuffer []byte

func (b *bytesBuffer) Write(p []byte) (int, error) { *b = append(*b, p...); return len(p), nil }

// Commit checks every level was written whole and puts the store in
// place.
func (w *imageWriter) Commit() error {
	for _, la := range w.levels {
		if la.next != la.info.Shape[0] {
			w.dir.Abort()
			return fmt.Errorf("write %s: level %s has %d of %d planes; nothing was saved", w.target, la.name, la.next, la.info.Shape[0])
		}
	}
	return w.dir.Commit()
}

// Abort removes the temporary store.
func (w *imageWriter) Abort() error { return w.dir.Abort() }

// imageBytes is the host memory the writer holds: per encoding worker
// (GOMAXPROCS of them, each keeping its buffers for the writer's life),
// one chunk gathered, its encoding (or a shard's chunks encoded, bounded
// by the shard's size plus the codec's overhead), and its encoder's
// state (zstd's window and tables, under 8 MiB at the default levels).
func imageBytes(info volume.Info, o volume.ExportOptions) int64 {
	levels, err := levelLayout(info, o)
	if err != nil || len(levels) == 0 {
		return 0
	}
	la := levels[0]
	es := int64(info.DType.Size())
	chunk := int64(la.chunk[0]) * int64(la.chunk[1]) * int64(la.chunk[2]) * es
	shard := int64(la.shard[0]) * int64(la.shard[1]) * int64(la.shard[2]) * es
	out := chunk + chunk/8 + 64<<10
	if shard != chunk {
		// The shard's encoded chunks, grown by append (up to twice).
		out = 2 * (shard + shard/8 + 64<<10)
	}
	return int64(runtime.GOMAXPROCS(0)) * (chunk + out + 8<<20)
}

// imageAlign is each level's shard depth.
func imageAlign(info volume.Info, o volume.ExportOptions) []int {
	levels, err := levelLayout(info, o)
	if err != nil {
		return nil
	}
	out := make([]int, len(levels))
	for i, la := range levels {
		out[i] = la.shard[0]
	}
	return out
}
