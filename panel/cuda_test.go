//go:build cuda

package panel

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/voxlab/voxlab/gpu"
	"github.com/voxlab/voxlab/processing/dezing"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/viewer"
)

// memOut collects a dezinging run's projections.
type memOut struct{ data []byte }

func (m *memOut) Frames(dark, flat []float32) error { return nil }
func (m *memOut) Slab(z0 int, data []byte) error {
	m.data = append(m.data, data...)
	return nil
}

// zingered returns projections of smooth counts with hot pixels.
func zingered(n, rows, cols int) volume.Source {
	info := volume.Info{Shape: [3]int{n, rows, cols}, DType: volume.Uint16}
	v := make([]uint16, info.Len())
	r := rand.New(rand.NewPCG(1, 2))
	for i := range v {
		v[i] = uint16(20000 + i%cols*10 + r.IntN(50))
		if r.IntN(500) == 0 {
			v[i] = 60000
		}
	}
	m, _ := volume.NewMemory(info, volume.Bytes(v))
	return m
}

// dezingOn is a panel pipeline that dezings zingered projections on a
// backend choice, with pin_memory as the panel says, handing out blocks.
func dezingOn(blocks *[]*dezing.Block, out *memOut) *Pipeline {
	return &Pipeline{
		Spec: &pipeline.Spec{Name: "dezing-test", Title: "Dezing (test)", Summary: "dezinging on a chosen backend",
			Batch: pipeline.Batch{Flag: "batch-size", Unit: "projections", Label: "Projections per block"}},
		Plan: func(ctx context.Context, r Request) (*plan.Plan, error) {
			return plan.Make("x", []plan.Phase{{Name: "p", Units: 1, Unit: "u"}}, plan.Budget{})
		},
		Run: func(ctx context.Context, r Request, p *job.Progress) error {
			c, _ := gpu.ParseChoice(r.Device.Backend)
			be, _, err := gpu.Open(c)
			if err != nil {
				return err
			}
			defer be.Close()
			cfg := dezing.DefaultConfig()
			cfg.Block, cfg.Pin, cfg.Partials = 8, r.Device.Pin, true
			_, avail := gpu.HostMemory()
			cfg.Budget = plan.Budget{Device: be.Info().FreeBytes, Host: avail, PinnedCap: gpu.DefaultPinnedCap()}
			_, err = dezing.Run(ctx, p, be, cfg, dezing.Input{Projections: zingered(40, 256, 320)}, out)
			return err
		},
		Live: func(v *viewer.Viewer, r Request) Live { return &blockLive{blocks: blocks} },
	}
}

type blockLive struct{ blocks *[]*dezing.Block }

func (l *blockLive) Partial(e job.Event) { *l.blocks = append(*l.blocks, e.Partial.(*dezing.Block)) }
func (l *blockLive) Done(error)          {}

// TestPanelOnCUDA drives the panel on a real device: the backend control
// finds it and enables pin_memory, Measure reports pageable and pinned
// rates, and a pinned dezinging job queued on cuda:0 hands its blocks to
// the live view and equals the same job on the CPU.
func TestPanelOnCUDA(t *testing.T) {
	info, _, err := probeDevice("cuda")
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	hl := viewer.NewHeadless(w)
	w.Resize(fyne.NewSize(1280, 900))
	var gpuBlocks, cpuBlocks []*dezing.Block
	gpuOut, cpuOut := &memOut{}, &memOut{}
	pl := dezingOn(&gpuBlocks, gpuOut)
	p := NewPanel(hl.Viewer, PanelOptions{PlanDelay: time.Millisecond}, pl)
	defer func() { p.Close(); hl.Close() }()
	until := func(what string, cond func() bool) {
		t.Helper()
		if err := hl.Until(2*time.Minute, cond); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	p.dev.backend.SetSelected("cuda")
	until("the device", func() bool { return p.dev.dev.Backend != "" || p.dev.probeErr != nil })
	if !p.dev.cuda() || p.dev.pin.Disabled() || !strings.Contains(p.dev.info.Text, info.Name) {
		t.Fatalf("backend cuda: device %q, pin disabled %v", p.dev.info.Text, p.dev.pin.Disabled())
	}
	t.Logf("device: %s", p.dev.info.Text)

	test.Tap(p.dev.measure)
	until("the measurement", func() bool { return !p.dev.measure.Disabled() })
	msg := p.dev.result.Text
	t.Logf("measure: %s", msg)
	if !strings.Contains(msg, "pinned") || !strings.Contains(msg, "GB/s") {
		t.Errorf("measure says %q", msg)
	}

	test.Tap(p.dev.pin)
	req, err := p.Request()
	if err != nil || !req.Device.Pin || p.dev.key() != "cuda:0" {
		t.Fatalf("request %+v (%v), key %q", req.Device, err, p.dev.key())
	}
	id, err := p.Submit(req)
	if err != nil {
		t.Fatal(err)
	}
	until("the CUDA job", func() bool { st, _ := p.Jobs().Status(id); return st.State.Ended() })
	st, _ := p.Jobs().Status(id)
	if st.State != job.StateFinished {
		t.Fatalf("CUDA job ended %v: %v", st.State, st.Err)
	}
	t.Logf("CUDA job: %s in %v, peak device %d, warnings %v", st.Device, st.Duration, st.Event.PeakDevice, st.Warnings)
	if st.Event.PeakDevice == 0 || st.Event.BytesToDevice == 0 {
		t.Errorf("no device memory or transfers reported: %+v", st.Event)
	}
	if len(gpuBlocks) != 5 {
		t.Errorf("%d blocks reached the live view, want 40/8", len(gpuBlocks))
	}
	var live []byte
	for _, b := range gpuBlocks {
		live = append(live, b.Data...)
	}
	if !bytes.Equal(live, gpuOut.data) {
		t.Error("the live blocks differ from the written output")
	}

	// The same job on the CPU gives the same projections.
	pc := dezingOn(&cpuBlocks, cpuOut)
	pr := job.NewProgress("cpu")
	if err := pc.Run(context.Background(), Request{Device: Device{Backend: "cpu"}}, pr); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(gpuOut.data, cpuOut.data) {
		t.Error("the CUDA job's projections differ from the CPU's")
	}
}
