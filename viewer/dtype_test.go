package viewer

import (
	"slices"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/resources"
)

// render draws z slice 0 of vol at 1.5x (so columns repeat: the sampled,
// not the run, path) and at 1:1, through limits [lo, hi] with gamma 0.8.
func render(t *testing.T, vol *volume.Volume, lo, hi float64) [][]uint32 {
	t.Helper()
	p, err := readPlane(vol, Z, 0, slabBytes)
	if err != nil {
		t.Fatal(err)
	}
	cm, _ := resources.Colormap(resources.Viridis)
	var l lut
	l.build(vol.DType, lo, hi, 0.8, cm)
	var out [][]uint32
	for _, scale := range []float64{1, 1.5} {
		var f frame
		f.resize(60, 40)
		tf := xform{CX: float64(vol.Shape[2]) / 2, CY: float64(vol.Shape[1]) / 2, Scale: scale}
		f.fillAround(drawPlane(&f, p, &l, tf, 60, 40, 1, 1, Translucent))
		px := slices.Clone(f.px)
		if u := slices.Compact(slices.Sorted(slices.Values(px))); len(u) < 20 {
			t.Fatalf("%s frame at %vx has %d colours: nothing drawn?", vol.DType, scale, len(u))
		}
		out = append(out, px)
	}
	return out
}

// TestSignedFramesMatchShifted draws int8 and int16 planes and checks
// the pixels against unsigned planes of the same values shifted by the
// type's minimum, drawn with limits shifted alike: a signed value must
// look exactly as its shifted unsigned twin. 32-bit integer planes are
// checked against float64 planes of the same values.
func TestSignedFramesMatchShifted(t *testing.T) {
	shape := [3]int{1, 23, 37}
	val := func(z, y, x int) float64 { return float64((x*37+y*101)*613%65536 - 32768) }
	for _, tc := range []struct {
		dt, twin volume.DType
		shift    float64
		div      int
		lo, hi   float64
	}{
		{volume.Int16, volume.Uint16, 32768, 1, -20000, 15000},
		{volume.Int8, volume.Uint8, 128, 256, -90, 70},
	} {
		f := func(z, y, x int) float64 { return float64(int(val(z, y, x)) / tc.div) }
		got := render(t, memVolume(t, tc.dt, shape, f), tc.lo, tc.hi)
		want := render(t, memVolume(t, tc.twin, shape, func(z, y, x int) float64 { return f(z, y, x) + tc.shift }), tc.lo+tc.shift, tc.hi+tc.shift)
		for i := range got {
			if !slices.Equal(got[i], want[i]) {
				t.Errorf("%s: frame %d differs from the shifted %s frame", tc.dt, i, tc.twin)
			}
		}
	}
	for _, dt := range []volume.DType{volume.Int32, volume.Uint32} {
		f := func(z, y, x int) float64 { return val(z, y, x) * 50000 }
		if dt == volume.Uint32 {
			f = func(z, y, x int) float64 { return (val(z, y, x) + 32768) * 60000 }
		}
		vol := memVolume(t, dt, shape, f)
		p, _ := readPlane(vol, Z, 0, slabBytes)
		lo, hi := p.stats.lo, p.stats.hi
		got := render(t, vol, lo, hi)
		want := render(t, memVolume(t, volume.Float64, shape, f), lo, hi)
		for i := range got {
			if !slices.Equal(got[i], want[i]) {
				t.Errorf("%s: frame %d differs from the float64 frame", dt, i)
			}
		}
		if p.value(3, 4) != f(0, 3, 4) {
			t.Errorf("%s: value under the cursor %v, want %v", dt, p.value(3, 4), f(0, 3, 4))
		}
	}
}
