//go:build !linux

package outfile

// renameExchange has no atomic counterpart here: swap falls back to two
// renames, which Recover completes after a crash.
func renameExchange(a, b string) error { return errExchange }
