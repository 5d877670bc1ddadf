package classify

import (
	"fmt"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify/internal/synth"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// The self-check of the network ops (gpu.RegisterSelfCheck): before a
// run trusts a backend other than the CPU, a ResNet-18 of synthetic
// weights (synth.Weights) runs on three fixed cubes of 16 x 16 x 8 x 2
// at every precision, and the probabilities must be the CPU's within the
// largest difference the CUDA parity tests allow at that precision
// (cuda_ops_test.go's cudaTolerance; BENCHMARKS.md).

func init() { gpu.RegisterSelfCheck("classify", selfCheck) }

// checkTolerance is the largest difference in probability allowed per
// precision.
var checkTolerance = map[string]float64{"fp32": 1e-5, "tf32": 1e-2, "fp16": 1e-2}

const checkCubes = 3

// checkArch is the self-check's network.
var checkArch = resnet.Arch{Depth: 18, Input: [4]int{16, 16, 8, 2}}

// selfCheck compares the probabilities of be's network ops (opsFor: the
// ops a run would get) at each precision with the CPU's.
func selfCheck(be gpu.Backend) error {
	net, err := resnet.Build(checkArch, synth.Weights(checkArch, nil))
	if err != nil {
		return err
	}
	cubes := make([]float32, checkCubes*CubeLen(checkArch))
	for i := range cubes {
		cubes[i] = float32((uint32(i)*2654435761)>>8) / (1 << 24)
	}
	cpu := gpu.NewCPU()
	defer cpu.Close()
	want, err := checkForwardOn(cpu, newCPUNet(cpu), net, cubes)
	if err != nil {
		return fmt.Errorf("forward on the CPU: %w", err)
	}
	for _, prec := range Precisions {
		ops, err := opsFor(be, OpsOptions{Precision: prec})
		if err != nil {
			return err
		}
		op := "forward (" + prec + ")"
		got, err := checkForwardOn(be, ops, net, cubes)
		if err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
		if err := gpu.CompareFloats(op+" probabilities", got, want, checkTolerance[prec]); err != nil {
			return err
		}
	}
	return nil
}

// checkForwardOn runs net with ops on be over cubes, in one batch.
func checkForwardOn(be gpu.Backend, ops Ops, net *resnet.Net, cubes []float32) (probs []float32, err error) {
	bufs := gpu.NewCheckBuffers(be)
	defer bufs.Free()
	err = gpu.Guard(func() error {
		if err := ops.Prepare(net, checkCubes); err != nil {
			return err
		}
		defer ops.Release()
		src := bufs.Upload("cubes", float32Bytes(cubes))
		if bufs.Err() != nil {
			return bufs.Err()
		}
		probs = make([]float32, 2*checkCubes)
		return ops.Forward(probs, src, checkCubes)
	})
	return probs, err
}
