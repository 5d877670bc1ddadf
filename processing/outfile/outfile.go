package outfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// exchange swaps two existing paths atomically, or returns errExchange
// where the system cannot (a variable so that tests can take the
// fallback).
var exchange = renameExchange

// errExchange: no atomic exchange here; swap falls back to two renames.
var errExchange = errors.New("atomic exchange not supported")

// crashPoint, when set (by tests only), is called at the points of a
// commit where a crash leaves the most behind, named by point; a test
// makes it kill the process there and checks what a rerun finds.
var crashPoint func(point string)

func reached(point string) {
	if crashPoint != nil {
		crashPoint(point)
	}
}

// File is an output file being written under a temporary name.
type File struct {
	*os.File
	target string
	done   bool
}

// Create opens a temporary file in the target's folder (NewTemp: after
// cleaning up what dead writers of target left there). The folder must
// exist; the target itself is untouched until Commit.
func Create(target string) (*File, error) {
	f, err := NewTemp(target)
	if err != nil {
		return nil, err
	}
	return &File{File: f, target: target}, nil
}

// Target returns the final path.
func (f *File) Target() string { return f.target }

// Commit flushes, closes and renames the file into place. On error the
// temporary file is removed.
func (f *File) Commit() error {
	if f.done {
		return errors.New("outfile: already committed or aborted")
	}
	f.done = true
	if err := f.finish(); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), f.target); err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	return nil
}

// finish flushes and closes the temporary file and gives it the mode of
// an output; the file stays under its temporary name.
func (f *File) finish() error {
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	return nil
}

// CommitAll commits files as one output: either every target is replaced
// by its new contents, or (on error) every target keeps what it held
// before and the temporary files are removed. A result written as two
// files (cells as CSV and as cellfinder XML) then never leaves one new
// file beside one old, or one missing.
//
// Every file is flushed and closed first, where a full disk shows. Then
// each existing target is kept under a hidden name beside it (a hard
// link, so the target never goes missing; a rename where links are not
// supported) before its new file is renamed over it, so that a failed
// rename (a target that is a folder, a read-only folder) can put the old
// ones back. Each target holds its old or its new file at every instant;
// only a crash between the renames can leave a mix, with the old files
// still beside the targets under their hidden names, which the next run
// (Recover) removes.
func CommitAll(files ...*File) error {
	for _, f := range files {
		if f.done {
			return errors.New("outfile: already committed or aborted")
		}
	}
	abort := func(err error) error {
		for _, f := range files {
			f.Abort() // closed already, or renamed in and back out: only the removal matters
		}
		return err
	}
	for _, f := range files {
		if err := f.finish(); err != nil {
			return abort(err)
		}
	}
	// kept[i] holds the previous target of files[i]; in counts the files
	// renamed into place.
	kept := make([]aside, len(files))
	in := 0
	rollback := func(err error) error {
		for i := in - 1; i >= 0; i-- {
			if kept[i].path == "" {
				os.Remove(files[i].target)
			} else if rerr := os.Rename(kept[i].path, files[i].target); rerr != nil {
				err = fmt.Errorf("%w; and putting back %s failed: %v (its previous contents are in %s)", err, files[i].target, rerr, kept[i].path)
			}
		}
		return abort(err)
	}
	for i, f := range files {
		k, err := keepAside(f.target)
		if err != nil {
			return rollback(err)
		}
		if err := os.Rename(f.Name(), f.target); err != nil {
			k.undo(f.target) // files[i] itself was not renamed in
			return rollback(fmt.Errorf("write %s: %w", f.target, err))
		}
		kept[i], in = k, i+1
		reached("files-renamed")
	}
	for i, f := range files {
		f.done = true
		if kept[i].path != "" {
			os.Remove(kept[i].path)
		}
	}
	return nil
}

// aside is where keepAside put a target's previous contents: path ("" if
// there was no target), a hard link to the target or (moved) the target
// itself renamed.
type aside struct {
	path  string
	moved bool
}

