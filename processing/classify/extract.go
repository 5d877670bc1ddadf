package classify

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/voxlab/voxlab/processing/volume"
)

// Cube extraction as cellfinder's cube generator does it
// (cellfinder/core/classify/cube_generator.py, CuboidStackDataset, read
// at brainglobe/cellfinder's main branch of 2026 with normalisation,
// PR #588):
//
//   - The data's cuboid around a point has round(n · network voxel /
//     data voxel) voxels on each axis (Python's round: half to even; n
//     the network's cube size on that axis).
//   - It starts at round(p − m/2) on x and y (m the data cuboid's size on
//     that axis) and at p − m//2 on z, p the point's coordinate truncated
//     towards zero (brainglobe-utils' Cell keeps int() of each), and
//     ends m voxels later; a cuboid not wholly inside the volume drops
//     the point (cellfinder) — voxlab keeps it as unknown.
//   - Voxels convert to float32 as its get_data_converter does: types
//     whose range fits float32's exact integers (8- and 16-bit integers,
//     float32) as they are; 32-bit integers and float64 scaled down by
//     2^23 / their largest magnitude (2^52 for float64; numpy's nmant).
//   - With normalisation, each channel becomes (x − mean) / std in
//     float32, mean and sample std (n − 1) of the channel's planes 0,
//     f, 2f, ... in float64 (f = 1 when the volume has no more planes
//     than normalization_n_sampling_planes, default 50, else
//     int(planes / it); image_processing.py dataset_mean_std), before
//     rescaling.
//   - When the data's voxel size differs from the network's on any axis,
//     the cuboid is resampled to the network's cube by trilinear
//     interpolation as torch.nn.functional.interpolate(mode="trilinear",
//     align_corners=False) computes it (Rescale).
//   - The cube is laid out (y, x, z, channel): channels-last with the
//     network's height, width and depth.

// Geometry is where the cubes of one volume come from.
type Geometry struct {
	// Shape of the volume (z, y, x).
	Shape [3]int
	// Net is the network's cube (z, y, x) and Crop the data cuboid.
	Net, Crop [3]int
	// Rescale says the voxel sizes differ: cuboids are resampled.
	Rescale bool
	// Channels is 1 (signal) or 2 (signal, background).
	Channels int
}

// roundHalfEven rounds as Python's round does.
func roundHalfEven(x float64) int { return int(math.RoundToEven(x)) }

// NewGeometry returns the geometry of cubes of net (z, y, x) voxels of
// netVoxel microns from a volume of shape with voxel microns.
func NewGeometry(shape [3]int, voxel, netVoxel [3]float64, net [3]int, channels int) (Geometry, error) {
	g := Geometry{Shape: shape, Net: net, Channels: channels, Rescale: voxel != netVoxel}
	for a := range 3 {
		if !(voxel[a] > 0) || !(netVoxel[a] > 0) || math.IsInf(voxel[a], 0) || math.IsInf(netVoxel[a], 0) {
			return g, fmt.Errorf("voxel sizes must be positive microns: data %v, network %v (z,y,x)", voxel, netVoxel)
		}
		g.Crop[a] = roundHalfEven(float64(net[a]) * netVoxel[a] / voxel[a])
		if g.Crop[a] < 1 {
			return g, fmt.Errorf("the network's cube of %d voxels of %g µm on %s spans less than one %g µm voxel of the data", net[a], netVoxel[a], "zyx"[a:a+1], voxel[a])
		}
	}
	if g.Crop[0] > shape[0] {
		return g, fmt.Errorf("the volume has %d planes but a cube needs %d (%d network planes of %g µm at %g µm per plane): no candidate can be classified", shape[0], g.Crop[0], net[0], netVoxel[0], voxel[0])
	}
	return g, nil
}

// Start returns the first data voxel (z, y, x) of the cuboid around a
// point (z, y, x in voxels), and whether the cuboid lies wholly inside
// the volume. Coordinates are first truncated to integers, as
// brainglobe-utils' Cell keeps int() of each.
func (g Geometry) Start(p [3]float64) (start [3]int, ok bool) {
	ok = true
	for a := range 3 {
		if math.IsNaN(p[a]) || math.Abs(p[a]) > 1<<40 {
			return start, false
		}
		c := math.Trunc(p[a])
		var s int
		if a == 0 {
			s = int(c) - g.Crop[0]/2
		} else {
			s = roundHalfEven(c - float64(g.Crop[a])/2)
		}
		start[a] = s
		if s < 0 || s+g.Crop[a] > g.Shape[a] {
			ok = false
		}
	}
	return start, ok
}

