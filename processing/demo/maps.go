package demo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/voxlab/voxlab/processing/volume"
)

// MapsVoxelSize is the demo maps' voxel size in Å (the cryo-EM
// heterogeneity challenge's), written into the mask's MRC header.
const MapsVoxelSize = 2.146

// MapsLayout is the size of the cryo-EM demo.
type MapsLayout struct {
	// GT and Submitted are the numbers of maps, Box their edge.
	GT, Submitted, Box int
	// MaskRadius is the radius of the spherical mask in voxels.
	MaskRadius float64
}

// MapsLayoutFor returns the layout of a demo size: small, 40 ground-truth
// and 10 submitted maps of 32³; large, 400 and 40 of 64³.
func MapsLayoutFor(size Size) MapsLayout {
	if size == Large {
		return MapsLayout{GT: 400, Submitted: 40, Box: 64, MaskRadius: 0.4 * 64}
	}
	return MapsLayout{GT: 40, Submitted: 10, Box: 32, MaskRadius: 0.4 * 32}
}

// MapsSet is a set of demo maps: the conformational coordinate t of each
// map and the maps themselves, n·box³ float32.
type MapsSet struct {
	T    []float64
	Data []float32
}

// NewMaps makes the cryo-EM demo: ground-truth maps evenly along a
// conformational coordinate t ∈ [0, 1] with little noise, and submitted
// maps at scattered t with more noise, blurred edges, and a different
// scale and offset (which median-zscore normalisation removes). Both are
// deterministic from seed.
func NewMaps(l MapsLayout, seed int64) (gt, sub MapsSet) {
	rng := rand.New(rand.NewPCG(uint64(seed), 0x6d617073))
	gt.T = make([]float64, l.GT)
	for i := range gt.T {
		gt.T[i] = float64(i) / float64(max(l.GT-1, 1))
	}
	sub.T = make([]float64, l.Submitted)
	for j := range sub.T {
		sub.T[j] = math.Min(1, math.Max(0, (float64(j)+0.5)/float64(l.Submitted)+0.3/float64(l.Submitted)*(rng.Float64()-0.5)))
	}
	gt.Data = renderMaps(l.Box, gt.T, 1, 0, 0.05, 1, rng)
	sub.Data = renderMaps(l.Box, sub.T, 1.7, 0.3, 0.25, 1.25, rng)
	return gt, sub
}

// mapBlob is an isotropic Gaussian density: centre (voxels), width σ, height.
type mapBlob struct{ z, y, x, sigma, amp float64 }

// conformation returns the blobs of a molecule at coordinate t: a rigid
// core of two blobs and a three-blob domain swinging about a hinge by 70°
// as t goes from 0 to 1, with a small blob sliding along the core. The
// model is a cartoon of a hinged two-domain protein, not any real one.
func conformation(box int, t float64) []mapBlob {
	c, s := float64(box)/2, float64(box)
	blobs := []mapBlob{
		{c, c - 0.15*s, c - 0.05*s, 0.07 * s, 1.0},
		{c, c + 0.02*s, c - 0.12*s, 0.06 * s, 0.9},
	}
	hz, hy, hx := c, c+0.05*s, c+0.02*s // hinge
	ang := t * 70 * math.Pi / 180
	for _, arm := range []struct{ r, dz, sig, amp float64 }{{0.10, 0.00, 0.05, 0.8}, {0.18, 0.05, 0.045, 0.7}, {0.25, -0.04, 0.04, 0.6}} {
		blobs = append(blobs, mapBlob{
			z: hz + arm.dz*s, y: hy + arm.r*s*math.Cos(ang), x: hx + arm.r*s*math.Sin(ang),
			sigma: arm.sig * s, amp: arm.amp,
		})
	}
	blobs = append(blobs, mapBlob{c - 0.12*s, c - 0.1*s + 0.12*s*t, c + 0.1*s, 0.035 * s, 0.5})
	return blobs
}

