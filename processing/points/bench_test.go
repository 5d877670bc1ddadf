package points

import (
	"path/filepath"
	"testing"
)

// million returns 10^6 points spread over a 1000 x 2048 x 2048 volume,
// a whole brain's candidates, half cells.
func million() []Point {
	pts := make([]Point, 1_000_000)
	for i := range pts {
		pts[i] = Point{Z: float64(i % 1000), Y: float64(i * 7 % 2048), X: float64(i * 13 % 2048), Type: []string{TypeCell, TypeNonCell}[i%2]}
	}
	return pts
}

func benchRead(b *testing.B, ext string) {
	path := filepath.Join(b.TempDir(), "cells"+ext)
	if err := Save(path, million()); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		pts, err := Read(path)
		if err != nil || len(pts) != 1_000_000 {
			b.Fatal(len(pts), err)
		}
	}
}

// BenchmarkReadCSV1M reads 10^6 points from CSV.
func BenchmarkReadCSV1M(b *testing.B) { benchRead(b, ".csv") }

// BenchmarkReadXML1M reads 10^6 points from cellfinder XML.
func BenchmarkReadXML1M(b *testing.B) { benchRead(b, ".xml") }

// BenchmarkSaveXML1M writes 10^6 points as cellfinder XML.
func BenchmarkSaveXML1M(b *testing.B) {
	pts := million()
	path := filepath.Join(b.TempDir(), "cells.xml")
	for b.Loop() {
		if err := Save(path, pts); err != nil {
			b.Fatal(err)
		}
	}
}
