//go:build !race

package modelfiles

// raceEnabled: see race_test.go.
const raceEnabled = false
