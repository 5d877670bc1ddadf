package classify

import (
	"fmt"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/classify/resnet"
)

// scratchFloats bounds a worker's im2col block (8 MiB): blocks of as
// many rows as fit, so that each matrix product is long enough to pay
// for sweeping the packed weights while the patches stay in the outer
// caches.
const scratchFloats = 2 << 20

// cpuNet runs the network on the host's cores: the batch normalisations
// folded into the convolutions' epilogues, each convolution as blocked
// im2col + the row-invariant GEMM of cpu_gemm.go (weights packed once),
// workers taking row blocks of the whole batch as they finish the last
// (conv1 and its max pool: whole cubes), and every buffer allocated once
// by Prepare.
type cpuNet struct {
	be      *gpu.CPUBackend
	net     *resnet.Net
	batch   int
	workers int
	bufs    []*gpu.Buffer
	// Activations of the batch (see activationSizes).
	x, y, t1, t2, s []float32
	// Per worker: im2col scratch and conv1's output of one cube.
	scratch, stem [][]float32
	feat          [][]float32
	gsc           []*gemmScratch
	// packed holds each convolution's weights packed into strips.
	packed map[*resnet.Conv][]float32
}

func newCPUNet(be *gpu.CPUBackend) *cpuNet { return &cpuNet{be: be, workers: be.Workers()} }

// convRows returns the rows of conv c's im2col blocks.
func convRows(c *resnet.Conv) int { return max(16, scratchFloats/c.K()) }

// CPUScratchBytes returns the per-worker scratch bytes of the CPU
// network: an im2col block and conv1's output of one cube.
func CPUScratchBytes(n *resnet.Net) int64 {
	p1 := resnet.Positions(n.Conv1.Out)
	sc := min(convRows(n.Conv1), p1) * n.Conv1.K()
	for _, c := range n.Convs() {
		if !c.Pointwise() || c.Stride != [3]int{1, 1, 1} {
			sc = max(sc, convRows(c)*c.K())
		}
	}
	return 4*int64(sc+p1*n.Conv1.Out[3]+n.Features) + gemmScratchBytes
}

// Prepare allocates the batch's activations and the workers' scratch.
// The weights are the network's own slices (host memory already).
func (e *cpuNet) Prepare(net *resnet.Net, batch int) error {
	e.Release()
	e.net, e.batch = net, batch
	x, t1, t2, s := activationSizes(net)
	alloc := func(label string, n int) ([]float32, error) {
		if n == 0 {
			return nil, nil
		}
		b, err := e.be.Alloc(label, 4*int64(n))
		if err != nil {
			return nil, err
		}
		e.bufs = append(e.bufs, b)
		return f32(b.HostBytes()), nil
	}
	var err error
	var all int
	for _, c := range net.Convs() {
		if c.Out[3]%gemmNR != 0 {
			return fmt.Errorf("classify: %s has %d features; the CPU engine needs a multiple of %d", c.Name, c.Out[3], gemmNR)
		}
		all += len(c.W)
	}
	packed, err := alloc("network weights (packed for the CPU)", all)
	if err != nil {
		return err
	}
	e.packed = map[*resnet.Conv][]float32{}
	for _, c := range net.Convs() {
		p := packed[:len(c.W)]
		packed = packed[len(c.W):]
		packStripsInto(p, c.W, c.K(), c.Out[3])
		e.packed[c] = p
	}
	for _, a := range []struct {
		dst   *[]float32
		label string
		n     int
	}{
		{&e.x, "activations (block inputs)", batch * x}, {&e.y, "activations (block outputs)", batch * x},
		{&e.t1, "activations (first convolutions)", batch * t1}, {&e.t2, "activations (middle convolutions)", batch * t2},
		{&e.s, "activations (shortcuts)", batch * s},
	} {
		if *a.dst, err = alloc(a.label, a.n); err != nil {
			e.Release()
			return err
		}
	}
	per := CPUScratchBytes(net) / 4
	p1 := resnet.Positions(net.Conv1.Out) * net.Conv1.Out[3]
	for range e.workers {
		buf, err := alloc("im2col scratch and conv1 output (per worker)", int(per))
		if err != nil {
			e.Release()
			return err
		}
		gs := gemmScratchBytes / 4
		sc := int(per) - p1 - net.Features - gs
		e.scratch = append(e.scratch, buf[:sc])
		e.stem = append(e.stem, buf[sc:sc+p1])
		e.feat = append(e.feat, buf[sc+p1:sc+p1+net.Features])
		g := buf[sc+p1+net.Features:]
		e.gsc = append(e.gsc, &gemmScratch{a: g[:gemmMR*gemmKC], c: g[gemmMR*gemmKC:]})
	}
	return nil
}

