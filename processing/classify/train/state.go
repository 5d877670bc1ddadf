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
// complete.
func WriteState(path string, st *State) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".voxlab-state-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := gob.NewEncoder(f).Encode(st); err != nil {
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
	var st State
	if err := gob.NewDecoder(f).Decode(&st); err != nil {
		return nil, fmt.Errorf("training state %s: not a state voxlab train wrote: %w", path, err)
	}
	return &st, nil
}
