//go:build race

package train

// raceEnabled: the race detector's shadow memory multiplies what the
// program touches, so a resident-memory measurement means nothing under
// it.
const raceEnabled = true
