package plan

import (
	"math"
	"testing"
)

// Sizes past what an int64 holds are refused rather than wrapped to a
// negative size (1e30 used to give math.MinInt64 and no error); the
// largest sizes that fit are still read.
func TestParseBytesRefusesOverflow(t *testing.T) {
	for _, bad := range []string{"1e30", "1e19", "9223372036854775808", "8388608TiB", "9.3e6TB", "1e400"} {
		if got, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", bad, got)
		}
	}
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"8388607TiB", 8388607 << 40},
		{"9e18", 9e18},
		// The largest float64 below 2^63.
		{"9223372036854774784", math.MaxInt64 - 1023},
	} {
		if got, err := ParseBytes(tc.in); err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}

// TestFormatParsesBack: every size FormatBytes writes parses back to
// within its three significant digits.
func TestFormatParsesBack(t *testing.T) {
	for _, n := range []int64{0, 1023, 1 << 10, 1536, 14 << 20, 1000 << 20, 3 << 30, 1<<40 + 1<<39, 5 << 50, 2048 << 50} {
		s := FormatBytes(n)
		got, err := ParseBytes(s)
		if err != nil {
			t.Errorf("ParseBytes(FormatBytes(%d) = %q): %v", n, s, err)
			continue
		}
		if d := float64(got-n) / float64(max(n, 1)); d > 5e-3 || d < -5e-3 {
			t.Errorf("FormatBytes(%d) = %q parses back as %d", n, s, got)
		}
	}
}
