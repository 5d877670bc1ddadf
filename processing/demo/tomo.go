package demo

import (
	"encoding/csv"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"sync"

	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/processing/volume/h5"
)

// Levels of the synthetic detector, in counts. The dark pedestal is high
// enough that a cold zinger in a dark frame can still fall by more than
// MinZinger without reaching zero.
const (
	darkLevel  = 4500.0
	darkNoise  = 10.0
	flatBase   = 20000.0 // open beam above the dark level at the beam's edge
	flatPeak   = 15000.0 // extra open beam at the beam's centre
	flatJitter = 0.003   // frame-to-frame beam intensity fluctuation
	countGain  = 0.25    // counts per photoelectron: shot noise σ = √(gain·counts)

	// MinZinger and MaxZinger bound the size |Δ| of injected zingers:
	// well above httomo's default dif of 1000.
	MinZinger = 3000
	MaxZinger = 12000

	// axisShift is how far right of the detector's middle the rotation
	// axis lies, as a fraction of the width: a reconstruction at
	// columns/2 smears the phantom into arcs, one at the axis
	// (--center auto) shows it.
	axisShift = 0.05
	// stripeColumns are the columns whose response drifts between the
	// flats and the projections (a gain off by up to maxStripe), which
	// the flat-field correction leaves as stripes in the sinograms and
	// rings in the slices; small enough that no voxel of a stripe is a
	// zinger to the 3x3x3 median at dif 1000.
	stripeColumns = 6
	maxStripe     = 0.015
)

// TomoLayout is the frame layout of a demo scan, in file order: darks,
// flats, projections, flats (as beamlines record them).
type TomoLayout struct {
	Rows, Cols                            int
	Darks, FlatsBefore, Projections       int
	FlatsAfter                            int
	ZingersProj, ZingersFlat, ZingersDark int
}

// TomoLayoutFor returns the layout of the small or large demo scan.
func TomoLayoutFor(size Size) TomoLayout {
	if size == Large {
		return TomoLayout{Rows: 512, Cols: 640, Darks: 20, FlatsBefore: 25, Projections: 900, FlatsAfter: 25,
			ZingersProj: 900, ZingersFlat: 40, ZingersDark: 20}
	}
	return TomoLayout{Rows: 128, Cols: 160, Darks: 10, FlatsBefore: 10, Projections: 90, FlatsAfter: 10,
		ZingersProj: 60, ZingersFlat: 10, ZingersDark: 6}
}

// Frames returns the number of frames.
func (l TomoLayout) Frames() int { return l.Darks + l.FlatsBefore + l.Projections + l.FlatsAfter }

// Zinger is one injected single-voxel outlier. Frame indexes the full data
// array (all image keys).
type Zinger struct {
	Frame, Row, Col int
	Hot             bool
	// Size is the requested |Δ|; a cold zinger's actual drop is capped so
	// the value stays positive (the demo's levels keep it ≥ MinZinger).
	Size float64
}

// Tomo is a synthetic NeXus tomography scan: a smooth 3D phantom of
// Gaussian blobs seen in parallel beam about an axis right of the
// detector's middle (Axis), flat and dark fields with noise, a few
// columns whose gain drifts in the projections (stripes, rings once
// reconstructed), and zingers in every kind of frame. Frames are computed on demand, each from
// its own random stream, so any slab is the same whatever order it is read
// in.
type Tomo struct {
	Layout  TomoLayout
	Keys    []int     // image_key of each frame
	Angles  []float64 // degrees; 0 for darks and flats
	Zingers []Zinger  // sorted by frame, row, col
	seed    uint64
	blobs   []blob
	byFrame map[int][]Zinger
	flat    []float64 // open beam above the dark level, fixed for the scan
	// stripe is each column's gain in the projections (1 but for the
	// stripes' columns).
	stripe []float64
}

// blob is a 3D Gaussian of the phantom: centre (x, y) in the rotating
// sample frame and z (a detector row), width s (pixels) and peak line
// integral a (its attenuation μ·s·√(2π), the same at every size).
type blob struct{ x, y, z, s, a float64 }

