package cluster

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type testRun struct {
	Input string `json:"input"`
	Range [2]int `json:"range"`
}

func writeTestPart(t *testing.T, path string, task Task, run testRun, payload string) {
	t.Helper()
	h, err := NewPartHeader("dezing", task, run)
	if err != nil {
		t.Fatal(err)
	}
	w, err := CreatePart(path, h)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if _, err := io.WriteString(w, payload); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
}

func TestPartRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), `parts "q" $x`)
	task := Task{Index: 2, Count: 5}
	run := testRun{Input: "scan 'a'.nxs", Range: [2]int{40, 60}}
	path := PartPath(dir, "dezing", task)
	payload := "\x00\x01binary\npayload\xff"
	writeTestPart(t, path, task, run, payload)

	want, _ := NewPartHeader("dezing", task, run)
	p, err := OpenPart(path, want)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if p.Size() != int64(len(payload)) {
		t.Errorf("payload size %d, want %d", p.Size(), len(payload))
	}
	got, err := io.ReadAll(p.Payload())
	if err != nil || string(got) != payload {
		t.Errorf("payload %q (%v), want %q", got, err, payload)
	}
	// Nothing but the part is left in the folder (no temporary file).
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("parts folder holds %d entries, want 1", len(ents))
	}
}

func TestPartRefusesOtherRuns(t *testing.T) {
	dir := t.TempDir()
	task := Task{Index: 1, Count: 3}
	run := testRun{Input: "a.nxs", Range: [2]int{3, 6}}
	path := PartPath(dir, "dezing", task)
	writeTestPart(t, path, task, run, "x")
	for _, tc := range []struct {
		name string
		want func() PartHeader
		msg  []string
	}{
		{"other range", func() PartHeader {
			h, _ := NewPartHeader("dezing", task, testRun{Input: "a.nxs", Range: [2]int{3, 7}})
			return h
		}, []string{"another run", "range [3,6], not [3,7]", "--task 1/3", "--resubmit 1"}},
		{"other input", func() PartHeader {
			h, _ := NewPartHeader("dezing", task, testRun{Input: "b.nxs", Range: [2]int{3, 6}})
			return h
		}, []string{`input "a.nxs", not "b.nxs"`}},
		{"other task count", func() PartHeader {
			h, _ := NewPartHeader("dezing", Task{Index: 1, Count: 4}, run)
			return h
		}, []string{"task 1/3, not 1/4"}},
		{"other pipeline", func() PartHeader {
			h, _ := NewPartHeader("detect", task, run)
			return h
		}, []string{`pipeline "dezing", not "detect"`}},
	} {
		_, err := OpenPart(path, tc.want())
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		for _, m := range tc.msg {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%s: error %q lacks %q", tc.name, err, m)
			}
		}
	}
}

func TestPartMissingOrDamaged(t *testing.T) {
	dir := t.TempDir()
	want, _ := NewPartHeader("detect", Task{Index: 0, Count: 2}, testRun{})
	_, err := OpenPart(PartPath(dir, "detect", Task{Index: 0, Count: 2}), want)
	if err == nil || !strings.Contains(err.Error(), "has left no part") || !strings.Contains(err.Error(), "--task 0/2") {
		t.Errorf("missing part: %v", err)
	}
	for name, data := range map[string]string{
		"not a part": "hello\n",
		"cut short":  partMagic + `{"pipeline":"detect"`,
		"bad json":   partMagic + "{nope}\n",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(data), 0o644)
		if _, err := OpenPart(p, want); err == nil {
			t.Errorf("%s: accepted", name)
		} else if !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %q does not name the file", name, err)
		}
	}
}

func TestPartAbortLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	h, _ := NewPartHeader("dezing", Task{Index: 0, Count: 1}, testRun{})
	path := PartPath(dir, "dezing", Task{Index: 0, Count: 1})
	w, err := CreatePart(path, h)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("half"))
	w.Abort()
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("an aborted part left %v", ents)
	}
}