// converter64 returns the float64 value of element i of a raw plane of
// dtype dt, as cellfinder's get_data_converter(dt, float64) makes it for
// the normalisation's statistics: every type classification reads fits
// float64's exact integers (or is float64), so none is scaled — unlike
// the float32 cubes of 32-bit integers and float64 (converter), which
// cellfinder then normalises with statistics in the unscaled units.
func converter64(dt volume.DType) (func(raw []byte, i int) float64, error) {
	le := binary.LittleEndian
	switch dt {
	case volume.Uint32:
		return func(b []byte, i int) float64 { return float64(le.Uint32(b[4*i:])) }, nil
	case volume.Int32:
		return func(b []byte, i int) float64 { return float64(int32(le.Uint32(b[4*i:]))) }, nil
	case volume.Float64:
		return func(b []byte, i int) float64 { return math.Float64frombits(le.Uint64(b[8*i:])) }, nil
	}
	c, err := converter(dt) // exact: these types fit float32
	if err != nil {
		return nil, err
	}
	return func(b []byte, i int) float64 { return float64(c(b, i)) }, nil
}

// float32Exact is the largest integer cellfinder's
// get_max_possible_int_value takes float32 to hold exactly: 2^nmant =
// 2^23 (its docstring says 2^24; its code, which converts, says 2^23).
const float32Exact = 1 << 23

// converter returns the float32 value of element i of a raw plane of
// dtype dt, as cellfinder's get_data_converter(dt, float32) makes it.
func converter(dt volume.DType) (func(raw []byte, i int) float32, error) {
	le := binary.LittleEndian
	switch dt {
	case volume.Uint8:
		return func(b []byte, i int) float32 { return float32(b[i]) }, nil
	case volume.Int8:
		return func(b []byte, i int) float32 { return float32(int8(b[i])) }, nil
	case volume.Uint16:
		return func(b []byte, i int) float32 { return float32(le.Uint16(b[2*i:])) }, nil
	case volume.Int16:
		return func(b []byte, i int) float32 { return float32(int16(le.Uint16(b[2*i:]))) }, nil
	case volume.Float32:
		return func(b []byte, i int) float32 { return math.Float32frombits(le.Uint32(b[4*i:])) }, nil
	case volume.Uint32:
		return func(b []byte, i int) float32 {
			return float32(float64(le.Uint32(b[4*i:])) / math.MaxUint32 * float32Exact)
		}, nil
	case volume.Int32:
		return func(b []byte, i int) float32 {
			return float32(float64(int32(le.Uint32(b[4*i:]))) / (1 << 31) * float32Exact)
		}, nil
	case volume.Float64:
		return func(b []byte, i int) float32 {
			return float32(math.Float64frombits(le.Uint64(b[8*i:])) / (1 << 52) * float32Exact)
		}, nil
	}
	return nil, fmt.Errorf("classification cannot read %s voxels", dt)
}

// Norm is a channel's normalisation: (x − Mean) / Std in float32, Mean
// and Std over Planes sampled planes.
type Norm struct {
	Mean, Std float64
	On        bool
	Planes    int
}

// apply normalises v as cellfinder does (torch float32 in place: x −=
// mean; x /= std).
func (n Norm) apply(v float32) float32 {
	if !n.On {
		return v
	}
	return (v - float32(n.Mean)) / float32(n.Std)
}

// cropper assembles cubes from planes held in memory.
type cropper struct {
	g     Geometry
	conv  [2]func([]byte, int) float32
	norm  [2]Norm
	scale [3]axisWeights // rescaling weights (z, y, x)
	// tmp holds one cuboid (y, x, z, channel) before rescaling (one per
	// worker).
}

// axisWeights are trilinear interpolation's taps on one axis: output o
// reads input i0[o] with weight w0[o] and i1[o] with w1[o].
type axisWeights struct {
	i0, i1 []int
	w0, w1 []float32
}