// NewTomo builds the scan of the given size; equal seeds give equal scans.
func NewTomo(size Size, seed int64) *Tomo {
	l := TomoLayoutFor(size)
	t := &Tomo{Layout: l, seed: uint64(seed), byFrame: map[int][]Zinger{}}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x70de))
	kinds := []struct{ key, n int }{{h5.KeyDark, l.Darks}, {h5.KeyFlat, l.FlatsBefore}, {h5.KeyProjection, l.Projections}, {h5.KeyFlat, l.FlatsAfter}}
	for _, k := range kinds {
		for i := 0; i < k.n; i++ {
			t.Keys = append(t.Keys, k.key)
			a := 0.0
			if k.key == h5.KeyProjection {
				a = 180 * float64(i) / float64(k.n)
			}
			t.Angles = append(t.Angles, a)
		}
	}
	t.blobs = phantom(rng, l)
	t.flat = flatField(l)
	t.stripe = stripes(rand.New(rand.NewPCG(uint64(seed), 0x57e1)), l)
	t.Zingers = append(t.Zingers, t.pickZingers(rng, h5.KeyProjection, l.ZingersProj)...)
	t.Zingers = append(t.Zingers, t.pickZingers(rng, h5.KeyFlat, l.ZingersFlat)...)
	t.Zingers = append(t.Zingers, t.pickZingers(rng, h5.KeyDark, l.ZingersDark)...)
	sort.Slice(t.Zingers, func(i, j int) bool {
		a, b := t.Zingers[i], t.Zingers[j]
		return a.Frame < b.Frame || (a.Frame == b.Frame && (a.Row < b.Row || (a.Row == b.Row && a.Col < b.Col)))
	})
	for _, z := range t.Zingers {
		t.byFrame[z.Frame] = append(t.byFrame[z.Frame], z)
	}
	return t
}

// Axis is the detector column (0-based, fractional) of the rotation
// axis.
func (l TomoLayout) Axis() float64 {
	return float64(l.Cols-1)/2 + math.Round(axisShift*float64(l.Cols))
}

// stripes draws the projections' per-column gains: stripeColumns
// columns away from the edges off by 0.3 to 1 times maxStripe, either
// way.
func stripes(rng *rand.Rand, l TomoLayout) []float64 {
	g := make([]float64, l.Cols)
	for c := range g {
		g[c] = 1
	}
	for i := 0; i < stripeColumns; i++ {
		c := l.Cols/8 + rng.IntN(l.Cols*3/4)
		d := maxStripe * (0.3 + 0.7*rng.Float64())
		if rng.IntN(2) == 0 {
			d = -d
		}
		g[c] = 1 + d
	}
	return g
}

// phantom places blobs inside the cylinder the detector sees at every
// angle about the axis, wide enough (s ≥ 4% of the width) that neighbouring pixels and
// neighbouring angles differ smoothly, and faint enough that the sample
// transmits 15% or more where blobs overlap.
func phantom(rng *rand.Rand, l TomoLayout) []blob {
	w := float64(l.Cols)
	out := make([]blob, 12)
	for i := range out {
		r := 0.25 * w * math.Sqrt(rng.Float64())
		phi := 2 * math.Pi * rng.Float64()
		out[i] = blob{
			x: r * math.Cos(phi), y: r * math.Sin(phi),
			z: float64(l.Rows) * (0.15 + 0.7*rng.Float64()),
			s: w * (0.04 + 0.05*rng.Float64()),
			a: 0.15 + 0.45*rng.Float64(),
		}
	}
	return out
}

// pickZingers draws n positions in frames of the given key, at least two
// voxels (in frame, row and col, counting frames within that key's stack)
// from each other and one pixel from the frame's border, so that each
// stands alone in any 3x3x3 neighbourhood of its stack.
func (t *Tomo) pickZingers(rng *rand.Rand, key, n int) []Zinger {
	var frames []int
	for i, k := range t.Keys {
		if k == key {
			frames = append(frames, i)
		}
	}
	var out []Zinger
	local := map[[3]int]bool{}
	for tries := 0; len(out) < n && tries < 100*n; tries++ {
		fi := rng.IntN(len(frames))
		r := 1 + rng.IntN(t.Layout.Rows-2)
		c := 1 + rng.IntN(t.Layout.Cols-2)
		if nearby(local, fi, r, c) {
			continue
		}
		local[[3]int{fi, r, c}] = true
		out = append(out, Zinger{Frame: frames[fi], Row: r, Col: c, Hot: rng.IntN(2) == 0,
			Size: MinZinger + (MaxZinger-MinZinger)*rng.Float64()})
	}
	return out
}

