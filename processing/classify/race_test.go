//go:build race

package classify

// raceEnabled: the test binary runs under the race detector, which slows
// the Go loops of the naive references and of the cube extraction some
// thirtyfold (see raceShort).
const raceEnabled = true