// linearWeights computes torch's linear interpolation taps from in to out
// samples, align_corners=False (aten/src/ATen/native/UpSample.h:
// area_pixel_compute_scale, area_pixel_compute_source_index,
// compute_indices_weights_linear), in float32 as its CPU kernel does.
func linearWeights(in, out int) axisWeights {
	w := axisWeights{i0: make([]int, out), i1: make([]int, out), w0: make([]float32, out), w1: make([]float32, out)}
	scale := float32(in) / float32(out)
	for o := range out {
		src := float32(scale*(float32(o)+0.5)) - 0.5
		if src < 0 {
			src = 0
		}
		i0 := int(src)
		lambda := min(max(src-float32(i0), 0), 1)
		i1 := i0
		if i0 < in-1 {
			i1++
		}
		w.i0[o], w.i1[o], w.w0[o], w.w1[o] = i0, i1, 1-lambda, lambda
	}
	return w
}

func newCropper(g Geometry, dt volume.DType, norm [2]Norm) (*cropper, error) {
	c := &cropper{g: g, norm: norm}
	for ch := range g.Channels {
		f, err := converter(dt)
		if err != nil {
			return nil, err
		}
		c.conv[ch] = f
	}
	if g.Rescale {
		for a := range 3 {
			c.scale[a] = linearWeights(g.Crop[a], g.Net[a])
		}
	}
	return c, nil
}

// tmpLen returns the float32s of the cuboid scratch a worker needs.
func (c *cropper) tmpLen() int {
	if !c.g.Rescale {
		return 0
	}
	return c.g.Crop[0] * c.g.Crop[1] * c.g.Crop[2] * c.g.Channels
}

// cube writes the cube at start (z, y, x) into dst (y, x, z, channel of
// the network's size), reading plane z of channel ch from plane(z, ch)
// (the raw bytes of the whole plane), using tmp (tmpLen) when rescaling.
func (c *cropper) cube(dst, tmp []float32, start [3]int, plane func(z, ch int) []byte) {
	g := c.g
	nc := g.Channels
	cz, cy, cx := g.Crop[0], g.Crop[1], g.Crop[2]
	out := dst
	if g.Rescale {
		out = tmp
	}
	w := g.Shape[2]
	for ch := range nc {
		conv, norm := c.conv[ch], c.norm[ch]
		for z := range cz {
			raw := plane(start[0]+z, ch)
			for y := range cy {
				row := (start[1]+y)*w + start[2]
				o := (y*cx*cz+z)*nc + ch
				for x := range cx {
					out[o] = norm.apply(conv(raw, row+x))
					o += cz * nc
				}
			}
		}
	}
	if g.Rescale {
		c.rescale(dst, tmp)
	}
}

// rescale resamples the cuboid src (y, x, z, channel of Crop) to dst (of
// Net), trilinear as torch's upsample_trilinear3d CPU kernel nests it:
// over z the weighted sum of (over y the weighted sum of (over x the
// weighted sum of voxels)), each sum t0·w0 + t1·w1 rounded to float32
// term by term.
func (c *cropper) rescale(dst, src []float32) {
	g := c.g
	nc := g.Channels
	cz, cx := g.Crop[0], g.Crop[2]
	nz, ny, nx := g.Net[0], g.Net[1], g.Net[2]
	wz, wy, wx := c.scale[0], c.scale[1], c.scale[2]
	at := func(y, x, z, ch int) float32 { return src[((y*cx+x)*cz+z)*nc+ch] }
	lerpX := func(y, z, ch, ox int) float32 {
		return float32(at(y, wx.i0[ox], z, ch)*wx.w0[ox]) + float32(at(y, wx.i1[ox], z, ch)*wx.w1[ox])
	}
	lerpY := func(z, ch, oy, ox int) float32 {
		return float32(lerpX(wy.i0[oy], z, ch, ox)*wy.w0[oy]) + float32(lerpX(wy.i1[oy], z, ch, ox)*wy.w1[oy])
	}
	for oy := range ny {
		for ox := range nx {
			for oz := range nz {
				for ch := range nc {
					v := float32(lerpY(wz.i0[oz], ch, oy, ox)*wz.w0[oz]) + float32(lerpY(wz.i1[oz], ch, oy, ox)*wz.w1[oz])
					dst[((oy*nx+ox)*nz+oz)*nc+ch] = v
				}
			}
		}
	}
}
