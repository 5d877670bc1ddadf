package model

import "math"

// Blending is how a layer combines with the layers below it.
type Blending int

// Blending modes, as in napari.
const (
	// Translucent mixes by opacity: out = a*layer + (1-a)*below.
	Translucent Blending = iota
	// Additive adds: out = min(1, below + a*layer), for channel overlays.
	Additive
)

// String returns the mode's name.
func (b Blending) String() string { return [...]string{"translucent", "additive"}[b] }

// Base is what every layer kind has: whether it is drawn, its opacity
// and how it blends, each with its own change event.
type Base struct {
	visible bool
	opacity float64
	blend   Blending
	// VisibleChanged, OpacityChanged and BlendingChanged fire after
	// the setting changed.
	VisibleChanged, OpacityChanged, BlendingChanged Event
}

// NewBase returns a layer's base settings: shown or not, opacity
// clamped to [0, 1] (0 or less means 1), blending.
func NewBase(visible bool, opacity float64, blend Blending) Base {
	if !(opacity > 0) {
		opacity = 1
	}
	return Base{visible: visible, opacity: math.Min(opacity, 1), blend: blend}
}

// Visible reports whether the layer is drawn.
func (b *Base) Visible() bool { return b.visible }

// SetVisible shows or hides the layer.
func (b *Base) SetVisible(on bool) {
	if on != b.visible {
		b.visible = on
		b.VisibleChanged.emit()
	}
}

// Opacity returns the layer's opacity in [0, 1].
func (b *Base) Opacity() float64 { return b.opacity }

// SetOpacity sets the opacity, clamped to [0, 1] (NaN is refused).
func (b *Base) SetOpacity(a float64) {
	if math.IsNaN(a) {
		return
	}
	if a = math.Min(math.Max(a, 0), 1); a != b.opacity {
		b.opacity = a
		b.OpacityChanged.emit()
	}
}

// Blending returns how the layer combines with those below.
func (b *Base) Blending() Blending { return b.blend }

// SetBlending sets how the layer combines with those below; a mode not
// in the list is refused.
func (b *Base) SetBlending(m Blending) {
	if m != b.blend && (m == Translucent || m == Additive) {
		b.blend = m
		b.BlendingChanged.emit()
	}
}
