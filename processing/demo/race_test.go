//go:build race

package demo

// raceEnabled is true under the race detector, which slows the naive
// median checks tenfold; they also run in the ordinary test pass.
const raceEnabled = true
