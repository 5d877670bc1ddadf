package model

import (
	"fmt"
	"math"
)

// Image is an image layer's settings: contrast limits and the range of
// values seen, continuous auto-contrast, gamma, colormap (by name; the
// view owns the tables), voxel size and its unit, with its Base
// (visibility, opacity, blending). Each setting has its own change
// event; a setter that leaves the value as it was emits nothing.
type Image struct {
	Base
	lo, hi float64
	// rangeLo, rangeHi: the span of values seen so far, widened to
	// hold the limits (the contrast slider's range).
	rangeLo, rangeHi float64
	// contrastSet: the limits were set (by the user or a slice with a
	// range); until then each slice shown sets them.
	contrastSet bool
	auto        bool
	gamma       float64
	colormap    string
	voxel       [3]float64
	unit        string
	// shownMoved: a slice shown moved the limits or the range since
	// the last Settle.
	shownMoved bool

	// ContrastChanged fires after the limits changed, RangeChanged
	// after the range of values seen did, AutoChanged after continuous
	// auto-contrast was switched, and GammaChanged, ColormapChanged and
	// VoxelSizeChanged after their setting.
	ContrastChanged, RangeChanged, AutoChanged      Event
	GammaChanged, ColormapChanged, VoxelSizeChanged Event
	// ShownChanged fires from Settle when the slices shown since the
	// last Settle moved the limits or the range (SliceShown emits
	// nothing: it runs while the view draws). It is not an edit of the
	// layer: the contrast controls follow it, the layer list does not.
	ShownChanged Event
}

// ImageSettings are an image's first settings. Zero values take the
// defaults: gamma 1, unit µm, limits from the first slice shown.
type ImageSettings struct {
	Base     Base
	Colormap string
	// Contrast, when not both zero, are the first limits (and range).
	Contrast     [2]float64
	AutoContrast bool
	Gamma        float64
	Unit         string
}

// NewImage returns an image's settings model.
func NewImage(s ImageSettings) *Image {
	m := &Image{Base: s.Base, colormap: s.Colormap, auto: s.AutoContrast, gamma: 1, unit: s.Unit}
	if s.Gamma > 0 && !math.IsInf(s.Gamma, 0) {
		m.gamma = s.Gamma
	}
	if m.unit == "" {
		m.unit = "µm"
	}
	if s.Contrast != [2]float64{} {
		m.lo, m.hi = s.Contrast[0], s.Contrast[1]
		m.rangeLo, m.rangeHi = m.lo, m.hi
		m.contrastSet = true
	}
	return m
}

// ContrastLimits returns the values mapped to the colormap's ends.
func (m *Image) ContrastLimits() (lo, hi float64) { return m.lo, m.hi }

// ContrastRange returns the span of values seen in the slices shown so
// far, widened to include the limits: the contrast slider's range.
func (m *Image) ContrastRange() (lo, hi float64) { return m.rangeLo, m.rangeHi }

// SetContrastLimits sets the limits (finite; others are refused) and
// turns continuous auto-contrast off.
func (m *Image) SetContrastLimits(lo, hi float64) {
	if !finite(lo) || !finite(hi) {
		return
	}
	m.SetContinuousAutoContrast(false)
	m.AutoLimits(lo, hi)
}

// AutoLimits sets the limits that a slice's percentiles gave, leaving
// continuous auto-contrast as it is, and widens the range to hold them.
func (m *Image) AutoLimits(lo, hi float64) {
	if !finite(lo) || !finite(hi) {
		return
	}
	m.contrastSet = true
	m.setRange(math.Min(m.rangeLo, lo), math.Max(m.rangeHi, hi))
	if lo != m.lo || hi != m.hi {
		m.lo, m.hi = lo, hi
		m.ContrastChanged.emit()
	}
}

func (m *Image) setRange(lo, hi float64) {
	if lo != m.rangeLo || hi != m.rangeHi {
		m.rangeLo, m.rangeHi = lo, hi
		m.RangeChanged.emit()
	}
}

