package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/voxlab/voxlab/panel"
	"github.com/voxlab/voxlab/processing/dezing"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
)

func init() {
	registerGUI(&guiSpec{
		name: "Dezing", command: "dezing",
		args: []panel.Field{
			{Name: "in", Label: "Scan", Kind: panel.InputField, Help: "NeXus scan (darks and flats by image_key), or a projections volume with darks and flats below"},
			{Name: "out", Label: "Output", Kind: panel.OutputField, Default: "dezinged.h5", Help: "HDF5 file: /data, and /dark and /flat unless flat-field corrected; or an OME-Zarr store when the name ends in .zarr"},
		},
		basic:      []string{"kernel", "dif", "darks-flats", "flat-field", "minus-log"},
		choices:    map[string][]string{"darks-flats": {"mean", "median"}},
		inputs:     map[string]bool{"darks": true, "flats": true},
		labels:     map[string]string{"dif": "Threshold (dif)", "darks-flats": "Darks and flats reduction", "flat-field": "Flat-field correction", "minus-log": "−log after the flat-field"},
		batchLabel: "Projections per block",
		suggest:    suggestDezing,
		live:       newDezingLive,
	})
}

// suggestDezing proposes the first open NeXus scan, else HDF5 file, else
// any open volume (`voxlab gui scan.npy --run dezing` dezings scan.npy).
// The panel names the output after it (scan-dezinged.h5, free).
func suggestDezing(open []string) ([]string, map[string]string) {
	in := firstSpec(open, ".nxs")
	if in == "" {
		in = firstSpec(open, ".h5", ".hdf5")
	}
	if in == "" {
		in = firstVolume(open)
	}
	if in == "" {
		return nil, nil
	}
	return []string{in, ""}, nil
}

// firstSpec returns the first spec whose path has one of the extensions.
func firstSpec(specs []string, exts ...string) string {
	for _, s := range specs {
		p, _ := volume.SplitSpec(s)
		for _, e := range exts {
			if strings.EqualFold(filepath.Ext(p), e) {
				return s
			}
		}
	}
	return ""
}

// firstVolume returns the first spec that is not a points file (CSV,
// cellfinder XML): a volume in any format voxlab reads.
func firstVolume(specs []string) string {
	for _, s := range specs {
		p, _ := volume.SplitSpec(s)
		if e := strings.ToLower(filepath.Ext(p)); e != ".csv" && e != ".xml" {
			return s
		}
	}
	return ""
}

// dezingLive shows a dezinging run: each finished block of projections
// in an image layer added over the others as it arrives, and the output
// file when the run ends. The user's view is left as it was (other
// layers keep their visibility, grid mode its state); showing the result
// beside the raw scan is offered (Viewer.OfferCompare), not imposed.
type dezingLive struct {
	v     *viewer.Viewer
	in    viewer.Layer
	out   string
	mu    sync.Mutex
	vol   *viewer.LiveVolume
	layer atomic.Pointer[viewer.ImageLayer]
	err   error
}

func newDezingLive(v *viewer.Viewer, r panel.Request) panel.Live {
	return &dezingLive{v: v, in: v.LayerFor(r.Args[0]), out: r.Args[1]}
}

// Partial stores a *dezing.Block and refreshes its planes.
func (l *dezingLive) Partial(e job.Event) {
	b, ok := e.Partial.(*dezing.Block)
	if !ok {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return
	}
	if l.vol == nil {
		// The projections stage counts the slices the output holds.
		n := int(e.Total)
		if e.Stage != dezing.StageProjections || n < b.Z0+b.Shape[0] {
			n = b.Z0 + b.Shape[0]
		}
		vol, err := viewer.NewLiveVolume(volume.Info{Shape: [3]int{n, b.Shape[1], b.Shape[2]}, DType: b.DType}, viewer.LiveOptions{})
		if err != nil {
			l.err = err
			return
		}
		l.vol = vol
		if err := vol.Write(b.Z0, b.Data); err != nil {
			l.err = err
			return
		}
		l.v.Do(l.addLayer)
		return
	}
	if err := l.vol.Write(b.Z0, b.Data); err != nil {
		l.err = err
		return
	}
	if il := l.layer.Load(); il != nil {
		il.RefreshPlanes(b.Z0, b.Z0+b.Shape[0])
	}
}

// addLayer shows the live volume beside the raw scan (UI goroutine).
func (l *dezingLive) addLayer() {
	l.mu.Lock()
	vol := l.vol
	l.mu.Unlock()
	name := filepath.Base(l.out) + " (running)"
	il, err := l.v.AddImage(name, volume.New(name, vol), l.options(vol.Info().DType))
	if err != nil {
		l.v.ShowError(err)
		return
	}
	l.layer.Store(il)
	l.v.OfferCompare(l.in, il)
}

// options gives the result the raw scan's contrast when both are counts.
func (l *dezingLive) options(dt volume.DType) viewer.ImageOptions {
	var o viewer.ImageOptions
	if in, ok := l.in.(*viewer.ImageLayer); ok && in.Volume().DType == dt {
		lo, hi := in.ContrastLimits()
		if hi > lo {
			o.Contrast = [2]float64{lo, hi}
		}
	}
	return o
}

// Done replaces the live layer with the output file (hidden if the user
// hid the live layer), or removes it when the run failed or was
// cancelled (it left no output).
func (l *dezingLive) Done(err error) {
	hidden := false
	if il := l.layer.Load(); il != nil {
		hidden = !il.Visible()
		l.v.RemoveLayer(il)
	}
	if err != nil {
		return
	}
	var res viewer.Layer
	l.v.Batch(func() {
		var oerr error
		if res, oerr = l.v.Open(dezingResultSpec(l.out)); oerr != nil {
			err = oerr
			return
		}
		if il, ok := res.(*viewer.ImageLayer); ok {
			if o := l.options(il.Volume().DType); o.Contrast[1] > o.Contrast[0] {
				il.SetContrastLimits(o.Contrast[0], o.Contrast[1])
			}
		}
		if hidden {
			res.SetVisible(false)
		}
		l.v.OfferCompare(l.in, res)
	})
	if err != nil {
		l.v.ShowError(fmt.Errorf("open the dezinged scan: %w", err))
	}
}
