package volume

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Description is what `voxlab info` reports about a file. Formats fill it
// only after validating what they report: a file shorter than its header
// promises, or one that is not the format its name says, gives an error
// instead.
type Description struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	// Dataset is the HDF5 dataset described, if one was named or chosen.
	Dataset string `json:"dataset,omitempty"`
	// Shape is the array's shape as stored (4D for a stack of maps).
	Shape []int  `json:"shape,omitempty"`
	DType string `json:"dtype,omitempty"`
	// VoxelSize is (z, y, x), zero where the file does not say.
	VoxelSize []float64 `json:"voxel_size,omitempty"`
	// Volume reports whether Open opens the file as a volume.
	Volume bool `json:"opens_as_volume"`
	// Maps is the number of maps when OpenStack opens the file as a stack
	// of more than one map.
	Maps int `json:"maps,omitempty"`
	// Header lists format-specific header fields in file order.
	Header []Field `json:"header,omitempty"`
	// Tree lists the groups and datasets of an HDF5 file.
	Tree []Node `json:"tree,omitempty"`
	// NeXus counts the frames of a NeXus tomography scan by image_key.
	NeXus *FrameCounts `json:"nexus,omitempty"`
	// Part says what the volume a bare path opens leaves out (a NeXus
	// scan's darks and flats), nil when it is the whole dataset.
	Part *Part `json:"opens_as_part,omitempty"`
	// Notes are remarks for the reader (ignored header fields, candidates).
	Notes []string `json:"notes,omitempty"`
}

// Field is one named header value.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Node is a group or dataset of a hierarchical file.
type Node struct {
	Path string `json:"path"`
	// Kind is "group", "dataset" or "link" (a soft link, with the shape
	// and type of the dataset it points at).
	Kind  string `json:"kind"`
	Shape []int  `json:"shape,omitempty"`
	// DType is the element type in NumPy's notation ("uint16", "int32",
	// "string"), whether or not voxlab reads it.
	DType string `json:"dtype,omitempty"`
}

// FrameCounts counts a tomography scan's frames by kind.
type FrameCounts struct {
	Projections int  `json:"projections"`
	Flats       int  `json:"flats"`
	Darks       int  `json:"darks"`
	Angles      bool `json:"angles"`
}

// Inspect validates the file named by spec and describes it.
func Inspect(spec string) (*Description, error) {
	path, dataset := SplitSpec(spec)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("info %s: %w", path, err)
	}
	f, err := formatOf(path)
	if err != nil {
		return nil, err
	}
	if f.Inspect == nil {
		return nil, fmt.Errorf("info %s: the %s format cannot describe files", path, f.Name)
	}
	return f.Inspect(path, dataset)
}

// describeWith adapts an inspect function to Format.Describe.
func describeWith(inspect func(path string) (*Description, error)) func(string, io.Writer) error {
	return func(path string, w io.Writer) error {
		d, err := inspect(path)
		if err != nil {
			return err
		}
		return d.WriteText(w)
	}
}

// WriteText writes the description for people.
func (d *Description) WriteText(w io.Writer) error {
	var b strings.Builder
	width := len("voxel size:")
	for _, f := range d.Header {
		width = max(width, len(f.Name)+1)
	}
	line := func(name, value string) { fmt.Fprintf(&b, "  %-*s %s\n", width, name+":", value) }
	fmt.Fprintf(&b, "%s: %s\n", d.Path, d.Format)
	if d.Dataset != "" {
		line("dataset", d.Dataset)
	}
	if len(d.Shape) > 0 {
		line("shape", shapeString(d.Shape))
	}
	if d.DType != "" {
		line("dtype", d.DType)
	}
	if len(d.VoxelSize) == 3 {
		line("voxel size", floats(d.VoxelSize)+" (z, y, x)")
	}
	if d.Maps > 0 {
		line("maps", strconv.Itoa(d.Maps))
	}
	for _, f := range d.Header {
		line(f.Name, f.Value)
	}
	if n := d.NeXus; n != nil {
		s := fmt.Sprintf("%d projections, %d flats, %d darks", n.Projections, n.Flats, n.Darks)
		if n.Angles {
			s += ", with rotation angles"
		}
		line("NeXus scan", s)
	}
	if p := d.Part; p != nil {
		line("opens as", p.Text())
	}
	if len(d.Tree) > 0 {
		b.WriteString("  tree:\n")
		for _, n := range d.Tree {
			depth := strings.Count(strings.TrimSuffix(n.Path, "/"), "/")
			name := n.Path[strings.LastIndex(n.Path, "/")+1:]
			if n.Path == "/" {
				name, depth = "/", 0
			}
			pad := strings.Repeat("  ", depth+1)
			switch n.Kind {
			case "group":
				fmt.Fprintf(&b, "  %s%s/\n", pad, strings.TrimSuffix(name, "/"))
			case "link":
				fmt.Fprintf(&b, "  %s%s  %s %s (soft link)\n", pad, name, shapeString(n.Shape), n.DType)
			default:
				fmt.Fprintf(&b, "  %s%s  %s %s\n", pad, name, shapeString(n.Shape), n.DType)
			}
		}
	}
	for _, n := range d.Notes {
		line("note", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func shapeString(s []int) string {
	parts := make([]string, len(s))
	for i, n := range s {
		parts[i] = strconv.Itoa(n)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

func floats(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatFloat(x, 'g', 6, 64)
	}
	return strings.Join(parts, ", ")
}

func voxelSlice(v [3]float64) []float64 {
	if v == [3]float64{} {
		return nil
	}
	return v[:]
}

// noDataset adapts the inspect function of a format without internal
// paths, refusing a dataset path as Open does.
func noDataset(inspect func(path string) (*Description, error)) func(string, string) (*Description, error) {
	return func(path, dataset string) (*Description, error) {
		if dataset != "" {
			return nil, fmt.Errorf("%s: the file has no datasets; drop %q", path, dataset)
		}
		return inspect(path)
	}
}
