package cluster

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/voxlab/voxlab/processing/job"
)

// Record is one line of a task's progress file: a job.Event without its
// partial result, with times in seconds.
type Record struct {
	Time    time.Time `json:"time"`
	Kind    string    `json:"kind"`
	Job     string    `json:"job,omitempty"`
	Host    string    `json:"host,omitempty"`
	Stage   string    `json:"stage,omitempty"`
	Done    int64     `json:"done"`
	Total   int64     `json:"total"`
	Unit    string    `json:"unit,omitempty"`
	Rate    float64   `json:"rate,omitempty"`
	ETA     float64   `json:"eta_s,omitempty"`
	Elapsed float64   `json:"elapsed_s"`
	// Bytes moved to and from the device, and the memory peaks.
	ToDevice   int64  `json:"to_device_bytes,omitempty"`
	FromDevice int64  `json:"from_device_bytes,omitempty"`
	PeakDevice int64  `json:"peak_device_bytes,omitempty"`
	PeakHost   int64  `json:"peak_host_bytes,omitempty"`
	Message    string `json:"message,omitempty"`
	Error      string `json:"error,omitempty"`
}

// Terminal reports whether the record ends a run.
func (r Record) Terminal() bool {
	return r.Kind == job.Finished.String() || r.Kind == job.Failed.String() || r.Kind == job.Cancelled.String()
}

func recordOf(e job.Event, host string, now time.Time) Record {
	r := Record{
		Time: now.UTC(), Kind: e.Kind.String(), Job: e.Job, Host: host, Stage: e.Stage,
		Done: e.Done, Total: e.Total, Unit: e.Unit, Rate: e.Rate, ETA: e.ETA.Seconds(),
		Elapsed: e.Elapsed.Seconds(), ToDevice: e.BytesToDevice, FromDevice: e.BytesFromDevice,
		PeakDevice: e.PeakDevice, PeakHost: e.PeakHost, Message: e.Message,
	}
	if e.Err != nil {
		r.Error = e.Err.Error()
	}
	return r
}

// ProgressFile appends a job's events to a file as JSON lines, for
// `voxlab status` to read from another node: progress at most once per
// ProgressInterval, every warning and the terminal event at once (partial
// results stay in the task). Each line is written and synced whole, so a
// reader sees complete lines (and skips a torn last one). A resubmitted
// task appends to the same file: its last line is what counts.
type ProgressFile struct {
	mu   sync.Mutex
	f    *os.File
	host string
	err  error
	sink job.Sink
}

// ProgressInterval is the pace of progress lines.
const ProgressInterval = time.Second

// CreateProgressFile opens path for appending, creating it and its folder.
func CreateProgressFile(path string) (*ProgressFile, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("progress file %s: %w", path, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("progress file: %w", err)
	}
	host, _ := os.Hostname()
	pf := &ProgressFile{f: f, host: host}
	pf.sink = job.Throttle(pf.write, ProgressInterval)
	return pf, nil
}

// Sink returns the sink that writes to the file.
func (pf *ProgressFile) Sink() job.Sink { return pf.sink }

func (pf *ProgressFile) write(e job.Event) {
	if e.Kind == job.Partial {
		return
	}
	line, err := json.Marshal(recordOf(e, pf.host, time.Now()))
	if err != nil {
		return
	}
	pf.mu.Lock()
	defer pf.mu.Unlock()
	if pf.err != nil || pf.f == nil {
		return
	}
	if _, err := pf.f.Write(append(line, '\n')); err != nil {
		pf.err = err
		return
	}
	// Readers are on other nodes of a network file system: make the line
	// visible now.
	pf.f.Sync()
}

// Close closes the file and returns the first write error, if any.
func (pf *ProgressFile) Close() error {
	pf.mu.Lock()
	defer pf.mu.Unlock()
	if pf.f == nil {
		return pf.err
	}
	name := pf.f.Name()
	err := pf.f.Close()
	pf.f = nil
	if pf.err != nil {
		err = pf.err
	}
	if err != nil {
		return fmt.Errorf("progress file %s: %w", name, err)
	}
	return nil
}

// ErrNoProgress is returned by ReadProgress for a file with no complete
// record (or no file).
var ErrNoProgress = errors.New("no progress recorded")

// ReadProgress returns the last complete record of a progress file and the
// warnings of the latest run (since the last record of a run that ended).
func ReadProgress(path string) (last Record, warnings []string, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return Record{}, nil, ErrNoProgress
	}
	if err != nil {
		return Record{}, nil, err
	}
	defer f.Close()
	return readRecords(f)
}

func readRecords(r io.Reader) (last Record, warnings []string, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	found := false
	for sc.Scan() {
		var rec Record
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Kind == "" {
			continue // a torn line being written, or garbage
		}
		if found && last.Terminal() {
			warnings = nil // a new run (a resubmission) starts
		}
		if rec.Kind == job.Warning.String() {
			warnings = append(warnings, rec.Message)
		}
		last, found = rec, true
	}
	if err := sc.Err(); err != nil {
		return Record{}, nil, err
	}
	if !found {
		return Record{}, nil, ErrNoProgress
	}
	return last, warnings, nil
}
