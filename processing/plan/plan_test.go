package plan

import (
	"errors"
	"strings"
	"testing"
)

// naiveBlock is the reference for Make: the largest block, scanning down
// from every unit, whose usage fits (0 if none).
func naiveBlock(ph Phase, b Budget) int {
	for blk := max(ph.Units, 1); blk >= max(ph.MinBlock, 1); blk-- {
		if fits(ph.UsageAt(blk), b) {
			return blk
		}
	}
	return 0
}

func TestMakeLargestBlock(t *testing.T) {
	filter := Phase{Name: "filter", Units: 500, Unit: "slices", Halo: 2, Arrays: []Array{
		{Name: "input", Where: Device, PerUnit: 1000, Halo: true},
		{Name: "output", Where: Device, PerUnit: 1000},
		{Name: "kernel", Where: Device, Fixed: 5000},
		{Name: "staging", Where: Host, PerUnit: 1000},
	}}
	for _, tc := range []struct {
		name   string
		phase  Phase
		budget Budget
		want   int
	}{
		// usable 90000: 5000 + 1000(b+4) + 1000b ≤ 90000 → b = 40
		{"device bound", filter, Budget{Device: 100000}, 40},
		// margin 0.5: 50000 → b = 20
		{"custom margin", filter, Budget{Device: 100000, Margin: 0.5}, 20},
		// host 9000 usable → staging b ≤ 9
		{"host bound", filter, Budget{Device: 1e9, Host: 10000}, 9},
		{"unlimited", filter, Budget{}, 500},
		{"exact fit", Phase{Name: "p", Units: 100, Arrays: []Array{{Name: "a", PerUnit: 9}}}, Budget{Device: 100}, 10},
		{"pinned cap", Phase{Name: "p", Units: 100, Arrays: []Array{{Name: "stage", Where: Pinned, PerUnit: 10}}},
			Budget{PinnedCap: 250}, 25},
		{"pinned counts as host", Phase{Name: "p", Units: 100, Arrays: []Array{
			{Name: "stage", Where: Pinned, PerUnit: 10}, {Name: "out", Where: Host, PerUnit: 10}}},
			Budget{Host: 1000}, 45},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Make("test", []Phase{tc.phase}, tc.budget)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Block(); got != tc.want {
				t.Errorf("block %d, want %d", got, tc.want)
			}
			if ref := naiveBlock(tc.phase, tc.budget); ref != tc.want {
				t.Errorf("naive scan finds %d, the table says %d", ref, tc.want)
			}
			if p.Phases[0].Blocks != ceilDiv(tc.phase.Units, tc.want) {
				t.Errorf("blocks %d for %d units of %d", p.Phases[0].Blocks, tc.phase.Units, tc.want)
			}
			if len(p.Warnings) != 0 {
				t.Errorf("warnings %v", p.Warnings)
			}
		})
	}
}

// Make against the naive scan over many budgets, so the bisection has no
// off-by-one anywhere.
func TestMakeMatchesNaiveScan(t *testing.T) {
	ph := Phase{Name: "p", Units: 97, Halo: 3, MinBlock: 2, Arrays: []Array{
		{Name: "in", PerUnit: 37, Halo: true}, {Name: "out", PerUnit: 11}, {Name: "fixed", Fixed: 123},
	}}
	for dev := int64(100); dev < 6000; dev += 7 {
		b := Budget{Device: dev}
		want := naiveBlock(ph, b)
		p, err := Make("t", []Phase{ph}, b)
		if want == 0 {
			if err == nil {
				t.Fatalf("device %d: no block fits but Make chose %d", dev, p.Block())
			}
			continue
		}
		if err != nil || p.Block() != want {
			t.Fatalf("device %d: Make = %v, %v; naive %d", dev, p, err, want)
		}
	}
}

