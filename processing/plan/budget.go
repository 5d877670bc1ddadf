package plan

import "fmt"

// DefaultHostShare is the share of the machine's RAM a run plans for
// when no --host-memory is given: half, so that the rest of the machine
// (the desktop, other programs and the page cache that keeps the input
// file fast) keeps room.
const DefaultHostShare = 0.5

// DefaultHostBudget returns the host budget a run plans for without a
// --host-memory flag, from the machine's total and available RAM (bytes,
// as /proc/meminfo gives them): half the RAM, or 80% of the RAM available
// now when that is less. It returns 0 (unlimited) when neither figure is
// known, with the source that says where the figure came from.
func DefaultHostBudget(total, available int64) (int64, string) {
	share := int64(DefaultHostShare * float64(total))
	avail := int64(0.8 * float64(available))
	switch {
	case total <= 0 && available <= 0:
		return 0, "RAM unknown"
	case total <= 0 || available > 0 && avail < share:
		return avail, fmt.Sprintf("80%% of the %s of RAM available", FormatBytes(available))
	default:
		return share, fmt.Sprintf("half of the machine's %s of RAM", FormatBytes(total))
	}
}

// HostBudgetHelp is the --host-memory flag's help, saying what the
// default is.
const HostBudgetHelp = "host RAM to plan for, e.g. 8GiB; on the CPU backend the compute buffers count against it too " +
	"(default: half the machine's RAM, or 80% of the RAM available now when that is less)"
