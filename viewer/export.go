package viewer

import (
	"sync"

	"fyne.io/fyne/v2/dialog"
)

// Export: File ▸ Export layer… hands the selected image layer to whoever
// converts volumes (the processing panel's convert form, set by the
// application: the viewer runs no pipeline), with the layer's contrast
// limits as a hint; the export writes the data's own values, never the
// display's.

// ExportRequest is a layer to export: the spec it was opened from and
// its contrast limits.
type ExportRequest struct {
	Spec   string
	Lo, Hi float64
}

// exporters holds each viewer's export handler (kept beside the Viewer
// rather than in it, so that the viewer's own fields stay as they are).
var exporters sync.Map // *Viewer -> func(ExportRequest)

// SetExporter sets what File ▸ Export layer… does with the selected
// image layer.
func (v *Viewer) SetExporter(f func(ExportRequest)) { exporters.Store(v, f) }

// ExportSelected exports the selected image layer, or says why it
// cannot. Call on the UI goroutine.
func (v *Viewer) ExportSelected() {
	f, ok := exporters.Load(v)
	l, isImage := v.sel.(*ImageLayer)
	switch {
	case !ok:
		dialog.ShowInformation("Export layer", "Exporting needs the processing panel (voxlab gui).", v.win)
	case !isImage || l.spec == "":
		dialog.ShowInformation("Export layer", "Select an image layer opened from a file to export it.", v.win)
	default:
		lo, hi := l.ContrastLimits()
		f.(func(ExportRequest))(ExportRequest{Spec: l.spec, Lo: lo, Hi: hi})
	}
}
