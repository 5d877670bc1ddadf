package train

import (
	"encoding/gob"
	"fmt"
	"os"
	"path/filepath"
)

// StateSuffix names the file beside a checkpoint that holds the run's
// State (Keras's weight checkpoints hold no optimiser state): only the
// last checkpoint's is kept.
const StateSuffix = ".voxlab-state"

// WriteState writes st to path under a temporary name, renamed when
// complete: gob values, the moments' counts, the State without them,
// then each moment array (M's, then V's) on its own. A gob encoder
// builds each value whole in memory before writing it, so the State as
// one value would hold a copy of Adam's moments while it is written;
// this way it holds one variable's.
func WriteState(path string, st *State) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".voxlab-state-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := encodeState(gob.NewEncoder(f), st); err != nil {
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
	st, err := decodeState(gob.NewDecoder(f))
	if err != nil {
		return nil, fmt.Errorf("training state %s: not a state voxlab train wrote: %w", path, err)
	}
	return st, nil
}

func encodeState(enc *gob.Encoder, st *State) error {
	head := *st
	head.M, head.V = nil, nil
	for _, v := range []any{len(st.M), len(st.V), &head} {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	for _, moments := range [][][]float32{st.M, st.V} {
		for _, a := range moments {
			if err := enc.Encode(a); err != nil {
				return err
			}
		}
	}
	return nil
}

// maxVariables bounds the moments' count read from a state file: the
// deepest network, ResNet-152, has under 1,000 trainable variables.
const maxVariables = 10000

func decodeState(dec *gob.Decoder) (*State, error) {
	var nm, nv int
	var st State
	if err := dec.Decode(&nm); err != nil {
		return nil, err
	}
	if err := dec.Decode(&nv); err != nil {
		return nil, err
	}
	if nm < 0 || nv < 0 || nm > maxVariables || nv > maxVariables {
		return nil, fmt.Errorf("%d and %d moment arrays", nm, nv)
	}
	if err := dec.Decode(&st); err != nil {
		return nil, err
	}
	st.M, st.V = make([][]float32, nm), make([][]float32, nv)
	for _, moments := range [][][]float32{st.M, st.V} {
		for i := range moments {
			if err := dec.Decode(&moments[i]); err != nil {
				return nil, err
			}
		}
	}
	return &st, nil
}