// keepAside keeps an existing file target under a new hidden name beside
// it. A target that is a folder is left alone: the rename onto it fails
// and says so.
func keepAside(target string) (aside, error) {
	st, err := os.Lstat(target)
	if errors.Is(err, os.ErrNotExist) || err == nil && st.IsDir() {
		return aside{}, nil
	}
	if err != nil {
		return aside{}, fmt.Errorf("write %s: %w", target, err)
	}
	// A fresh file reserves a name that os.Link needs free; the folder
	// is the output's, where nothing else makes such names.
	tmp, err := os.CreateTemp(filepath.Dir(target), tempPattern(target, oldTag))
	if err != nil {
		return aside{}, fmt.Errorf("write %s: %w", target, err)
	}
	tmp.Close()
	name := tmp.Name()
	os.Remove(name)
	if os.Link(target, name) == nil {
		return aside{path: name}, nil
	}
	if err := os.Rename(target, name); err != nil {
		os.Remove(name)
		return aside{}, fmt.Errorf("write %s: %w", target, err)
	}
	return aside{path: name, moved: true}, nil
}

// undo puts back what keepAside kept when the new file did not replace
// the target: a moved target is renamed back, a link removed.
func (k aside) undo(target string) {
	switch {
	case k.path == "":
	case k.moved:
		os.Rename(k.path, target)
	default:
		os.Remove(k.path)
	}
}

// Abort closes and removes the temporary file. It is safe to call after
// Commit (it then does nothing), so it can be deferred.
func (f *File) Abort() error {
	if f.done {
		return nil
	}
	f.done = true
	f.Close()
	return os.Remove(f.Name())
}

// Dir is an output folder being filled under a temporary name.
type Dir struct {
	// Path is the temporary folder to write into.
	Path   string
	target string
	// replace: Commit swaps the whole folder in (ReplaceDir) instead of
	// moving the files into the target (CreateDir); owned names what a
	// target it replaces may hold.
	replace bool
	owned   func(name string) bool
	done    bool
}

// CreateDir makes a temporary folder beside target whose files Commit
// moves into target: files of the same names are replaced, others that
// the folder holds are kept (for a folder the user fills, such as one of
// TIFF planes beside their notes). If target exists it must be a folder.
func CreateDir(target string) (*Dir, error) {
	return createDir(target, false, nil)
}

// ReplaceDir makes a temporary folder beside target that Commit renames
// into place as a whole, so that the target then holds exactly what was
// written: a rerun that writes fewer files leaves none of the earlier
// run's behind. Replacing deletes the old folder, so an existing target
// must be a folder holding only entries whose names owned accepts (what
// this kind of output writes; nil accepts none: only an empty folder is
// replaced). A folder that holds anything else is refused, here and at
// Commit, rather than deleted with the user's files in it.
func ReplaceDir(target string, owned func(name string) bool) (*Dir, error) {
	if owned == nil {
		owned = func(string) bool { return false }
	}
	return createDir(target, true, owned)
}

func createDir(target string, replace bool, owned func(string) bool) (*Dir, error) {
	target = filepath.Clean(target)
	if st, err := os.Stat(target); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("output %s exists and is not a folder", target)
	}
	d := &Dir{target: target, replace: replace, owned: owned}
	if replace {
		if err := d.checkOwned(); err != nil {
			return nil, err
		}
	}
	parent := filepath.Dir(target)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create output folder %s: %w", target, err)
	}
	if err := Recover(target); err != nil {
		return nil, fmt.Errorf("create output folder %s: %w", target, err)
	}
	tmp, err := os.MkdirTemp(parent, tempPattern(target, partTag))
	if err != nil {
		return nil, fmt.Errorf("create output folder %s: %w", target, err)
	}
	d.Path = tmp
	return d, nil
}

