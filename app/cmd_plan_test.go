package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/detect"
	"github.com/voxlab/voxlab/processing/dezing"
)

func TestPlanCommand(t *testing.T) {
	// 16 MiB, 90% usable: input (b+2) + output b MiB ≤ 14.4 → b = 6.
	code, out, errs := runCmd("plan", "fakepipe", "100", "out.h5", "--device-memory", "16MiB")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"fakepipe: blocks of 6 slices (17 blocks over 100 slices, slices phase)",
		"device memory: peak 14 MiB of 14.4 MiB usable (90% of 16 MiB, --device-memory 16MiB)",
		"  device  input       8 MiB\n  device  output      6 MiB\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan output lacks %q:\n%s", want, out)
		}
	}

	// Flags anywhere, --json.
	code, out, errs = runCmd("plan", "fakepipe", "--json", "100", "--kernel=5", "out.h5", "--device-memory=16MiB")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var got struct {
		BlockSlices  int                         `json:"block_slices"`
		PeakDevice   int64                       `json:"peak_device_bytes"`
		DeviceMemory int64                       `json:"device_memory_bytes"`
		HostPinned   *int64                      `json:"host_pinned_bytes"`
		Breakdown    map[string]map[string]int64 `json:"breakdown"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	// kernel 5: halo 2, (b+4) + b ≤ 14.4 → b = 5.
	if got.BlockSlices != 5 || got.PeakDevice != 14<<20 || got.DeviceMemory != 16<<20 || got.HostPinned == nil ||
		got.Breakdown["device"]["input"] != 9<<20 || got.Breakdown["device"]["output"] != 5<<20 {
		t.Errorf("JSON plan %+v from %s", got, out)
	}

	// Default budget: the device's free memory (64 MiB in the fake).
	if code, out, _ = runCmd("plan", "fakepipe", "100", "o", "--json"); code != 0 || !strings.Contains(out, `"device_memory_source": "free memory of fake device"`) {
		t.Errorf("default budget: exit %d\n%s", code, out)
	}

	// A fixed block that does not fit is planned with a warning.
	code, out, _ = runCmd("plan", "fakepipe", "100", "o", "--device-memory", "16MiB", "--batch-size", "50")
	if code != 0 || !strings.Contains(out, "warning: slices: a block of 50 slices needs 102 MiB of device memory, more than the 14.4 MiB usable") {
		t.Errorf("fixed block: exit %d\n%s", code, out)
	}
}

func TestPlanCommandErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		// one slice, its two halo slices and one output slice: 4 MiB
		{[]string{"plan", "fakepipe", "100", "o", "--device-memory", "2MiB"}, 1,
			"voxlab plan: fakepipe: not enough device memory for slices: the smallest block needs 4 MiB, 1.8 MiB is usable of 2 MiB available (--device-memory 2MiB); the smallest budget that works is 5 MiB\n"},
		{[]string{"plan"}, 2, "which pipeline? one of "},
		{[]string{"plan", "nosuch", "x"}, 2, `unknown pipeline "nosuch"`},
		{[]string{"plan", "--json"}, 2, "which pipeline?"},
		{[]string{"plan", "fakepipe", "100", "o", "--nope"}, 2, "flag provided but not defined: -nope"},
		{[]string{"plan", "fakepipe", "100", "o", "--device-memory", "lots"}, 2, "--device-memory"},
		{[]string{"plan", "fakepipe", "many", "o"}, 2, `UNITS "many"`},
	} {
		code, out, errs := runCmd(tc.args...)
		if code != tc.code || !strings.Contains(errs, tc.msg) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit %d and %q", tc.args, code, out, errs, tc.code, tc.msg)
		}
	}
}

func TestPlanHelp(t *testing.T) {
	code, out, _ := runCmd("plan", "--help")
	if code != 0 || !strings.Contains(out, "voxlab plan PIPELINE ARGS...") {
		t.Errorf("plan --help: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd("plan", "fakepipe", "--help")
	if code != 0 || !strings.Contains(out, "voxlab plan fakepipe UNITS OUT") || !strings.Contains(out, "--device-memory") {
		t.Errorf("plan fakepipe --help: exit %d\n%s", code, out)
	}
}

// planJSON runs `voxlab plan ARGS… --json` and returns the plan's
// pipeline name, its phases' units by name, and its warnings.
func planJSON(t *testing.T, args ...string) (name string, units map[string]int, warnings []string) {
	t.Helper()
	stdout := mustRun(t, append(append([]string{"plan"}, args...), "--json", "--backend", "cpu")...)
	var p struct {
		Pipeline string   `json:"pipeline"`
		Warnings []string `json:"warnings"`
		Phases   []struct {
			Name  string `json:"name"`
			Units int    `json:"units"`
		} `json:"phases"`
	}
	if err := json.Unmarshal([]byte(stdout), &p); err != nil {
		t.Fatalf("%v in %s", err, stdout)
	}
	units = map[string]int{}
	for _, ph := range p.Phases {
		units[ph.Name] = ph.Units
	}
	return p.Pipeline, units, p.Warnings
}

// TestPlanTask: `voxlab plan PIPELINE … --task i/N` plans task i's share,
// named as the task: dezing's tasks share the projections and leave the
// darks and flats to the merge; detect's read their centre planes and
// the ball's halo, so neighbours overlap by ball z − 1 planes; distance's
// take whole tiles. A task with nothing to do gets an empty plan that
// says so.
func TestPlanTask(t *testing.T) {
	scan, _ := dezingScan(t)
	_, whole, _ := planJSON(t, "dezing", scan)
	if whole[dezing.StageDarks] == 0 || whole[dezing.StageProjections] == 0 {
		t.Fatalf("the demo scan's plan has phases %v", whole)
	}
	brain, _ := smallBrain(t)
	_, wholeDetect, _ := planJSON(t, "detect", brain, "x.csv")
	gt, sub, _ := distDemo(t)
	distArgs := []string{"distance", gt, sub, "o", "--metrics", "l2", "--chunk-size", "7"}
	ballZ := int(math.Round(detect.DefaultConfig().BallZ / 5)) // the default voxel size's z: 5 µm
	for _, tc := range []struct {
		args  []string
		phase string
		// sum is the units all tasks plan together.
		sum func(n int) int
		// each checks one task's units.
		each func(units int) bool
	}{
		{[]string{"dezing", scan}, dezing.StageProjections,
			func(n int) int { return whole[dezing.StageProjections] }, func(u int) bool { return u > 0 }},
		{[]string{"detect", brain, "x.csv"}, "planes",
			func(n int) int { return wholeDetect["planes"] + (n-1)*(ballZ-1) }, func(u int) bool { return u >= ballZ }},
		{distArgs, "distances", func(n int) int { return 40 }, func(u int) bool { return u%7 == 0 || u%7 == 40%7 }},
	} {
		const n = 3
		sum := 0
		for i := range n {
			task := fmt.Sprintf("%d/%d", i, n)
			name, units, _ := planJSON(t, append(slices.Clone(tc.args), "--task", task)...)
			if want := tc.args[0] + " task " + task; name != want {
				t.Errorf("plan named %q, want %q", name, want)
			}
			if len(units) != 1 && tc.args[0] == "dezing" {
				t.Errorf("dezing task %s plans phases %v: a task dezings only projections", task, units)
			}
			if !tc.each(units[tc.phase]) {
				t.Errorf("%s task %s plans %v", tc.args[0], task, units)
			}
			sum += units[tc.phase]
		}
		if want := tc.sum(n); sum != want {
			t.Errorf("%s: the %d tasks plan %d units of %s together, want %d", tc.args[0], n, sum, tc.phase, want)
		}
		name, units, warn := planJSON(t, append(slices.Clone(tc.args), "--task", "0/500")...)
		if len(units) != 0 || len(warn) != 1 || !strings.Contains(warn[0], "task 0/500 has nothing to do: 500 tasks share") {
			t.Errorf("%s: a task with nothing to do plans %v, warnings %q", name, units, warn)
		}
	}
	code, out, _ := runCmd("plan", "dezing", scan, "--task", "0/500", "--backend", "cpu")
	if code != 0 || !strings.Contains(out, "dezing task 0/500: empty plan\nwarning: task 0/500 has nothing to do") {
		t.Errorf("empty task plan: exit %d\n%s", code, out)
	}
}
