package zarr

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/volume"
)

// File is an OME-Zarr store (NGFF 0.4 on Zarr v2, which every current
// reader takes) being written under a temporary name beside its target;
// Commit renames it into place, Abort removes it.
type File struct {
	dir    *outfile.Dir
	attrs  map[string]any
	target string
}

// owned are the names a store File writes at its top: an existing
// folder holding anything else is not replaced.
var owned = map[string]bool{".zgroup": true, ".zattrs": true, ".zarray": true, "zarr.json": true, "0": true, "dark": true, "flat": true}

// Create starts a store at target, a folder ending in .zarr.
func Create(target string) (*File, error) {
	d, err := outfile.ReplaceDir(target, func(name string) bool { return owned[name] })
	if err != nil {
		return nil, err
	}
	f := &File{dir: d, attrs: map[string]any{}, target: target}
	if err := f.writeJSON(".zgroup", map[string]any{"zarr_format": 2}); err != nil {
		d.Abort()
		return nil, err
	}
	return f, nil
}

func (f *File) writeJSON(name string, v any) error { return writeJSON(f.dir, f.target, name, v) }

// writeJSON writes v as indented JSON to name (slash-separated) inside
// the store dir being written for target.
func writeJSON(dir *outfile.Dir, target, name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	p := filepath.Join(dir.Path, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("write %s: %w", target, err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		return fmt.Errorf("write %s: %w", target, err)
	}
	return nil
}

// SetAttrs sets top-level attributes of the store (beside the OME-Zarr
// metadata) under key.
func (f *File) SetAttrs(key string, v any) error {
	f.attrs[key] = v
	return f.writeJSON(".zattrs", f.attrs)
}

// SetImage records array path as the single level of an OME-Zarr image
// with axes z, y, x and voxel size (z, y, x); zero sizes are written as 1.
func (f *File) SetImage(path string, voxel [3]float64) error {
	scale := make([]float64, 3)
	for i, v := range voxel {
		scale[i] = v
		if v <= 0 {
			scale[i] = 1
		}
	}
	f.attrs["multiscales"] = []any{map[string]any{
		"version": "0.4",
		"name":    path,
		"axes": []any{
			map[string]string{"name": "z", "type": "space"},
			map[string]string{"name": "y", "type": "space"},
			map[string]string{"name": "x", "type": "space"},
		},
		"datasets": []any{map[string]any{
			"path":                      path,
			"coordinateTransformations": []any{map[string]any{"type": "scale", "scale": scale}},
		}},
	}}
	return f.writeJSON(".zattrs", f.attrs)
}

// Commit puts the store in place.
func (f *File) Commit() error { return f.dir.Commit() }

// Abort removes the temporary store; safe to defer after Commit.
func (f *File) Abort() error { return f.dir.Abort() }

// zstdEnc is shared: EncodeAll is safe for concurrent use.
var zstdEnc, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderLevel(zstd.SpeedDefault))

// ArrayWriter writes an array of 2 or 3 dimensions, one chunk per plane
// (the first dimension) of a 3-D array, one chunk for a 2-D one,
// compressed with zstd.
type ArrayWriter struct {
	f     *File
	name  string
	dt    volume.DType
	shape []int
}

// CreateArray creates array name in the store.
func (f *File) CreateArray(name string, dt volume.DType, shape []int) (*ArrayWriter, error) {
	if len(shape) != 2 && len(shape) != 3 {
		return nil, fmt.Errorf("create %s:/%s: shape %v: want 2 or 3 dimensions", f.target, name, shape)
	}
	chunks := append([]int(nil), shape...)
	if len(shape) == 3 {
		chunks[0] = 1
	}
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
	meta := map[string]any{
		"zarr_format": 2, "shape": shape, "chunks": chunks,
		"dtype":      order + kind + strconv.Itoa(dt.Size()),
		"compressor": map[string]any{"id": "zstd", "level": 3},
		"fill_value": 0, "order": "C", "filters": nil, "dimension_separator": "/",
	}
	if err := f.writeJSON(name+"/.zarray", meta); err != nil {
		return nil, err
	}
	return &ArrayWriter{f: f, name: name, dt: dt, shape: shape}, nil
}

// WriteSlab writes planes [z0, z0+n) of a 3-D array (the whole array of a
// 2-D one, z0 0), compressing the planes in parallel.
func (w *ArrayWriter) WriteSlab(z0 int, src []byte) error {
	plane := w.dt.Size() * w.shape[len(w.shape)-1] * w.shape[len(w.shape)-2]
	if len(src)%plane != 0 {
		return fmt.Errorf("write %s:/%s: %d bytes is not a whole number of planes", w.f.target, w.name, len(src))
	}
	n := len(src) / plane
	if len(w.shape) == 2 && (z0 != 0 || n != 1) || len(w.shape) == 3 && (z0 < 0 || z0+n > w.shape[0]) {
		return fmt.Errorf("write %s:/%s: planes %d-%d outside shape %v", w.f.target, w.name, z0, z0+n, w.shape)
	}
	errs := make([]error, n)
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			key := "0/0"
			if len(w.shape) == 3 {
				key = strconv.Itoa(z0+i) + "/0/0"
			}
			p := filepath.Join(w.f.dir.Path, w.name, filepath.FromSlash(key))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				errs[i] = err
				return
			}
			enc := zstdEnc.EncodeAll(src[i*plane:(i+1)*plane], nil)
			errs[i] = os.WriteFile(p, enc, 0o644)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("write %s:/%s: %w", w.f.target, w.name, err)
		}
	}
	return nil
}

// volumeWriter is the volume.Writer of volume.Create("out.zarr", info):
// an OME-Zarr image of one level, "0".
type volumeWriter struct {
	f    *File
	a    *ArrayWriter
	info volume.Info
}

func createVolume(path, dataset string, info volume.Info) (volume.Writer, error) {
	if dataset != "" {
		return nil, fmt.Errorf("create %s: voxlab writes one OME-Zarr image per store; drop %q", path, dataset)
	}
	f, err := Create(path)
	if err != nil {
		return nil, err
	}
	a, err := f.CreateArray("0", info.DType, info.Shape[:])
	if err == nil {
		err = f.SetImage("0", info.VoxelSize)
	}
	if err != nil {
		f.Abort()
		return nil, err
	}
	return &volumeWriter{f: f, a: a, info: info}, nil
}

func (w *volumeWriter) Info() volume.Info                  { return w.info }
func (w *volumeWriter) WriteSlab(z0 int, src []byte) error { return w.a.WriteSlab(z0, src) }
func (w *volumeWriter) Commit() error                      { return w.f.Commit() }
func (w *volumeWriter) Abort() error                       { return w.f.Abort() }

// WriterBytes is the host memory an ArrayWriter holds of its own while
// it writes a slab of planes of planeBytes each: per CPU, one compressed
// plane and the zstd encoder's state (its history window and tables,
// under 8 MiB at the default level).
func WriterBytes(planeBytes int64) int64 {
	return int64(runtime.GOMAXPROCS(0)) * (planeBytes + 8<<20)
}
