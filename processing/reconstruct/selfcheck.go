package reconstruct

import (
	"fmt"
	"math"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// The self-check of the reconstruction ops (gpu.RegisterSelfCheck):
// before a run trusts a backend other than the CPU, BackProject runs
// once on fixed filtered projections in two geometries — an off-centre
// axis with the circular mask, two slices at once; a centred axis with
// edge padding wider than the slice's half-diagonal and no mask — and
// must agree with the CPU ops within BackProjectTolerance, the tolerance
// of the CUDA parity test (cuda_ops_test.go). Neither geometry puts a
// pixel's position at the padded detector's ends, where a float32
// rounding could move a term in or out of the sum.

func init() { gpu.RegisterSelfCheck("reconstruct", selfCheck) }

// checkShapes are the self-check's geometries.
func checkShapes() []BackProjectShape {
	return []BackProjectShape{
		{Slices: 2, Angles: 37, Columns: 24, Pad: DiagonalPad(24), Size: 24, Center: 11.3, MaskRadius: 1},
		{Slices: 1, Angles: 20, Columns: 20, Pad: AutoPad(20), Size: 20, Center: 9.5},
	}
}

// checkFiltered is fixed filtered projections for s: smooth, of both
// signs, zero in the leading and trailing column of each row; and their
// largest magnitude.
func checkFiltered(s BackProjectShape) ([]float32, float64) {
	f := make([]float32, s.FilteredLen())
	stride := s.Width() + 2
	big := 0.0
	for r := 0; r < s.Slices*s.Angles; r++ {
		for k := 0; k < s.Width(); k++ {
			v := math.Sin(0.31*float64(k)+0.7*float64(r)) + 0.4*math.Cos(0.05*float64(k*r))
			f[r*stride+1+k] = float32(v)
			big = math.Max(big, math.Abs(v))
		}
	}
	return f, big
}

// checkTrig is the cosines and sines of s's angles, evenly over [0, π).
func checkTrig(s BackProjectShape) []float64 {
	t := make([]float64, s.TrigLen())
	for a := 0; a < s.Angles; a++ {
		t[s.Angles+a], t[a] = math.Sincos(math.Pi * float64(a) / float64(s.Angles))
	}
	return t
}

// selfCheck compares be's reconstruction ops (opsFor: the ops a run
// would get) with the CPU's.
func selfCheck(be gpu.Backend) error {
	ops, err := opsFor(be)
	if err != nil {
		return err
	}
	cpu := gpu.NewCPU()
	defer cpu.Close()
	for i, s := range checkShapes() {
		filtered, big := checkFiltered(s)
		trig := checkTrig(s)
		got, err := runBackProject(be, ops, s, filtered, trig)
		if err != nil {
			return fmt.Errorf("back-projection %d: %w", i, err)
		}
		want, err := runBackProject(cpu, cpuOps{cpu}, s, filtered, trig)
		if err != nil {
			return fmt.Errorf("back-projection %d on the CPU: %w", i, err)
		}
		if err := gpu.CompareFloats(fmt.Sprintf("back-projection %d", i), got, want, BackProjectTolerance(s, big)); err != nil {
			return err
		}
	}
	return nil
}

// runBackProject runs BackProject of s on be over filtered and trig and
// returns the slices.
func runBackProject(be gpu.Backend, ops Ops, s BackProjectShape, filtered []float32, trig []float64) (out []float32, err error) {
	bufs := gpu.NewCheckBuffers(be)
	defer bufs.Free()
	err = gpu.Guard(func() error {
		f, tr := bufs.Upload("filtered projections", volume.Bytes(filtered)), bufs.Upload("angles' cos and sin", volume.Bytes(trig))
		d := bufs.Zero("slices", int64(s.SliceLen())*4)
		if bufs.Err() != nil {
			return bufs.Err()
		}
		if err := ops.BackProject(d, f, tr, s); err != nil {
			return err
		}
		out = append([]float32(nil), volume.Float32s(bufs.Download(d))...)
		return bufs.Err()
	})
	return out, err
}
