package dezing

import (
	"github.com/voxlab/voxlab/processing/task"
	"github.com/voxlab/voxlab/processing/volume"
)

// Functions the package's tests use that its code does not: kept out
// of the build.

// TaskInfo describes what task t hands to out: its dezinged projections,
// in the input's type.
func TaskInfo(s Shapes, c Config, t task.Task) volume.Info {
	s = s.kernelTypes()
	info := s.Projections
	lo, hi := TaskRange(s, c, t)
	info.Shape[0] = hi - lo
	return info
}
