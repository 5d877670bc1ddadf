package h5

import (
	"errors"
	"fmt"
	"strings"

	"github.com/voxlab/voxlab/processing/volume"
	"gonum.org/v1/hdf5"
)

// notDataset is the DType of a soft link that does not resolve to a
// dataset.
const notDataset = "(not a dataset)"

// Limits on walking a file's tree: hard links can form cycles.
const (
	maxDepth = 32
	maxNodes = 100000
)

// walk lists the groups and datasets of f, depth first, with the shape and
// type of each dataset. Call with lib held.
func walk(f *file) ([]volume.Node, error) {
	w, err := walkLinks(f)
	return w.nodes, err
}

// walker is a walk of a file's tree: its nodes, and where each soft or
// external link leads.
type walker struct {
	f     *file
	nodes []volume.Node
	links map[string]target
}

// walkLinks walks f, keeping where its links lead. Call with lib held.
func walkLinks(f *file) (*walker, error) {
	w := &walker{f: f, nodes: []volume.Node{{Path: "/", Kind: "group"}}, links: map[string]target{}}
	root, err := f.f.OpenGroup("/")
	if err != nil {
		return w, fmt.Errorf("%s: cannot open the root group: the file is damaged", f.path)
	}
	defer root.Close()
	return w, w.group(&root.CommonFG, "", 0)
}

// walkPath opens the file at p and walks it.
func walkPath(p string) (nodes []volume.Node, err error) {
	err = withFile(p, func(f *file) (err error) {
		nodes, err = walk(f)
		return err
	})
	return nodes, err
}

func (w *walker) group(g *hdf5.CommonFG, prefix string, depth int) error {
	p := w.f.path
	if depth > maxDepth {
		return fmt.Errorf("%s: groups nest deeper than %d (a cycle of links?)", p, maxDepth)
	}
	n, err := g.NumObjects()
	if err != nil {
		return fmt.Errorf("%s: cannot list group %s/: the file is damaged", p, prefix)
	}
	for i := uint(0); i < n; i++ {
		if len(w.nodes) >= maxNodes {
			return fmt.Errorf("%s: more than %d objects", p, maxNodes)
		}
		name, err := g.ObjectNameByIndex(i)
		if err != nil {
			return fmt.Errorf("%s: cannot list group %s/: the file is damaged", p, prefix)
		}
		full := prefix + "/" + name
		if k := linkAt(w.f, full).kind; k == linkSoft || k == linkExternal {
			// NXtomo links its frames between NXdata and the detector,
			// and to the detector's own file: described by what they
			// point at, never walked into.
			t := resolve(w.f, full)
			w.links[full] = t
			nd := volume.Node{Path: full, Kind: "link", DType: notDataset}
			if t.dataset {
				nd = datasetNode(g, name, full)
				nd.Kind = "link"
				if nd.DType == "unreadable" {
					nd.DType = notDataset
				}
			}
			w.nodes = append(w.nodes, nd)
			continue
		}
		typ, err := g.ObjectTypeByIndex(i)
		if err != nil {
			w.nodes = append(w.nodes, volume.Node{Path: full, Kind: "link", DType: notDataset})
			continue
		}
		switch typ {
		case hdf5.H5G_GROUP:
			w.nodes = append(w.nodes, volume.Node{Path: full, Kind: "group"})
			sub, err := g.OpenGroup(name)
			if err != nil {
				return fmt.Errorf("%s: cannot open group %s", p, full)
			}
			err = w.group(&sub.CommonFG, full, depth+1)
			sub.Close()
			if err != nil {
				return err
			}
		case hdf5.H5G_DATASET:
			w.nodes = append(w.nodes, datasetNode(g, name, full))
		default:
			w.nodes = append(w.nodes, volume.Node{Path: full, Kind: typ.String()})
		}
	}
	return nil
}

func datasetNode(g *hdf5.CommonFG, name, full string) volume.Node {
	nd := volume.Node{Path: full, Kind: "dataset", DType: "unreadable"}
	ds, err := g.OpenDataset(name)
	if err != nil {
		return nd
	}
	defer ds.Close()
	if s := ds.Space(); s != nil {
		nd.Shape, _ = dims(s)
		s.Close()
	}
	if t, err := ds.Datatype(); err == nil {
		_, nd.DType, _ = typeOf(t)
		t.Close()
	}
	return nd
}

