//go:build !race

package memtest

const raceFactor = 1