func nearby(taken map[[3]int]bool, f, r, c int) bool {
	for df := -2; df <= 2; df++ {
		for dr := -2; dr <= 2; dr++ {
			for dc := -2; dc <= 2; dc++ {
				if taken[[3]int{f + df, r + dr, c + dc}] {
					return true
				}
			}
		}
	}
	return false
}

// Info describes the scan's data array.
func (t *Tomo) Info() volume.Info {
	return volume.Info{Shape: [3]int{t.Layout.Frames(), t.Layout.Rows, t.Layout.Cols}, DType: volume.Uint16}
}

// Source returns the frames as a lazily computed source; with zingers
// false it gives the same frames without them (the ground truth).
func (t *Tomo) Source(zingers bool) volume.Source { return &tomoSource{t: t, zingers: zingers} }

type tomoSource struct {
	t       *Tomo
	zingers bool
}

func (s *tomoSource) Info() volume.Info { return s.t.Info() }
func (s *tomoSource) Close() error      { return nil }

// ReadSlab computes frames [z0, z1) in parallel.
func (s *tomoSource) ReadSlab(z0, z1 int, dst []byte) error {
	in := s.t.Info()
	if err := volume.CheckSlab(in, z0, z1, len(dst)); err != nil {
		return err
	}
	out := volume.Uint16s(dst)
	n := in.PlaneLen()
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			scratch := newFrameScratch(s.t.Layout)
			for z := range next {
				s.t.frame(z, s.zingers, out[(z-z0)*n:(z-z0+1)*n], scratch)
			}
		}()
	}
	for z := z0; z < z1; z++ {
		next <- z
	}
	close(next)
	wg.Wait()
	return nil
}

// frameScratch holds one frame's line integrals and separable factors,
// reused between frames.
type frameScratch struct {
	path       []float64
	rowF, colF []float64
}

func newFrameScratch(l TomoLayout) *frameScratch {
	return &frameScratch{path: make([]float64, l.Rows*l.Cols), rowF: make([]float64, l.Rows), colF: make([]float64, l.Cols)}
}

// frame computes frame z into dst. A projection at angle θ is
// I = D + (F − D)·exp(−p), with p the line integral of the blobs along the
// beam (Beer–Lambert): a 3D Gaussian of width s and peak μ integrates to
// a·exp(−(Δrow² + Δu²)/(2s²)), a = μ·s·√(2π), u = x·cosθ + y·sinθ its projected
// position. The noise is Gaussian with shot noise's variance (countGain
// times the counts above the dark level) plus the dark's read noise.
func (t *Tomo) frame(z int, zingers bool, dst []uint16, sc *frameScratch) {
	l := t.Layout
	rng := rand.New(rand.NewPCG(t.seed, uint64(z)+1))
	gain := 1 + flatJitter*(2*rng.Float64()-1)
	key := t.Keys[z]
	for i := range sc.path {
		sc.path[i] = 0
	}
	if key == h5.KeyProjection {
		t.lineIntegrals(t.Angles[z], sc)
	}
	for i := range dst {
		v := darkLevel + darkNoise*rng.NormFloat64()
		if key != h5.KeyDark {
			open := gain * t.flat[i] * math.Exp(-sc.path[i])
			if key == h5.KeyProjection {
				open *= t.stripe[i%l.Cols]
			}
			v += open + math.Sqrt(countGain*open)*rng.NormFloat64()
		}
		dst[i] = clampU16(v)
	}
	if !zingers {
		return
	}
	for _, zg := range t.byFrame[z] {
		i := zg.Row*l.Cols + zg.Col
		v := float64(dst[i])
		if zg.Hot {
			dst[i] = clampU16(v + zg.Size)
		} else {
			dst[i] = clampU16(v - min(zg.Size, v-500))
		}
	}
}

