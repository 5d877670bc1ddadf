package resources

import "testing"

func TestColormaps(t *testing.T) {
	for _, name := range ColormapNames() {
		tab, ok := Colormap(name)
		if !ok {
			t.Fatalf("%s listed but missing", name)
		}
		if tab[0] == tab[255] {
			t.Errorf("%s: both ends are %v", name, tab[0])
		}
	}
	// Reference values from matplotlib 3.6 (viridis(0), viridis(1.0),
	// inferno(0), magma(1.0)): independent of the generated file's layout.
	cases := []struct {
		name string
		i    int
		want [3]uint8
	}{
		{Viridis, 0, [3]uint8{68, 1, 84}},
		{Viridis, 255, [3]uint8{253, 231, 37}},
		{Inferno, 0, [3]uint8{0, 0, 4}},
		{Magma, 255, [3]uint8{252, 253, 191}},
		{Gray, 128, [3]uint8{128, 128, 128}},
		{"red", 255, [3]uint8{255, 0, 0}},
	}
	for _, c := range cases {
		tab, _ := Colormap(c.name)
		if tab[c.i] != c.want {
			t.Errorf("%s[%d] = %v, want %v", c.name, c.i, tab[c.i], c.want)
		}
	}
	if _, ok := Colormap("nope"); ok {
		t.Error("unknown colormap found")
	}
	// A diverging map is light in the middle and dark at both ends.
	cw, _ := Colormap(Coolwarm)
	lum := func(c [3]uint8) int { return int(c[0]) + int(c[1]) + int(c[2]) }
	if lum(cw[128]) <= lum(cw[0]) || lum(cw[128]) <= lum(cw[255]) {
		t.Errorf("coolwarm is not diverging: %v %v %v", cw[0], cw[128], cw[255])
	}
}
