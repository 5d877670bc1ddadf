package outfile

import (
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// Temporaries are named after their target and their owner:
//
//	.TARGET.part-PID-START-HOST-RANDOM   the output being written
//	.TARGET.old-PID-START-HOST-RANDOM    the previous output, kept aside while the new one goes in
//
// PID and START (the process's start time in clock ticks since boot, from
// /proc/PID/stat) name the process that made it, which survives the reuse
// of its pid by a later process; HOST (a hash of the host name) tells a
// process on another machine sharing the folder (a cluster's shared
// disk) from one here. A later run for the same target (Recover) removes
// the temporaries whose owner has gone, and puts a kept-aside previous
// output back if a crash left no output under the target's name. It
// never touches a temporary whose owner may still run: one of this
// process, of a live process, or of another host.
const (
	partTag = ".part-"
	oldTag  = ".old-"
)

// owner identifies a process across pid reuse.
type owner struct {
	pid   int
	start uint64
	host  string
	// known: the start time could be read; without it nothing is judged
	// dead (and this process's temporaries carry a start of 0).
	known bool
}

// self is this process's owner.
var self = sync.OnceValue(func() owner {
	o := owner{pid: os.Getpid(), host: hostTag()}
	o.start, o.known = procStart(o.pid)
	return o
})

func (o owner) String() string { return fmt.Sprintf("%d-%d-%s", o.pid, o.start, o.host) }

// hostTag is 8 hex digits of the FNV-1a hash of the host name and the
// pid namespace: short, with no character a file name could trip on. A
// process in another container (another pid namespace, where the same
// pid is another process) counts as another host.
func hostTag() string {
	name, err := os.Hostname()
	if err != nil {
		name = "unknown"
	}
	ns, _ := os.Readlink("/proc/self/ns/pid")
	h := fnv.New32a()
	h.Write([]byte(name + "\x00" + ns))
	return fmt.Sprintf("%08x", h.Sum32())
}

// procStart reads the start time of process pid (field 22 of
// /proc/PID/stat, after the command name, which may hold spaces and
// parentheses and ends at the last ')').
func procStart(pid int) (uint64, bool) {
	v, err := readStart(pid)
	return v, err == nil
}

func readStart(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, errors.New("unreadable /proc stat")
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, errors.New("unreadable /proc stat")
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// gone reports whether process o has certainly ended: it ran on this
// host, and no process now has its pid and start time. A zombie still
// counts as running; anything that cannot be read counts as running.
func (o owner) gone() bool {
	me := self()
	if !me.known || o.host != me.host || (o.pid == me.pid && o.start == me.start) {
		return false
	}
	start, err := readStart(o.pid)
	if errors.Is(err, os.ErrNotExist) {
		return true
	}
	return err == nil && start != o.start
}

// tempPattern is the os.CreateTemp / os.MkdirTemp pattern of a temporary
// of kind tag (partTag, oldTag) for target, owned by this process.
func tempPattern(target, tag string) string {
	return "." + filepath.Base(target) + tag + self().String() + "-*"
}

// parseTemp parses the name of a temporary of target's base name: its
// tag and owner; ok is false for any other name (the user's, or one of
// an older voxlab, which named no owner: those are left alone).
func parseTemp(base, name string) (tag string, o owner, ok bool) {
	rest, found := strings.CutPrefix(name, "."+base)
	if !found {
		return "", owner{}, false
	}
	switch {
	case strings.HasPrefix(rest, partTag):
		tag = partTag
	case strings.HasPrefix(rest, oldTag):
		tag = oldTag
	default:
		return "", owner{}, false
	}
	f := strings.Split(rest[len(tag):], "-")
	if len(f) != 4 || len(f[2]) != 8 || f[3] == "" {
		return "", owner{}, false
	}
	pid, err1 := strconv.Atoi(f[0])
	start, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 {
		return "", owner{}, false
	}
	return tag, owner{pid: pid, start: start, host: f[2], known: true}, true
}

// Recover cleans up after writers of target that died (kill -9, a power
// cut, a crash) before they finished: it removes their temporaries, and
// where the target itself is missing because the writer died between
// moving the previous output aside and renaming the new one in, it puts
// the previous output back (the new one was never committed). It leaves
// the temporaries of live writers, of this process and of other hosts
// alone. Create, CreateDir, ReplaceDir and NewTemp call it, so a rerun
// cleans up after the run it replaces; an error says what could not be
// put back, and where it is.
func Recover(target string) error {
	target = filepath.Clean(target)
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // a missing folder holds nothing to recover; Create says why it cannot write there
	}
	var olds, parts []string
	for _, e := range entries {
		tag, o, ok := parseTemp(base, e.Name())
		if !ok || !o.gone() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if tag == oldTag {
			olds = append(olds, p)
		} else {
			parts = append(parts, p)
		}
	}
	var errs []error
	for _, old := range olds {
		if err := restore(old, target); err != nil {
			errs = append(errs, err)
		}
	}
	// A part is never complete by itself: the writer died before its
	// commit, or after it had swapped the part out (then it holds the
	// previous output). Removal failures are left for the next run.
	for _, p := range parts {
		os.RemoveAll(p)
	}
	return errors.Join(errs...)
}

// restore puts a kept-aside previous output back under target when target
// is missing, else removes it. A kept-aside file (CommitAll) is the file
// itself, or a hard link to the target; a kept-aside folder (ReplaceDir)
// is a holder folder with the target's previous folder inside, under its
// own name.
func restore(old, target string) error {
	st, err := os.Lstat(old)
	if err != nil {
		return nil // another run got there first
	}
	prev := old
	if st.IsDir() {
		prev = filepath.Join(old, filepath.Base(target))
	}
	if _, err := os.Lstat(target); errors.Is(err, os.ErrNotExist) {
		if _, err := os.Lstat(prev); err == nil {
			if err := os.Rename(prev, target); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("output %s is missing after a run that died while replacing it, and putting back the previous one failed: %w (it is in %s)", target, err, prev)
			}
		}
	}
	os.RemoveAll(old)
	return nil
}

// NewTemp recovers target's temporaries left by dead writers (Recover)
// and creates an empty temporary file beside target, owned by this
// process, for a writer that opens the file itself (libhdf5) and renames
// it onto target when complete. Most writers use Create instead.
func NewTemp(target string) (*os.File, error) {
	if err := Recover(target); err != nil {
		return nil, fmt.Errorf("create output %s: %w", target, err)
	}
	f, err := os.CreateTemp(filepath.Dir(target), tempPattern(target, partTag))
	if err != nil {
		return nil, fmt.Errorf("create output %s: %w", target, err)
	}
	return f, nil
}
