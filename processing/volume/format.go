package volume

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/voxlab/voxlab/processing/volume/fileio"
)

// Format is a file format voxlab can read and, where Create is set, write.
type Format struct {
	// Name is a short lower-case name: "npy", "mrc", "tiff", "hdf5".
	Name string
	// Extensions lists the lower-case file-name endings of the format,
	// with the dot (".h5"). A directory is matched by the extension "/".
	Extensions []string
	// Open opens the volume at path; dataset is the part of the spec after
	// "path:" for formats with internal paths (HDF5), else "".
	Open func(path, dataset string) (*Volume, error)
	// Describe writes a human-readable description of the file (the tree of
	// an HDF5 file, the header of an MRC file) after validating it.
	Describe func(path string, w io.Writer) error
	// Inspect validates the file and describes it (shape, dtype, header
	// fields, the tree of an HDF5 file); dataset is as for Open.
	Inspect func(path, dataset string) (*Description, error)
	// Create starts writing a new volume at path (nil if read-only).
	Create func(path, dataset string, info Info) (Writer, error)
	// Folders: the format's files are folders named with its extensions
	// (a Zarr store, "brain.zarr"), not TIFF plane folders.
	Folders bool
	// Detect, when set, reports whether the folder dir holds this
	// format's files (a Zarr store's .zarray or zarr.json, N5's
	// attributes.json, MRC maps), so that a folder is recognised by
	// what it holds whatever it is called. Formats of Folders are asked
	// first, in the order they registered.
	Detect func(dir string) bool
	// NumberAttr reads the numeric attribute name recorded with the
	// volume at path (ExportOptions.Attrs: an HDF5 dataset's, an
	// OME-Zarr group's), ok false where it has none; nil for formats
	// that record no attributes (NPY, TIFF, MRC).
	NumberAttr func(path, dataset, name string) (vals []float64, ok bool, err error)
}

// singleVolume makes the Format of a file type that holds one volume
// and no datasets: Open and Create refuse a dataset path saying why
// (noDatasets: "MRC files hold one volume"), Inspect and Describe read
// the file with inspect.
func singleVolume(name string, exts []string, noDatasets string, open func(path string) (*Volume, error),
	inspect func(path string) (*Description, error), create func(path string, info Info) (Writer, error)) *Format {
	return &Format{
		Name:       name,
		Extensions: exts,
		Open: func(path, dataset string) (*Volume, error) {
			if dataset != "" {
				return nil, fmt.Errorf("%s: %s; drop %q", path, noDatasets, dataset)
			}
			return open(path)
		},
		Inspect:  noDataset(inspect),
		Describe: describeWith(inspect),
		Create: func(path, dataset string, info Info) (Writer, error) {
			if dataset != "" {
				return nil, fmt.Errorf("create %s: %s; drop %q", path, noDatasets, dataset)
			}
			return create(path, info)
		},
	}
}

// openSized opens path read-only with its size, which the readers check
// what a header promises against; anything but a regular file (a FIFO,
// a device) is refused (fileio.Open).
func openSized(path string) (*os.File, int64, error) {
	return fileio.Open(path)
}

// Writer writes a volume slab by slab, in ascending order of z, into a
// temporary file beside the target. Commit renames it into place; Abort
// (or a failed Commit) removes it, leaving no partial output.
type Writer interface {
	Info() Info
	WriteSlab(z0 int, src []byte) error
	Commit() error
	Abort() error
}

var (
	formatsMu sync.RWMutex
	formats   []*Format
)

// RegisterFormat makes a format available to Open, Create and Describe.
// Formats register themselves from an init function.
func RegisterFormat(f *Format) {
	formatsMu.Lock()
	defer formatsMu.Unlock()
	formats = append(formats, f)
}

