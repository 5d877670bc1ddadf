package plan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func samplePlan(t *testing.T, unit string) *Plan {
	t.Helper()
	p, err := Make("dezing", []Phase{
		{Name: "darks", Unit: unit, Units: 4, Arrays: []Array{{Name: "in", PerUnit: 100}}},
		{Name: "projections", Unit: unit, Units: 100, Halo: 1, Arrays: []Array{
			{Name: "in", PerUnit: 100, Halo: true},
			{Name: "dark", Fixed: 400},
			{Name: "staging", Where: Pinned, PerUnit: 50},
			{Name: "out", Where: Host, PerUnit: 10},
		}},
	}, Budget{Device: 5000, DeviceSource: "--device-memory 5000", Host: 1 << 30, HostSource: "available RAM"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestMarshalJSON(t *testing.T) {
	p := samplePlan(t, "slices")
	raw, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		BlockSlices       *int                        `json:"block_slices"`
		PeakDevice        int64                       `json:"peak_device_bytes"`
		DeviceMemory      int64                       `json:"device_memory_bytes"`
		HostPinned        int64                       `json:"host_pinned_bytes"`
		PeakHost          int64                       `json:"peak_host_bytes"`
		HostMemory        int64                       `json:"host_memory_bytes"`
		Breakdown         map[string]map[string]int64 `json:"breakdown"`
		Phases            []phaseJSON                 `json:"phases"`
		Warnings          []string                    `json:"warnings"`
		PeakPhase, Source string
	}
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	// 4500 usable: 400 + 100(b+2) ≤ 4500 → b = 39.
	if got.BlockSlices == nil || *got.BlockSlices != 39 {
		t.Fatalf("block_slices missing or wrong in %s", raw)
	}
	if got.PeakDevice != 4500 || got.DeviceMemory != 5000 || got.HostPinned != 39*50 || got.PeakHost != 390 || got.HostMemory != 1<<30 {
		t.Errorf("figures in %s", raw)
	}
	wantBD := map[string]map[string]int64{"device": {"in": 4100, "dark": 400}, "pinned": {"staging": 1950}, "host": {"out": 390}}
	if !equalNested(got.Breakdown, wantBD) {
		t.Errorf("breakdown %v, want %v", got.Breakdown, wantBD)
	}
	if len(got.Phases) != 2 || got.Phases[0].Block != 4 || got.Phases[1].Blocks != 3 || got.Phases[0].DeviceBytes != 400 {
		t.Errorf("phases %+v", got.Phases)
	}
	if got.Warnings == nil {
		t.Error("warnings should be an empty list, not null")
	}
	for unit, key := range map[string]string{"planes": "batch_planes", "maps": "chunk_maps", "rows": "block_rows"} {
		raw, _ := json.Marshal(samplePlan(t, unit))
		var m map[string]any
		json.Unmarshal(raw, &m)
		if m[key] != float64(39) {
			t.Errorf("unit %s: %s = %v in %s", unit, key, m[key], raw)
		}
	}
}

func equalNested(a, b map[string]map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, m := range a {
		if len(m) != len(b[k]) {
			return false
		}
		for kk, v := range m {
			if b[k][kk] != v {
				return false
			}
		}
	}
	return true
}

func TestFormat(t *testing.T) {
	p := samplePlan(t, "slices")
	p.Warnings = append(p.Warnings, "example warning")
	var buf bytes.Buffer
	if err := p.Format(&buf); err != nil {
		t.Fatal(err)
	}
	want := `dezing: blocks of 39 slices (3 blocks over 100 slices, projections phase)
device memory: peak 4.39 KiB of 4.39 KiB usable (90% of 4.88 KiB, --device-memory 5000)
host memory:   peak 390 B + 1.9 KiB pinned of 922 MiB usable (90% of 1 GiB, available RAM)

phase        units       halo  block  blocks  device    pinned   host
darks        4 slices    0     4      1       400 B     0 B      0 B
projections  100 slices  1     39     3       4.39 KiB  1.9 KiB  390 B

at the peak (projections phase, blocks of 39 slices):
  device  in           4 KiB
  device  dark         400 B
  pinned  staging    1.9 KiB
  host    out          390 B
warning: example warning
`
	if buf.String() != want {
		t.Errorf("Format:\n%s\nwant:\n%s", buf.String(), want)
	}
}

// TestFormatEmptyPlan: a plan without phases (a cluster task with
// nothing to do) still shows why.
func TestFormatEmptyPlan(t *testing.T) {
	var b strings.Builder
	p := &Plan{Pipeline: "dezing task 5/8", Warnings: []string{"task 5/8 has nothing to do"}}
	if err := p.Format(&b); err != nil {
		t.Fatal(err)
	}
	if want := "dezing task 5/8: empty plan\nwarning: task 5/8 has nothing to do\n"; b.String() != want {
		t.Errorf("%q, want %q", b.String(), want)
	}
}
