package job

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"
)

func newTestTermSink(w *bytes.Buffer, tty bool, clk *fakeNow) Sink {
	t := &termSink{w: w, tty: tty, now: clk.Now}
	return t.handle
}

func TestTerminalSinkPlainLines(t *testing.T) {
	clk := newFakeNow()
	var buf bytes.Buffer
	var p *Progress
	p = newProgress("dezing", []Sink{newTestTermSink(&buf, false, clk)}, clk.Now)
	p.Stage("projections", 1000, "slices")
	// 1000 slices, one per 10 ms: 10 s, so both the 10% steps and the
	// one-line-a-second limit allow a line per 100 slices.
	for i := range 1000 {
		clk.Advance(10 * time.Millisecond)
		p.Add(1)
		if i == 500 {
			p.Warn("1 pixel clipped")
		}
	}
	p.Memory(3<<30, 1<<29)
	p.finish(Finished, nil)

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	// stage start, 10 steps, the warning, the summary
	if len(lines) != 13 {
		t.Fatalf("%d lines, want 13:\n%s", len(lines), buf.String())
	}
	for _, want := range []string{
		"dezing: projections 0/1000 slices (0%)",
		"dezing: projections 500/1000 slices (50%), 100 slices/s, ETA 5s",
		"dezing: warning: 1 pixel clipped",
		"dezing: projections 1000/1000 slices (100%), 100 slices/s",
		"dezing: finished in 10s (peak device memory 3 GiB, peak host memory 512 MiB)",
	} {
		if !containsLine(lines, want) {
			t.Errorf("no line %q in:\n%s", want, buf.String())
		}
	}
}

func containsLine(lines []string, want string) bool {
	for _, l := range lines {
		if l == want {
			return true
		}
	}
	return false
}

func TestTerminalSinkPlainRateLimit(t *testing.T) {
	clk := newFakeNow()
	var buf bytes.Buffer
	p := newProgress("j", []Sink{newTestTermSink(&buf, false, clk)}, clk.Now)
	// A fast stage: 100 units in 100 ms. Only the stage's first line
	// passes the one-a-second limit.
	p.Stage("fast", 100, "u")
	for range 100 {
		clk.Advance(time.Millisecond)
		p.Add(1)
	}
	// A slow stage of unknown length: a heartbeat line every 30 s.
	p.Stage("slow", 0, "u")
	for range 10 {
		clk.Advance(10 * time.Second)
		p.Add(1)
	}
	p.finish(Failed, errors.New("disk full"))
	got := strings.Split(strings.TrimSpace(buf.String()), "\n")
	want := []string{
		"j: fast 0/100 u (0%)",
		"j: slow 0 u",
		"j: slow 3 u, 0.1 u/s",
		"j: slow 6 u, 0.1 u/s",
		"j: slow 9 u, 0.1 u/s",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got lines\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if strings.Contains(buf.String(), "disk full") {
		t.Error("the sink printed the error, which the caller reports")
	}
}

func TestTerminalSinkBar(t *testing.T) {
	var buf bytes.Buffer
	sink := TerminalSink(&buf, true)
	p := NewProgress("detect", sink)
	p.Stage("planes", 40, "planes")
	for range 40 {
		p.Add(1)
	}
	p.Warn("tile threshold is 0")
	p.Stage("structures", 5, "structures")
	p.Add(2)
	p.End(nil)
	out := buf.String()
	for _, want := range []string{
		"detect: planes", "40/40", "planes/", // stage, count, rate
		"detect: warning: tile threshold is 0",
		"detect: structures", "5/5",
		"detect: finished in",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, out)
		}
	}
}
