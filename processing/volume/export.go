package volume

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// ExportOptions say how a volume is written beyond its format: the
// layout and compression of chunked formats and the levels of a
// multiscale image. The zero value asks for each format's defaults.
type ExportOptions struct {
	// Chunks is the chunk shape (z, y, x); zeros let the format choose.
	Chunks [3]int
	// Shards is the shard shape of an OME-Zarr 0.5 (Zarr v3) array, a
	// multiple of Chunks; zeros: no sharding.
	Shards [3]int
	// Compression names the codec: "" (the format's default), "none",
	// "zstd", "blosc", "gzip", "lz4".
	Compression string
	// Level is the codec's level; 0: its default.
	Level int
	// Levels are the shapes of the levels of a multiscale image, level 0
	// first (nil: one level, the volume itself); Scales[i] is how many
	// level-0 voxels one voxel of level i spans along (z, y, x).
	Levels []Info
	Scales [][3]float64
	// OMEVersion is the OME-Zarr version: "0.4" (Zarr v2) or "0.5"
	// (Zarr v3); "" is 0.4.
	OMEVersion string
	// Method names the downsampling the levels were made by ("mean",
	// "nearest"), for the image's metadata.
	Method string
	// Attrs are attributes recorded with the image (string, int,
	// float64, []float64 or bool values): on the HDF5 dataset, in the
	// OME-Zarr group's attributes beside its multiscales; formats
	// without attributes (NPY, TIFF) leave them out.
	Attrs map[string]any
}

// LevelWriter writes the levels of a volume slab by slab, each in
// ascending z; a single-level format has level 0 only. Slabs must start
// on a multiple of Align(level) planes and hold a multiple of it, but
// for the last. Commit renames the output into place; Abort (or a failed
// Commit) removes it.
type LevelWriter interface {
	WriteLevel(level, z0 int, src []byte) error
	// Align is the number of planes a slab of level is a multiple of
	// (its chunks' or shards' depth; 1 for formats written plane by plane).
	Align(level int) int
	Commit() error
	Abort() error
}

// Cancelable is a LevelWriter that stops a WriteLevel in progress
// (between chunks) once ctx is done, so that a cancel lands within a
// chunk's encoding rather than a whole slab's.
type Cancelable interface {
	SetContext(ctx context.Context)
}

// Exporter writes one format with options.
type Exporter struct {
	// Create starts writing info (and, with o.Levels, its levels) at
	// path; dataset is as for Format.Create.
	Create func(path, dataset string, info Info, o ExportOptions) (LevelWriter, error)
	// Bytes is the host memory the writer holds of its own while writing
	// (compression buffers, chunk caches, slabs it assembles into chunks
	// across calls), for the memory plan.
	Bytes func(info Info, o ExportOptions) int64
	// Align is each level's Align (nil: 1 for every level).
	Align func(info Info, o ExportOptions) []int
	// Compressions are the codecs it writes, default first.
	Compressions []string
	// Pyramids: it writes several levels.
	Pyramids bool
}

var (
	exportersMu sync.RWMutex
	exporters   = map[string]*Exporter{}
)

// RegisterExporter registers the writer with options of the format named
// format (Format.Name); formats without one are written through their
// Create, uncompressed, one level.
func RegisterExporter(format string, e *Exporter) {
	exportersMu.Lock()
	defer exportersMu.Unlock()
	exporters[format] = e
}

// ExporterFor returns the exporter of the format of spec (a path, with a
// ":/dataset" for formats with datasets) and the format, or an error
// naming the formats voxlab writes.
func ExporterFor(spec string) (*Exporter, *Format, error) {
	path, _ := SplitSpec(spec)
	f := FormatFor(path)
	if f == nil || f.Create == nil {
		var known []string
		for _, f := range Formats() {
			if f.Create != nil {
				known = append(known, f.Extensions...)
			}
		}
		return nil, nil, fmt.Errorf("%s: voxlab cannot write this file type (it writes %s; end a folder name with / for a folder of TIFF planes)", path, strings.Join(known, " "))
	}
	exportersMu.RLock()
	e := exporters[f.Name]
	exportersMu.RUnlock()
	if e == nil {
		e = plainExporter(f)
	}
	return e, f, nil
}

// plainExporter writes a format through its Create: one level, no
// compression, planes in order.
func plainExporter(f *Format) *Exporter {
	return &Exporter{
		Create: func(path, dataset string, info Info, o ExportOptions) (LevelWriter, error) {
			w, err := f.Create(path, dataset, info)
			if err != nil {
				return nil, err
			}
			return plainWriter{w}, nil
		},
		Bytes:        func(Info, ExportOptions) int64 { return 1 << 20 },
		Compressions: []string{"none"},
	}
}

type plainWriter struct{ w Writer }

func (p plainWriter) WriteLevel(level, z0 int, src []byte) error {
	if level != 0 {
		return fmt.Errorf("level %d: the format holds one level", level)
	}
	return p.w.WriteSlab(z0, src)
}
func (p plainWriter) Align(int) int { return 1 }
func (p plainWriter) Commit() error { return p.w.Commit() }
func (p plainWriter) Abort() error  { return p.w.Abort() }

// SetBigTIFFThreshold makes TIFF files larger than n bytes BigTIFF
// (normally 4 GiB), so that tests can see the switch on small files; it
// returns a function restoring the limit. Not safe while TIFFs are
// written.
func SetBigTIFFThreshold(n int64) (restore func()) {
	old := tiffClassicLimit
	tiffClassicLimit = n
	return func() { tiffClassicLimit = old }
}
