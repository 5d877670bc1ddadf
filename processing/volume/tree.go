package volume

import (
	"errors"
	"sync"
)

// Tree is a hierarchical file (HDF5) read as what it holds rather than
// as a volume: groups, string attributes and numeric datasets of any
// rank. Keras weight files are read through it (processing/classify/
// keras), so that packages that read them link libhdf5 only through the
// format package that registers the opener (processing/volume/h5, as for
// volumes).
type Tree interface {
	// Path returns the file's path.
	Path() string
	// Kind says what path names: "group", "dataset" or "".
	Kind(path string) string
	// Members lists a group's members.
	Members(group string) ([]string, error)
	// HasAttr reports whether object has attribute name.
	HasAttr(object, name string) bool
	// Strings reads a string attribute (scalar or array).
	Strings(object, name string) ([]string, error)
	// Float32s reads a numeric dataset of any rank as float32, with its
	// shape.
	Float32s(name string) ([]float32, []int, error)
	Close() error
}

var trees struct {
	sync.Mutex
	open func(path string) (Tree, error)
}

// RegisterTreeOpener makes OpenTree use open (processing/volume/h5
// registers libhdf5's).
func RegisterTreeOpener(open func(path string) (Tree, error)) {
	trees.Lock()
	defer trees.Unlock()
	trees.open = open
}

// ErrNoTreeOpener is OpenTree's error when no format registered one.
var ErrNoTreeOpener = errors.New("this build of voxlab reads no HDF5 files (processing/volume/h5 is not linked)")

// OpenTree opens path read-only as a Tree.
func OpenTree(path string) (Tree, error) {
	trees.Lock()
	open := trees.open
	trees.Unlock()
	if open == nil {
		return nil, ErrNoTreeOpener
	}
	return open(path)
}

// TreeWriter writes a hierarchical file (HDF5) of groups, string
// attributes and float32 datasets: what a Keras weight file holds. It is
// written under a temporary name: Commit renames it into place, Abort
// removes it.
type TreeWriter interface {
	CreateGroup(group string) error
	SetStrings(object, name string, vals []string) error
	SetAttrs(object string, attrs map[string]any) error
	WriteFloat32s(name string, shape []int, data []float32) error
	Commit() error
	Abort() error
}

var treeWriters struct {
	sync.Mutex
	create func(path string) (TreeWriter, error)
}

// RegisterTreeCreator makes CreateTree use create (processing/volume/h5
// registers libhdf5's).
func RegisterTreeCreator(create func(path string) (TreeWriter, error)) {
	treeWriters.Lock()
	defer treeWriters.Unlock()
	treeWriters.create = create
}

// CreateTree creates path as a TreeWriter, through the format package
// the binary links.
func CreateTree(path string) (TreeWriter, error) {
	treeWriters.Lock()
	create := treeWriters.create
	treeWriters.Unlock()
	if create == nil {
		return nil, ErrNoTreeOpener
	}
	return create(path)
}
