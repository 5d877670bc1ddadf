package quickselect

import "cmp"

// Nth returns the n-th smallest (0-based) element of s, reordering s.
// NaN, for floats, compares neither less nor greater than anything: give
// slices without NaN.
func Nth[T cmp.Ordered](s []T, n int) T {
	lo, hi := 0, len(s)-1
	for lo < hi {
		mid := lo + (hi-lo)/2
		// Order s[lo], s[mid], s[hi] so the pivot is their median.
		if s[mid] < s[lo] {
			s[mid], s[lo] = s[lo], s[mid]
		}
		if s[hi] < s[lo] {
			s[hi], s[lo] = s[lo], s[hi]
		}
		if s[hi] < s[mid] {
			s[hi], s[mid] = s[mid], s[hi]
		}
		pivot := s[mid]
		i, j := lo, hi
		for i <= j {
			for s[i] < pivot {
				i++
			}
			for s[j] > pivot {
				j--
			}
			if i <= j {
				s[i], s[j] = s[j], s[i]
				i++
				j--
			}
		}
		// Now s[lo..j] ≤ pivot ≤ s[i..hi] and s[j+1..i-1] == pivot.
		switch {
		case n <= j:
			hi = j
		case n >= i:
			lo = i
		default:
			return s[n]
		}
	}
	return s[n]
}
