package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
)

// BlockKey is the JSON name of the main phase's block size for its unit:
// block_slices, batch_planes, chunk_maps (block_UNIT otherwise).
func BlockKey(unit string) string {
	switch unit {
	case "slices":
		return "block_slices"
	case "planes":
		return "batch_planes"
	case "maps":
		return "chunk_maps"
	case "":
		return "block"
	}
	return "block_" + strings.ReplaceAll(unit, " ", "_")
}

type phaseJSON struct {
	Name        string                      `json:"name"`
	Unit        string                      `json:"unit"`
	Units       int                         `json:"units"`
	Halo        int                         `json:"halo"`
	Block       int                         `json:"block"`
	Blocks      int                         `json:"blocks"`
	DeviceBytes int64                       `json:"device_bytes"`
	PinnedBytes int64                       `json:"pinned_bytes"`
	HostBytes   int64                       `json:"host_bytes"`
	Breakdown   map[string]map[string]int64 `json:"breakdown"`
}

// MarshalJSON writes the plan for `voxlab plan --json`: the main phase's
// block under BlockKey (block_slices, batch_planes or chunk_maps), the
// peaks (peak_device_bytes; host_pinned_bytes for pinned staging,
// peak_host_bytes for pageable host memory, peak_ram_bytes for all the
// host RAM a phase holds: with shared_budget, the CPU backend's device
// buffers too), the budget they were planned
// against (device_memory_bytes, host_memory_bytes; 0 = unlimited), the
// breakdown of the peak phase as {"device": {array: bytes}, "pinned": …,
// "host": …}, and every phase with its block, blocks and usage.
func (p *Plan) MarshalJSON() ([]byte, error) {
	m := map[string]any{
		"pipeline":             p.Pipeline,
		"peak_device_bytes":    p.PeakDevice,
		"device_memory_bytes":  p.Budget.Device,
		"device_memory_source": p.Budget.DeviceSource,
		"host_pinned_bytes":    p.PeakPinned,
		"peak_host_bytes":      p.PeakHost,
		"peak_ram_bytes":       p.PeakRAM,
		"shared_budget":        p.Budget.Shared,
		"host_memory_bytes":    p.Budget.Host,
		"host_memory_source":   p.Budget.HostSource,
		"margin":               p.Budget.margin(),
		"warnings":             append([]string{}, p.Warnings...),
	}
	if p.Reading != "" {
		m["reading"] = p.Reading
		m["choice"] = p.Choice
	}
	if p.Output > 0 {
		m["output_bytes"] = p.Output
		m["free_bytes"] = p.Free
	}
	if p.Budget.PinnedCap > 0 {
		m["pinned_cap_bytes"] = p.Budget.PinnedCap
	}
	if len(p.Phases) > 0 {
		main := p.Phases[p.Main]
		m[BlockKey(main.Unit)] = main.Block
		m["unit"] = main.Unit
		m["blocks"] = main.Blocks
		m["main_phase"] = main.Name
		m["peak_phase"] = p.Phases[p.PeakPhase].Name
		m["breakdown"] = nestBreakdown(p.Phases[p.PeakPhase].Breakdown)
	}
	phases := make([]phaseJSON, len(p.Phases))
	for i, ph := range p.Phases {
		phases[i] = phaseJSON{ph.Name, ph.Unit, ph.Units, ph.Halo, ph.Block, ph.Blocks,
			ph.Device, ph.Pinned, ph.Host, nestBreakdown(ph.Breakdown)}
	}
	m["phases"] = phases
	return json.Marshal(m)
}

// nestBreakdown turns "where:name" keys into {where: {name: bytes}}.
func nestBreakdown(b map[string]int64) map[string]map[string]int64 {
	out := map[string]map[string]int64{}
	for k, v := range b {
		where, name, _ := strings.Cut(k, ":")
		if out[where] == nil {
			out[where] = map[string]int64{}
		}
		out[where][name] = v
	}
	return out
}

