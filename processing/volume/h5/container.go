package h5

import (
	"strconv"

	"github.com/voxlab/voxlab/processing/volume"
)

// HDF5 files are containers (volume.Container) for pipelines' results,
// and NeXus scans their tomography scans (volume.OpenScan).
func init() {
	volume.RegisterContainer(&volume.ContainerFormat{
		Name:        "hdf5",
		Extensions:  []string{".h5", ".hdf5", ".hdf", ".nxs", ".nx5"},
		Create:      func(path string) (volume.Container, error) { f, err := Create(path); return container{f}, err },
		WriterBytes: func(int64) int64 { return WriterCacheBytes },
	})
	volume.RegisterScanReader(openScan)
}

// container is a File as a volume.Container.
type container struct{ *File }

func (c container) CreateArray(name string, dt volume.DType, shape []int) (volume.SlabWriter, error) {
	return c.CreateDataset(name, dt, shape)
}

// openScan opens a NeXus tomography scan split by image_key.
func openScan(path string) (*volume.Scan, bool, error) {
	if !IsNeXus(path) {
		return nil, false, nil
	}
	nx, err := OpenNeXus(path)
	if err != nil {
		return nil, true, err
	}
	s := volume.NewScan(nx.Projections, nx.Darks, nx.Flats, "image_key", strconv.Itoa(KeyDark), strconv.Itoa(KeyFlat), nx.Close)
	s.Angles = nx.Angles
	return s, true, nil
}