func TestHaloCappedAtData(t *testing.T) {
	ph := Phase{Name: "darks", Units: 20, Halo: 6, Arrays: []Array{
		{Name: "in", PerUnit: 100, Halo: true}, {Name: "out", PerUnit: 100},
	}}
	for _, tc := range []struct{ block, in int64 }{
		{1, 13}, {8, 20}, {14, 20}, {20, 20},
	} {
		u := ph.UsageAt(int(tc.block))
		if got := u.Breakdown["device:in"]; got != 100*tc.in {
			t.Errorf("block %d: input holds %d bytes, want %d units (halo never past the data)", tc.block, got, tc.in)
		}
		if got := u.Breakdown["device:out"]; got != 100*tc.block {
			t.Errorf("block %d: output %d bytes", tc.block, got)
		}
	}
	// The whole phase in one block needs 4000 bytes, not 5200: a budget of
	// exactly 4000/0.9 takes all 20 darks at once.
	p, err := Make("t", []Phase{ph}, Budget{Device: 4445})
	if err != nil || p.Block() != 20 {
		t.Fatalf("Make = %v, %v: want one block of 20", p, err)
	}
}

func TestFixedBlock(t *testing.T) {
	ph := Phase{Name: "planes", Unit: "planes", Units: 100, Block: 30, Arrays: []Array{{Name: "batch", PerUnit: 1000}}}
	p, err := Make("detect", []Phase{ph}, Budget{Device: 1 << 20})
	if err != nil || p.Block() != 30 || p.Phases[0].Blocks != 4 || len(p.Warnings) != 0 {
		t.Fatalf("fixed block that fits: %+v, %v", p, err)
	}
	// Too big: kept (the user asked for it) with a warning, not an error.
	p, err = Make("detect", []Phase{ph}, Budget{Device: 10000, DeviceSource: "--device-memory 10000"})
	if err != nil || p.Block() != 30 {
		t.Fatalf("fixed block too big: %v, %v", p, err)
	}
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "a block of 30 planes needs 29.3 KiB of device memory, more than the 8.79 KiB usable") {
		t.Errorf("warnings %q", p.Warnings)
	}
	// Larger than the data: capped.
	ph.Block = 1000
	if p, _ = Make("detect", []Phase{ph}, Budget{}); p.Block() != 100 || p.Phases[0].Blocks != 1 {
		t.Errorf("block %d of %d, want 1 block of 100", p.Block(), p.Phases[0].Blocks)
	}
}

func TestMultiPhasePeaks(t *testing.T) {
	phases := []Phase{
		{Name: "load", Units: 10, Arrays: []Array{{Name: "pinned", Where: Pinned, PerUnit: 50}, {Name: "buf", PerUnit: 10}}},
		{Name: "big", Units: 10, Arrays: []Array{{Name: "a", PerUnit: 100}, {Name: "h", Where: Host, Fixed: 7}}},
		{Name: "main", Unit: "maps", Units: 900, Arrays: []Array{{Name: "chunk", PerUnit: 1}, {Name: "h", Where: Host, Fixed: 900}}},
	}
	p, err := Make("distance", phases, Budget{Device: 10000})
	if err != nil {
		t.Fatal(err)
	}
	if p.PeakDevice != 1000 || p.PeakPhase != 1 {
		t.Errorf("device peak %d in phase %d, want 1000 in phase 1 (big)", p.PeakDevice, p.PeakPhase)
	}
	if p.PeakPinned != 500 || p.PeakHost != 900 {
		t.Errorf("pinned peak %d, host peak %d, want 500 and 900", p.PeakPinned, p.PeakHost)
	}
	if p.Main != 2 || p.Block() != 900 {
		t.Errorf("main phase %d block %d", p.Main, p.Block())
	}
}

