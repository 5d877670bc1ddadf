//go:build race

package modelfiles

// raceEnabled: the race detector slows the networks' Go loops some
// thirtyfold; the golden comparison then classifies only the first
// candidates (each cube's probability does not depend on the others in
// its batch), and the plain run of `make test` compares them all.
const raceEnabled = true
