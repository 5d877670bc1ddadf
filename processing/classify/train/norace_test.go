//go:build !race

package train

// raceEnabled: see race_test.go.
const raceEnabled = false
