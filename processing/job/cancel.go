package job

import (
	"context"
	"errors"
)

// Kept is the error of a cancelled run that leaves finished files
// behind on purpose (a training run's last checkpoint, to resume from):
// it is context.Canceled to errors.Is, and says what was kept.
type Kept struct {
	// What names the files kept and what they are for.
	What string
}

func (k *Kept) Error() string { return "cancelled; " + k.What }
func (k *Kept) Unwrap() error { return context.Canceled }

// LeftBehind says what a cancelled run left: what it kept, or that no
// output was written.
func LeftBehind(err error) string {
	if k, ok := errors.AsType[*Kept](err); ok {
		return k.What
	}
	return "no output was written"
}
