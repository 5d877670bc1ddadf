package pipeline

import (
	"fmt"

	"github.com/voxlab/voxlab/gpu"
)

// Checked returns d when the self-check of pipeline name's ops on d's
// backend passes (gpu.Verify: the first use of the pipeline on that kind
// of backend in this process runs its ops on a small fixed input and
// compares them with the CPU's; the CPU backend always passes). When it
// fails — a result beyond the parity tests' tolerance, an error of the
// device, a panic — the backend is closed and the run goes to the CPU:
// the returned device is a new CPU backend with the budget the same
// device settings give there (BudgetFor), and warning says which op
// failed and how, for the run's warnings (the terminal, the panel's job,
// a task's progress file).
func (d Device) Checked(name string) (checked Device, warning string, err error) {
	verr := gpu.Verify(name, d.Backend)
	if verr == nil {
		return d, "", nil
	}
	from := d.Backend.Name()
	cpu := gpu.NewCPU()
	out := Device{Backend: cpu, BudgetFor: d.BudgetFor,
		Note: fmt.Sprintf("backend: cpu (%s failed its %s self-check)", name, from)}
	if d.BudgetFor != nil {
		if out.Budget, err = d.BudgetFor(cpu.Info()); err != nil {
			cpu.Close()
			return d, "", err
		}
	}
	d.Backend.Close()
	return out, fmt.Sprintf("%v; this run computes on the CPU instead", verr), nil
}
