package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"fyne.io/fyne/v2"
	fyneapp "fyne.io/fyne/v2/app"

	"github.com/voxlab/voxlab/processing/outfile"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/resources"
	"github.com/voxlab/voxlab/viewer"
	"github.com/voxlab/voxlab/viewer/render3d"
	"github.com/voxlab/voxlab/widgets"
)

func init() {
	register(&command{
		name:    "view",
		volumes: true,
		summary: "open files in the viewer, or render a screenshot of them",
		usage:   "FILE... [--slice N] [--map N] [--axis z|y|x] [--grid] [--colormap NAME] [--walk N] [--ortho [--point Z,Y,X]] [--3d MODE [--angles AZ,EL] [--iso-threshold V] [--turntable N]] [--screenshot OUT.png|DIR/] [--size WxH]",
		examples: []string{
			"voxlab view brain.ome.zarr:/c=1",
			"voxlab view demo/tomo/scan.nxs",
			"voxlab view brain.h5:/data cells.csv --slice 40",
			"voxlab view brain/planes cells.xml   # cellfinder's XML: curate, then File ▸ Save points",
			"voxlab view raw.npy dezinged.npy --grid --screenshot cmp.png --size 1400x700",
			"voxlab view maps/gt.npy --map 3 --slice 16 --colormap inferno",
			"voxlab view brain/planes cells.csv --ortho --point 30,100,120 --screenshot ortho.png",
			"voxlab view map.mrc --3d iso --angles 30,20 --iso-threshold 0.5 --screenshot iso.png",
			"voxlab view brain.h5:/data --3d mip --turntable 36 --screenshot frames/",
		},
		flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			o := &viewOpts{}
			fs.IntVar(&o.slice, "slice", -1, "slice to show (default: the middle one)")
			fs.IntVar(&o.mapIdx, "map", 0, "map to show of a stack of maps (4D NPY, folder of MRC files)")
			fs.StringVar(&o.axis, "axis", "z", "axis to slice along: z, y or x")
			fs.BoolVar(&o.grid, "grid", false, "show each layer in its own panel, side by side")
			fs.StringVar(&o.screenshot, "screenshot", "", "render the window once into this PNG and exit")
			fs.StringVar(&o.size, "size", "1280x800", "window size WxH")
			fs.StringVar(&o.colormap, "colormap", "", "colormap of the image layers: "+strings.Join(resources.ColormapNames(), ", "))
			fs.StringVar(&o.v3.mode, "3d", "", "show the 3D view, rendered by: "+strings.Join(render3d.Modes(), ", "))
			fs.StringVar(&o.v3.angles, "angles", "", "3D camera azimuth,elevation in degrees (default 0,0: down z)")
			fs.Func("iso-threshold", "the iso-surface's value (--3d iso; default halfway between the contrast limits)", func(s string) error {
				x, err := strconv.ParseFloat(s, 64)
				o.v3.iso, o.v3.isoSet = x, err == nil
				return err
			})
			fs.BoolVar(&o.v3.ortho, "ortho", false, "show the xy, xz and zy planes through one point")
			fs.StringVar(&o.v3.point, "point", "", "the point z,y,x (voxels) the slices go through (default: the middle)")
			fs.IntVar(&o.v3.turntable, "turntable", 0, "with --3d and --screenshot DIR/: write N frames of a full turn")
			fs.IntVar(&o.walk, "walk", 0, "curation: walk the last points layer to its N-th point (shown on its plane, centred, selected; N reviewed)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) == 0 {
					return usagef("no file to view")
				}
				if err := o.v3.check(o.screenshot); err != nil {
					return err
				}
				return runViewer(ctx, e, args, o)
			}
		},
	})
}

// viewOpts are the flags of view and gui.
type viewOpts struct {
	slice      int
	mapIdx     int
	axis       string
	grid       bool
	screenshot string
	size       string
	demo       string
	colormap   string
	v3         view3DOpts
	walk       int
}

// appID names the app to Fyne (FyneApp.toml's ID). Its preferences are
// not Fyne's file under that ID but voxlab's own (useFilePrefs).
const appID = "io.github.voxlab"

// screenshotTimeout bounds how long gui --screenshot waits for the
// panel's plan and plots.
const screenshotTimeout = 2 * time.Minute

// screenshotStall is how long --screenshot waits for slices whose reading
// makes no progress: a side view of a big chunked scan may take minutes
// to read, and is waited for as long as bytes keep coming.
const screenshotStall = time.Minute

