package train

import (
	"bufio"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
)

// StateSuffix names the file beside a checkpoint that holds the run's
// State (Keras's weight checkpoints hold no optimiser state): only the
// last checkpoint's is kept.
const StateSuffix = ".voxlab-state"

// WriteState writes st to path under a temporary name, renamed when
// complete: a gob header (the State without its moments, and their
// lengths), then each moment array (M's, then V's) as little-endian
// float32s through a buffer of 64 KiB. A gob encoder builds each value whole
// in memory, and encodes a float in up to 9 bytes: the moments as gob
// values held more than twice Adam's moments while they were written.
func WriteState(path string, st *State) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".voxlab-state-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := writeState(f, st); err != nil {
		f.Close()
		return fmt.Errorf("training state %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// ReadState reads a State WriteState wrote.
func ReadState(path string) (*State, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("training state %s: %w (a checkpoint of voxlab train has its state beside it; only the last checkpoint's is kept)", path, err)
	}
	defer f.Close()
	st, err := readState(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("training state %s: not a state voxlab train wrote: %w", path, err)
	}
	return st, nil
}

// stateHeader is a state file's gob header.
type stateHeader struct {
	State            // without its moments
	MLen, VLen []int // the moments' lengths, in the order they follow
}

// maxMoments bounds what a state file's header may ask to allocate: the
// deepest network, ResNet-152, has some 120 million variables.
const maxMoments = 1 << 30

// momentChunk is how many moments writeState and readState convert at a
// time, through a buffer of 4·momentChunk bytes: a slice at a time, not
// 4 bytes per call through bufio (under the race detector, which checks
// every call's accesses, 4 bytes at a time was most of a checkpoint).
const momentChunk = 1 << 14

func writeState(w io.Writer, st *State) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	h := stateHeader{State: *st}
	h.M, h.V = nil, nil
	for _, a := range st.M {
		h.MLen = append(h.MLen, len(a))
	}
	for _, a := range st.V {
		h.VLen = append(h.VLen, len(a))
	}
	if err := gob.NewEncoder(bw).Encode(&h); err != nil {
		return err
	}
	buf := make([]byte, 4*momentChunk)
	for _, moments := range [][][]float32{st.M, st.V} {
		for _, a := range moments {
			for len(a) > 0 {
				n := min(len(a), momentChunk)
				b := buf[:4*n]
				for i, v := range a[:n] {
					binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
				}
				if _, err := bw.Write(b); err != nil {
					return err
				}
				a = a[n:]
			}
		}
	}
	return bw.Flush()
}

// readState reads writeState's layout; r is an io.ByteReader, so that
// the gob decoder reads no further than its header.
func readState(r *bufio.Reader) (*State, error) {
	var h stateHeader
	if err := gob.NewDecoder(r).Decode(&h); err != nil {
		return nil, err
	}
	total := 0
	for _, n := range append(slices.Clip(h.MLen), h.VLen...) {
		if n < 0 || total+n > maxMoments {
			return nil, fmt.Errorf("moments of %d values", total+n)
		}
		total += n
	}
	st := h.State
	buf := make([]byte, 4*momentChunk)
	read := func(lens []int) ([][]float32, error) {
		out := make([][]float32, len(lens))
		for i, n := range lens {
			out[i] = make([]float32, n)
			for a := out[i]; len(a) > 0; {
				m := min(len(a), momentChunk)
				b := buf[:4*m]
				if _, err := io.ReadFull(r, b); err != nil {
					return nil, fmt.Errorf("moments: %w", err)
				}
				for j := range a[:m] {
					a[j] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*j:]))
				}
				a = a[m:]
			}
		}
		return out, nil
	}
	var err error
	if st.M, err = read(h.MLen); err != nil {
		return nil, err
	}
	if st.V, err = read(h.VLen); err != nil {
		return nil, err
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return nil, errors.New("data past the moments")
	}
	return &st, nil
}