// flatField returns the open beam above the dark level: a wide Gaussian
// beam profile.
func flatField(l TomoLayout) []float64 {
	dst := make([]float64, l.Rows*l.Cols)
	cr, cc := 0.45*float64(l.Rows), 0.55*float64(l.Cols)
	sr, scol := 0.8*float64(l.Rows), 0.7*float64(l.Cols)
	for r := 0; r < l.Rows; r++ {
		fr := (float64(r) - cr) / sr
		for c := 0; c < l.Cols; c++ {
			fc := (float64(c) - cc) / scol
			dst[r*l.Cols+c] = flatBase + flatPeak*math.Exp(-0.5*(fr*fr+fc*fc))
		}
	}
	return dst
}

// lineIntegrals adds the blobs' line integrals at angle deg (degrees) to
// sc.path, using the separability of the Gaussian in row and column.
func (t *Tomo) lineIntegrals(deg float64, sc *frameScratch) {
	l := t.Layout
	th := deg * math.Pi / 180
	centre := l.Axis()
	for _, b := range t.blobs {
		u := b.x*math.Cos(th) + b.y*math.Sin(th) + centre
		amp := b.a
		for r := range sc.rowF {
			d := (float64(r) - b.z) / b.s
			sc.rowF[r] = amp * math.Exp(-0.5*d*d)
		}
		for c := range sc.colF {
			d := (float64(c) - u) / b.s
			sc.colF[c] = math.Exp(-0.5 * d * d)
		}
		for r, fr := range sc.rowF {
			if fr < 1e-9 {
				continue
			}
			row := sc.path[r*l.Cols : (r+1)*l.Cols]
			for c, fc := range sc.colF {
				row[c] += fr * fc
			}
		}
	}
}

func clampU16(v float64) uint16 {
	return uint16(math.Round(min(max(v, 0), 65535)))
}

// WriteTomo writes the demo scan (TomoScan) and the zingers' positions
// (TomoZingers) into dir.
func WriteTomo(dir string, size Size, seed int64) error {
	t := NewTomo(size, seed)
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(TomoScan)), 0o755); err != nil {
		return err
	}
	if err := h5.WriteNeXus(filepath.Join(dir, TomoScan), t.Source(true), t.Keys, t.Angles); err != nil {
		return err
	}
	return t.writeZingers(filepath.Join(dir, TomoZingers))
}

// writeZingers writes frame,row,col,kind (hot or cold) per zinger.
func (t *Tomo) writeZingers(path string) error {
	f, err := outfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	w := csv.NewWriter(f)
	w.Write([]string{"frame", "row", "col", "kind"})
	for _, z := range t.Zingers {
		kind := "cold"
		if z.Hot {
			kind = "hot"
		}
		w.Write([]string{strconv.Itoa(z.Frame), strconv.Itoa(z.Row), strconv.Itoa(z.Col), kind})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Commit()
}

// ReadZingers reads a zingers CSV written by WriteTomo.
func ReadZingers(path string) ([]Zinger, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(rows) == 0 || len(rows[0]) != 4 || rows[0][0] != "frame" {
		return nil, fmt.Errorf("%s: not a zingers CSV (want the header frame,row,col,kind)", path)
	}
	out := make([]Zinger, 0, len(rows)-1)
	for i, r := range rows[1:] {
		var z Zinger
		var e1, e2, e3 error
		z.Frame, e1 = strconv.Atoi(r[0])
		z.Row, e2 = strconv.Atoi(r[1])
		z.Col, e3 = strconv.Atoi(r[2])
		if e1 != nil || e2 != nil || e3 != nil || (r[3] != "hot" && r[3] != "cold") {
			return nil, fmt.Errorf("%s: line %d: bad row %v", path, i+2, r)
		}
		z.Hot = r[3] == "hot"
		out = append(out, z)
	}
	return out, nil
}