func TestTooSmall(t *testing.T) {
	ph := Phase{Name: "projections", Units: 1800, Halo: 1, Arrays: []Array{
		{Name: "in", PerUnit: 1 << 20, Halo: true}, {Name: "dark", Fixed: 1 << 20},
	}}
	_, err := Make("dezing", []Phase{ph}, Budget{Device: 2 << 20, DeviceSource: "--device-memory 2MiB"})
	var ts *TooSmallError
	if !errors.As(err, &ts) {
		t.Fatalf("err = %v, want *TooSmallError", err)
	}
	// one slice plus its two halo slices plus the dark: 4 MiB.
	if ts.Need != 4<<20 || ts.Have != 2<<20 || ts.Where != Device || ts.Phase != "projections" {
		t.Errorf("%+v", ts)
	}
	want := "dezing: not enough device memory for projections: the smallest block needs 4 MiB, 1.8 MiB is usable of 2 MiB available (--device-memory 2MiB); the smallest budget that works is 5 MiB"
	if err.Error() != want {
		t.Errorf("message\n %s\nwant\n %s", err, want)
	}
	// The budget the message names plans; a MiB less does not.
	if _, err := Make("dezing", []Phase{ph}, Budget{Device: ts.Smallest()}); err != nil {
		t.Errorf("the smallest budget %d does not plan: %v", ts.Smallest(), err)
	}
	if _, err := Make("dezing", []Phase{ph}, Budget{Device: ts.Smallest() - 1<<20}); err == nil {
		t.Errorf("a MiB under the smallest budget %d plans", ts.Smallest())
	}

	hostPh := Phase{Name: "p", Units: 10, MinBlock: 4, Arrays: []Array{{Name: "stage", Where: Host, PerUnit: 1000}}}
	_, err = Make("detect", []Phase{hostPh}, Budget{Host: 3000, HostSource: "--host-memory 3000"})
	if !errors.As(err, &ts) || ts.Where != Host || ts.Need != 4000 {
		t.Errorf("host: %v", err)
	}
	pinPh := Phase{Name: "p", Units: 10, Arrays: []Array{{Name: "stage", Where: Pinned, PerUnit: 1000}}}
	_, err = Make("detect", []Phase{pinPh}, Budget{PinnedCap: 500})
	if !errors.As(err, &ts) || ts.Where != Pinned || ts.Need != 1000 || ts.Have != 500 {
		t.Errorf("pinned: %v", err)
	}
	if _, err := Make("x", nil, Budget{}); err == nil {
		t.Error("Make with no phases succeeded")
	}
}

func TestParseBytes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"123", 123}, {"123B", 123}, {"2GiB", 2 << 30}, {"2 GiB", 2 << 30}, {"2gib", 2 << 30},
		{"1.5G", 3 << 29}, {"800M", 800 << 20}, {"512MB", 512e6}, {"4KB", 4000}, {"4k", 4096},
		{"1TiB", 1 << 40}, {"2TB", 2e12}, {" 8GiB ", 8 << 30},
	} {
		got, err := ParseBytes(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "GiB", "-1GiB", "2XB", "1.2.3G", "two"} {
		if got, err := ParseBytes(bad); err == nil {
			t.Errorf("ParseBytes(%q) = %d, want an error", bad, got)
		}
	}
}

func TestFormatBytes(t *testing.T) {
	for _, tc := range []struct {
		in   int64
		want string
	}{
		{0, "0 B"}, {1023, "1023 B"}, {1024, "1 KiB"}, {1536, "1.5 KiB"}, {2 << 30, "2 GiB"},
		{1932735283, "1.8 GiB"}, {11059200, "10.5 MiB"}, {3 << 40, "3 TiB"}, {5 << 50, "5 PiB"},
	} {
		if got := FormatBytes(tc.in); got != tc.want {
			t.Errorf("FormatBytes(%d) = %q, want %q", tc.in, got, tc.want)
		}
	}
	// Round trip within FormatBytes's three digits.
	for _, n := range []int64{1 << 20, 3 << 30, 7 << 40} {
		if back, err := ParseBytes(strings.ReplaceAll(FormatBytes(n), " ", "")); err != nil || back != n {
			t.Errorf("round trip of %d: %d, %v", n, back, err)
		}
	}
}

// TestAlign: a block the planner picks is a multiple of Align when it is
// at least Align, and the largest that fits otherwise; a fixed block is
// kept.
func TestAlign(t *testing.T) {
	ph := Phase{Name: "p", Units: 1000, Align: 16, Arrays: []Array{{Name: "a", Where: Host, PerUnit: 10}}}
	for _, tc := range []struct {
		host  int64
		fixed int
		want  int
	}{
		{1000, 0, 100 - 100%16}, // 100 fit: 96
		{150, 0, 15},            // 15 fit, fewer than 16
		{170, 0, 16},
		{0, 0, 1000 - 1000%16},
		{1000, 50, 50},
	} {
		ph.Block = tc.fixed
		p, err := Make("t", []Phase{ph}, Budget{Host: tc.host, Margin: 1})
		if err != nil {
			t.Fatal(err)
		}
		if p.Block() != tc.want {
			t.Errorf("host %d, fixed %d: block %d, want %d", tc.host, tc.fixed, p.Block(), tc.want)
		}
	}
}