// SliceStats is what the view measured of a slice it shows: its least
// and greatest values, its 0.1 and 99.9 percentiles (Lo, Hi), whether
// those are finite, and whether the slice says anything about the range
// (a running job's plane not yet computed does not).
type SliceStats struct {
	Min, Max, Lo, Hi float64
	Finite, Counts   bool
}

// SliceShown takes in a slice the view shows: it widens the range of
// values seen and, under continuous auto-contrast or until the limits
// are set, takes the slice's percentiles as limits (a flat first slice
// shows, but leaves the next slice with a range to set them). It emits
// nothing, since it runs while the view draws; it reports whether the
// limits may have changed, and the view calls Settle after drawing.
func (m *Image) SliceShown(s SliceStats) (limits bool) {
	lo, hi, rlo, rhi := m.lo, m.hi, m.rangeLo, m.rangeHi
	defer func() {
		if m.lo != lo || m.hi != hi || m.rangeLo != rlo || m.rangeHi != rhi {
			m.shownMoved = true
		}
	}()
	if s.Counts {
		if m.contrastSet {
			m.rangeLo, m.rangeHi = math.Min(m.rangeLo, s.Min), math.Max(m.rangeHi, s.Max)
		} else {
			m.rangeLo, m.rangeHi = s.Min, s.Max
		}
	}
	if !(m.auto || !m.contrastSet) || !s.Finite {
		return false
	}
	switch {
	case s.Hi > s.Lo:
		m.lo, m.hi = s.Lo, s.Hi
		m.contrastSet = true
	case !m.contrastSet:
		m.lo, m.hi = s.Lo, s.Lo+1
	}
	return true
}

// Settle emits ShownChanged if the slices shown since the last Settle
// moved the limits or the range.
func (m *Image) Settle() {
	if m.shownMoved {
		m.shownMoved = false
		m.ShownChanged.emit()
	}
}

// ContinuousAutoContrast reports whether the limits follow every slice.
func (m *Image) ContinuousAutoContrast() bool { return m.auto }

// SetContinuousAutoContrast makes the limits follow the percentiles of
// every slice shown, or stop following them.
func (m *Image) SetContinuousAutoContrast(on bool) {
	if on != m.auto {
		m.auto = on
		m.AutoChanged.emit()
	}
}

// Gamma returns the gamma exponent.
func (m *Image) Gamma() float64 { return m.gamma }

// SetGamma sets the gamma exponent; one not positive and finite is
// refused.
func (m *Image) SetGamma(g float64) {
	if g > 0 && !math.IsInf(g, 0) && g != m.gamma {
		m.gamma = g
		m.GammaChanged.emit()
	}
}

// Colormap returns the colormap's name.
func (m *Image) Colormap() string { return m.colormap }

// SetColormap sets the colormap's name; the view checks that it has
// such a table before.
func (m *Image) SetColormap(name string) {
	if name != m.colormap {
		m.colormap = name
		m.ColormapChanged.emit()
	}
}

// VoxelSize returns the voxel size z, y, x in Unit (zero: unknown).
func (m *Image) VoxelSize() [3]float64 { return m.voxel }

// Unit returns the unit of the voxel size.
func (m *Image) Unit() string { return m.unit }

// SetVoxelSize sets the voxel size: three numbers z, y, x in Unit, each
// positive and finite; others are refused with an error saying so.
func (m *Image) SetVoxelSize(vs [3]float64) error {
	for _, x := range vs {
		if !(x > 0) || math.IsInf(x, 0) {
			return fmt.Errorf("voxel size %g, %g, %g: give three numbers z,y,x in %s, each positive", vs[0], vs[1], vs[2], m.unit)
		}
	}
	if vs != m.voxel {
		m.voxel = vs
		m.VoxelSizeChanged.emit()
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
