package panel

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/internal/testutil"
	"github.com/voxlab/voxlab/processing/job"
	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/plan"
	"github.com/voxlab/voxlab/viewer"
)

// pairPipeline is shaped like classify: a signal, candidates and an
// output, a background and the data's voxel size, suggested as
// classify's spec suggests them (pipeline.SignalPair, VoxelText). Its
// plan refuses a run without a voxel size as classify does, naming the
// flag.
func pairPipeline() *Pipeline {
	spec := &pipeline.Spec{
		Name: "pair", Title: "Pair", Summary: "two channels",
		Args: []pipeline.Param{
			{Name: "signal", Label: "Signal volume", Kind: pipeline.Input},
			{Name: "points", Label: "Candidates", Kind: pipeline.Input, Optional: true},
			{Name: "out", Label: "Output", Kind: pipeline.Output, Default: "classified.xml"},
		},
		Params: []pipeline.Param{
			{Name: "background", Label: "Background volume", Kind: pipeline.Input, Optional: true},
			{Name: "voxel-size", Kind: pipeline.Floats, Len: 3, Axes: "z,y,x", Label: "Voxel size z,y,x", Unit: "µm"},
		},
		Batch: pipeline.Batch{Flag: "batch-size", Unit: "cubes", Label: "Cubes per batch"},
		Suggest: func(open []pipeline.Layer) ([]string, map[string]string) {
			sig, bg, pts := pipeline.SignalPair(open)
			return []string{sig, pts, ""}, map[string]string{"background": bg, "voxel-size": pipeline.VoxelText(open, sig)}
		},
	}
	return &Pipeline{
		Spec: spec,
		Plan: func(ctx context.Context, r Request) (*plan.Plan, error) {
			if r.Values.Floats("voxel-size") == nil {
				return nil, pipeline.Usagef("%s holds no voxel size: give --voxel-size Z,Y,X in microns", r.Args[0])
			}
			pp, err := plan.Make("pair", []plan.Phase{{Name: "cubes", Units: 1, Unit: "cubes"}},
				plan.Budget{Device: fakeDevice, DeviceSource: "fake device", Host: 1 << 30, HostSource: "--host-memory 1GiB"})
			if err == nil {
				pp.Warnings = append(pp.Warnings, "--batch-size 3 is slow")
			}
			return pp, err
		},
		Run: func(ctx context.Context, r Request, p *job.Progress) error { return nil },
	}
}

// pairHarness is a panel with the pair and fake pipelines on two
// channels of one volume in a folder whose name holds an underscore and
// asterisks: ch0 opened first, then ch1.
type pairHarness struct {
	t        *testing.T
	hl       *viewer.Headless
	p        *Panel
	dir      string
	ch0, ch1 string
}

func newPairHarness(t *testing.T) *pairHarness {
	t.Helper()
	test.NewTempApp(t)
	w := test.NewTempWindow(t, nil)
	hl := viewer.NewHeadless(w)
	w.Resize(fyne.NewSize(1280, 800))
	f := &fakePipeline{gates: map[string]chan struct{}{}}
	p := NewPanel(hl.Viewer, PanelOptions{Probe: cpuProbe, PlanDelay: time.Millisecond}, pairPipeline(), f.pipeline())
	t.Cleanup(func() {
		p.Close()
		hl.Close()
	})
	dir := filepath.Join(t.TempDir(), "crop_planes*x*")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	h := &pairHarness{t: t, hl: hl, p: p, dir: dir, ch0: filepath.Join(dir, "ch0.npy"), ch1: filepath.Join(dir, "ch1.npy")}
	vals := make([]uint16, 4*30*40)
	for _, c := range []string{h.ch0, h.ch1} {
		testutil.WriteNPY(t, c, []int{4, 30, 40}, vals)
		h.open(c)
	}
	return h
}

// open opens a file as a layer and lets the panel follow.
func (h *pairHarness) open(path string) viewer.Layer {
	h.t.Helper()
	l, err := h.hl.Open(path)
	if err != nil {
		h.t.Fatal(err)
	}
	h.hl.Drain()
	return l
}

// text is the text of a field's entry.
func (h *pairHarness) text(name string) string {
	h.t.Helper()
	switch w := h.p.Field(name).(type) {
	case *widget.Entry:
		return w.Text
	case *widget.SelectEntry:
		return w.Text
	}
	h.t.Fatalf("field %s is no entry", name)
	return ""
}

