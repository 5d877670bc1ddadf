package model

import (
	"math"
	"slices"
	"strings"
	"testing"
)

// counter counts the emissions of each event it is connected to.
type counter map[string]int

func (c counter) on(name string, e *Event) { e.Connect(func() { c[name]++ }) }

func watchImage(m *Image) counter {
	c := counter{}
	for name, e := range map[string]*Event{
		"visible": &m.VisibleChanged, "opacity": &m.OpacityChanged, "blending": &m.BlendingChanged,
		"contrast": &m.ContrastChanged, "range": &m.RangeChanged, "auto": &m.AutoChanged,
		"gamma": &m.GammaChanged, "colormap": &m.ColormapChanged, "voxel": &m.VoxelSizeChanged,
		"shown": &m.ShownChanged,
	} {
		c.on(name, e)
	}
	return c
}

// only reports what differs between the events c counted and want (the
// other events must not have fired).
func (c counter) only(want map[string]int) string {
	var bad []string
	for k, n := range c {
		if n != want[k] {
			bad = append(bad, k)
		}
	}
	for k, n := range want {
		if c[k] != n {
			bad = append(bad, k)
		}
	}
	return strings.Join(bad, ",")
}

// TestImageEvents: each setter fires its own event once, setting the
// same value again fires nothing, and refused values change nothing.
func TestImageEvents(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(m *Image)
		want map[string]int
		// check says what is wrong with the settings after set.
		check func(m *Image) bool
	}{
		{"gamma", func(m *Image) { m.SetGamma(2) }, map[string]int{"gamma": 1}, func(m *Image) bool { return m.Gamma() == 2 }},
		{"gamma same", func(m *Image) { m.SetGamma(1) }, nil, func(m *Image) bool { return m.Gamma() == 1 }},
		{"gamma zero", func(m *Image) { m.SetGamma(0) }, nil, func(m *Image) bool { return m.Gamma() == 1 }},
		{"gamma negative", func(m *Image) { m.SetGamma(-2) }, nil, func(m *Image) bool { return m.Gamma() == 1 }},
		{"gamma NaN", func(m *Image) { m.SetGamma(math.NaN()) }, nil, func(m *Image) bool { return m.Gamma() == 1 }},
		{"gamma Inf", func(m *Image) { m.SetGamma(math.Inf(1)) }, nil, func(m *Image) bool { return m.Gamma() == 1 }},
		{"colormap", func(m *Image) { m.SetColormap("viridis") }, map[string]int{"colormap": 1}, func(m *Image) bool { return m.Colormap() == "viridis" }},
		{"colormap same", func(m *Image) { m.SetColormap("gray") }, nil, func(m *Image) bool { return m.Colormap() == "gray" }},
		{"opacity", func(m *Image) { m.SetOpacity(0.5) }, map[string]int{"opacity": 1}, func(m *Image) bool { return m.Opacity() == 0.5 }},
		{"opacity clamped high", func(m *Image) { m.SetOpacity(0.5); m.SetOpacity(7) }, map[string]int{"opacity": 2}, func(m *Image) bool { return m.Opacity() == 1 }},
		{"opacity clamped low", func(m *Image) { m.SetOpacity(-1) }, map[string]int{"opacity": 1}, func(m *Image) bool { return m.Opacity() == 0 }},
		{"opacity same after clamp", func(m *Image) { m.SetOpacity(3) }, nil, func(m *Image) bool { return m.Opacity() == 1 }},
		{"opacity NaN", func(m *Image) { m.SetOpacity(math.NaN()) }, nil, func(m *Image) bool { return m.Opacity() == 1 }},
		{"blending", func(m *Image) { m.SetBlending(Additive) }, map[string]int{"blending": 1}, func(m *Image) bool { return m.Blending() == Additive }},
		{"blending unknown", func(m *Image) { m.SetBlending(Blending(9)) }, nil, func(m *Image) bool { return m.Blending() == Translucent }},
		{"visible", func(m *Image) { m.SetVisible(false) }, map[string]int{"visible": 1}, func(m *Image) bool { return !m.Visible() }},
		{"visible same", func(m *Image) { m.SetVisible(true) }, nil, func(m *Image) bool { return m.Visible() }},
		{"contrast", func(m *Image) { m.SetContrastLimits(10, 20) }, map[string]int{"contrast": 1, "range": 1}, func(m *Image) bool {
			lo, hi := m.ContrastLimits()
			rlo, rhi := m.ContrastRange()
			// The range widens from the first limits 100..4000.
			return lo == 10 && hi == 20 && rlo == 10 && rhi == 4000
		}},
		{"contrast inside range", func(m *Image) { m.SetContrastLimits(200, 300) }, map[string]int{"contrast": 1}, func(m *Image) bool {
			rlo, rhi := m.ContrastRange()
			return rlo == 100 && rhi == 4000
		}},
		{"contrast same", func(m *Image) { m.SetContrastLimits(100, 4000) }, nil, nil},
		{"contrast NaN", func(m *Image) { m.SetContrastLimits(math.NaN(), 5) }, nil, func(m *Image) bool {
			lo, hi := m.ContrastLimits()
			return lo == 100 && hi == 4000
		}},
		{"contrast turns auto off", func(m *Image) { m.SetContinuousAutoContrast(true); m.SetContrastLimits(1, 2) },
			map[string]int{"auto": 2, "contrast": 1, "range": 1}, func(m *Image) bool { return !m.ContinuousAutoContrast() }},
		{"auto limits keep auto", func(m *Image) { m.SetContinuousAutoContrast(true); m.AutoLimits(1, 2) },
			map[string]int{"auto": 1, "contrast": 1, "range": 1}, func(m *Image) bool { return m.ContinuousAutoContrast() }},
		{"auto same", func(m *Image) { m.SetContinuousAutoContrast(false) }, nil, nil},
		{"voxel", func(m *Image) { _ = m.SetVoxelSize([3]float64{5, 2, 2}) }, map[string]int{"voxel": 1}, func(m *Image) bool { return m.VoxelSize() == [3]float64{5, 2, 2} }},
		{"voxel same", func(m *Image) { _ = m.SetVoxelSize([3]float64{5, 2, 2}); _ = m.SetVoxelSize([3]float64{5, 2, 2}) }, map[string]int{"voxel": 1}, nil},
	} {
		m := NewImage(ImageSettings{Base: NewBase(true, 0, Translucent), Colormap: "gray", Contrast: [2]float64{100, 4000}})
		c := watchImage(m)
		tc.set(m)
		if bad := c.only(tc.want); bad != "" {
			t.Errorf("%s: events %v, want %v", tc.name, map[string]int(c), tc.want)
		}
		if tc.check != nil && !tc.check(m) {
			t.Errorf("%s: settings not as set", tc.name)
		}
	}
}

