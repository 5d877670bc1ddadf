package render3d

import (
	"math"
	"testing"
)

func orthoErr(m Mat) float64 {
	var e float64
	for i := range 3 {
		for j := range 3 {
			want := 0.0
			if i == j {
				want = 1
			}
			e = math.Max(e, math.Abs(m[i].dot(m[j])-want))
		}
	}
	return e
}

// TestArcball: a horizontal drag through the centre turns the volume
// about the screen's vertical, by the angle between the two points on
// the ball, the way the pointer goes; many drags keep the rotation
// orthonormal.
func TestArcball(t *testing.T) {
	c := DefaultCamera()
	w, h := 200.0, 200.0
	// From the centre to halfway to the right edge: sin(angle) = 0.5.
	c.Drag(100, 100, 150, 100, w, h)
	want := math.Pi / 6
	// The point of the volume at the centre front moved right: the
	// world's -z (towards the viewer) now has a positive screen x.
	front := Vec{0, 0, -1}
	x, z := c.Rot[0].dot(front), c.Rot[2].dot(front)
	if got := math.Atan2(x, -z); math.Abs(got-want) > 1e-9 {
		t.Fatalf("turned by %v rad, want %v", got, want)
	}
	if math.Abs(c.Rot[1].dot(Vec{0, 1, 0})-1) > 1e-9 {
		t.Fatalf("a horizontal drag tilted the vertical: %v", c.Rot)
	}
	for k := range 5000 {
		c.Drag(100, 100, 100+float64(k%7), 100+float64(k%5), w, h)
	}
	if e := orthoErr(c.Rot); e > 1e-12 {
		t.Fatalf("rotation off orthonormal by %v", e)
	}
}

// TestAngles: a full turn of azimuth comes back; azimuth 90 looks
// along -x, elevation 90 along +y.
func TestAngles(t *testing.T) {
	a, b := Angles(360, 30), Angles(0, 30)
	for i := range 3 {
		for j := range 3 {
			if math.Abs(a.Rot[i][j]-b.Rot[i][j]) > 1e-12 {
				t.Fatalf("360 != 0: %v %v", a.Rot, b.Rot)
			}
		}
	}
	if d := Angles(90, 0).Rot[2]; math.Abs(d[0]+1) > 1e-12 {
		t.Fatalf("azimuth 90 looks along %v", d)
	}
	if d := Angles(0, 90).Rot[2]; math.Abs(d[1]-1) > 1e-12 {
		t.Fatalf("elevation 90 looks along %v", d)
	}
}