func runViewer(ctx context.Context, e *env, specs []string, o *viewOpts) error {
	axis, w, h, err := o.check(specs)
	if err != nil {
		return err
	}
	if _, ok := resources.Colormap(o.colormap); o.colormap != "" && !ok {
		return usagef("--colormap %q: use one of %s", o.colormap, strings.Join(resources.ColormapNames(), ", "))
	}

	setup := func(v *viewer.Viewer) (err error) {
		// One batch: the first slice read is the one asked for.
		v.Batch(func() { err = openAll(e, v, specs, o, axis) })
		if err != nil {
			return err
		}
		return fits(v, w, h)
	}

	if o.v3.turntable > 0 {
		return o.v3.writeTurntable(e, o.screenshot, w, h, setup)
	}
	if o.screenshot != "" {
		return screenshot(e, o.screenshot, w, h, setup)
	}

	a, win, err := newWindow()
	if err != nil {
		return err
	}
	v := viewer.New(win)
	if err := setup(v); err != nil {
		v.Close()
		return err
	}
	win.Resize(fyne.NewSize(float32(w), float32(h)))
	// Closing the window with unsaved points edits asks first.
	win.SetCloseIntercept(func() { v.ConfirmUnsaved(a.Quit) })
	go func() {
		<-ctx.Done()
		fyne.Do(a.Quit)
	}()
	win.ShowAndRun()
	v.Close()
	// Closing the window (or Ctrl-C, which closes it) is the normal end.
	return nil
}

// openAll opens the files into v and sets the axis, slice and grid. With
// several files, one that cannot be opened (a points CSV with a bad line)
// is skipped and reported in the window, where the user is looking, as
// well as on stderr; alone, or for a screenshot, it is the command's
// error.
func openAll(e *env, v *viewer.Viewer, specs []string, o *viewOpts, axis viewer.Axis) error {
	var skipped []error
	for _, s := range specs {
		l, err := v.Open(s)
		if err == nil && o.colormap != "" {
			if il, ok := l.(*viewer.ImageLayer); ok {
				err = il.SetColormap(o.colormap)
			}
		}
		if err != nil {
			if o.screenshot != "" || len(specs) == 1 {
				return err
			}
			fmt.Fprintf(e.stderr, "voxlab: skipping %s: %v\n", s, err)
			skipped = append(skipped, fmt.Errorf("skipped %s: %w", s, err))
			continue
		}
	}
	if len(skipped) > 0 {
		v.Dialogs().ShowError(errors.Join(skipped...))
	}
	v.Dims().SetAxis(axis)
	if err := checkPosition(v, o, axis); err != nil {
		return err
	}
	v.Dims().SetMap(o.mapIdx)
	if o.slice >= 0 {
		v.Dims().SetSlice(o.slice)
	} else {
		v.Dims().SetSlice(middleSlice(v))
	}
	// The demo's datasets are unrelated: show them side by side.
	v.Panels().SetGrid(o.grid || o.demo != "" && imageLayers(v) > 1)
	for range o.walk {
		v.Curation().Next(+1)
	}
	return o.v3.apply(v)
}

// checkPosition refuses a --slice past the data along the axis shown
// and a --map past the maps, which the viewer would otherwise clamp
// silently (a screenshot of the wrong slice looks like the right one).
func checkPosition(v *viewer.Viewer, o *viewOpts, axis viewer.Axis) error {
	if n := v.Dims().Extent()[axis]; n > 0 && o.slice >= n {
		return usagef("--slice %d: the data have %d slices along %s (0 to %d)", o.slice, n, axis, n-1)
	}
	if n := max(v.Dims().Maps(), 1); o.mapIdx < 0 || o.mapIdx >= n {
		if n == 1 {
			return usagef("--map %d: no stack of maps is open (the data are one volume; use --map 0 or leave it out)", o.mapIdx)
		}
		return usagef("--map %d: the stack has %d maps (0 to %d)", o.mapIdx, n, n-1)
	}
	return nil
}

// check checks what view and gui share before a window opens, so that
// a bad argument is a plain error on the terminal: the axis, the window
// size, the files and the screenshot's name.
func (o *viewOpts) check(specs []string) (axis viewer.Axis, w, h int, err error) {
	if axis, err = viewer.ParseAxis(o.axis); err != nil {
		return 0, 0, 0, usagef("--axis: %v", err)
	}
	if w, h, err = parseSize(o.size); err != nil {
		return 0, 0, 0, usagef("--size: %v", err)
	}
	for _, s := range specs {
		p, _ := volume.SplitSpec(s)
		if _, err := os.Stat(p); err != nil {
			return 0, 0, 0, fmt.Errorf("view %s: %w", p, err)
		}
	}
	if o.screenshot != "" && o.v3.turntable == 0 && !strings.HasSuffix(strings.ToLower(o.screenshot), ".png") {
		return 0, 0, 0, usagef("--screenshot %s: the file name must end in .png", o.screenshot)
	}
	return axis, w, h, nil
}

