package demo

import "fmt"

// Size selects how big the demo datasets are.
type Size int

// Demo sizes.
const (
	Small Size = iota
	Large
)

// ParseSize parses "small" or "large".
func ParseSize(s string) (Size, error) {
	switch s {
	case "", "small":
		return Small, nil
	case "large":
		return Large, nil
	}
	return Small, fmt.Errorf("demo size %q: use small or large", s)
}

// The files of a demo folder, relative to it.
const (
	TomoScan      = "tomo/scan.nxs"      // NeXus: projections, flats, darks by image_key
	TomoZingers   = "tomo/zingers.csv"   // frame,row,col,kind of every injected zinger
	BrainPlanes   = "brain/planes"       // folder of 2D uint16 TIFF planes
	BrainCells    = "brain/cells.csv"    // ground truth: z,y,x of each cell centre
	MapsGT        = "maps/gt.npy"        // (n, box, box, box) float32
	MapsSubmitted = "maps/submitted.npy" // (m, box, box, box) float32
	MapsMask      = "maps/mask.mrc"      // non-zero inside
	CompleteMark  = ".complete"          // written last: the folder is whole
)
