package viewer

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/voxlab/voxlab/processing/points"
)

// Saving points never loses work: the file is written under a temporary
// name and renamed into place (points.Save), and nothing opens the
// destination before that, so a save that fails leaves the file as it
// was. (Fyne's file-save dialog hands over a writer that has already
// truncated the chosen file, so voxlab asks for the path itself.) Every
// question comes first: replacing another file, and saving points of
// unknown class to cellfinder's XML, which has no unknown class.

// savePoints writes a layer's points (with their classifier's
// probabilities, nil when none); tests make it fail.
var savePoints = points.SaveProbability

// Path returns the file the layer saves to ("" when it has none yet).
func (l *PointsLayer) Path() string { return l.path }

// Save writes the layer's points to path (cellfinder XML for .xml, else
// CSV) through a temporary file, and makes it the layer's file: the
// layer is no longer modified, and saved to another file it takes that
// file's name, as a layer opened from it would have.
func (l *PointsLayer) Save(path string) error {
	pts, prob := l.LiveWithProbabilities()
	if err := savePoints(path, pts, prob); err != nil {
		return err
	}
	moved := l.path != path
	l.path = path
	l.MarkSaved()
	if moved {
		l.name, l.spec = filepath.Base(path), path
		if l.v != nil {
			l.v.layersChanged()
		}
	}
	l.changed()
	return nil
}

// lostInXML counts the live points that cellfinder's XML cannot keep
// the class of: unknowns (written, as cellfinder writes its unclassified
// candidates, as type 1, which reads back as non-cell). "type N" names
// keep their code.
func (l *PointsLayer) lostInXML() int {
	n := 0
	for _, p := range l.Points() {
		if points.ClassOf(p.Type) == points.Unknown && !isTypeCode(p.Type) {
			n++
		}
	}
	return n
}

// isTypeCode reports whether typ is an XML marker code ("type 5").
func isTypeCode(typ string) bool {
	n, ok := strings.CutPrefix(typ, "type ")
	c, err := strconv.Atoi(n)
	return ok && err == nil && c > 0
}

// isXML reports whether path names cellfinder's XML.
func isXML(path string) bool { return strings.EqualFold(filepath.Ext(path), ".xml") }

// samePath reports whether a and b name the same file.
func samePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if a == b {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// plural writes n and the noun, with an s unless n is 1: "1 point",
// "3 points".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// saveDialog is the Save points as dialog: the path, typed or pasted
// (absolute, ~/…, or relative to the folder proposed), or picked
// with Browse folders….
type saveDialog struct {
	m    *modal
	path *dialogEntry
	msg  *widget.Label
	// dir is the folder a relative path is taken in.
	dir string
}

// dialogEntry is an entry in a dialog: Escape presses the dialog's
// cancelling button, as it does from the buttons.
type dialogEntry struct {
	widget.Entry
	m *modal
}

// TypedKey passes Escape to the dialog, the rest to the entry.
func (e *dialogEntry) TypedKey(ev *fyne.KeyEvent) {
	if ev.Name == fyne.KeyEscape && e.m != nil && e.m.esc != nil {
		e.m.esc.OnTapped()
		return
	}
	e.Entry.TypedKey(ev)
}

// target is the path typed, made absolute: ~ is the home folder, and a
// relative path is taken in the folder the dialog proposed.
func (sd *saveDialog) target() string {
	p := expandHome(strings.TrimSpace(sd.path.Text))
	if p != "" && !filepath.IsAbs(p) {
		p = filepath.Join(sd.dir, p)
	}
	return filepath.Clean(p)
}

// Labels of the unsaved-edits question.
const (
	quitSave    = "Save and quit"
	quitDiscard = "Quit without saving"
	quitKeep    = "Keep editing"
)
