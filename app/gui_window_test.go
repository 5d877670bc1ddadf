package main

import (
	"bytes"
	"errors"
	"image"
	_ "image/png"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// requireDisplayEnv, set by make test (which runs the tests under
// xvfb-run and installs ImageMagick), turns the skips of the tests that
// open a real window into failures: in CI a missing display or tool is a
// broken setup, not a reason to pass.
const requireDisplayEnv = "VOXLAB_REQUIRE_DISPLAY"

// needDisplay skips (or, under requireDisplayEnv, fails) a test that
// opens a real window when there is no X display.
func needDisplay(t *testing.T) {
	t.Helper()
	if os.Getenv("DISPLAY") != "" {
		return
	}
	if os.Getenv(requireDisplayEnv) != "" {
		t.Fatalf("no DISPLAY though %s is set: run the tests under xvfb-run, as make test does", requireDisplayEnv)
	}
	t.Skip("no DISPLAY: run under xvfb-run (make test) to open a real window")
}

// needTool returns the path of an external program the test needs,
// skipping (or, under requireDisplayEnv, failing) without it.
func needTool(t *testing.T, name, what string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv(requireDisplayEnv) != "" {
		t.Fatalf("%s is not installed though %s is set: make deps installs it", what, requireDisplayEnv)
	}
	t.Skipf("%s is not installed: cannot grab the screen", what)
	return ""
}

// lockedBuffer collects a child's output, written by exec's copying
// goroutine and read by the test while the child runs.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// grabScreen returns the X screen as ImageMagick's import sees it (the
// GL front buffer of a real window reads back blank under Xvfb; the X
// server's copy of the screen does not).
func grabScreen(imp, dir string) (image.Image, error) {
	path := filepath.Join(dir, "screen.png")
	if out, err := exec.Command(imp, "-window", "root", path).CombinedOutput(); err != nil {
		return nil, errors.New(string(bytes.TrimSpace(out)) + ": " + err.Error())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	return img, err
}

// child is a voxlab process started by a test: its output, and exited,
// closed once it has ended with err; its settings are in config
// (childEnv).
type child struct {
	cmd    *exec.Cmd
	out    *lockedBuffer
	exited chan struct{}
	err    error
	config string
}

// startChild runs voxlab with args in a child test binary, as main does
// (sigintEnv: until it ends or gets a signal), killing it when the test
// ends.
func startChild(t *testing.T, args string) *child {
	t.Helper()
	c := &child{cmd: exec.Command(os.Args[0], "-test.run=^$"), out: &lockedBuffer{}, exited: make(chan struct{}), config: t.TempDir()}
	c.cmd.Env = childEnv(c.config, sigintEnv+"="+args)
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.err = c.cmd.Wait(); close(c.exited) }()
	t.Cleanup(func() {
		select {
		case <-c.exited:
		default:
			c.cmd.Process.Kill()
			<-c.exited
		}
	})
	return c
}

// screenUntil grabs the screen until cond holds for it, and returns that
// grab. It fails the test when the child ends first, or after three
// minutes:
// a window that takes long to draw on a loaded CI machine is still
// waited for, and one that never draws does not hang the test.
func screenUntil(t *testing.T, imp, what string, c *child, cond func(image.Image) bool) image.Image {
	t.Helper()
	dir := t.TempDir()
	deadline := time.Now().Add(3 * time.Minute)
	var lastErr error
	for {
		select {
		case <-c.exited:
			t.Fatalf("voxlab ended (%v) before the screen showed %s:\n%s", c.err, what, c.out.String())
		default:
		}
		img, err := grabScreen(imp, dir)
		if err == nil && cond(img) {
			return img
		}
		lastErr = err
		if time.Now().After(deadline) {
			t.Fatalf("the screen did not show %s within three minutes (last grab: %v):\n%s", what, lastErr, c.out.String())
		}
		time.Sleep(100 * time.Millisecond) // the interval between grabs, not a wait for the window
	}
}

// grayRamp reports whether img holds, in some row, a run of at least 200
// gray pixels that never get darker and span most of the gray scale: the
// slice of TestGUIUnderDisplay (a ramp along x) drawn on screen. Text and
// widgets have no such run.
func grayRamp(img image.Image) bool {
	bd := img.Bounds()
	for y := bd.Min.Y; y < bd.Max.Y; y += 2 {
		run, first, prev := 0, uint32(0), uint32(0)
		for x := bd.Min.X; x < bd.Max.X; x++ {
			r, g, b, _ := img.At(x, y).RGBA()
			r, g, b = r>>8, g>>8, b>>8
			if r != g || g != b || (run > 0 && r < prev) {
				run = 0
			}
			if r == g && g == b {
				if run == 0 {
					first = r
				}
				run++
				prev = r
				if run >= 200 && prev-first > 150 {
					return true
				}
			}
		}
	}
	return false
}

// TestGUIUnderDisplay opens the real (OpenGL) viewer on a file under the
// X display that make test provides (xvfb-run), waits until the screen
// shows the slice, grabbing it with ImageMagick's import until it does,
// then closes the window with Ctrl-C: voxlab exits 0. HOME is a fresh
// folder: the file opened is in the window's own recent files, and
// nothing is written under HOME (checkSettingsAlone).
func TestGUIUnderDisplay(t *testing.T) {
	needDisplay(t)
	imp := needTool(t, "import", "ImageMagick's import (Debian package imagemagick)")
	home := freshHome(t)
	vol := filepath.Join(t.TempDir(), "vol.npy")
	writeNPY(t, vol, [3]int{3, 64, 64}, func(z, y, x int) uint16 { return uint16(x * 1000) })
	c := startChild(t, "gui\t"+vol+"\t--size\t800x600")
	screenUntil(t, imp, "the slice (a gray ramp)", c, grayRamp)
	interruptChild(t, c)
	checkSettingsAlone(t, home, c, vol)
}

// interruptChild sends c Ctrl-C and waits for it to exit 0, failing the
// test when it exits otherwise or hangs (two minutes).
func interruptChild(t *testing.T, c *child) {
	t.Helper()
	if err := c.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.exited:
		if c.err != nil {
			t.Errorf("voxlab gui after Ctrl-C: %v\n%s", c.err, c.out.String())
		}
	case <-time.After(2 * time.Minute):
		// SIGQUIT: the Go runtime prints every goroutine's stack and
		// exits, which says where the shutdown is stuck.
		c.cmd.Process.Signal(syscall.SIGQUIT)
		select {
		case <-c.exited:
		case <-time.After(30 * time.Second):
		}
		t.Fatalf("voxlab gui did not exit within two minutes of Ctrl-C (its stacks after SIGQUIT at the end):\n%s", c.out.String())
	}
}