// Datasets lists the datasets of an HDF5 file with their shapes and
// types (the viewer's dataset chooser); Readable tells which open as
// volumes.
func Datasets(p string) ([]volume.Node, error) {
	nodes, err := walkPath(p)
	if err != nil {
		return nil, err
	}
	var out []volume.Node
	for _, n := range nodes {
		if n.Kind == "dataset" {
			out = append(out, n)
		}
	}
	return out, nil
}

// Readable reports whether a dataset node opens as a volume: 2D or 3D of
// a type the reader converts (readType), of a size that fits in 2^63 bytes.
func Readable(n volume.Node) bool {
	if n.Kind != "dataset" || (len(n.Shape) != 2 && len(n.Shape) != 3) {
		return false
	}
	dt := readType(n.DType)
	if dt == volume.InvalidDType {
		return false
	}
	in := volume.Info{Shape: [3]int{1, n.Shape[0], n.Shape[1]}, DType: dt}
	if len(n.Shape) == 3 {
		in.Shape = [3]int{n.Shape[0], n.Shape[1], n.Shape[2]}
	}
	return in.Validate() == nil
}

// Inspect validates an HDF5 file and describes it: the tree of groups and
// datasets, the dataset Open would pick (or the named one) and, for a
// NeXus scan, its counts of projections, flats and darks.
func Inspect(p, name string) (*volume.Description, error) {
	nodes, err := walkPath(p)
	if err != nil {
		return nil, err
	}
	format := "hdf5"
	if IsNeXus(p) {
		format = "nexus"
	}
	d := &volume.Description{Path: p, Format: format, Tree: nodes}
	v, err := openNamed(p, name) // the dataset as stored
	switch {
	case err == nil:
		defer v.Close()
		d.Dataset = strings.TrimPrefix(v.Name, p+":")
		d.Shape, d.DType, d.Volume = v.Shape[:], v.DType.String(), true
		if ds, ok := v.Source().(*dataset); ok {
			d.Header = append(d.Header, layoutFields(ds)...)
		}
	case name != "":
		return nil, err
	default:
		// Several candidates: listing them, and how to name one, is the
		// description (info succeeds); a file whose data cannot be
		// reached at all (a dangling link) fails.
		var pe *pickError
		if !errors.As(err, &pe) || len(pe.lines) == 0 {
			return nil, err
		}
		d.Notes = append(d.Notes, pe.summary+":")
		d.Notes = append(d.Notes, pe.lines...)
	}
	if format == "nexus" {
		nx, err := openNeXus(p) // keys only: a scan without projections is still described
		if err != nil {
			return nil, err
		}
		defer nx.Close()
		d.NeXus = nx.Counts()
		if part, ok := nx.part(); ok && name == "" {
			d.Part = &part
		}
	}
	return d, nil
}

// readType is the volume type a dataset of the named file type is read
// as, or InvalidDType when the reader does not read it.
func readType(name string) volume.DType {
	for _, ft := range fileTypes {
		if ft.name == name && ft.dt != volume.InvalidDType {
			return ft.dt
		}
	}
	return volume.InvalidDType
}

// layoutFields are the header lines of a dataset's storage: its chunk
// shape and filter pipeline.
func layoutFields(ds *dataset) []volume.Field {
	if ds.vds != nil {
		return []volume.Field{{Name: "layout", Value: fmt.Sprintf("virtual (%d mappings)", len(ds.vds.maps))},
			{Name: "codec", Value: ds.vds.codecs()}}
	}
	if ds.chunk == nil {
		return []volume.Field{{Name: "layout", Value: "contiguous"}, {Name: "codec", Value: "none"}}
	}
	parts := make([]string, len(ds.chunk))
	for i, c := range ds.chunk {
		parts[i] = fmt.Sprint(c)
	}
	return []volume.Field{{Name: "chunks", Value: "(" + strings.Join(parts, ", ") + ")"},
		{Name: "codec", Value: codecText(ds.filters)}}
}
