package zarr

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/volume"
)

// Inspect validates the store at path and describes the array or image
// dataset selects: Zarr version and NGFF version, the codec chain,
// chunk and shard shapes, the pyramid's levels, channels and time points.
func Inspect(path, dataset string) (*volume.Description, error) {
	v, err := Open(path, dataset)
	if err != nil {
		if d := inspectGroup(path, dataset); d != nil {
			return d, nil
		}
		return nil, err
	}
	defer v.Close()
	return v.Source().(*Source).describe(path, dataset, v), nil
}

// describe describes the source (opened from path and dataset as v) for
// voxlab info.
func (s *Source) describe(path, dataset string, v *volume.Volume) *volume.Description {
	st, a := s.st, s.arr
	d := &volume.Description{Path: path, Format: fmt.Sprintf("Zarr v%d", a.format), Shape: a.shape, DType: a.dtype.String(), Volume: true}
	switch {
	case st.n5 && len(st.levels) > 1:
		d.Format = "N5 multiscale"
	case st.n5:
		d.Format = "N5"
	case st.ms != nil:
		d.Format = fmt.Sprintf("OME-Zarr %s (Zarr v%d)", st.version, a.format)
	}
	if dataset != "" || st.paths[s.level] != "" {
		d.Dataset = "/" + st.paths[s.level]
	}
	if v.VoxelSize != [3]float64{} {
		d.VoxelSize = v.VoxelSize[:]
	}
	field := func(name, format string, args ...any) {
		d.Header = append(d.Header, volume.Field{Name: name, Value: fmt.Sprintf(format, args...)})
	}
	field("volume", "%v %s (z, y, x)", v.Shape, v.DType)
	if a.n5 {
		field("dimensions", "%s (as N5 lists them, x first)", n5Dims(a))
		comp := "raw"
		if len(a.chain.b2b) > 0 {
			comp = a.chain.b2b[0].name
			if c := a.chain.b2b[0].cname; c != "" {
				comp += " (" + c + ")"
			}
		}
		field("compression", "%s, big-endian elements", comp)
		field("block shape", "%v (z, y, x; edge blocks may be stored cropped)", a.chunks)
	} else {
		field("codecs", "%s", a.codecs)
	}
	if sh := a.chain.shard; sh != nil {
		field("shard shape", "%v", a.chunks)
		field("chunk shape", "%v (inside each shard)", sh.inner)
	} else if !a.n5 {
		field("chunk shape", "%v", a.chunks)
	}
	field("order", "%s", a.order)
	if !a.n5 {
		field("fill value", "%s", fillString(a))
	} else {
		field("blocks not stored", "read as 0")
	}
	if st.ms != nil && len(st.ms.axes) > 0 {
		var axes []string
		for _, ax := range st.ms.axes {
			s := ax.Name
			if ax.Type != "" {
				s += " " + ax.Type
			}
			if ax.Unit != "" {
				s += " (" + ax.Unit + ")"
			}
			axes = append(axes, s)
		}
		field("axes", "%s", strings.Join(axes, ", "))
	}
	if c := s.l.channel; c >= 0 {
		field("channels", "%d (reading c=%d)", a.shape[c], s.l.fixed[c])
	}
	if t := s.l.time; t >= 0 {
		field("time points", "%d (reading t=%d)", a.shape[t], s.l.fixed[t])
	}
	if len(st.levels) > 1 || st.ms != nil {
		field("levels", "%d", len(st.levels))

		for i, la := range st.levels {
			mark := ""
			if i == s.level {
				mark = " (read)"
			}
			extra := ""
			if sc := st.scale(i); sc != nil {
				extra = fmt.Sprintf(", scale %v", sc)
			} else if st.factors != nil {
				extra = fmt.Sprintf(", downsampled %v", st.factors[i])
			}
			chunks := fmt.Sprintf("chunks %v", la.chunks)
			if la.chain.shard != nil {
				chunks = fmt.Sprintf("shards %v of chunks %v", la.chunks, la.chain.shard.inner)
			}
			field(fmt.Sprintf("level %d", i), "/%s %v, %s, %s%s%s", st.paths[i], la.shape, chunks, la.codecs, extra, mark)
		}
	}
	return d
}

func fillString(a *array) string {
	return strconv.FormatFloat(value(a.dtype, a.fill), 'g', -1, 64)
}

// value returns the element at the start of b (native byte order).
func value(dt volume.DType, b []byte) float64 {
	le := binary.LittleEndian
	switch dt {
	case volume.Uint8:
		return float64(b[0])
	case volume.Int8:
		return float64(int8(b[0]))
	case volume.Uint16:
		return float64(le.Uint16(b))
	case volume.Int16:
		return float64(int16(le.Uint16(b)))
	case volume.Uint32:
		return float64(le.Uint32(b))
	case volume.Int32:
		return float64(int32(le.Uint32(b)))
	case volume.Float32:
		return float64(math.Float32frombits(le.Uint32(b)))
	case volume.Float64:
		return math.Float64frombits(le.Uint64(b))
	}
	return 0
}

// inspectGroup describes a store whose top is a group that is not an
// OME-Zarr image: its tree of groups and arrays, for choosing one. It
// returns nil for anything else.
func inspectGroup(path, dataset string) *volume.Description {
	if dataset != "" {
		return nil
	}
	n, err := readNode(path, path)
	if err != nil || n.isArray {
		return nil
	}
	if ms, _, err := multiscales(n.attrs); err != nil || ms != nil {
		return nil
	}
	d := &volume.Description{Path: path, Format: fmt.Sprintf("Zarr v%d group", n.format)}
	d.Tree = append(d.Tree, volume.Node{Path: "/", Kind: "group"})
	walkGroup(d, path, "", 0)
	d.Notes = append(d.Notes, "a group: name an array or image inside it, "+path+":/PATH")
	return d
}

// walkGroup adds the nodes under the group at rel (at most 8 deep and
// 1000 in all, so that a huge store is not listed whole).
func walkGroup(d *volume.Description, root, rel string, depth int) {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil || depth > 8 {
		return
	}
	for _, e := range entries {
		if len(d.Tree) >= 1000 {
			return
		}
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		p := e.Name()
		if rel != "" {
			p = rel + "/" + e.Name()
		}
		n, err := readNode(filepath.Join(root, filepath.FromSlash(p)), p)
		if err != nil {
			continue
		}
		if !n.isArray {
			d.Tree = append(d.Tree, volume.Node{Path: "/" + p, Kind: "group"})
			walkGroup(d, root, p, depth+1)
			continue
		}
		if a, err := n.array(p); err == nil {
			d.Tree = append(d.Tree, volume.Node{Path: "/" + p, Kind: "dataset", Shape: a.shape, DType: a.dtype.String()})
		} else {
			d.Tree = append(d.Tree, volume.Node{Path: "/" + p, Kind: "dataset", DType: "unreadable"})
		}
	}
}
