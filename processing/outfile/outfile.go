package outfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// File is an output file being written under a temporary name.
type File struct {
	*os.File
	target string
	done   bool
}

// Create opens a temporary file in the target's folder. The folder must
// exist; the target itself is untouched until Commit.
func Create(target string) (*File, error) {
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".part-*")
	if err != nil {
		return nil, fmt.Errorf("create output %s: %w", target, err)
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
	tmp := f.Name()
	err := f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, f.target)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", f.target, err)
	}
	return nil
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
	done   bool
}

// CreateDir makes a temporary folder beside target. If target exists it
// must be a folder; its contents are replaced on Commit.
func CreateDir(target string) (*Dir, error) {
	target = filepath.Clean(target)
	if st, err := os.Stat(target); err == nil && !st.IsDir() {
		return nil, fmt.Errorf("output %s exists and is not a folder", target)
	}
	parent := filepath.Dir(target)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("create output folder %s: %w", target, err)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(target)+".part-*")
	if err != nil {
		return nil, fmt.Errorf("create output folder %s: %w", target, err)
	}
	return &Dir{Path: tmp, target: target}, nil
}

// Target returns the final folder.
func (d *Dir) Target() string { return d.target }

// Commit moves the files into the target folder (creating it if needed).
// Files already in the target with other names are kept.
func (d *Dir) Commit() error {
	if d.done {
		return errors.New("outfile: already committed or aborted")
	}
	d.done = true
	defer os.RemoveAll(d.Path)
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

// Abort removes the temporary folder. Safe to defer after Commit.
func (d *Dir) Abort() error {
	if d.done {
		return nil
	}
	d.done = true
	return os.RemoveAll(d.Path)
}
