//go:build race

package memtest

// raceFactor: the race detector keeps shadow memory for every byte the
// program touches, several times what it uses itself.
const raceFactor = 4
