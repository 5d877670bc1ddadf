package detect

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
)

// sphere is a bright soma in a synthetic volume: centre in voxels, radius
// in microns.
type sphere struct {
	z, y, x   float64
	r, bright float64
	// blur, when set, makes the profile Gaussian with this SD (µm)
	// instead of a disc of radius r.
	blur float64
}

// synth renders a uint16 volume of shape with voxel size vs (µm): a bright
// elliptical tissue region with a smooth edge leaving the plane's corners
// dark (so the corner tile is out of the brain and no tissue touches the
// corners, where the zero-padded median makes a dark dip), noise of SD
// noise, and the spheres with a one-micron soft edge.
func synth(shape [3]int, vs [3]float64, spheres []sphere, noise float64, seed uint64) *volume.Volume {
	nz, ny, nx := shape[0], shape[1], shape[2]
	data := make([]uint16, nz*ny*nx)
	rng := rand.New(rand.NewPCG(seed, 1))
	for z := 0; z < nz; z++ {
		for y := 0; y < ny; y++ {
			for x := 0; x < nx; x++ {
				ey, ex := (float64(y)-float64(ny-1)/2)/(float64(ny)/2-8), (float64(x)-float64(nx-1)/2)/(float64(nx)/2-8)
				inside := (1 - math.Sqrt(ey*ey+ex*ex)) * float64(min(ny, nx)) / 2
				v := 100 + 300/(1+math.Exp(-inside/6))
				for _, s := range spheres {
					dz, dy, dx := (float64(z)-s.z)*vs[0], (float64(y)-s.y)*vs[1], (float64(x)-s.x)*vs[2]
					dist := math.Sqrt(dz*dz + dy*dy + dx*dx)
					if s.blur > 0 {
						v += s.bright * math.Exp(-dist*dist/(2*s.blur*s.blur))
					} else {
						v += s.bright * min(max(s.r-dist+0.5, 0), 1)
					}
				}
				if noise > 0 {
					v += rng.NormFloat64() * noise
				}
				data[(z*ny+y)*nx+x] = uint16(min(max(v, 0), 65535))
			}
		}
	}
	info := volume.Info{Shape: shape, DType: volume.Uint16, VoxelSize: vs}
	m, err := volume.NewMemory(info, volume.Bytes(data))
	if err != nil {
		panic(err)
	}
	return volume.New("synthetic", m)
}

func detectAll(t *testing.T, be gpu.Backend, cfg Config, v *volume.Volume) *Result {
	t.Helper()
	res, err := Run(context.Background(), nil, be, cfg, v, plan.Budget{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestOneSphereExactCentre: one soma is found once, at its exact centre.
func TestOneSphereExactCentre(t *testing.T) {
	cfg := DefaultConfig()
	for _, c := range []sphere{{z: 5, y: 48, x: 50}, {z: 6, y: 61, x: 33}} {
		c.r, c.bright = 8, 1500
		v := synth([3]int{12, 96, 96}, cfg.VoxelSize, []sphere{c}, 0, 1)
		res := detectAll(t, gpu.NewCPU(), cfg, v)
		want := Candidate{int(c.z), int(c.y), int(c.x), Cell}
		if len(res.Candidates) != 1 || res.Candidates[0] != want {
			t.Errorf("sphere at %v: found %v, want [%v]", want, res.Candidates, want)
		}
	}
}