// TestChoose: the first alternative that fits and is good wins, else the
// first that fits; when none fits, the leanest's error names the phase
// that binds and the smallest budget with which it works, and what the
// fastest needs.
func TestChoose(t *testing.T) {
	alt := func(fixed int64) []Phase {
		return []Phase{
			{Name: "small", Units: 10, Arrays: []Array{{Name: "a", Where: Host, PerUnit: 10, Fixed: fixed}}},
			{Name: "big", Units: 100, Arrays: []Array{{Name: "b", Where: Host, PerUnit: 10, Fixed: fixed + 100}}},
		}
	}
	alts := [][]Phase{alt(3000), alt(1000), alt(0)}
	good := func(p *Plan) bool { return p.Block() >= 50 }
	for _, tc := range []struct {
		host   int64
		choice int
		good   func(*Plan) bool
		block  int
	}{
		{0, 0, good, 100},    // unlimited: the fastest
		{4000, 0, good, 90},  // 3100 + 10b ≤ 4000: b = 90, good
		{3500, 1, good, 100}, // 0: b = 40, not good; 1: 1100 + 10b: b = 100
		{1700, 1, good, 60},  // 1: b = 60, good
		{1500, 2, good, 100}, // 1: b = 40; 2: 100 + 10b: b = 100
		{1300, 1, nil, 20},   // no judge: the first that fits
		{1150, 2, good, 100}, // 1 fits only b = 5; 2 holds 100
	} {
		p, err := Choose("t", alts, Budget{Host: tc.host, Margin: 1}, tc.good)
		if err != nil {
			t.Fatalf("host %d: %v", tc.host, err)
		}
		if p.Choice != tc.choice || p.Block() != tc.block {
			t.Errorf("host %d: alternative %d (block %d), want %d (block %d)", tc.host, p.Choice, p.Block(), tc.choice, tc.block)
		}
	}
	_, err := Choose("t", alts, Budget{Host: 50, Margin: 1}, good)
	var ts *TooSmallError
	if !errors.As(err, &ts) {
		t.Fatalf("budget of 50: %v", err)
	}
	// The leanest needs 10 + 100 + 10 at its smallest blocks: "big" binds
	// with 110.
	if ts.Phase != "big" || ts.Need != 110 || ts.Smallest() != 110 {
		t.Errorf("error %+v", ts)
	}
	if p, err := Choose("t", alts, Budget{Host: ts.Smallest(), Margin: 1}, good); err != nil || p.Choice != 2 {
		t.Errorf("at the smallest budget it names: %v", err)
	}

	// The budget with which the fastest is taken, in whole MiB: 30 MiB
	// and blocks of 50 MiB.
	const mib = 1 << 20
	big := func(fixed int64) []Phase {
		return []Phase{{Name: "big", Units: 100, Arrays: []Array{{Name: "b", Where: Host, PerUnit: mib, Fixed: fixed}}}}
	}
	alts = [][]Phase{big(30 * mib), big(0)}
	_, err = Choose("t", alts, Budget{Host: mib / 2, Margin: 1}, good)
	if !errors.As(err, &ts) || ts.Smallest() != mib || ts.Good != 80*mib {
		t.Fatalf("error %v (%+v)", err, ts)
	}
	if !strings.Contains(err.Error(), "the smallest budget that works is 1 MiB (80 MiB runs with every chunk") {
		t.Errorf("message: %v", err)
	}
	for _, tc := range []struct{ host, choice int64 }{{80 * mib, 0}, {80*mib - 1, 1}} {
		p, err := Choose("t", alts, Budget{Host: tc.host, Margin: 1}, good)
		if err != nil {
			t.Fatalf("host %d: %v", tc.host, err)
		}
		if int64(p.Choice) != tc.choice {
			t.Errorf("host %d: alternative %d, want %d", tc.host, p.Choice, tc.choice)
		}
	}
}
