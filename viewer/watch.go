package viewer

// OnLayerEdited has f called after a layer's setting changed: its voxel
// size, visibility, contrast or another (the processing panel suggests
// again from the voxel size the user set). Call on the UI goroutine.
func (v *Viewer) OnLayerEdited(f func()) {
	v.stack.watch(func(c stackChange) {
		if c == layerEdited {
			f()
		}
	})
}
