package volume

import (
	"path/filepath"
	"strings"
	"sync"
)

// Container is a file of several named arrays with attributes — an HDF5
// file, a Zarr store — as a pipeline writes its results: created under a
// temporary name beside its target, renamed into place by Commit,
// removed by Abort (which does nothing after Commit).
type Container interface {
	// CreateArray starts array name (an HDF5 dataset path such as
	// "/data", a Zarr array key such as "0") of dtype dt and shape,
	// written slab by slab along its first axis.
	CreateArray(name string, dt DType, shape []int) (SlabWriter, error)
	// SetAttrs records attributes under name (an HDF5 group or dataset,
	// created when missing; a key of a Zarr store's attributes).
	SetAttrs(name string, attrs map[string]any) error
	Commit() error
	Abort() error
}

// SlabWriter writes an array slab by slab along its first axis.
type SlabWriter interface {
	WriteSlab(z0 int, src []byte) error
}

// ImageContainer is a Container that records an array as an image with
// a voxel size (an OME-Zarr image).
type ImageContainer interface {
	Container
	SetImage(name string, voxel [3]float64) error
}

// ContainerFormat is a container file format voxlab writes.
type ContainerFormat struct {
	// Name is the format's short name ("hdf5", "zarr").
	Name string
	// Extensions are the lower-case endings of its files, with the dot.
	Extensions []string
	// Folders: the format's files are folders (a Zarr store).
	Folders bool
	// Create starts a container at path.
	Create func(path string) (Container, error)
	// WriterBytes is the host memory its writer holds while a slab of
	// planes of planeBytes each is written (chunk caches, compression
	// buffers): for the memory plan.
	WriterBytes func(planeBytes int64) int64
}

// scanReader opens a tomography scan: projections with their darks and
// flats, split by the file's own markers (a NeXus image_key).
type scanReader func(path string) (*Scan, bool, error)

var (
	containersMu sync.RWMutex
	containers   []*ContainerFormat
	scanReaders  []scanReader
)

// RegisterContainer makes a container format available to
// ContainerFor; formats register from an init function, as they do with
// RegisterFormat, so that only binaries that import them link them.
func RegisterContainer(f *ContainerFormat) {
	containersMu.Lock()
	defer containersMu.Unlock()
	containers = append(containers, f)
}

// ContainerFor returns the container format of path by its extension,
// or nil.
func ContainerFor(path string) *ContainerFormat {
	ext := strings.ToLower(filepath.Ext(strings.TrimRight(path, "/"+string(filepath.Separator))))
	containersMu.RLock()
	defer containersMu.RUnlock()
	for _, f := range containers {
		for _, e := range f.Extensions {
			if e == ext {
				return f
			}
		}
	}
	return nil
}

// Scan is a tomography scan as its file lays it out: the projections and,
// when the file has them, the darks and flats (nil otherwise), lazy
// volumes over its frames. Close the Scan, not the volumes.
type Scan struct {
	Projections, Darks, Flats *Volume
	// Markers says how the file marks darks and flats ("image_key"),
	// for messages and attributes.
	Markers string
	// DarkKey and FlatKey are the markers' values ("2", "1").
	DarkKey, FlatKey string
	// Angles are the projections' rotation angles in degrees, one per
	// projection, when the file has them (NeXus rotation_angle); nil
	// otherwise.
	Angles []float64
	close  func() error
}

// NewScan makes a Scan whose Close calls close.
func NewScan(projections, darks, flats *Volume, markers, darkKey, flatKey string, close func() error) *Scan {
	return &Scan{Projections: projections, Darks: darks, Flats: flats, Markers: markers, DarkKey: darkKey, FlatKey: flatKey, close: close}
}

// Close closes the scan's file.
func (s *Scan) Close() error {
	if s.close == nil {
		return nil
	}
	return s.close()
}

// RegisterScanReader adds a reader of tomography scans (the NeXus
// reader of package h5): open returns ok false, and no error, for a
// file that is not a scan of its kind.
func RegisterScanReader(open func(path string) (scan *Scan, ok bool, err error)) {
	containersMu.Lock()
	defer containersMu.Unlock()
	scanReaders = append(scanReaders, open)
}

// OpenScan opens path as a tomography scan with its own darks and flats
// when a registered reader knows it as one; ok is false (with no error)
// when none does, and the file is then a plain volume.
func OpenScan(path string) (*Scan, bool, error) {
	containersMu.RLock()
	readers := append([]scanReader(nil), scanReaders...)
	containersMu.RUnlock()
	for _, r := range readers {
		if s, ok, err := r(path); ok || err != nil {
			return s, ok, err
		}
	}
	return nil, false, nil
}