func TestPartsDirAndRemove(t *testing.T) {
	t.Setenv(EnvShared, "")
	if got := PartsDir("/data/out.h5"); got != "/data/out.h5.parts" {
		t.Errorf("PartsDir without a submission: %q", got)
	}
	shared := t.TempDir()
	t.Setenv(EnvShared, shared)
	dir := PartsDir("/data/out.h5")
	if dir != filepath.Join(shared, "parts") {
		t.Errorf("PartsDir in a submission: %q", dir)
	}
	for i := range 3 {
		writeTestPart(t, PartPath(dir, "dezing", Task{Index: i, Count: 3}), Task{Index: i, Count: 3}, testRun{}, "p")
	}
	if err := RemoveParts(dir, "dezing", 3); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("the emptied parts folder is still there: %v", err)
	}
}

// Every byte of a part is under its checksum: a flipped or zeroed byte
// anywhere (header, payload, trailer), a part cut short or grown, and a
// part of version 1 (no checksum) are refused with an error that names
// the part and its task and says how to run that task again.
func TestPartChecksum(t *testing.T) {
	dir := t.TempDir()
	task := Task{Index: 2, Count: 4}
	run := testRun{Input: "a.nxs", Range: [2]int{5, 9}}
	want, _ := NewPartHeader("dezing", task, run)
	payload := strings.Repeat("\x00\x01\x02 payload bytes ", 1000)
	good := filepath.Join(dir, "good")
	writeTestPart(t, good, task, run, payload)
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := OpenPart(good, want); err != nil {
		t.Fatal(err)
	} else {
		p.Close()
	}
	headerLen := strings.Index(string(data[len(partMagic):]), "\n") + 1 + len(partMagic)
	mutate := func(f func(b []byte) []byte) []byte { return f(slices.Clone(data)) }
	cases := map[string][]byte{
		"payload byte flipped": mutate(func(b []byte) []byte { b[headerLen+len(payload)/2] ^= 0x10; return b }),
		"payload bytes zeroed": mutate(func(b []byte) []byte {
			clear(b[headerLen+100 : headerLen+2148])
			return b
		}),
		"first payload byte flipped": mutate(func(b []byte) []byte { b[headerLen] ^= 1; return b }),
		"last payload byte flipped":  mutate(func(b []byte) []byte { b[len(b)-int(trailerLen)-1] ^= 0x80; return b }),
		"header byte flipped": mutate(func(b []byte) []byte {
			i := strings.Index(string(b), `"task":2`) + len(`"task":`)
			b[i] = '3'
			return b
		}),
		"checksum flipped":   mutate(func(b []byte) []byte { b[len(b)-int(trailerLen)+len("voxlab-part-end crc32c ")] ^= 1; return b }),
		"cut short":          data[:len(data)-5000],
		"trailer cut":        data[:len(data)-3],
		"grown":              append(slices.Clone(data[:len(data)-int(trailerLen)]), append([]byte("more"), data[len(data)-int(trailerLen):]...)...),
		"version 1, no sum":  append([]byte("voxlab-part 1\n"), data[len(partMagic):len(data)-int(trailerLen)]...),
		"payload all zeroes": mutate(func(b []byte) []byte { clear(b[headerLen : len(b)-int(trailerLen)]); return b }),
	}
	for name, b := range cases {
		p := filepath.Join(dir, "damaged "+name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		part, err := OpenPart(p, want)
		if err == nil {
			part.Close()
			t.Errorf("%s: accepted", name)
			continue
		}
		for _, m := range []string{p, "task 2/4", "--task 2/4", "--resubmit 2"} {
			if !strings.Contains(err.Error(), m) {
				t.Errorf("%s: error %q lacks %q", name, err, m)
			}
		}
	}
}

// BenchmarkOpenPart64MiB measures the checksum pass OpenPart makes over a
// part before a merge reads it (from the page cache here: a cold part
// reads at the disk's speed).
func BenchmarkOpenPart64MiB(b *testing.B) {
	dir := b.TempDir()
	task := Task{Index: 0, Count: 1}
	h, _ := NewPartHeader("dezing", task, testRun{})
	path := PartPath(dir, "dezing", task)
	w, err := CreatePart(path, h)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 1<<20)
	for i := range buf {
		buf[i] = byte(i * 31)
	}
	for range 64 {
		w.Write(buf)
	}
	if err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(64 << 20)
	for b.Loop() {
		p, err := OpenPart(path, h)
		if err != nil {
			b.Fatal(err)
		}
		p.Close()
	}
}
