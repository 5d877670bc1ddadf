// Package viewer is voxlab's napari-style volume viewer, built with Fyne.
//
// A Viewer fills a window with a layer list and the selected layer's
// controls on the left, the canvas (one panel, or a grid of panels with
// linked navigation) with the dims sliders below it (the slice, and the
// map while a stack of maps is on show), and a status bar with the voxel
// under the pointer and each visible layer's value there.
//
// The state a user changes lives in viewer/model, which imports no Fyne:
// the layer list and its selection (model.LayerList: add, remove, move,
// choose, edits), which the Viewer watches to list, lay out and draw
// again, and each points layer's points, selection, undoable edits and
// curation walk (model.PointSet, embedded in PointsLayer, which adds how
// they are drawn); the model is tested without a window. The status bar
// is its own widget (statusbar.go).
//
// The Viewer is the window's composition: it keeps the layers (AddImage,
// Open, Layers, Select, …) and hands out, for the rest, small types that
// group what goes together: Dims (nav.go: axis, slice, map, the ortho
// point), Panels (nav.go, ortho.go: one panel, the grid or the
// orthogonal views, their shared pan and zoom), Scene (view3d.go: the 3D
// view), Curation (curation.go: the walk), Dialogs (dialogs.go), Dock
// (dock.go: the processing panel's tabs), Offer (offer.go: the compare
// offer) and Async (async.go: what other goroutines may ask).
//
// # Using it from the application
//
//	w := app.NewWindow("voxlab")
//	v := viewer.New(w)                        // sets w's content and menu
//	img, err := v.AddImage("raw", vol, viewer.ImageOptions{})
//	gt, err := v.AddStack("gt", stack, viewer.ImageOptions{}) // a map slider
//	v.Dims().SetMap(3)                        // map 3 of every stack layer
//	pts := v.AddPoints("cells", []viewer.Point{{Z: 10, Y: 20, X: 30, Type: "cell"}})
//	hm, err := v.AddHeatmap("l2", rows, cols, nil) // nil: filled later
//	_, err = v.Open("scan.nxs:/entry1/tomo_entry/data/data")
//	v.Batch(func() { v.Open(a); v.Open(b); v.Dims().SetSlice(40) }) // one draw
//	v.Panels().SetGrid(true)                  // raw and result side by side
//	v.Dock().AddPanel("Process", panel)       // a dock tab right of the canvas
//	tab := v.Dock().AddTab("Plots", plots)    // a tab beside "View"
//
// The package's Example is this usage drawn offscreen; its picture is a
// golden image (testdata/example.png, TestExamplesGolden), so the
// documented calls cannot drift from what they show.
//
// RenderOffscreen builds a viewer in a window that is never shown and
// returns its image (`voxlab view --screenshot`); it needs no display.
// Headless drives a viewer without an event loop, for tests and `voxlab
// gui --screenshot`.
//
// # What the viewer leaves to the processing panel
//
// The viewer knows no pipeline and no job: the processing panel (package
// panel, above this one) docks its form with Dock.AddPanel, its plots
// with Dock.AddTab, hears of changes to the layer stack through
// OnLayersChanged, runs its plot renderers with Async.Go (which
// Async.Wait and Headless.Idle wait for) and shows a running job's results through the live-update
// methods below and a LiveVolume. The small widgets both share (the
// theme, caption labels, buttons that give the keys back to the canvas,
// the side panels' scroller) are in package widgets.
//
// Viewer methods and layer setters run on the UI goroutine (wrap calls
// from elsewhere in Async.Do). What a job's goroutine may call is a
// type of its own, a layer's Feed (feed.go), whose methods are safe from
// any goroutine and merge their redraws: PointsFeed.Append (detections
// arriving plane by plane), HeatmapFeed.SetBlock (a distance-matrix
// chunk; unfilled cells are NaN and transparent) and
// ImageFeed.RefreshPlanes (planes of a volume still being written); the
// layers themselves have no such method.
//
// # Points and curation
//
// A PointsLayer can be edited: the edit mode of the layer's controls
// (keys 1 to 4) chooses what the mouse does (PanZoom, AddPoints,
// SelectPoints, MovePoints); the layer's AddPoint, SetSelected,
// MoveSelected, DeleteSelected and SetSelectedClass are the same edits
// from code, each one undoable (Undo, Redo). Points live in a store
// indexed by plane along each axis; deleted points stay as tombstones so
// that indices (selection, undo history) never move, and an edit
// reindexes only the planes it touches. Curation.Next is the curation walk;
// Save writes CSV or cellfinder XML (processing/points), through a
// temporary file, after the questions it needs (points_saver.go: replace
// another file, unknown points into XML); ConfirmUnsaved and the layer
// list's remove button ask before unsaved edits are lost. Clicks and
// boxes select on the plane on show only. File ▸ New points layer starts
// a layer on an image.
//
// # Dialogs
//
// The viewer's dialogs (Dialogs; Dialogs.Show for the processing
// panel's) answer Enter, Space and Escape and take the keys from the
// canvas under them; one of each kind is on show at a time.
//
// # Large data
//
// Image layers never read a volume whole. Each has a loader goroutine,
// the only user of its Source: it reads the slice on screen, keeps recent
// slices in an LRU cache bounded in bytes, prefetches the neighbours in
// the direction of travel, and lets a newer slider position replace a
// request still waiting, so fast scrolling on slow storage never queues.
// The previous slice stays on screen until the next one is loaded.
// Slicing along y or x reads just the slice's voxels from sources that
// read boxes (volume.BoxReader: HDF5 hyperslabs), else every z plane in
// slabs, of one map for a stack; volumes up to 64 MiB are read once for
// it. Such a slice is read in pieces: the status bar shows how far it
// got ("loading y 500: 40%"), a newer slider position abandons it, and
// RenderOffscreen waits for it as long as bytes keep coming.
//
// A plane larger than planeBudget (256 MiB) is read decimated to the
// screen through the source's box reads (decimate.go), never whole.
//
// A LiveVolume (a running job's output) holds only a budget of finished
// planes: the newest, and the slice on screen when its block arrives.
// Planes not computed yet draw transparent.
//
// # Navigation
//
// Each panel fits what it shows: the visible layers, or in grid mode its
// own image or heat-map layer with the points above it, so a 32³ map
// fills its panel beside a 2048² scan. Pan and zoom are shared as one
// screen-space move applied after each panel's fit (nav), so a drag or
// scroll in one panel moves all alike, and panels of the same data size
// (raw and dezinged) keep identical transforms: pixel-aligned. Until the
// user pans or zooms, panels refit when what they show changes. The grid
// takes the number of columns under which the fitted data cover the
// most area. The slice is shared as napari's dims are: a layer shorter
// than the slider shows nothing past its end.
//
// A stack of maps (volume.Stack: a 4D NPY, a folder of MRC files) is one
// layer with a map slider: the slice slider and the axis choice apply
// within one map and the map slider picks the map (plain volumes show
// the same slice whatever the map). Clicking a cell of a distance heat
// map shows the map of its row in the stack with one map per row.
//
// # Orthogonal and 3D views
//
// Panels.SetOrtho shows three panels, the xy, xz and zy planes through
// one point (the slice index along each axis, Dims.SetPoint), at one physical
// scale (orthoVoxel; z stretched in the side panels of a thin stack),
// xz under xy sharing x and zy beside it sharing y (its planes
// transposed), with a crosshair; Ortho and 3D exclude each other. A
// click or drag in one moves the point, the side panels
// following from a coarse copy of the layer while their planes load
// (preview.go).
// Scene.SetOn shows the 3D view instead of the panels (view3d.go): the
// visible image layers rendered by render3d in the mode of Scene.SetMode,
// through their lookup tables, with the points layers over them. Each
// layer's volume is read once, on its loader goroutine a slab at a
// time, into a coarse grid for frames while the view moves and a fine
// one (Default3DBudget) for the still view; rendering runs on a goroutine
// of the view's own. RenderOffscreenFrames renders a turntable.
//
// # Rendering
//
// Data coordinates are voxels; rows are stretched by the ratio of the
// voxel sizes of the displayed axes (from the panel's lowest visible
// image layer), so a y or x slice of a light-sheet stack keeps its
// physical shape.
//
// Each panel renders into a reused *image.RGBA the size of the panel in
// whole device pixels, shown at exactly that size (shown by a canvas.Image, which the GL painter uploads
// without conversion). Contrast limits, gamma and the colormap are baked
// into a lookup table per layer (65536 entries for uint16, 4096 levels
// for floats), so drawing is one table lookup per pixel through
// precomputed nearest-neighbour row and column indices, then a blend.
// Points are drawn from per-plane buckets with cached marker stencils.
// Drawing runs on the UI goroutine and costs a few milliseconds; reading
// slices and their statistics (min, max, 0.1/99.9 percentiles for
// auto-contrast) happens on the loader goroutines.
package viewer