// renderMaps draws one map per t: scale·(Σ blobs with widths ×blur) +
// offset + Gaussian noise of σ noise. Each Gaussian is separable, so a map
// costs a few multiplications per voxel per mapBlob.
func renderMaps(box int, ts []float64, scale, offset, noise, blur float64, rng *rand.Rand) []float32 {
	v := box * box * box
	out := make([]float32, len(ts)*v)
	gz, gy, gx := make([]float64, box), make([]float64, box), make([]float64, box)
	acc := make([]float64, v)
	for i, t := range ts {
		clear(acc)
		for _, b := range conformation(box, t) {
			w := 2 * mapSq(b.sigma*blur)
			for k := 0; k < box; k++ {
				gz[k] = b.amp * math.Exp(-mapSq(float64(k)-b.z)/w)
				gy[k] = math.Exp(-mapSq(float64(k)-b.y) / w)
				gx[k] = math.Exp(-mapSq(float64(k)-b.x) / w)
			}
			for z := 0; z < box; z++ {
				for y := 0; y < box; y++ {
					zy := gz[z] * gy[y]
					row := acc[(z*box+y)*box : (z*box+y+1)*box]
					for x := range row {
						row[x] += zy * gx[x]
					}
				}
			}
		}
		m := out[i*v : (i+1)*v]
		for k := range m {
			m[k] = float32(scale*acc[k] + offset + noise*rng.NormFloat64())
		}
	}
	return out
}

func mapSq(x float64) float64 { return x * x }

// MaskSphere returns the demo mask: 1 within radius voxels of voxel
// (box/2, box/2, box/2), 0 outside.
func MaskSphere(box int, radius float64) []float32 {
	m := make([]float32, box*box*box)
	c := box / 2
	for z := 0; z < box; z++ {
		for y := 0; y < box; y++ {
			for x := 0; x < box; x++ {
				if mapSq(float64(z-c))+mapSq(float64(y-c))+mapSq(float64(x-c)) <= radius*radius {
					m[(z*box+y)*box+x] = 1
				}
			}
		}
	}
	return m
}

// WriteMaps writes the cryo-EM demo into dir: MapsGT and MapsSubmitted as
// 4D NPY (n, box, box, box) float32, and MapsMask, a spherical mask as an
// MRC file with the voxel size MapsVoxelSize in its header. Each file is
// written under a temporary name and renamed when whole.
func WriteMaps(dir string, size Size, seed int64) error {
	l := MapsLayoutFor(size)
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(MapsGT)), 0o755); err != nil {
		return fmt.Errorf("demo maps: %w", err)
	}
	gt, sub := NewMaps(l, seed)
	one := volume.Info{Shape: [3]int{l.Box, l.Box, l.Box}, DType: volume.Float32}
	if err := writeStack(filepath.Join(dir, MapsGT), l.GT, one, gt.Data); err != nil {
		return err
	}
	if err := writeStack(filepath.Join(dir, MapsSubmitted), l.Submitted, one, sub.Data); err != nil {
		return err
	}
	mi := one
	mi.VoxelSize = [3]float64{MapsVoxelSize, MapsVoxelSize, MapsVoxelSize}
	w, err := volume.Create(filepath.Join(dir, MapsMask), mi)
	if err != nil {
		return fmt.Errorf("demo maps: %w", err)
	}
	if err := w.WriteSlab(0, volume.Bytes(MaskSphere(l.Box, l.MaskRadius))); err != nil {
		w.Abort()
		return fmt.Errorf("demo maps: %w", err)
	}
	if err := w.Commit(); err != nil {
		return fmt.Errorf("demo maps: %w", err)
	}
	return nil
}

// writeStack writes n maps of shape one as a 4D NPY, map by map.
func writeStack(path string, n int, one volume.Info, data []float32) error {
	w, err := volume.CreateStack(path, n, one)
	if err != nil {
		return fmt.Errorf("demo maps: %w", err)
	}
	v := one.Shape[0] * one.Shape[1] * one.Shape[2]
	for i := 0; i < n; i++ {
		if err := w.WriteSlab(i*one.Shape[0], volume.Bytes(data[i*v:(i+1)*v])); err != nil {
			w.Abort()
			return fmt.Errorf("demo maps: %w", err)
		}
	}
	if err := w.Commit(); err != nil {
		return fmt.Errorf("demo maps: %w", err)
	}
	return nil
}