// TestVoxelSizeRefused: a voxel size that is not three positive finite
// numbers is refused with an error that says what is wanted, and changes
// nothing.
func TestVoxelSizeRefused(t *testing.T) {
	for _, vs := range [][3]float64{{0, 2, 2}, {5, -2, 2}, {5, 2, math.NaN()}, {math.Inf(1), 2, 2}} {
		m := NewImage(ImageSettings{Unit: "nm"})
		c := watchImage(m)
		err := m.SetVoxelSize(vs)
		if err == nil || !strings.Contains(err.Error(), "three numbers z,y,x in nm") {
			t.Errorf("voxel size %v: error %v", vs, err)
		}
		if m.VoxelSize() != [3]float64{} || len(c) != 0 {
			t.Errorf("voxel size %v: set to %v, events %v", vs, m.VoxelSize(), c)
		}
	}
	if u := NewImage(ImageSettings{}).Unit(); u != "µm" {
		t.Errorf("default unit %q", u)
	}
}

// TestImageDefaults: zero settings take gamma 1, opacity 1, and an
// opacity above 1 is clamped.
func TestImageDefaults(t *testing.T) {
	m := NewImage(ImageSettings{Base: NewBase(false, 3, Additive), Gamma: -1})
	if m.Gamma() != 1 || m.Opacity() != 1 || m.Visible() || m.Blending() != Additive {
		t.Errorf("gamma %v opacity %v visible %v blending %v", m.Gamma(), m.Opacity(), m.Visible(), m.Blending())
	}
	if b := NewBase(true, 0.25, Translucent); b.Opacity() != 0.25 {
		t.Errorf("opacity %v", b.Opacity())
	}
}

