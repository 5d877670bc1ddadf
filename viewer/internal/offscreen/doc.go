// Package offscreen is a Fyne driver without a display: its windows are
// never shown, and their Capture returns what they would show, painted
// by Fyne's software painter. `voxlab view --screenshot` and `voxlab gui
// --screenshot` render with it on machines without a display.
//
// Fyne's own offscreen rendering is its test driver, in package
// fyne.io/fyne/v2/test, which links the testing package and testify into
// whatever imports it, and its software painter is internal to Fyne.
// This driver does what the test driver does for a rendering, and
// paints with Fyne's software painter (paint.go, Fyne's code), which
// reaches the rasterisers, text shaping and widget renderers it shares
// with Fyne's other painters through go:linkname (fyne.go): the image is
// the test driver's, pixel for pixel, and the viewer's and the panel's
// tests hold it to that.
//
// What a screenshot needs, it does: an app whose theme the widgets use,
// preferences in memory, windows of a given size laid out as the test
// driver's are (padded content, pop-ups over it), focus, and text
// measured as it is drawn. It runs nothing of its own: fyne.Do runs at
// once on the caller's goroutine, and animations jump to their end.
package offscreen
