//go:build !race

package classify

// raceEnabled: see race_test.go.
const raceEnabled = false
