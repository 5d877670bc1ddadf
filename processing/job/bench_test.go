package job

import (
	"testing"
	"time"
)

// The cost a pipeline pays per Add: with no sink, and with the GUI's
// throttled sink (most events held back).
func BenchmarkProgressAdd(b *testing.B) {
	for _, bc := range []struct {
		name  string
		sinks []Sink
	}{
		{"no-sink", nil},
		{"throttled-50ms", []Sink{Throttle(func(Event) {}, 50*time.Millisecond)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p := NewProgress("bench", bc.sinks...)
			p.Stage("s", int64(b.N), "u")
			b.ReportAllocs()
			for b.Loop() {
				p.Add(1)
			}
			p.End(nil)
		})
	}
}