// want checks fields' texts.
func (h *pairHarness) want(what string, fields map[string]string) {
	h.t.Helper()
	for name, v := range fields {
		if got := h.text(name); got != v {
			h.t.Errorf("%s: %s is %q, want %q", what, name, got, v)
		}
	}
}

// planned waits for the plan.
func (h *pairHarness) planned() {
	h.t.Helper()
	if err := h.hl.Until(time.Minute, func() bool { return !h.p.Planning() }); err != nil {
		h.t.Fatal(err)
	}
}

// TestSuggestionsFollowTheData: of two channels opened ch0 then ch1, the
// first opened is the signal and the other the background, whatever the
// layers' order in the stack, and the output is named after the signal;
// a voxel size set on one layer fills the voxel-size field of a form on
// the other channel (same shape); candidates found in ch1 (named after
// it) make ch1 the signal.
func TestSuggestionsFollowTheData(t *testing.T) {
	h := newPairHarness(t)
	if err := h.p.Select("pair"); err != nil {
		t.Fatal(err)
	}
	h.want("opened ch0 then ch1", map[string]string{"signal": h.ch0, "background": h.ch1,
		"out": filepath.Join(h.dir, "ch0-classified.xml"), "voxel-size": "", "points": ""})
	// The stack's order is not the order they were opened in.
	h.hl.MoveLayer(h.hl.LayerFor(h.ch0), 1)
	h.hl.Drain()
	if top := h.hl.Layers()[1]; viewer.Spec(top) != h.ch0 {
		t.Fatalf("the move left %s on top", viewer.Spec(top))
	}
	h.want("ch0 moved on top", map[string]string{"signal": h.ch0, "background": h.ch1})

	h.hl.LayerFor(h.ch1).(*viewer.ImageLayer).SetVoxelSize([3]float64{5, 2, 2})
	h.hl.Drain()
	h.want("5,2,2 set on ch1", map[string]string{"voxel-size": "5,2,2"})

	cells := filepath.Join(h.dir, "ch1-cells.csv")
	os.WriteFile(cells, []byte("z,y,x\n1,2,3\n"), 0o644)
	h.open(cells)
	h.want("candidates of ch1 opened", map[string]string{"points": cells, "signal": h.ch1, "background": h.ch0,
		"out": filepath.Join(h.dir, "ch1-classified.xml"), "voxel-size": "5,2,2"})

	// A path field shows its end: the cursor is after the file name.
	se := h.p.Field("signal").(*widget.SelectEntry)
	if se.CursorRow != 0 || se.CursorColumn != len([]rune(se.Text)) {
		t.Errorf("the signal's cursor is at %d,%d of %q, want its end", se.CursorRow, se.CursorColumn, se.Text)
	}
}

// TestFormKeepsTheUsersValues: what the user typed into a form (a
// parameter, an input, an output) is there again after choosing another
// pipeline and coming back, over the suggestions, and the fields the user
// left alone still follow the data.
func TestFormKeepsTheUsersValues(t *testing.T) {
	h := newPairHarness(t)
	h.p.Select("pair")
	mine := filepath.Join(h.dir, "mine.xml")
	h.p.Field("voxel-size").(*widget.Entry).SetText("4,1,1")
	h.p.Field("background").(*widget.SelectEntry).SetText(h.ch0)
	h.p.Field("out").(*widget.Entry).SetText(mine)
	h.planned()
	h.p.Select("fake")
	h.p.Field("count").(*widget.Entry).SetText("7")
	h.planned()
	// A voxel size set on a layer meanwhile does not replace the user's.
	h.hl.LayerFor(h.ch0).(*viewer.ImageLayer).SetVoxelSize([3]float64{5, 2, 2})
	h.hl.Drain()
	h.p.Select("pair")
	h.want("back to pair", map[string]string{"voxel-size": "4,1,1", "background": h.ch0, "out": mine, "signal": h.ch0})
	h.p.Select("fake")
	h.want("back to fake", map[string]string{"count": "7"})
	// Values are kept per pipeline: the fake's count is not the pair's.
	if _, ok := h.p.kept["pair"]["count"]; ok {
		t.Error("the fake pipeline's count was kept for pair")
	}
}

