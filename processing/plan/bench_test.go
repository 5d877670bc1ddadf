package plan

import "testing"

// Planning the field's three-phase dezinging run: bisection over 1800
// projections.
func BenchmarkMake(b *testing.B) {
	in := Array{Name: "in", PerUnit: 11059200, Halo: true}
	out := Array{Name: "out", PerUnit: 11059200}
	mean := Array{Name: "mean", Fixed: 22118400}
	phases := []Phase{
		{Name: "darks", Units: 20, Halo: 1, Arrays: []Array{in, out, mean}},
		{Name: "flats", Units: 50, Halo: 1, Arrays: []Array{in, out, mean, mean}},
		{Name: "projections", Units: 1800, Halo: 1, Arrays: []Array{in, out, mean, mean, {Name: "corrected", PerUnit: 22118400}}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Make("dezing", phases, Budget{Device: 2 << 30}); err != nil {
			b.Fatal(err)
		}
	}
}
