package panel

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/widgets"
)

// pinHelp explains the pin_memory trade-off (docs/ARCHITECTURE.md, Rules).
const pinHelp = "pin_memory page-locks the host staging buffers: uploads to the GPU get faster and truly " +
	"asynchronous, but pinned RAM cannot be swapped out, so it is taken from everything else running " +
	"(voxlab caps it at a quarter of RAM and falls back to pageable memory, with a warning, when pinning " +
	"fails). Off by default; Measure tells whether it pays on this machine."

// DeviceProbe opens the backend a --backend choice names and describes
// it: the device, and the note saying which backend auto picked.
type DeviceProbe func(choice string) (gpu.DeviceInfo, string, error)

// probeDevice is the default DeviceProbe: gpu.Open, Info, Close.
func probeDevice(choice string) (gpu.DeviceInfo, string, error) {
	c, err := gpu.ParseChoice(choice)
	if err != nil {
		return gpu.DeviceInfo{}, "", err
	}
	be, note, err := gpu.Open(c)
	if err != nil {
		return gpu.DeviceInfo{}, "", err
	}
	defer be.Close()
	return be.Info(), note, nil
}

// deviceControls are the controls every pipeline shares: backend,
// pin_memory, block size and memory caps, and the bandwidth probe.
type deviceControls struct {
	p        *Panel
	backend  *widget.Select
	info     *widget.Label
	pin      *widget.Check
	pinNote  *widget.Label
	batchLbl *widget.Label
	batch    *widget.Entry
	batchMsg *widget.Label
	devMem   *widget.Entry
	hostMem  *widget.Entry
	memMsg   *widget.Label
	measure  *widget.Button
	result   *widget.Label
	box      *fyne.Container

	// dev is the device the chosen backend opens (Backend "" until the
	// probe answered); probeErr why it cannot be opened.
	dev      gpu.DeviceInfo
	probeErr error
	probeGen int
}

func newDeviceControls(p *Panel) *deviceControls {
	d := &deviceControls{p: p}
	opts := []string{"auto", "cpu", "cuda"}
	d.backend = widget.NewSelect(opts, func(string) { d.reprobe(); p.changed(); widgets.Refocus(p.v.Window(), false) })
	d.info = widgets.WrapLabel("", widget.LowImportance)
	d.pin = widget.NewCheck("pin_memory", func(bool) { p.changed(); widgets.Refocus(p.v.Window(), false) })
	d.pinNote = widgets.WrapLabel("", widget.LowImportance)
	help := widgets.NewButton(p.v.Window(), "", theme.QuestionIcon(), func() { p.showInfo("pin_memory", pinHelp) })
	help.Importance = widget.LowImportance
	d.batchLbl = widget.NewLabel("Block size")
	d.batch = widget.NewEntry()
	d.batch.SetPlaceHolder("auto")
	d.batch.OnChanged = func(string) { d.check(); p.changed() }
	d.batchMsg = widgets.WrapLabel("", widget.DangerImportance)
	d.devMem = widget.NewEntry()
	d.devMem.SetPlaceHolder("free memory")
	d.hostMem = widget.NewEntry()
	d.hostMem.SetPlaceHolder("half the RAM")
	d.devMem.OnChanged = func(string) { d.check(); p.changed() }
	d.hostMem.OnChanged = func(string) { d.check(); p.changed() }
	for _, e := range []*widget.Entry{d.batch, d.devMem, d.hostMem} {
		e.OnSubmitted = func(string) { widgets.Refocus(p.v.Window(), true) }
	}
	d.memMsg = widgets.WrapLabel("", widget.DangerImportance)
	d.measure = widgets.NewButton(p.v.Window(), "Measure transfer speed", theme.SearchIcon(), d.runMeasure)
	d.result = widgets.WrapLabel("", widget.MediumImportance)
	d.result.Hide()

	caps := container.NewGridWithColumns(2,
		container.NewVBox(widget.NewLabel("Device memory cap"), d.devMem),
		container.NewVBox(widget.NewLabel("Host memory cap"), d.hostMem))
	d.box = container.NewVBox(
		labelled("Backend", d.backend), d.info,
		container.NewBorder(nil, nil, nil, help, d.pin), d.pinNote,
		d.batchLbl, d.batch, d.batchMsg,
		caps, d.memMsg,
		d.measure, d.result,
	)
	widgets.SetLabel(d.batchMsg, "")
	widgets.SetLabel(d.memMsg, "")
	d.backend.SetSelected("auto")
	return d
}

// labelled puts a label left of a widget.
func labelled(label string, w fyne.CanvasObject) fyne.CanvasObject {
	return container.NewBorder(nil, nil, widget.NewLabel(label), nil, w)
}

// setBatchField names the block-size control after the pipeline's flag.
func (d *deviceControls) setBatchField(f pipeline.Batch) {
	label := f.Label
	if label == "" {
		label = "Block size (" + f.Unit + ")"
	}
	d.batchLbl.SetText(label)
	d.batch.SetPlaceHolder("auto")
	d.check()
}

// reprobe asks, off the UI goroutine, which device the backend choice
// opens.
func (d *deviceControls) reprobe() {
	d.probeGen++
	gen, choice := d.probeGen, d.backend.Selected
	d.dev, d.probeErr = gpu.DeviceInfo{}, nil
	d.info.SetText("looking for the device…")
	d.updatePin()
	probe := d.p.opts.Probe
	d.p.goAsync(func() {
		info, note, err := probe(choice)
		d.p.v.Async().Do(func() {
			if gen != d.probeGen {
				return
			}
			d.dev, d.probeErr = info, err
			d.showDevice(note)
			d.p.changed()
		})
	})
}

