package viewer

import (
	"runtime"
	"testing"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/resources"
	"github.com/voxlab/voxlab/viewer/model"
)

// BenchmarkSliceToFrame2048 measures a slice request to a finished RGBA
// frame for a 2048 x 2048 uint16 slice shown at 1:1 in a 2048 x 2048
// panel: reading the plane from the source, its statistics (min, max,
// auto-contrast percentiles) and drawing it through the lookup table.
func BenchmarkSliceToFrame2048(b *testing.B) {
	const n = 2048
	vol := memVolume(b, volume.Uint16, [3]int{4, n, n}, func(z, y, x int) float64 { return float64((x*7 + y*13 + z) % 4096) })
	cm, _ := resources.Colormap(resources.Gray)
	var l lut
	l.build(volume.Uint16, 0, 4095, 1, cm)
	var f frame
	t := xform{CX: n / 2, CY: n / 2, Scale: 1}
	b.SetBytes(n * n * 2)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p, err := readPlane(vol, Z, i%4, slabBytes)
		if err != nil {
			b.Fatal(err)
		}
		f.resize(n, n)
		f.fillAround(drawPlane(&f, p, &l, t, n, n, 1, 1, Translucent))
	}
}

// BenchmarkDrawFrame2048 is the drawing alone (a contrast change or a pan
// of a cached slice): lookup and copy of 2048 x 2048 pixels.
func BenchmarkDrawFrame2048(b *testing.B) {
	const n = 2048
	vol := memVolume(b, volume.Uint16, [3]int{1, n, n}, func(z, y, x int) float64 { return float64((x*7 + y*13) % 4096) })
	p, _ := readPlane(vol, Z, 0, slabBytes)
	cm, _ := resources.Colormap(resources.Inferno)
	var l lut
	l.build(volume.Uint16, 0, 4095, 0.8, cm)
	var f frame
	t := xform{CX: n / 2, CY: n / 2, Scale: 1}
	b.ReportAllocs()
	for b.Loop() {
		f.resize(n, n)
		f.fillAround(drawPlane(&f, p, &l, t, n, n, 1, 1, Translucent))
	}
}

// BenchmarkContrastChange is rebuilding the 65536-entry uint16 table.
func BenchmarkContrastChange(b *testing.B) {
	cm, _ := resources.Colormap(resources.Viridis)
	var l lut
	for i := 0; b.Loop(); i++ {
		l.build(volume.Uint16, float64(i%100), 4000, 0.7, cm)
	}
}

// BenchmarkPoints100k draws 10^5 points spread over 100 planes (10^3 per
// plane, ±3 planes shown) into a 1024 x 1024 frame.
func BenchmarkPoints100k(b *testing.B) {
	pts := make([]Point, 100000)
	for i := range pts {
		pts[i] = Point{Z: float64(i % 100), Y: float64(i*7%1000) + 0.3, X: float64(i*13%1000) + 0.6, Type: []string{"cell", "artifact"}[i%2]}
	}
	s := model.NewPointSet(pts)
	var f frame
	t := xform{CX: 500, CY: 500, Scale: 1}
	for b.Loop() {
		f.reset(1024, 1024)
		st := defaultStyle(0)
		drawPoints(&f, s, Z, false, 50, 3, &st, 8, 1, t, 1024, 1024, 1)
	}
}

// synthSource generates planes on the fly: a volume far larger than RAM
// without a file.
type synthSource struct{ info volume.Info }

func (s *synthSource) Info() volume.Info { return s.info }
func (s *synthSource) Close() error      { return nil }
func (s *synthSource) ReadSlab(z0, z1 int, dst []byte) error {
	u := volume.Uint16s(dst)
	pl := s.info.PlaneLen()
	for z := z0; z < z1; z++ {
		row := u[(z-z0)*pl : (z-z0+1)*pl]
		for i := range row {
			row[i] = uint16((i + z*31) & 0xfff)
		}
	}
	return nil
}

// BenchmarkScrollHugeVolume scrolls through a synthetic 40000 x 2048 x
// 2048 uint16 volume (320 GiB, more than this machine's RAM) through the
// loader, as the slider does, and reports the process's peak RSS
// (VmHWM): it stays near the cache bound, not the volume size.
func BenchmarkScrollHugeVolume(b *testing.B) {
	info := volume.Info{Shape: [3]int{40000, 2048, 2048}, DType: volume.Uint16}
	done := make(chan sliceKey, 1)
	ld := newLoader(volume.New("synthetic", &synthSource{info}), info.Shape[0], func(k sliceKey, err error) {
		select {
		case done <- k:
		default:
		}
	}, nil)
	defer ld.close()
	cm, _ := resources.Colormap(resources.Gray)
	var l lut
	l.build(volume.Uint16, 0, 4095, 1, cm)
	var f frame
	t := xform{CX: 1024, CY: 1024, Scale: 0.5}
	z := 0
	for b.Loop() {
		// Each step jumps 97 planes so no neighbour prefetch helps and
		// the cache keeps turning over.
		z = (z + 97) % info.Shape[0]
		k := sliceKey{axis: Z, idx: z}
		p := ld.get(k)
		for p == nil {
			<-done
			p = ld.get(k)
		}
		f.reset(1024, 1024)
		drawPlane(&f, p, &l, t, 1024, 1024, 1, 1, Translucent)
	}
	runtime.GC()
	rss, peak := gpu.ProcessMemory()
	b.ReportMetric(float64(peak)/(1<<20), "peakRSS-MiB")
	b.ReportMetric(float64(rss)/(1<<20), "RSS-MiB")
	b.ReportMetric(float64(info.Bytes())/(1<<30), "volume-GiB")
}
