package volume

// Pyramid is implemented by sources stored with coarser copies of
// themselves (the levels of an OME-Zarr multiscale image), so that a
// viewer zoomed out can read a small level instead of the full one.
type Pyramid interface {
	// Levels returns the number of levels; level 0 is the source itself.
	Levels() int
	// LevelInfo returns the info of level i and its scale: how many
	// voxels of level 0 one voxel of level i spans along (z, y, x).
	LevelInfo(i int) (Info, [3]float64)
	// OpenLevel opens level i (of the same channel and time point).
	// The caller closes it.
	OpenLevel(i int) (*Volume, error)
}

// AsPyramid returns src, or the source a wrapper of it reads, as a
// Pyramid with more than one level, if it is one.
func AsPyramid(src Source) (Pyramid, bool) {
	p, ok := unwrap(src).(Pyramid)
	if !ok || p.Levels() < 2 {
		return nil, false
	}
	return p, true
}
