package panel

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/pipeline"
	"github.com/voxlab/voxlab/processing/volume"
	"github.com/voxlab/voxlab/widgets"
)

// fieldEditor edits one parameter or argument of a pipeline's spec, with
// its help below it and, when its value is wrong, the message saying
// why.
type fieldEditor struct {
	f pipeline.Param
	// arg: a positional argument (an input or output), not a flag.
	arg bool
	box *fyne.Container
	get func() string
	set func(string)
	// widget is the editing widget (an Entry, Select, Check, CheckGroup
	// or SelectEntry), for tests.
	widget  fyne.CanvasObject
	options func(specs []string)
	msg     *widget.Label
	// checkErr is the field's own check; planErr the planner's complaint
	// about it.
	checkErr, planErr error
	ready             bool
	// auto is the value the panel last gave an output, base the name
	// it numbered that from (named after the input, or the user's own);
	// user is set once the user gave the output a name of their own
	// (typed, browsed or set), which then no longer follows the input.
	auto, base string
	user       bool
}

// edited reports whether the output's name is the user's.
func (fe *fieldEditor) edited() bool { return fe.user }

// newFieldEditor makes the editor of f: a check box for a Bool, a
// choice for a Choice, check boxes for a Multi, a path with the open
// layers offered and Browse for an Input, a path with Browse for an
// Output, an entry for the others (numbers, lists, sizes, text), which
// the parameter parses.
func (p *Panel) newFieldEditor(f pipeline.Param, arg bool) *fieldEditor {
	fe := &fieldEditor{f: f, arg: arg, msg: widgets.WrapLabel("", widget.DangerImportance)}
	fe.msg.Hide()
	changed := func() {
		if fe.ready {
			p.fieldChanged(fe)
		}
	}
	var w fyne.CanvasObject
	label := f.Title()
	switch f.Kind {
	case pipeline.Bool:
		c := widget.NewCheck(label, func(bool) { changed(); widgets.Refocus(p.v.Window(), false) })
		fe.get = func() string { return strconv.FormatBool(c.Checked) }
		fe.set = func(s string) { c.SetChecked(s == "true") }
		w, fe.widget = c, c
	case pipeline.Choice:
		s := widget.NewSelect(f.Options, func(string) { changed(); widgets.Refocus(p.v.Window(), false) })
		fe.get = func() string { return s.Selected }
		fe.set = s.SetSelected
		w, fe.widget = s, s
	case pipeline.Multi:
		// Checks in a grid: a horizontal group of many would widen the
		// narrow dock.
		checks := make([]*widget.Check, len(f.Options))
		objs := make([]fyne.CanvasObject, len(f.Options))
		for i, o := range f.Options {
			checks[i] = widget.NewCheck(o, func(bool) { changed(); widgets.Refocus(p.v.Window(), false) })
			objs[i] = checks[i]
		}
		fe.get = func() string {
			var on []string
			for i, o := range f.Options {
				if checks[i].Checked {
					on = append(on, o)
				}
			}
			return strings.Join(on, ",")
		}
		fe.set = func(s string) {
			want := map[string]bool{}
			for _, x := range strings.Split(s, ",") {
				want[strings.TrimSpace(x)] = true
			}
			for i, o := range f.Options {
				checks[i].SetChecked(want[o])
			}
		}
		grid := container.NewGridWithColumns(2, objs...)
		w, fe.widget = grid, grid
	case pipeline.Input:
		se := widget.NewSelectEntry(nil)
		se.OnChanged = func(string) { changed() }
		se.OnSubmitted = func(string) { widgets.Refocus(p.v.Window(), true) }
		fe.get = func() string { return strings.TrimSpace(se.Text) }
		fe.set = func(s string) { se.SetText(s); showEnd(&se.Entry) }
		fe.options = func(specs []string) { se.SetOptions(specs) }
		browse := widgets.NewButton(p.v.Window(), "", theme.FolderOpenIcon(), func() { p.browse(fe) })
		w, fe.widget = container.NewBorder(nil, nil, nil, browse, se), se
	case pipeline.Output:
		e := widget.NewEntry()
		e.OnChanged = func(string) { changed() }
		e.OnSubmitted = func(string) { widgets.Refocus(p.v.Window(), true) }
		// Until there is an input, the placeholder says how the output
		// will be named; the default name alone would be a file in
		// whatever folder voxlab was started in.
		e.SetPlaceHolder("named after the input: …-" + f.DefaultText())
		fe.get = func() string { return strings.TrimSpace(e.Text) }
		fe.set = func(s string) { e.SetText(s); showEnd(e) }
		browse := widgets.NewButton(p.v.Window(), "", theme.FolderOpenIcon(), func() { p.browse(fe) })
		w, fe.widget = container.NewBorder(nil, nil, nil, browse, e), e
	default:
		e := widget.NewEntry()
		e.OnChanged = func(string) { changed() }
		e.OnSubmitted = func(string) { widgets.Refocus(p.v.Window(), true) }
		fe.get = func() string { return strings.TrimSpace(e.Text) }
		fe.set = e.SetText
		w, fe.widget = e, e
	}
	if f.Kind != pipeline.Output {
		fe.set(f.DefaultText())
	}
	var objs []fyne.CanvasObject
	if f.Kind != pipeline.Bool {
		objs = append(objs, widget.NewLabelWithStyle(label, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	}
	objs = append(objs, w)
	if f.Help != "" {
		objs = append(objs, widgets.WrapLabel(p.cur.Words(f.Help), widget.LowImportance))
	}
	fe.box = container.NewVBox(append(objs, fe.msg)...)
	fe.ready = true
	return fe
}

// render shows the field's error: its own check first, else the
// planner's.
func (fe *fieldEditor) render() {
	err := fe.checkErr
	if err == nil {
		err = fe.planErr
	}
	if err == nil {
		widgets.SetLabel(fe.msg, "")
		return
	}
	widgets.SetLabel(fe.msg, err.Error())
}

// check validates the field's value on its own: a required argument is
// given, an input exists, an output's folder does, and a parameter's
// text parses as its kind and passes its checks.
func (p *Panel) check(fe *fieldEditor) error {
	v := fe.get()
	if v == "" && (fe.f.Kind == pipeline.Input || fe.f.Kind == pipeline.Output) {
		if !fe.f.Optional {
			return fmt.Errorf("choose the %s", strings.ToLower(fe.f.Title()))
		}
		return nil
	}
	switch fe.f.Kind {
	case pipeline.Input:
		path, _ := volume.SplitSpec(v)
		st, err := os.Stat(path)
		switch {
		case err != nil:
			return fmt.Errorf("%s: no such file or folder", path)
		case fe.f.Folder && !st.IsDir():
			return fmt.Errorf("%s is a file; this wants a folder", path)
		}
	case pipeline.Output:
		dir := filepath.Dir(v)
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return fmt.Errorf("the folder %s does not exist", dir)
		}
	}
	if fe.arg {
		return nil
	}
	_, err := fe.f.Parse(v)
	return err
}

// fieldChanged re-checks an edited field and replans; a new input
// renames the outputs the user has not edited.
func (p *Panel) fieldChanged(fe *fieldEditor) {
	fe.checkErr = p.check(fe)
	fe.planErr = nil
	fe.render()
	p.keep(fe)
	if fe.f.Kind == pipeline.Output && fe.get() != fe.auto {
		fe.user, fe.base = true, fe.get()
	}
	if fe == p.namingInput() {
		p.nameOutputs()
	}
	p.changed()
}

// browse lets the user pick a file or folder for a field; an output's
// Browse picks the folder it is written to, keeping its name.
func (p *Panel) browse(fe *fieldEditor) {
	win := p.v.Window()
	switch {
	case fe.f.Kind == pipeline.Output || fe.f.Folder:
		dialog.ShowFolderOpen(func(u fyne.ListableURI, err error) {
			if err != nil || u == nil {
				return
			}
			if fe.f.Kind == pipeline.Output {
				name := filepath.Base(fe.get())
				if in := p.namingInput(); (name == "." || name == "/" || fe.get() == "") && in != nil {
					name = filepath.Base(OutputBeside(in.get(), fe.f.DefaultText()))
				}
				if name == "." || name == "/" || name == "" {
					name = fe.f.DefaultText()
				}
				// A folder picked is the user's choice: the name no
				// longer follows the input (fieldChanged).
				fe.set(filepath.Join(u.Path(), name))
				return
			}
			fe.set(u.Path())
		}, win)
	default:
		dialog.ShowFileOpen(func(r fyne.URIReadCloser, err error) {
			if err != nil || r == nil {
				return
			}
			path := r.URI().Path()
			r.Close()
			fe.set(path)
		}, win)
	}
}
