package h5

import "sort"

// planeSet is the set of planes of a dataset written so far, as sorted,
// disjoint, non-adjacent ranges: its size follows the number of separate
// runs written, not the planes the dataset declares (a file declaring
// 10^12 frames used to cost a bitmap of 1 TiB).
type planeSet struct{ runs [][2]int }

// add marks planes [z0, z1) written.
func (s *planeSet) add(z0, z1 int) {
	if z0 >= z1 {
		return
	}
	// The first run that ends at or after z0 (may merge) ...
	i := sort.Search(len(s.runs), func(i int) bool { return s.runs[i][1] >= z0 })
	// ... to the first that starts after z1 (may not).
	j := i
	for j < len(s.runs) && s.runs[j][0] <= z1 {
		z0, z1 = min(z0, s.runs[j][0]), max(z1, s.runs[j][1])
		j++
	}
	if i == j {
		s.runs = append(s.runs, [2]int{})
		copy(s.runs[i+1:], s.runs[i:])
		s.runs[i] = [2]int{z0, z1}
		return
	}
	s.runs[i] = [2]int{z0, z1}
	s.runs = append(s.runs[:i+1], s.runs[j:]...)
}

// firstMissing returns the first plane of [0, n) not written, or n.
func (s *planeSet) firstMissing(n int) int {
	if len(s.runs) == 0 || s.runs[0][0] > 0 {
		return min(0, n)
	}
	return min(s.runs[0][1], n)
}
