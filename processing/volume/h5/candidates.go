package h5

import (
	"fmt"
	"strings"

	"github.com/voxlab/voxlab/processing/volume"
)

// candidate is a 2D or 3D dataset a file could be opened at.
type candidate struct {
	path   string
	shape  []int
	dtype  string
	chunks []int
	codec  string
	via    string // the links followed to it
	signal bool   // an NXdata group's signal
}

// text describes c on one line: path, shape, dtype, chunks, filters.
func (c candidate) text() string {
	s := fmt.Sprintf("%s  %s %s", c.path, shapeText(c.shape), c.dtype)
	if c.chunks == nil {
		s += ", contiguous"
	} else {
		s += ", chunks " + shapeText(c.chunks) + ", " + c.codec
	}
	if c.signal {
		s += ", NXdata signal"
	}
	if c.via != "" {
		s += " (" + c.via + ")"
	}
	return s
}

func shapeText(s []int) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = fmt.Sprint(v)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// candidates lists the 2D and 3D datasets of f, each object once (a
// dataset reached by several paths is listed at the path of an NXdata
// signal leading to it, else at the first), and the links that lead
// nowhere ("PATH links to FILE, which is missing"). Call with lib held.
func candidates(f *file) (cands []candidate, dangling []string, err error) {
	w, err := walkLinks(f)
	if err != nil {
		return nil, nil, err
	}
	signals := nxSignals(f, w.nodes)
	at := map[string]int{} // object key -> index in cands
	for _, n := range w.nodes {
		if t, ok := w.links[n.Path]; ok && t.missing != "" {
			dangling = append(dangling, n.Path+" "+t.missing)
			continue
		}
		isData := n.Kind == "dataset" || (n.Kind == "link" && n.DType != notDataset)
		if !isData || (len(n.Shape) != 2 && len(n.Shape) != 3) {
			continue
		}
		var key, via string
		if t, ok := w.links[n.Path]; ok {
			key, via = t.key, t.via
		} else if _, addr := objAt(f, n.Path); addr != 0 {
			key = fmt.Sprintf("addr:%d", addr)
		}
		c := candidate{path: n.Path, shape: n.Shape, dtype: n.DType, via: via, signal: signals[n.Path]}
		c.chunks, c.codec = layoutOf(f, n.Path)
		if i, seen := at[key]; seen && key != "" {
			if c.signal && !cands[i].signal {
				cands[i] = c
			}
			continue
		}
		at[key] = len(cands)
		cands = append(cands, c)
	}
	return cands, dangling, nil
}

// layoutOf returns the chunk shape and filter pipeline of the dataset
// at p. Call with lib held.
func layoutOf(f *file, p string) ([]int, string) {
	ds, err := f.f.OpenDataset(p)
	if err != nil {
		return nil, ""
	}
	defer ds.Close()
	fs, _ := filters(ds)
	return chunkShape(ds), codecText(fs)
}

// nxSignals returns the paths of the signal datasets of the NXdata
// groups of a walk: the group's "signal" attribute names it (NeXus
// 2014 on), or the dataset has signal=1 (before). Call with lib held.
func nxSignals(f *file, nodes []volume.Node) map[string]bool {
	out := map[string]bool{}
	for _, n := range nodes {
		if n.Kind != "group" || attrString(f, n.Path, "NX_class") != "NXdata" {
			continue
		}
		if s := attrString(f, n.Path, "signal"); s != "" && !strings.Contains(s, "/") {
			out[strings.TrimSuffix(n.Path, "/")+"/"+s] = true
		}
	}
	return out
}

// pickError is the error of a file without a dataset named in which no
// one dataset is the one to open: its lines list the candidates.
type pickError struct {
	path, summary string
	lines         []string
}

func (e *pickError) Error() string {
	if len(e.lines) == 0 {
		return e.path + ": " + e.summary
	}
	return e.path + ": " + e.summary + ":\n  " + strings.Join(e.lines, "\n  ")
}

// defaultDataset picks the dataset Open uses when none is named: the
// file's only 3D dataset (links followed, each object once), else a
// tomography scan's frames (findTomo), else the only NXdata signal among
// its 3D datasets; without 3D datasets, its only 2D one. Otherwise the
// error lists the candidates, with how to name one. Call with lib held.
func defaultDataset(f *file) (string, error) {
	cands, dangling, err := candidates(f)
	if err != nil {
		return "", err
	}
	var by [4][]candidate
	for _, c := range cands {
		by[len(c.shape)] = append(by[len(c.shape)], c)
	}
	switch {
	case len(by[3]) == 1:
		return by[3][0].path, nil
	case len(by[3]) > 1:
		if at, ok := findTomo(f); ok {
			return at.data, nil
		}
		var sig []candidate
		for _, c := range by[3] {
			if c.signal {
				sig = append(sig, c)
			}
		}
		if len(sig) == 1 {
			return sig[0].path, nil
		}
		return "", listError(f.path, fmt.Sprintf("%d 3D datasets", len(by[3])), by[3], dangling)
	case len(by[2]) == 1:
		return by[2][0].path, nil
	case len(by[2]) > 1:
		return "", listError(f.path, fmt.Sprintf("no 3D dataset and %d 2D datasets", len(by[2])), by[2], dangling)
	case len(dangling) > 0:
		return "", &pickError{path: f.path, summary: "no 2D or 3D dataset can be reached: " + strings.Join(dangling, "; ")}
	}
	return "", &pickError{path: f.path, summary: "the file holds no 2D or 3D dataset"}
}

func listError(p, what string, cs []candidate, dangling []string) error {
	e := &pickError{path: p, summary: fmt.Sprintf("no dataset named, and the file holds %s; name one as %s:/path", what, p)}
	for _, c := range cs {
		e.lines = append(e.lines, c.text())
	}
	for _, d := range dangling {
		e.lines = append(e.lines, d)
	}
	return e
}
