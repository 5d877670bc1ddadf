package plan

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/internal/bytesize"
)

// ParseBytes parses sizes such as "2GiB", "512MB", "1.5G", "800M" or a
// plain number of bytes. K/M/G/T/P without "B" and with "iB" are powers
// of 1024; "KB", "MB", "GB", "TB", "PB" are powers of 1000. Negative sizes and
// sizes that do not fit in an int64 (8 EiB) are errors.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty memory size")
	}
	i := len(t)
	for i > 0 && !(t[i-1] >= '0' && t[i-1] <= '9' || t[i-1] == '.') {
		i--
	}
	num, unit := t[:i], strings.ToUpper(strings.TrimSpace(t[i:]))
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("memory size %q: want a number with an optional unit such as 2GiB or 512MB", s)
	}
	mult := map[string]float64{
		"": 1, "B": 1,
		"K": 1 << 10, "KIB": 1 << 10, "KB": 1e3,
		"M": 1 << 20, "MIB": 1 << 20, "MB": 1e6,
		"G": 1 << 30, "GIB": 1 << 30, "GB": 1e9,
		"T": 1 << 40, "TIB": 1 << 40, "TB": 1e12,
		// FormatBytes writes PiB: what it prints must parse back.
		"P": 1 << 50, "PIB": 1 << 50, "PB": 1e15,
	}
	m, ok := mult[unit]
	if !ok {
		return 0, fmt.Errorf("memory size %q: unknown unit %q (use B, KiB, MiB, GiB, TiB, PiB, KB, MB, GB, TB or PB)", s, t[i:])
	}
	// float64(math.MaxInt64) is 2^63, the first value an int64 cannot
	// hold: converting it or anything larger gives a negative size (1e30
	// became -9223372036854775808), so such sizes are refused here.
	b := v * m
	if b >= math.MaxInt64 {
		return 0, fmt.Errorf("memory size %q is too large: sizes go up to %s", s, FormatBytes(math.MaxInt64))
	}
	return int64(b), nil
}

// FormatBytes writes n in binary units with three significant digits
// (bytesize.Format, which the job's progress lines share).
func FormatBytes(n int64) string { return bytesize.Format(n) }