// newWindow starts the app and its main window.
func newWindow() (fyne.App, fyne.Window, error) {
	if err := checkDisplay(); err != nil {
		return nil, nil, err
	}
	a := fyneapp.NewWithID(appID)
	useFilePrefs(a, os.Stderr)
	dropStopHook(a)
	a.SetIcon(resources.Icon)
	// voxlab's theme (dark, every text at least 4.5:1 against its
	// background), as the screenshots have it.
	a.Settings().SetTheme(widgets.Theme())
	return a, a.NewWindow("voxlab"), nil
}

// dropStopHook removes the clean-up Fyne queues when its event loop
// ends, which can leave the process hung on quit. Fyne 2.7.1's loop, on
// quitting, queues that clean-up (a save of Fyne's own preferences
// store) as a lifecycle event, then drops what its main-thread queue
// still holds and closes it; the lifecycle's goroutine runs the event
// through that queue, waiting for it to run. When the goroutine hands it
// over just after the drop (a window of microseconds, met under load:
// TestGUICtrlCUnderDisplay hung once in some 30 runs beside stress-ng),
// it waits forever, and so does Run, which waits for the lifecycle's
// events before it returns: ShowAndRun never returned and the jobs were
// never stopped. With no clean-up nothing is queued, and Run's own last
// event runs once the queue has closed (Fyne then runs it directly).
// voxlab loses nothing: its settings are its own file, written at each
// change (filePrefs), not Fyne's store. The hook is set through the
// lifecycle's exported method; a Fyne whose lifecycle lacks it queues
// no such clean-up, or not this way.
func dropStopHook(a fyne.App) {
	if lc, ok := a.Lifecycle().(interface{ SetOnStoppedHookExecuted(func()) }); ok {
		lc.SetOnStoppedHookExecuted(nil)
	}
}

// checkDisplay says that a window needs a display, where GLFW would
// panic with "The GLFW library is not initialized".
func checkDisplay() error {
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return errors.New("no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset): " +
			"run voxlab in a desktop session, render the window with --screenshot OUT.png, or run a pipeline headless (voxlab --help)")
	}
	return nil
}

// screenshot renders the viewer offscreen (see viewer.RenderOffscreen)
// into path.
func screenshot(e *env, path string, w, h int, setup func(*viewer.Viewer) error) error {
	img, err := viewer.RenderOffscreen(w, h, screenshotStall, setup)
	if err != nil {
		return fmt.Errorf("screenshot %s: %w", path, err)
	}
	return writeScreenshot(e, path, img)
}

// writeScreenshot writes img to path through a temporary file (no
// partial PNG) and says so.
func writeScreenshot(e *env, path string, img image.Image) error {
	f, err := outfile.Create(path)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Abort()
		return fmt.Errorf("screenshot %s: %w", path, err)
	}
	if err := f.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "wrote %s (%dx%d)\n", path, img.Bounds().Dx(), img.Bounds().Dy())
	return nil
}

// middleSlice is the slice a view opens on: the middle of the shortest
// image layer along the axis (one map of a stack), so that every layer
// has data there (the demo's maps are 32 deep, its brain 60 and its scan
// 90).
func middleSlice(v *viewer.Viewer) int {
	n := 0
	for _, l := range v.Layers() {
		if il, ok := l.(*viewer.ImageLayer); ok {
			if d := il.Extent()[v.Dims().Axis()]; n == 0 || d < n {
				n = d
			}
		}
	}
	return n / 2
}

func imageLayers(v *viewer.Viewer) int {
	n := 0
	for _, l := range v.Layers() {
		if _, ok := l.(*viewer.ImageLayer); ok {
			n++
		}
	}
	return n
}

// fits refuses a --size smaller than the window's content can be laid
// out in (its minimum size, which depends on what is open): a window
// squeezed below it gave panels negative heights, and the screenshot a
// crash. A desktop window is never made smaller than its minimum.
func fits(v *viewer.Viewer, w, h int) error {
	ms := v.Content().MinSize()
	if float32(w) < ms.Width || float32(h) < ms.Height {
		mw, mh := int(math.Ceil(float64(ms.Width))), int(math.Ceil(float64(ms.Height)))
		return usagef("--size %dx%d: the window cannot be laid out smaller than %dx%d with these files; use at least --size %dx%d",
			w, h, mw, mh, max(w, mw), max(h, mh))
	}
	return nil
}

func parseSize(s string) (int, int, error) {
	ws, hs, ok := strings.Cut(strings.ToLower(s), "x")
	if !ok {
		return 0, 0, errors.New("want WIDTHxHEIGHT, e.g. 1280x800")
	}
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	if err1 != nil || err2 != nil || w < 200 || h < 150 || w > 16384 || h > 16384 {
		return 0, 0, fmt.Errorf("%q: want WIDTHxHEIGHT between 200x150 and 16384x16384", s)
	}
	return w, h, nil
}
