package iocheck

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Input is a file or folder a run reads.
type Input struct {
	// Name says which input it is, for messages: "input", "--darks",
	// "ground truth".
	Name string
	// Path is the path as given, or a volume spec (FILE.h5:/dataset,
	// store.zarr:/0): the file is what counts.
	Path string
}

// Kind is how a run writes an output.
type Kind int

const (
	// File is a file written under a temporary name and renamed over the
	// path.
	File Kind = iota
	// Folder is a folder replaced as a whole (a Zarr store, distance's
	// OUT_DIR): whatever it holds is deleted.
	Folder
	// Into is a folder the run writes Files into, keeping the rest.
	Into
)

// Output is a file or folder a run writes.
type Output struct {
	// Name says which output it is, for messages: "output", "XML
	// output".
	Name string
	Path string
	Kind Kind
	// Files are the names an Into folder gets.
	Files []string
}

// Paths are what one run reads and writes.
type Paths struct {
	Inputs  []Input
	Outputs []Output
}

// Clash says why an output may not be written: which output, which
// input, and how they meet.
type Clash struct {
	Output Output
	// Path is the output path that clashes: Output.Path, or a file of an
	// Into folder.
	Path  string
	Input Input
	// How they meet: "same", "symlink", "hardlink", "inside-input",
	// "input-inside".
	How string
}

func (c *Clash) Error() string {
	in := c.Input.Name + " " + c.Input.Path
	const keep = "inputs are never overwritten"
	switch c.How {
	case "same":
		return fmt.Sprintf("%s %s is the %s: %s; choose another %s", c.Output.Name, c.Path, in, keep, c.Output.Name)
	case "symlink":
		return fmt.Sprintf("%s %s is the %s (through a symbolic link): %s; choose another %s", c.Output.Name, c.Path, in, keep, c.Output.Name)
	case "hardlink":
		return fmt.Sprintf("%s %s is a hard link to the %s (the same file under two names): %s; choose another %s", c.Output.Name, c.Path, in, keep, c.Output.Name)
	case "inside-input":
		return fmt.Sprintf("%s %s is inside the %s, a folder the run reads: writing there would change that input; choose another %s, outside that folder", c.Output.Name, c.Path, in, c.Output.Name)
	default:
		return fmt.Sprintf("the %s is inside %s %s, a folder the run replaces as a whole: it would be deleted; choose another %s", in, c.Output.Name, c.Path, c.Output.Name)
	}
}

// Check returns a *Clash for the first output that would write over an
// input, or nil. Empty paths are skipped (a plan without an output).
// It only reads the file system.
func Check(p Paths) error {
	ins := make([]input, 0, len(p.Inputs))
	for _, in := range p.Inputs {
		if in.Path != "" {
			ins = append(ins, newInput(in))
		}
	}
	for _, o := range p.Outputs {
		if o.Path == "" {
			continue
		}
		paths := []string{o.Path}
		if o.Kind == Into {
			for _, f := range o.Files {
				paths = append(paths, filepath.Join(o.Path, f))
			}
		}
		for _, path := range paths {
			out := locate(path)
			for _, in := range ins {
				if how := meet(out, in, o.Kind == Folder && path == o.Path); how != "" {
					return &Clash{Output: o, Path: path, Input: in.Input, How: how}
				}
			}
		}
	}
	return nil
}

// place is a path made absolute and with the symbolic links of its
// existing part resolved, and what is there now (st: nil if nothing).
type place struct {
	abs, real string
	st        os.FileInfo
}

type input struct {
	Input
	place
}

func newInput(in Input) input {
	return input{Input: in, place: locate(filePart(in.Path))}
}

func locate(p string) place {
	abs, err := filepath.Abs(p)
	if err != nil {
		abs = filepath.Clean(p)
	}
	pl := place{abs: abs, real: resolve(abs)}
	if st, err := os.Stat(abs); err == nil {
		pl.st = st
	}
	return pl
}

// filePart is the file of a volume spec: "scan.h5:/entry/data" and
// "brain.zarr:/0,c=1" name scan.h5 and brain.zarr. A colon is a
// separator only where the whole spec is not itself a path that exists
// and the part before it is.
func filePart(spec string) string {
	i := strings.LastIndex(spec, ":/")
	if i <= 0 {
		return spec
	}
	if _, err := os.Lstat(spec); err == nil {
		return spec
	}
	if _, err := os.Lstat(spec[:i]); err == nil {
		return spec[:i]
	}
	return spec
}

// resolve resolves the symbolic links of the longest part of abs that
// exists, keeping the rest as it is (an output yet to be written); a
// dangling link is followed to where it points (where the output will
// be written).
func resolve(abs string) string { return resolveDepth(abs, 0) }

func resolveDepth(abs string, depth int) string {
	rest := ""
	for p := abs; ; {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Join(r, rest)
		}
		if st, err := os.Lstat(p); err == nil && st.Mode()&os.ModeSymlink != 0 && depth < 40 {
			if to, err := os.Readlink(p); err == nil {
				if !filepath.IsAbs(to) {
					to = filepath.Join(filepath.Dir(p), to)
				}
				return filepath.Join(resolveDepth(to, depth+1), rest)
			}
		}
		parent := filepath.Dir(p)
		if parent == p {
			return abs
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = parent
	}
}

// within reports whether p is dir or lies inside it.
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

// meet says how output out meets input in ("" if it does not); replaced
// is set for a folder that the run replaces as a whole.
func meet(out place, in input, replaced bool) string {
	switch {
	case out.abs == in.abs:
		return "same"
	case out.real == in.real:
		return "symlink"
	case out.st != nil && in.st != nil && os.SameFile(out.st, in.st):
		return "hardlink"
	case in.st != nil && in.st.IsDir() && within(out.real, in.real):
		return "inside-input"
	case replaced && within(in.real, out.real):
		return "input-inside"
	}
	return ""
}

// IsClash reports whether err is, or wraps, a Clash.
func IsClash(err error) bool {
	var c *Clash
	return errors.As(err, &c)
}
