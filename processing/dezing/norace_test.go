//go:build !race

package dezing

const raceEnabled = false
