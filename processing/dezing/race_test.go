//go:build race

package dezing

// raceEnabled: the test binary runs under the race detector.
const raceEnabled = true
