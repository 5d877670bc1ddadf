package cluster

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/voxlab/voxlab/processing/outfile"
)

// A part file is what one task of a split pipeline hands to the merge: a
// line naming the format, a line of JSON (PartHeader: the pipeline, the
// task, and what identifies the run), the pipeline's own payload, and a
// trailer line of fixed length with the CRC-32C (Castagnoli) checksum and
// the length of everything before it:
//
//	voxlab-part 2
//	{"pipeline":"dezing","task":2,"tasks":4,"run":{…}}
//	payload…
//	voxlab-part-end crc32c 1a2b3c4d bytes 00000000000012345678
//
// The header lets the merge refuse a part written by another run (other
// inputs, parameters or task count) instead of joining it silently; the
// checksum lets it refuse a part damaged on the way (a flipped or zeroed
// byte, a file cut short) before it writes anything, whatever the
// pipeline's payload, instead of merging wrong numbers. Version 1 parts
// had no checksum: the merge asks for their task to be run again.
const partMagic = "voxlab-part 2\n"

// partTrailer is the format of the trailer line; every trailer has the
// same length, so the reader finds it at the end of the file.
const partTrailer = "voxlab-part-end crc32c %08x bytes %020d\n"

var (
	trailerLen = int64(len(fmt.Sprintf(partTrailer, 0, 0)))
	castagnoli = crc32.MakeTable(crc32.Castagnoli)
)

// maxPartHeader bounds the header line, so that a damaged file cannot make
// the reader buffer it whole.
const maxPartHeader = 1 << 20

// PartHeader says which run and task a part file belongs to.
type PartHeader struct {
	Pipeline string `json:"pipeline"`
	Task     int    `json:"task"`
	Tasks    int    `json:"tasks"`
	// Run is what the task and the merge must agree on: the inputs as
	// given, their shapes, the parameters and the task's range, as the
	// pipeline encodes them. The merge compares it field by field.
	Run json.RawMessage `json:"run"`
}

// NewPartHeader makes the header of task t's part; run is marshalled to
// JSON.
func NewPartHeader(pipeline string, t Task, run any) (PartHeader, error) {
	data, err := json.Marshal(run)
	if err != nil {
		return PartHeader{}, fmt.Errorf("part header of %s task %s: %w", pipeline, t, err)
	}
	return PartHeader{Pipeline: pipeline, Task: t.Index, Tasks: t.Count, Run: data}, nil
}

// PartPath is where task t of a pipeline writes its part in dir.
func PartPath(dir, pipeline string, t Task) string {
	return filepath.Join(dir, fmt.Sprintf("%s-part-%d-of-%d", pipeline, t.Index, t.Count))
}

// PartsDir is the folder the parts of a split run go into: the
// submission's shared folder when the task runs under `voxlab submit
// slurm` ($VOXLAB_SLURM_SHARED/parts), else a folder beside the output,
// OUT.parts, which a task and a merge run by hand agree on.
func PartsDir(out string) string {
	if shared := os.Getenv(EnvShared); shared != "" {
		return filepath.Join(shared, "parts")
	}
	return filepath.Clean(out) + ".parts"
}

// PartWriter writes a part file under a temporary name; Commit renames it
// into place, so a task that fails leaves no part (and an earlier part of
// the same task stays until the new one is complete).
type PartWriter struct {
	f *outfile.File
	w *bufio.Writer
	// sum hashes, and counts, every byte written before the trailer.
	sum *summer
}

// summer is an io.Writer that keeps the CRC-32C and length of what
// passes through it to w.
type summer struct {
	w   io.Writer
	crc uint32
	n   int64
}

func (s *summer) Write(p []byte) (int, error) {
	n, err := s.w.Write(p)
	s.crc = crc32.Update(s.crc, castagnoli, p[:n])
	s.n += int64(n)
	return n, err
}

// CreatePart starts the part file at path (creating its folder) and writes
// the header.
func CreatePart(path string, h PartHeader) (*PartWriter, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("create part folder: %w", err)
	}
	line, err := json.Marshal(h)
	if err != nil {
		return nil, fmt.Errorf("part %s: %w", path, err)
	}
	f, err := outfile.Create(path)
	if err != nil {
		return nil, err
	}
	sum := &summer{w: f}
	w := &PartWriter{f: f, w: bufio.NewWriterSize(sum, 1<<20), sum: sum}
	w.w.WriteString(partMagic)
	w.w.Write(line)
	if err := w.w.WriteByte('\n'); err != nil {
		f.Abort()
		return nil, fmt.Errorf("write part %s: %w", path, err)
	}
	return w, nil
}

// Write appends payload bytes.
func (w *PartWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	if err != nil {
		return n, fmt.Errorf("write part %s: %w", w.f.Target(), err)
	}
	return n, nil
}

// Commit flushes the part, appends its checksum and renames it into
// place.
func (w *PartWriter) Commit() error {
	err := w.w.Flush()
	if err == nil {
		_, err = fmt.Fprintf(w.f, partTrailer, w.sum.crc, w.sum.n)
	}
	if err != nil {
		w.f.Abort()
		return fmt.Errorf("write part %s: %w", w.f.Target(), err)
	}
	return w.f.Commit()
}

// Abort removes the unfinished part; it does nothing after Commit.
func (w *PartWriter) Abort() error { return w.f.Abort() }

// Part is an opened part file.
type Part struct {
	Header PartHeader
	path   string
	f      *os.File
	off    int64
	size   int64
}