// TestPlanShowsTheCommandVerbatim: the plan's command line holds the
// paths as written, underscores and asterisks kept (shell-quoted), in a
// label that draws underscores (a CodeLabel, not a caption).
func TestPlanShowsTheCommandVerbatim(t *testing.T) {
	h := newPairHarness(t)
	h.p.Select("pair")
	h.p.Field("voxel-size").(*widget.Entry).SetText("5,2,2")
	h.planned()
	if err := h.p.PlanError(); err != nil {
		t.Fatal(err)
	}
	req, err := h.p.Request()
	if err != nil {
		t.Fatal(err)
	}
	cmd := h.p.pv.cmd
	if want := req.CommandLine(h.p.cur); cmd.Text != want {
		t.Errorf("the plan shows %q, want %q", cmd.Text, want)
	}
	if !strings.Contains(cmd.Text, "'"+h.ch0+"'") || !strings.Contains(cmd.Text, "crop_planes*x*/ch0.npy") {
		t.Errorf("the command %q does not hold %s as written", cmd.Text, h.ch0)
	}
	// The plan's notes name fields; only the command names flags.
	if w, host := h.p.pv.warn.Text, h.p.pv.host.Text(); w != "“Cubes per batch” 3 is slow" || !strings.Contains(host, "“Host memory cap” 1GiB") {
		t.Errorf("the plan says %q, host %q: want the fields' labels", w, host)
	}
	if cmd.SizeName == theme.SizeNameCaptionText || !cmd.TextStyle.Monospace {
		t.Errorf("the command is drawn at %q, monospace %v: the caption's monospace face draws no underscores", cmd.SizeName, cmd.TextStyle.Monospace)
	}
}

// TestVoxelSizeRefusalNamesTheField: a plan refused for want of a voxel
// size says so beside the field, naming it by its label, never by the
// command line's flag.
func TestVoxelSizeRefusalNamesTheField(t *testing.T) {
	h := newPairHarness(t)
	h.p.Select("pair")
	h.planned()
	err := h.p.PlanError()
	if err == nil {
		t.Fatal("planned without a voxel size")
	}
	msg := h.p.FieldError("voxel-size")
	for _, m := range []string{err.Error(), msg, h.p.pv.err.Text} {
		if !strings.Contains(m, "“Voxel size z,y,x (µm)”") || strings.Contains(m, "--") {
			t.Errorf("message %q: want the field's label, no flag", m)
		}
	}
	p := h.p.cur
	for in, want := range map[string]string{
		"give --background, or --mask-radius": "give “Background volume”, or --mask-radius",
		"--batch-size 3: too big":             "“Cubes per batch” 3: too big",
		"a --- b -- c --device-memory":        "a --- b -- c “Device memory cap”",
		"--voxel-size-x":                      "--voxel-size-x",
	} {
		if got := p.Words(in); got != want {
			t.Errorf("Words(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestVoxelSizeFillsEveryForm: a form with a z,y,x voxel size whose
// spec suggests only its inputs still gets the input layer's voxel size.
func TestVoxelSizeFillsEveryForm(t *testing.T) {
	h := newPairHarness(t)
	h.p.Select("fake") // the panel opened on pair's form
	h.p.pipelines[0].Spec.Suggest = func(open []pipeline.Layer) ([]string, map[string]string) {
		return []string{pipeline.FirstVolume(open), "", ""}, nil
	}
	h.hl.LayerFor(h.ch0).(*viewer.ImageLayer).SetVoxelSize([3]float64{4, 1.8, 1.8})
	h.hl.Drain()
	h.p.Select("pair")
	h.want("no voxel size suggested", map[string]string{"signal": h.ch0, "voxel-size": "4,1.8,1.8", "background": ""})
}

// TestOutputNamedByThePanelIsNotKept: an output the panel named after
// the input the user chose is the panel's, not the user's: after
// switching pipelines and back it still follows the input.
func TestOutputNamedByThePanelIsNotKept(t *testing.T) {
	h := newPairHarness(t)
	h.p.Field("signal").(*widget.SelectEntry).SetText(h.ch1)
	h.want("ch1 chosen", map[string]string{"out": filepath.Join(h.dir, "ch1-classified.xml")})
	h.p.Select("fake")
	h.p.Select("pair")
	h.p.Field("signal").(*widget.SelectEntry).SetText(h.ch0)
	h.want("back, ch0 chosen", map[string]string{"out": filepath.Join(h.dir, "ch0-classified.xml")})
	if _, ok := h.p.kept["pair"]["out"]; ok {
		t.Errorf("the panel's output name was kept as the user's: %q", h.p.kept["pair"]["out"])
	}
}
