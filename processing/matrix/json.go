package matrix

import (
	"encoding/json"
	"fmt"
	"os"
)

// WriteJSON writes v into path as indented JSON with a final newline
// (the summaries and label lists beside the matrices, for people and
// other tools), its errors naming the file.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
