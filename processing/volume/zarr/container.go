package zarr

import "github.com/voxlab/voxlab/processing/volume"

// OME-Zarr stores are containers (volume.ImageContainer) for pipelines'
// results.
func init() {
	volume.RegisterContainer(&volume.ContainerFormat{
		Name:        "zarr",
		Extensions:  []string{".zarr"},
		Folders:     true,
		Create:      func(path string) (volume.Container, error) { f, err := Create(path); return container{f}, err },
		WriterBytes: WriterBytes,
	})
}

// container is a File as a volume.ImageContainer.
type container struct{ *File }

func (c container) CreateArray(name string, dt volume.DType, shape []int) (volume.SlabWriter, error) {
	return c.File.CreateArray(name, dt, shape)
}

func (c container) SetAttrs(name string, attrs map[string]any) error {
	return c.File.SetAttrs(name, attrs)
}
