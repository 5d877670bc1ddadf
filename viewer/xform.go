package viewer

import (
	"math"

	"github.com/voxlab/voxlab/viewer/model"
)

// xform is a panel's view transform and nav the navigation the panels
// share: the 2D camera, model.Xform and model.Camera.
type (
	xform = model.Xform
	nav   = model.Camera
)

// sampleIndex fills dst[i] with the data index under device pixel i of a
// panel axis n device pixels long (pxScale device pixels per logical one),
// or -1 outside [0, limit). It returns the first and one past the last
// valid pixel; valid pixels are contiguous because the map is monotonic.
func sampleIndex(dst []int32, centre, scale float64, size float64, pxScale float64, limit int) (lo, hi int) {
	lo, hi = len(dst), 0
	for i := range dst {
		s := (float64(i) + 0.5) / pxScale
		d := math.Floor(centre + (s-size/2)/scale)
		if d < 0 || d >= float64(limit) {
			dst[i] = -1
			continue
		}
		dst[i] = int32(d)
		lo = min(lo, i)
		hi = i + 1
	}
	if hi < lo {
		return 0, 0
	}
	return lo, hi
}