// Format writes the plan for people: the chosen block, the peaks against
// the budget, a table of phases and the breakdown of the peak phase.
func (p *Plan) Format(w io.Writer) error {
	var b strings.Builder
	if len(p.Phases) == 0 {
		fmt.Fprintf(&b, "%s: empty plan\n", p.Pipeline)
		p.formatWarnings(&b)
		_, err := io.WriteString(w, b.String())
		return err
	}
	main := p.Phases[p.Main]
	fmt.Fprintf(&b, "%s: blocks of %d %s (%d blocks over %d %s, %s phase)\n",
		p.Pipeline, main.Block, main.Unit, main.Blocks, main.Units, main.Unit, main.Name)
	fmt.Fprintf(&b, "device memory: peak %s of %s\n", FormatBytes(p.PeakDevice), p.budgetText(p.Budget.Device, p.Budget.DeviceSource))
	hostPeak := FormatBytes(p.PeakHost)
	if p.PeakPinned > 0 {
		hostPeak += " + " + FormatBytes(p.PeakPinned) + " pinned"
	}
	if p.Budget.Shared {
		// The device buffers are host RAM: they are planned against the
		// host budget, and the RAM line is what the run's RSS should show.
		fmt.Fprintf(&b, "host memory:   peak %s of host arrays\n", hostPeak)
		fmt.Fprintf(&b, "RAM:           peak %s (device buffers and host arrays) of %s\n\n", FormatBytes(p.PeakRAM), p.budgetText(p.Budget.Host, p.Budget.HostSource))
	} else {
		fmt.Fprintf(&b, "host memory:   peak %s of %s\n\n", hostPeak, p.budgetText(p.Budget.Host, p.Budget.HostSource))
	}

	if p.Reading != "" || p.Output > 0 {
		if p.Reading != "" {
			fmt.Fprintf(&b, "input reads:   %s\n", p.Reading)
		}
		if p.Output > 0 {
			fmt.Fprintf(&b, "output:        at most %s on disk", FormatBytes(p.Output))
			if p.Free > 0 {
				fmt.Fprintf(&b, ", %s free there", FormatBytes(p.Free))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "phase\tunits\thalo\tblock\tblocks\tdevice\tpinned\thost")
	for _, ph := range p.Phases {
		fmt.Fprintf(tw, "%s\t%d %s\t%d\t%d\t%d\t%s\t%s\t%s\n", ph.Name, ph.Units, ph.Unit, ph.Halo, ph.Block, ph.Blocks,
			FormatBytes(ph.Device), FormatBytes(ph.Pinned), FormatBytes(ph.Host))
	}
	tw.Flush()

	peak := p.Phases[p.PeakPhase]
	fmt.Fprintf(&b, "\nat the peak (%s phase, blocks of %d %s):\n", peak.Name, peak.Block, peak.Unit)
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, k := range breakdownOrder(peak.Breakdown) {
		where, name, _ := strings.Cut(k, ":")
		fmt.Fprintf(tw, "  %s\t%s\t%9s\n", where, name, FormatBytes(peak.Breakdown[k]))
	}
	tw.Flush()
	p.formatWarnings(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (p *Plan) formatWarnings(b *strings.Builder) {
	for _, warn := range p.Warnings {
		fmt.Fprintf(b, "warning: %s\n", warn)
	}
}

// breakdownOrder sorts breakdown keys by where the array lives (device,
// pinned, host), then by size, largest first.
func breakdownOrder(bd map[string]int64) []string {
	rank := map[string]int{Device.String(): 0, Pinned.String(): 1, Host.String(): 2}
	keys := make([]string, 0, len(bd))
	for k := range bd {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		wi, _, _ := strings.Cut(keys[i], ":")
		wj, _, _ := strings.Cut(keys[j], ":")
		if rank[wi] != rank[wj] {
			return rank[wi] < rank[wj]
		}
		if bd[keys[i]] != bd[keys[j]] {
			return bd[keys[i]] > bd[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

func (p *Plan) budgetText(have int64, source string) string {
	if have <= 0 {
		return "an unlimited budget"
	}
	m := p.Budget.margin()
	s := fmt.Sprintf("%s usable (%.0f%% of %s", FormatBytes(int64(m*float64(have))), 100*m, FormatBytes(have))
	if source != "" {
		s += ", " + source
	}
	return s + ")"
}
