package dezing

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
)

// The self-check of the dezinging ops (gpu.RegisterSelfCheck): before a
// run trusts a backend other than the CPU, its Median, Reduce and
// FlatField run once on a small fixed scan and must give the CPU ops'
// bits, the tolerance of the CUDA parity tests (cuda_ops_test.go).

func init() { gpu.RegisterSelfCheck("dezing", selfCheck) }

// Self-check scan: checkPlanes frames of checkRows x checkCols.
const checkPlanes, checkRows, checkCols = 5, 6, 7

// checkCase is one op on the fixed input: it returns the op's output
// bytes on be.
type checkCase struct {
	op   string
	elem int
	run  func(bufs *gpu.CheckBuffers, ops Ops) []byte
}

// selfCheck compares be's dezinging ops (OpsFor: the ops a run would
// get) with the CPU's.
func selfCheck(be gpu.Backend) error {
	ops, err := OpsFor(be)
	if err != nil {
		return err
	}
	cpu := gpu.NewCPU()
	defer cpu.Close()
	ref := cpuOps{cpu}
	for _, c := range checkCases() {
		got, err := runCheckCase(be, ops, c)
		if err != nil {
			return fmt.Errorf("%s: %w", c.op, err)
		}
		want, err := runCheckCase(cpu, ref, c)
		if err != nil {
			return fmt.Errorf("%s on the CPU: %w", c.op, err)
		}
		if err := gpu.CompareBits(c.op, got, want, c.elem); err != nil {
			return err
		}
	}
	return nil
}

func runCheckCase(be gpu.Backend, ops Ops, c checkCase) (out []byte, err error) {
	bufs := gpu.NewCheckBuffers(be)
	defer bufs.Free()
	err = gpu.Guard(func() error {
		out = c.run(bufs, ops)
		return bufs.Err()
	})
	return out, err
}

// checkScan is the fixed input: a ramp with a few spikes (zingers) and,
// in float32, a NaN, an infinity and negative values.
func checkScan(float bool) []byte {
	n := checkPlanes * checkRows * checkCols
	if !float {
		v := make([]uint16, n)
		for i := range v {
			v[i] = uint16(1000 + (i*37)%23)
			if i%17 == 3 {
				v[i] += 5000
			}
		}
		return volume.Bytes(v)
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32((i*37)%23) - 5.5
		if i%17 == 3 {
			v[i] += 400
		}
	}
	v[20], v[41] = float32(math.NaN()), float32(math.Inf(1))
	return volume.Bytes(v)
}

func checkCases() []checkCase {
	var cs []checkCase
	for _, float := range []bool{false, true} {
		elem, name := 2, "uint16"
		if float {
			elem, name = 4, "float32"
		}
		cs = append(cs, checkCase{op: "median " + name, elem: elem, run: func(b *gpu.CheckBuffers, ops Ops) []byte {
			p := MedianParams{Float32: float, Planes: checkPlanes, Rows: checkRows, Cols: checkCols, Z0: 1, N: checkPlanes - 2, Kernel: 3, Dif: 50}
			src, dst := b.Upload("median input", checkScan(float)), b.Zero("median output", p.DstBytes())
			scr := b.Zero("median scratch", ops.MedianScratch(p))
			if b.Err() == nil {
				b.Fail(ops.Median(dst, src, scr, p))
			}
			return b.Download(dst)
		}})
		for _, median := range []bool{false, true} {
			what := "mean"
			if median {
				what = "median"
			}
			cs = append(cs, checkCase{op: "reduce (" + what + ") " + name, elem: 4, run: func(b *gpu.CheckBuffers, ops Ops) []byte {
				p := ReduceParams{Float32: float, Frames: checkPlanes, Pixels: checkRows * checkCols, Median: median}
				src, dst := b.Upload("reduce input", checkScan(float)), b.Zero("reduce output", int64(p.Pixels)*4)
				scr := b.Zero("reduce scratch", ops.ReduceScratch(p))
				if b.Err() == nil {
					b.Fail(ops.Reduce(dst, src, scr, p))
				}
				return b.Download(dst)
			}})
		}
		cs = append(cs, checkCase{op: "flat-field " + name, elem: 4, run: func(b *gpu.CheckBuffers, ops Ops) []byte {
			return checkFlatField(b, ops, float)
		}})
	}
	return cs
}

// checkFlatField runs FlatField with −log on the fixed scan and returns
// the corrected values followed by the clipped count (8 bytes).
func checkFlatField(b *gpu.CheckBuffers, ops Ops, float bool) []byte {
	px := checkRows * checkCols
	p := FlatFieldParams{Float32: float, Frames: checkPlanes, Pixels: px, Low: 0.001, High: 1.5, MinusLog: true}
	dark, flat := make([]float32, px), make([]float32, px)
	for i := range dark {
		dark[i] = float32(990 + i%7)
		flat[i] = float32(1010 + (i*13)%29)
	}
	dark[3] = flat[3] // a zero denominator: clamped at flatFieldEps
	src := b.Upload("flat-field input", checkScan(float))
	dst := b.Zero("flat-field output", int64(checkPlanes*px)*4)
	dk, fl := b.Upload("dark", volume.Bytes(dark)), b.Upload("flat", volume.Bytes(flat))
	scr := b.Zero("flat-field scratch", ops.FlatFieldScratch(p))
	var clipped int64
	if b.Err() == nil {
		n, err := ops.FlatField(dst, src, dk, fl, scr, p)
		b.Fail(err)
		clipped = n
	}
	out := b.Download(dst)
	if out == nil {
		return nil
	}
	return binary.LittleEndian.AppendUint64(out, uint64(clipped))
}
