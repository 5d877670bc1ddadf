// Package quickselect finds the k-th smallest element of a slice in
// expected linear time, reordering it: Hoare's selection (Hoare, CACM
// 4(7), 1961, "Algorithm 65: FIND") with a median-of-three pivot. Written
// by hand because the standard library sorts (O(n log n)) but does not
// select. The CPU dezinging median and the distance pipeline's median
// normalisation share it.
package quickselect
