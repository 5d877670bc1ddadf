package bytesize

import "fmt"

// Format writes n in binary units (B, KiB … PiB) with three significant
// digits.
func Format(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	if v >= 999.5 {
		// %.3g would write 1000-1023 as 1e+03.
		return fmt.Sprintf("%.0f %ciB", v, "KMGTP"[exp])
	}
	return fmt.Sprintf("%.3g %ciB", v, "KMGTP"[exp])
}
