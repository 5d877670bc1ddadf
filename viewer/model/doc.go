// Package model holds the viewer's state without a window: the layer
// list (order and selection), where the view stands (Dims: the slicing
// axis, the plane per axis and the map, each clamped to the range the
// caller passes and remembered as asked for), the 2D camera (Xform: a
// panel's centre, scale and row stretch, its Fit; Camera: the zoom and
// pan the panels share), a points layer's data
// with its selection, undoable edits and the curation walk, and an image
// layer's settings (Image: contrast, gamma, colormap, voxel size; Base:
// visibility, opacity, blending, which every layer has). It imports no
// Fyne package, so everything a user does to the points, an image's
// settings or the layer order is tested here without a display.
//
// The viewer package is the view: it keeps the canvas, the renderers and
// the controls, calls the model's methods when the user acts, and
// redraws when the model tells it of a change (LayerList.Watch,
// PointSet.Watch, and one Event per image setting, which a control
// connects to: img.GammaChanged.Connect(showGamma)). Observers are called on the goroutine that made the
// change, which for every method but PointSet.Extend is the UI goroutine.
//
//	pts := model.NewPointSet(cells)
//	pts.Watch(func() { redraw() })
//	pts.SetSelected(false, pts.Pick(model.Z, 12, 0, row, col, 4))
//	pts.SetSelectedClass(points.NonCell) // an edit: Undo reverts it
//	pts.Next(model.WalkUnreviewed, +1, model.Z, 12) // the curation walk
package model
