// Package testutil holds test helpers that tests of several packages
// share: writing NPY files by hand (independently of the volume package's
// writer under test), reading volumes and PNG files back, comparing
// images pixel for pixel, and WCAG's contrast ratio of colours (the
// viewer's and the panel's theme checks). Only tests import it; the
// volume package's own tests cannot (it imports volume).
package testutil