// Formats returns the registered formats sorted by name.
func Formats() []*Format {
	formatsMu.RLock()
	defer formatsMu.RUnlock()
	out := append([]*Format(nil), formats...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// SplitSpec splits "file.h5:/entry/data" into the file and the dataset
// path. A colon is only a separator when what follows starts with "/" and
// what precedes names an existing file or has a registered extension, so
// ordinary paths are never split by accident.
func SplitSpec(spec string) (path, dataset string) {
	i := strings.LastIndex(spec, ":/")
	if i <= 0 {
		return spec, ""
	}
	p := spec[:i]
	if _, err := os.Stat(spec); err == nil {
		return spec, ""
	}
	if FormatFor(p) != nil {
		return p, spec[i+1:]
	}
	return spec, ""
}

// FormatFor returns the registered format of path, or nil. A file's
// format is chosen by its extension. An existing folder's is the first
// whose Detect recognises what it holds (a Zarr or N5 store under any
// name, a folder of MRC maps); else a format of folders claiming its
// extension ("brain.zarr"); else a folder of TIFF planes ("/"), as is a
// path ending in a separator.
func FormatFor(path string) *Format {
	ext := strings.ToLower(filepath.Ext(strings.TrimRight(path, "/"+string(filepath.Separator))))
	formatsMu.RLock()
	defer formatsMu.RUnlock()
	st, err := os.Stat(path)
	isDir := err == nil && st.IsDir()
	if isDir {
		if f := detectFolder(path); f != nil {
			return f
		}
	}
	if (isDir || strings.HasSuffix(path, "/") || strings.HasSuffix(path, string(filepath.Separator))) && !folderExt(ext) {
		ext = "/"
	}
	for _, f := range formats {
		for _, e := range f.Extensions {
			if e == ext {
				return f
			}
		}
	}
	return nil
}

// detectFolder returns the format whose Detect recognises dir, formats
// of Folders first; call with formatsMu held.
func detectFolder(dir string) *Format {
	for _, folders := range []bool{true, false} {
		for _, f := range formats {
			if f.Folders == folders && f.Detect != nil && f.Detect(dir) {
				return f
			}
		}
	}
	return nil
}

// folderExt reports whether a format of folders claims ext; call with
// formatsMu held.
func folderExt(ext string) bool {
	for _, f := range formats {
		if !f.Folders {
			continue
		}
		for _, e := range f.Extensions {
			if e == ext && e != "/" {
				return true
			}
		}
	}
	return false
}

func formatOf(path string) (*Format, error) {
	f := FormatFor(path)
	if f != nil {
		return f, nil
	}
	var known []string
	for _, f := range Formats() {
		known = append(known, f.Extensions...)
	}
	return nil, fmt.Errorf("%s: unknown file type (voxlab reads %s)", path, strings.Join(known, " "))
}

// NumberAttr reads the numeric attribute name that the writer of spec
// recorded with it (ExportOptions.Attrs), as float64: a number or a
// list. ok is false where the volume has no such attribute or its format
// records none (NPY, TIFF).
func NumberAttr(spec, name string) (vals []float64, ok bool, err error) {
	path, dataset := SplitSpec(spec)
	if _, err := os.Stat(path); err != nil {
		return nil, false, fmt.Errorf("open %s: %w", path, err)
	}
	f, err := formatOf(path)
	if err != nil || f.NumberAttr == nil {
		return nil, false, err
	}
	return f.NumberAttr(path, dataset, name)
}

// Open opens a volume from a spec: a file, a directory of TIFF planes, or
// "file.h5:/dataset". Opening reads only headers, never the data.
func Open(spec string) (*Volume, error) {
	path, dataset := SplitSpec(spec)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	f, err := formatOf(path)
	if err != nil {
		return nil, err
	}
	v, err := f.Open(path, dataset)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// Describe validates the file and writes a description of it to w.
func Describe(spec string, w io.Writer) error {
	path, _ := SplitSpec(spec)
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("info %s: %w", path, err)
	}
	f, err := formatOf(path)
	if err != nil {
		return err
	}
	if f.Inspect != nil {
		d, err := Inspect(spec)
		if err != nil {
			return err
		}
		return d.WriteText(w)
	}
	return f.Describe(path, w)
}

// Create starts writing a volume to spec; the format comes from the
// extension.
func Create(spec string, info Info) (Writer, error) {
	if err := info.Validate(); err != nil {
		return nil, fmt.Errorf("create %s: %w", spec, err)
	}
	path, dataset := SplitSpec(spec)
	f := FormatFor(path)
	if f == nil || f.Create == nil {
		var known []string
		for _, f := range Formats() {
			if f.Create != nil {
				known = append(known, f.Extensions...)
			}
		}
		return nil, fmt.Errorf("create %s: voxlab cannot write this file type (it writes %s; end a folder name with / for a folder of TIFF planes)", path, strings.Join(known, " "))
	}
	return f.Create(path, dataset, info)
}