// OpenPart opens the part of task t at path, checks its checksum (reading
// it whole once) and that its header is want: a missing or damaged part,
// or one written by another run, is an error that names the part and
// says which task to run again.
func OpenPart(path string, want PartHeader) (*Part, error) {
	rerun := fmt.Sprintf("run task %d/%d again (voxlab %s … --task %d/%d, or voxlab status JOBID --resubmit %d)",
		want.Task, want.Tasks, want.Pipeline, want.Task, want.Tasks, want.Task)
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("task %d of %d has left no part %s: %s", want.Task, want.Tasks, path, rerun)
	}
	if err != nil {
		return nil, fmt.Errorf("part of task %d: %w", want.Task, err)
	}
	end, err := checkSum(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("part %s of task %d/%d is damaged: %v: %s", path, want.Task, want.Tasks, err, rerun)
	}
	h, off, err := readPartHeader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("part %s: %v: %s", path, err, rerun)
	}
	if diff := h.differs(want); diff != "" {
		f.Close()
		return nil, fmt.Errorf("part %s was written by another run (%s): %s", path, diff, rerun)
	}
	return &Part{Header: h, path: path, f: f, off: off, size: end - off}, nil
}

// checkSum reads a part's trailer and checks the checksum and length it
// records against the bytes before it; it returns where the trailer
// starts. A part of an older version, or one cut short, has no trailer
// to read.
func checkSum(f *os.File) (int64, error) {
	magic := make([]byte, len(partMagic))
	if _, err := f.ReadAt(magic, 0); err != nil || string(magic) != partMagic {
		return 0, errors.New("not a voxlab part file of this version (voxlab-part 2, with a checksum)")
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	end := st.Size() - trailerLen
	tr := make([]byte, trailerLen)
	var want uint32
	var n int64
	if end < 0 {
		return 0, fmt.Errorf("it is cut short (%d bytes)", st.Size())
	}
	if _, err := f.ReadAt(tr, end); err != nil {
		return 0, err
	}
	if k, err := fmt.Sscanf(string(tr), partTrailer, &want, &n); err != nil || k != 2 {
		return 0, errors.New("it has no checksum at its end (cut short, or damaged there)")
	}
	if n != end {
		return 0, fmt.Errorf("it holds %d bytes before its checksum, which was taken over %d (cut short, or grown)", end, n)
	}
	h := crc32.New(castagnoli)
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, end)); err != nil {
		return 0, fmt.Errorf("read: %w", err)
	}
	if got := h.Sum32(); got != want {
		return 0, fmt.Errorf("its contents do not match their checksum (CRC-32C %08x, written %08x)", got, want)
	}
	return end, nil
}

func readPartHeader(f *os.File) (PartHeader, int64, error) {
	var h PartHeader
	br := bufio.NewReader(io.LimitReader(f, maxPartHeader))
	magic, err := br.ReadString('\n')
	if err != nil || magic != partMagic {
		return h, 0, errors.New("not a voxlab part file (or an unknown version)")
	}
	line, err := br.ReadBytes('\n')
	if err != nil {
		return h, 0, errors.New("damaged header (cut short)")
	}
	if err := json.Unmarshal(line, &h); err != nil {
		return h, 0, fmt.Errorf("damaged header: %v", err)
	}
	return h, int64(len(magic) + len(line)), nil
}

// differs names what differs between the header read and the one
// expected, or returns "".
func (h PartHeader) differs(want PartHeader) string {
	var d []string
	if h.Pipeline != want.Pipeline {
		d = append(d, fmt.Sprintf("pipeline %q, not %q", h.Pipeline, want.Pipeline))
	}
	if h.Task != want.Task || h.Tasks != want.Tasks {
		d = append(d, fmt.Sprintf("task %d/%d, not %d/%d", h.Task, h.Tasks, want.Task, want.Tasks))
	}
	if !jsonEqual(h.Run, want.Run) {
		d = append(d, runDiff(h.Run, want.Run))
	}
	return strings.Join(d, "; ")
}

func jsonEqual(a, b json.RawMessage) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// runDiff names the top-level fields of two run objects that differ.
func runDiff(got, want json.RawMessage) string {
	var g, w map[string]json.RawMessage
	if json.Unmarshal(got, &g) != nil || json.Unmarshal(want, &w) != nil {
		return "its run differs"
	}
	var keys []string
	for k := range w {
		keys = append(keys, k)
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var d []string
	for _, k := range slices.Compact(keys) {
		gv, gok := g[k]
		wv, wok := w[k]
		switch {
		case !gok:
			d = append(d, fmt.Sprintf("%s missing", k))
		case !wok:
			d = append(d, fmt.Sprintf("unexpected %s", k))
		case !jsonEqual(gv, wv):
			d = append(d, fmt.Sprintf("%s %s, not %s", k, gv, wv))
		}
	}
	if len(d) == 0 {
		return "its run differs"
	}
	return strings.Join(d, ", ")
}

// Path returns the part's file name.
func (p *Part) Path() string { return p.path }

// Size is the payload's length in bytes.
func (p *Part) Size() int64 { return p.size }

// Payload reads the payload.
func (p *Part) Payload() *io.SectionReader { return io.NewSectionReader(p.f, p.off, p.size) }

// Close closes the file.
func (p *Part) Close() error { return p.f.Close() }

// RemoveParts deletes the parts of every task of a merged run, and the
// parts folder when that leaves it empty.
func RemoveParts(dir, pipeline string, tasks int) error {
	var errs []error
	for i := range tasks {
		if err := os.Remove(PartPath(dir, pipeline, Task{Index: i, Count: tasks})); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	os.Remove(dir) // only succeeds when empty
	return errors.Join(errs...)
}