// TestSliceShown follows the limits through the slices shown: the first
// slice with a range sets them, a flat first slice shows but leaves them
// to the next, later slices only widen the range unless continuous
// auto-contrast is on; a slice that says nothing leaves the range. It
// emits nothing (it runs while the view draws).
func TestSliceShown(t *testing.T) {
	m := NewImage(ImageSettings{})
	c := watchImage(m)
	limits := func() [4]float64 {
		lo, hi := m.ContrastLimits()
		rlo, rhi := m.ContrastRange()
		return [4]float64{lo, hi, rlo, rhi}
	}
	steps := []struct {
		s       SliceStats
		changed bool
		want    [4]float64
	}{
		// A flat slice: limits lo..lo+1, range its values.
		{SliceStats{Min: 7, Max: 7, Lo: 7, Hi: 7, Finite: true, Counts: true}, true, [4]float64{7, 8, 7, 7}},
		// A slice not yet computed says nothing.
		{SliceStats{Min: 0, Max: 0, Lo: 0, Hi: 0, Finite: false, Counts: false}, false, [4]float64{7, 8, 7, 7}},
		// The first slice with a range sets limits and range.
		{SliceStats{Min: 0, Max: 100, Lo: 2, Hi: 90, Finite: true, Counts: true}, true, [4]float64{2, 90, 0, 100}},
		// Later slices widen the range only.
		{SliceStats{Min: -5, Max: 50, Lo: 0, Hi: 40, Finite: true, Counts: true}, false, [4]float64{2, 90, -5, 100}},
	}
	prev := limits()
	for i, st := range steps {
		if got := m.SliceShown(st.s); got != st.changed || limits() != st.want {
			t.Errorf("step %d: changed %v limits %v, want %v %v", i, got, limits(), st.changed, st.want)
		}
		// Settle tells of the slice only when it moved something.
		n := c["shown"]
		m.Settle()
		if moved := limits() != prev; c["shown"]-n != map[bool]int{false: 0, true: 1}[moved] {
			t.Errorf("step %d: Settle emitted %d, limits moved %v", i, c["shown"]-n, moved)
		}
		m.Settle()
		if c["shown"]-n > 1 {
			t.Errorf("step %d: a second Settle emitted again", i)
		}
		prev = limits()
	}
	delete(c, "shown")
	m.auto = true // quietly, as the events are counted below
	if !m.SliceShown(SliceStats{Min: 0, Max: 300, Lo: 10, Hi: 200, Finite: true, Counts: true}) || limits() != [4]float64{10, 200, -5, 300} {
		t.Errorf("continuous: limits %v", limits())
	}
	if len(c) != 0 {
		t.Errorf("SliceShown emitted %v", c)
	}
}

// TestEventDisconnect: a disconnected observer is not called again, the
// others still are, in the order connected.
func TestEventDisconnect(t *testing.T) {
	var e Event
	var got []int
	d1 := e.Connect(func() { got = append(got, 1) })
	e.Connect(func() { got = append(got, 2) })
	d3 := e.Connect(func() { got = append(got, 3) })
	e.emit()
	d1()
	d1() // twice is harmless
	e.emit()
	d3()
	e.emit()
	if want := []int{1, 2, 3, 2, 3, 2}; !slices.Equal(got, want) {
		t.Errorf("calls %v, want %v", got, want)
	}
}
