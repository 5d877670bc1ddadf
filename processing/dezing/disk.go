package dezing

import (
	"math"
	"strings"
)

// Bounds of an output's bytes on disk beyond its data.
const (
	// fsBlock is a file system's allocation unit: a file, or a folder,
	// takes at least one.
	fsBlock = 4096
	// h5PerChunk bounds libhdf5's index entry for one chunk (a B-tree
	// key and address, and its share of the nodes).
	h5PerChunk = 256
	// metadata bounds the rest of an output: headers, attributes, the
	// Zarr store's JSON files.
	metadata = 1 << 20
)

// OutputBytes returns the most bytes the output c.Output takes on disk:
// the processed projections (OutInfo) and, without the flat-field
// correction, the dark and flat frames (float32). An HDF5 file stores
// them uncompressed, one frame (or band of rows) per chunk; an OME-Zarr
// store (.zarr) one zstd file per frame in a folder of its own, each
// compressed frame at most its size plus a 256th (zstd's bound) and each
// file and folder at least a file system block.
func OutputBytes(s Shapes, c Config) int64 {
	out := OutInfo(s, c)
	frames := []struct{ n, bytes int64 }{{int64(out.Shape[0]), out.PlaneBytes()}}
	if !c.FlatField {
		fb := int64(s.Projections.PlaneLen()) * 4
		for _, has := range []bool{s.HasDarks(), s.HasFlats()} {
			if has {
				frames = append(frames, struct{ n, bytes int64 }{1, fb})
			}
		}
	}
	total := int64(metadata)
	for _, f := range frames {
		var per int64
		if strings.HasSuffix(strings.TrimRight(c.Output, "/"), ".zarr") {
			// The frame's file, its folder z/ and z/0/.
			per = roundUp(f.bytes+f.bytes/256+64, fsBlock) + 2*fsBlock
		} else {
			// Frames over 16 MiB are chunked in bands of rows.
			per = f.bytes + h5PerChunk*(1+f.bytes>>20)
		}
		if per > 0 && f.n > (math.MaxInt64-total)/per {
			return math.MaxInt64 // a declared shape no disk holds
		}
		total += f.n * per
	}
	return total
}

func roundUp(n, to int64) int64 { return (n + to - 1) / to * to }