// Release frees the buffers.
func (e *cpuNet) Release() {
	for _, b := range e.bufs {
		e.be.Free(b)
	}
	e.bufs, e.scratch, e.stem, e.feat, e.gsc, e.packed = nil, nil, nil, nil, nil, nil
	e.x, e.y, e.t1, e.t2, e.s = nil, nil, nil, nil, nil
}

// Forward runs the network on n cubes; see Ops.
func (e *cpuNet) Forward(dst []float32, src *gpu.Buffer, n int) error {
	if err := checkForward(e.net, e.batch, dst, src, n); err != nil {
		return err
	}
	in, err := gpu.CheckedHost(src, int64(4*n*CubeLen(e.net.Arch)))
	if err != nil {
		return fmt.Errorf("classify: cubes: %w", err)
	}
	if n == 0 {
		return nil
	}
	net := e.net
	if err := e.stemPass(f32(in), n); err != nil {
		return err
	}
	x, y := e.x, e.y
	for i := range net.Blocks {
		b := &net.Blocks[i]
		if err := e.conv(b.A, x, e.t1, n, nil, true); err != nil {
			return err
		}
		short := x
		if b.Shortcut != nil {
			if err := e.conv(b.Shortcut, x, e.s, n, nil, false); err != nil {
				return err
			}
			short = e.s
		}
		if b.C != nil {
			if err := e.conv(b.B, e.t1, e.t2, n, nil, true); err != nil {
				return err
			}
			if err := e.conv(b.C, e.t2, y, n, short, true); err != nil {
				return err
			}
		} else if err := e.conv(b.B, e.t1, y, n, short, true); err != nil {
			return err
		}
		x, y = y, x
	}
	last := net.Blocks[len(net.Blocks)-1].Last().Out
	p := resnet.Positions(last)
	per := p * last[3]
	w := e.be.Begin(int64(n))
	gpu.ForDynamic(e.workers, n, w, func(wk, b int) {
		head(dst[2*b:2*b+2], x[b*per:(b+1)*per], e.feat[wk], p, net.Dense, net.Bias)
	})
	return w.Err()
}

// stemPass runs conv1, its batch normalisation and ReLU, and the max pool
// cube by cube (each worker a cube at a time, conv1's large output never
// held for the whole batch), into e.x.
func (e *cpuNet) stemPass(in []float32, n int) error {
	net := e.net
	c := net.Conv1
	p := resnet.Positions(c.Out)
	rows := min(convRows(c), p)
	cube := CubeLen(net.Arch)
	pooled := resnet.Positions(net.PoolOut) * net.PoolOut[3]
	w := e.be.Begin(int64(n))
	gpu.ForDynamic(e.workers, n, w, func(wk, b int) {
		out := e.stem[wk]
		for r := 0; r < p; r += rows {
			m := min(rows, p-r)
			im2colRows(e.scratch[wk], in[b*cube:(b+1)*cube], c, r, m)
			gemm(m, c.Out[3], c.K(), e.scratch[wk], c.K(), e.packed[c], out[r*c.Out[3]:], c.Out[3], e.gsc[wk])
			epilogue(out[r*c.Out[3]:], r, m, c.Out[3], c.Out[2], c.Scale, c.Shift, nil, true)
		}
		maxPool(e.x[b*pooled:(b+1)*pooled], out, c.Out, net.PoolOut, net.PoolKernel, net.PoolStride)
		w.Add(1)
	})
	return w.Err()
}

// conv runs convolution c (with its folded batch normalisation, the
// residual res when not nil, and ReLU when relu) over the n cubes of in
// into out, in row blocks the workers take as they finish the last.
func (e *cpuNet) conv(c *resnet.Conv, in, out []float32, n int, res []float32, relu bool) error {
	total := n * resnet.Positions(c.Out)
	k, cout := c.K(), c.Out[3]
	direct := c.Pointwise() && c.Stride == [3]int{1, 1, 1}
	rows := convRows(c)
	if direct {
		rows = 512
	}
	// Enough blocks for every worker, a few each so a slow one is not
	// waited for.
	rows = max(16, min(rows, (total+2*e.workers-1)/(2*e.workers)))
	blocks := (total + rows - 1) / rows
	w := e.be.Begin(int64(blocks))
	gpu.ForDynamic(e.workers, blocks, w, func(wk, i int) {
		r0 := i * rows
		m := min(rows, total-r0)
		var a []float32
		if direct {
			a = in[r0*k:]
		} else {
			im2colRows(e.scratch[wk], in, c, r0, m)
			a = e.scratch[wk]
		}
		dst := out[r0*cout:]
		gemm(m, cout, k, a, k, e.packed[c], dst, cout, e.gsc[wk])
		var rr []float32
		if res != nil {
			rr = res[r0*cout:]
		}
		epilogue(dst, r0, m, cout, c.Out[2], c.Scale, c.Shift, rr, relu)
		w.Add(1)
	})
	return w.Err()
}
