package train

import (
	"fmt"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify"
	"github.com/voxlab/voxlab/processing/classify/resnet"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
)

// Plan holds what a training run keeps at once (memoryArrays), the
// batch the block.
func (j *trainJob) Plan(d pipeline.Device) (*plan.Plan, error) {
	arrays, err := memoryArrays(j.arch, j.cfg.Augment != nil)
	if err != nil {
		return nil, fmt.Errorf("train %s: %w", j.yaml, err)
	}
	if _, cpu := d.Backend.(*gpu.CPUBackend); !cpu && d.Backend != nil {
		dev, err := productArrays(j.arch)
		if err != nil {
			return nil, fmt.Errorf("train %s: %w", j.yaml, err)
		}
		arrays = append(arrays, dev...)
	}
	p, err := plan.Make("train", []plan.Phase{{Name: "train", Unit: "cubes", Units: len(j.samples), Block: j.cfg.BatchSize, MinBlock: 1, Arrays: arrays}}, d.Budget)
	if err != nil {
		return nil, fmt.Errorf("train %s: %w", j.yaml, err)
	}
	return p, nil
}

// productArrays are the device buffers of a device's Products (the
// cuda build's cudaProducts): the operands and result of the largest
// products of a step, each buffer grown to the largest it has held —
// bounded per buffer by the sum of the largest part that grows with the
// batch's positions and the largest fixed part (a kernel).
func productArrays(arch resnet.Arch) ([]plan.Array, error) {
	net, err := resnet.Shape(arch)
	if err != nil {
		return nil, err
	}
	var perA, perB, perC, fixed int64
	for _, c := range net.Convs() {
		p, cout, kk := int64(resnet.Positions(c.Out)), int64(c.Out[3]), int64(c.K())
		perA = max(perA, p*kk, p*cout) // patches (or their transpose), dz
		perB = max(perB, p*cout)       // dz of the kernel's gradient
		perC = max(perC, p*cout, p*kk) // outputs, patches' gradient
		fixed = max(fixed, kk*cout)    // kernels, their gradients
	}
	return []plan.Array{{Name: "device products' operands and result (float32)", Where: plan.Device,
		PerUnit: 4 * (perA + perB + perC), Fixed: 4 * 2 * fixed}}, nil
}

// memoryArrays lists the buffers a Model holds while it trains, from
// the layers' shapes, as the code keeps them (model.go, forward.go,
// backward.go, step.go, fit.go): in float32s,
//   - per variable: the variable, its gradient and Adam's two moments
//     (Checkpoint and the files saved hold the model's own arrays);
//   - per cube of a batch: the cube, in the training and the validation
//     batch; for each convolution its output and normalised output (the
//     ReLU runs in place), the gradients of its patches and of its input
//     (not for conv1, whose input needs none); the max pool's output,
//     argmax (int32) and conv1's output gradient;
//   - once for the model (scratch), each as large as the largest layer
//     needs it: the patches, their transpose, the output's gradient, the
//     kernel's transpose and MatMul's packed copies;
//   - the augmenter's cube and volumes, and what writing a checkpoint
//     adds: the HDF5 library's copy of one variable and the gob
//     encoder's of one moment.
func memoryArrays(arch resnet.Arch, augment bool) ([]plan.Array, error) {
	net, err := resnet.Shape(arch)
	if err != nil {
		return nil, err
	}
	var weights, largest int64
	for _, l := range arch.Weighted() {
		for _, v := range l.Weights {
			n := int64(1)
			for _, s := range v.Shape {
				n *= int64(s)
			}
			weights += n
			largest = max(largest, n)
		}
	}
	strips := func(n int) int64 {
		return int64((n + classify.MatMulStrip - 1) / classify.MatMulStrip * classify.MatMulStrip)
	}
	// mm adds what MatMul's buffers of one product hold for m x n x k:
	// the packed copy of b, and when n is not whole strips the padded b
	// and product; perCube when the rows (m) or the depth (k) are the
	// batch's positions.
	var kept, grads int64 // per cube
	var sc [4]int64       // per cube: patches, transpose, dz, packed dz
	var scFixed [3]int64  // the kernel's transpose, packed kernel, packed transposed kernel
	var padCube, padFixed int64
	for i, c := range net.Convs() {
		p, cout, kk := int64(resnet.Positions(c.Out)), int64(c.Out[3]), int64(c.K())
		direct := c.Pointwise() && c.Stride == [3]int{1, 1, 1}
		kept += 2 * p * cout
		if i > 0 {
			grads += p * kk
			if !direct {
				grads += int64(resnet.Positions(c.In) * c.In[3])
			}
		}
		if !direct {
			sc[0] = max(sc[0], p*kk)
		}
		sc[1] = max(sc[1], p*kk)
		sc[2] = max(sc[2], p*cout)
		sc[3] = max(sc[3], p*strips(int(cout)))
		scFixed[0] = max(scFixed[0], kk*cout)
		scFixed[1] = max(scFixed[1], kk*strips(int(cout)))
		scFixed[2] = max(scFixed[2], cout*strips(int(kk)))
		if strips(int(cout)) != cout { // forward and kernel gradient padded
			padCube = max(padCube, 2*p*strips(int(cout)))
			padFixed = max(padFixed, 2*kk*strips(int(cout)))
		}
		if i > 0 && strips(int(kk)) != kk { // patches' gradient padded
			padCube = max(padCube, p*strips(int(kk)))
			padFixed = max(padFixed, cout*strips(int(kk)))
		}
	}
	stem := int64(resnet.Positions(net.Conv1.Out) * net.Conv1.Out[3])
	pooled := int64(resnet.Positions(net.PoolOut) * net.PoolOut[3])
	kept += 2 * pooled // output and argmax (int32)
	grads += stem
	cube := int64(classify.CubeLen(arch))
	var aug int64
	if augment {
		n := int64(max(arch.Input[0], arch.Input[1], arch.Input[2]))
		aug = cube + 2*int64(arch.Input[3])*n*n*n
	}
	return []plan.Array{
		{Name: "weights, their gradients and Adam's two moments", Where: plan.Host, Fixed: 4 * 4 * weights},
		{Name: "the largest kernel's transpose and MatMul's packed copies", Where: plan.Host, Fixed: 4 * (scFixed[0] + scFixed[1] + scFixed[2] + padFixed)},
		{Name: "cube batches (training, validation)", Where: plan.Host, PerUnit: 4 * 2 * cube},
		{Name: "activations kept for the backward pass", Where: plan.Host, PerUnit: 4 * kept},
		{Name: "the activations' gradients", Where: plan.Host, PerUnit: 4 * grads},
		{Name: "the largest layer's patches, their transpose, output gradient and MatMul's copies", Where: plan.Host, PerUnit: 4 * (sc[0] + sc[1] + sc[2] + sc[3] + padCube)},
		{Name: "augmentation and writing a checkpoint", Where: plan.Host, Fixed: 4 * (aug + 2*largest)},
	}, nil
}
