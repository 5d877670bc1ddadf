// Package testutil holds test helpers that tests of several packages
// share: writing NPY files by hand (independently of the volume package's
// writer under test) and reading PNG files back. Only tests import it.
package testutil