// checkOwned refuses a target folder that holds entries owned does not
// accept. A missing target is fine.
func (d *Dir) checkOwned() error {
	entries, err := os.ReadDir(d.target)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("output folder %s: %w", d.target, err)
	}
	var foreign []string
	for _, e := range entries {
		if !d.owned(e.Name()) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		more := ""
		if len(foreign) > 3 {
			more = fmt.Sprintf(" and %d more", len(foreign)-3)
			foreign = foreign[:3]
		}
		return fmt.Errorf("output folder %s holds %s%s, which this output does not write; it would be deleted when the folder is replaced: choose a new or empty folder, or move them out",
			d.target, strings.Join(foreign, ", "), more)
	}
	return nil
}

// Target returns the final folder.
func (d *Dir) Target() string { return d.target }

// Commit puts the folder in place: for CreateDir it moves the files into
// the target folder (creating it if needed), keeping files of other
// names; for ReplaceDir it renames the temporary folder to the target,
// the old target (if any) moved aside first and deleted after. On error
// the target is left as it was and the temporary folder is removed.
func (d *Dir) Commit() error {
	if d.done {
		return errors.New("outfile: already committed or aborted")
	}
	d.done = true
	defer os.RemoveAll(d.Path)
	if d.replace {
		return d.swap()
	}
	if err := os.MkdirAll(d.target, 0o755); err != nil {
		return fmt.Errorf("create output folder %s: %w", d.target, err)
	}
	entries, err := os.ReadDir(d.Path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.Rename(filepath.Join(d.Path, e.Name()), filepath.Join(d.target, e.Name())); err != nil {
			return fmt.Errorf("write %s: %w", filepath.Join(d.target, e.Name()), err)
		}
	}
	return nil
}

// swap puts the temporary folder in place of the target. A folder
// cannot be renamed over another (os.Rename refuses even an empty one):
// an existing target is exchanged with the temporary folder in one step
// (renameat2 RENAME_EXCHANGE), so that the target's name holds the old
// folder or the new one at every instant, and the old one, now under the
// temporary name, is deleted. Where the file system cannot exchange, the
// target is first moved into a new hidden folder beside it, which is
// deleted once the new one is in place; if the second rename fails the
// old target is put back, and if the process dies between the two, the
// next run (Recover) puts it back.
func (d *Dir) swap() error {
	if err := os.Chmod(d.Path, 0o755); err != nil { // MkdirTemp makes it 0700
		return fmt.Errorf("write %s: %w", d.target, err)
	}
	if _, err := os.Lstat(d.target); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(d.Path, d.target); err != nil {
			return fmt.Errorf("write %s: %w", d.target, err)
		}
		return nil
	}
	// The job ran for a while: check again what would be deleted.
	if err := d.checkOwned(); err != nil {
		return err
	}
	switch err := exchange(d.Path, d.target); {
	case err == nil:
		// The old folder is now at d.Path, which Commit removes.
		reached("dir-exchanged")
		return nil
	case !errors.Is(err, errExchange):
		return fmt.Errorf("write %s: %w", d.target, err)
	}
	holder, err := os.MkdirTemp(filepath.Dir(d.target), tempPattern(d.target, oldTag))
	if err != nil {
		return fmt.Errorf("write %s: %w", d.target, err)
	}
	old := filepath.Join(holder, filepath.Base(d.target))
	if err := os.Rename(d.target, old); err != nil {
		os.Remove(holder)
		return fmt.Errorf("write %s: %w", d.target, err)
	}
	reached("dir-moved-aside")
	if err := os.Rename(d.Path, d.target); err != nil {
		if rerr := os.Rename(old, d.target); rerr != nil {
			return fmt.Errorf("write %s: %w; and putting the previous folder back failed: %v (it is in %s)", d.target, err, rerr, old)
		}
		os.Remove(holder)
		return fmt.Errorf("write %s: %w", d.target, err)
	}
	if err := os.RemoveAll(holder); err != nil {
		return fmt.Errorf("wrote %s, but removing the previous one (now in %s) failed: %w", d.target, holder, err)
	}
	return nil
}

// Abort removes the temporary folder. Safe to defer after Commit.
func (d *Dir) Abort() error {
	if d.done {
		return nil
	}
	d.done = true
	return os.RemoveAll(d.Path)
}
