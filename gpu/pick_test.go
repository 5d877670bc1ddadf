package gpu

import (
	"errors"
	"strings"
	"testing"
)

// otherBackend is a backend no pipeline has kernels for.
type otherBackend struct{ *CPUBackend }

func (otherBackend) Name() string { return "tpu" }

func TestPickOps(t *testing.T) {
	cpu := func(c *CPUBackend) string { return "cpu ops" }
	if got, err := PickOps("demo", NewCPU(), cpu, nil); got != "cpu ops" || err != nil {
		t.Errorf("CPU backend: %q, %v", got, err)
	}
	claimed := func(be Backend) (string, bool, error) {
		if be.Name() == "tpu" {
			return "tpu ops", true, nil
		}
		return "", false, nil
	}
	if got, err := PickOps("demo", otherBackend{NewCPU()}, cpu, claimed); got != "tpu ops" || err != nil {
		t.Errorf("a backend the hook claims: %q, %v", got, err)
	}
	failing := func(Backend) (string, bool, error) { return "", true, errors.New("module does not load") }
	if _, err := PickOps("demo", otherBackend{NewCPU()}, cpu, failing); err == nil || err.Error() != "module does not load" {
		t.Errorf("a hook that fails: %v", err)
	}
	for _, hook := range []func(Backend) (string, bool, error){nil, func(Backend) (string, bool, error) { return "", false, nil }} {
		if _, err := PickOps("demo", otherBackend{NewCPU()}, cpu, hook); err == nil || !strings.Contains(err.Error(), "demo") || !strings.Contains(err.Error(), "tpu") {
			t.Errorf("a backend nothing claims: %v, want an error naming the pipeline and the backend", err)
		}
	}
}