func (d *deviceControls) showDevice(note string) {
	if d.probeErr != nil {
		d.info.Importance = widget.DangerImportance
		d.info.SetText(d.probeErr.Error())
	} else {
		d.info.Importance = widget.LowImportance
		i := d.dev
		what := fmt.Sprintf("%d cores", i.Cores)
		if i.Backend == "cuda" {
			what = fmt.Sprintf("%d SMs, compute %s", i.Cores, i.ComputeCapability)
		}
		s := fmt.Sprintf("%s: %s (%s) — %s free of %s", i.Backend, i.Name, what, plan.FormatBytes(i.FreeBytes), plan.FormatBytes(i.TotalBytes))
		if note != "" {
			s += "\n" + note
		}
		d.info.SetText(s)
	}
	d.updatePin()
}

// cuda reports whether the chosen backend computes on a CUDA device.
func (d *deviceControls) cuda() bool { return d.probeErr == nil && d.dev.Backend == "cuda" }

// updatePin enables pin_memory only where there is something to upload.
func (d *deviceControls) updatePin() {
	if d.cuda() {
		d.pin.Enable()
		widgets.SetLabel(d.pinNote, "Faster uploads, but pinned RAM cannot be swapped out (capped at "+plan.FormatBytes(gpu.DefaultPinnedCap())+" here).")
		return
	}
	d.pin.SetChecked(false)
	d.pin.Disable()
	why := "no CUDA device is in use"
	if d.dev.Backend == "cpu" {
		why = "the CPU backend computes in host memory: there is no upload to speed up"
	}
	widgets.SetLabel(d.pinNote, "pin_memory is off: "+why+".")
}

// key is the queue's device key: one job at a time per device.
func (d *deviceControls) key() string {
	if d.cuda() {
		return "cuda:0"
	}
	if d.dev.Backend != "" {
		return d.dev.Backend
	}
	return d.backend.Selected
}

// check validates the block size and memory caps beside them and
// returns the first error.
func (d *deviceControls) check() error {
	var errs []error
	if err := checkBatch(d.batch.Text); err != nil {
		errs = append(errs, err)
		widgets.SetLabel(d.batchMsg, err.Error())
	} else {
		d.batchMsg.Importance = widget.DangerImportance
		widgets.SetLabel(d.batchMsg, "")
	}
	var msgs []string
	for _, m := range []struct {
		name string
		e    *widget.Entry
	}{{"device memory cap", d.devMem}, {"host memory cap", d.hostMem}} {
		if s := strings.TrimSpace(m.e.Text); s != "" {
			if _, err := plan.ParseBytes(s); err != nil {
				msgs = append(msgs, fmt.Sprintf("%s: %v", m.name, err))
			}
		}
	}
	widgets.SetLabel(d.memMsg, strings.Join(msgs, "\n"))
	if len(msgs) > 0 {
		errs = append(errs, errors.New(msgs[0]))
	}
	return errors.Join(errs...)
}

func checkBatch(s string) error {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "auto") {
		return nil
	}
	if n, err := strconv.Atoi(s); err != nil || n <= 0 {
		return fmt.Errorf("%q: want a positive number, or auto", s)
	}
	return nil
}

// warnBatch shows the planner's verdict on a manual block size: its
// warning when the block would not fit.
func (d *deviceControls) warnBatch(warnings []string) {
	if checkBatch(d.batch.Text) != nil {
		return
	}
	manual := strings.TrimSpace(d.batch.Text) != "" && !strings.EqualFold(strings.TrimSpace(d.batch.Text), "auto")
	var msg []string
	if manual {
		for _, w := range warnings {
			if strings.Contains(w, "may not fit") {
				msg = append(msg, w)
			}
		}
	}
	d.batchMsg.Importance = widget.WarningImportance
	widgets.SetLabel(d.batchMsg, strings.Join(msg, "\n"))
}

// device returns the controls' part of a request.
func (d *deviceControls) device() Device {
	b := strings.TrimSpace(d.batch.Text)
	if b == "" {
		b = "auto"
	}
	return Device{
		Backend: d.backend.Selected, Pin: d.pin.Checked && !d.pin.Disabled(), Batch: b,
		DeviceMemory: strings.TrimSpace(d.devMem.Text), HostMemory: strings.TrimSpace(d.hostMem.Text),
	}
}

// runMeasure runs the bandwidth probe off the UI goroutine and says
// whether pinning pays here.
func (d *deviceControls) runMeasure() {
	d.measure.Disable()
	d.result.Show()
	d.result.SetText("measuring host-to-device copies…")
	d.p.relayout()
	choice, bytes := d.backend.Selected, d.p.opts.BandwidthBytes
	d.p.goAsync(func() {
		msg := measure(choice, bytes)
		d.p.v.Async().Do(func() {
			d.measure.Enable()
			d.result.SetText(msg)
			d.p.relayout()
		})
	})
}

// measure opens the backend and runs gpu.Bandwidth on it.
func measure(choice string, bytes int64) string {
	c, err := gpu.ParseChoice(choice)
	if err != nil {
		return err.Error()
	}
	be, _, err := gpu.Open(c)
	if err != nil {
		return err.Error()
	}
	defer be.Close()
	r, err := gpu.Bandwidth(be, bytes)
	if err != nil {
		return err.Error()
	}
	return r.String()
}
