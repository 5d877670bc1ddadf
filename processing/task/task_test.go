package task

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Task
	}{{"0/1", Whole}, {"3/4", Task{3, 4}}, {" 2/10 ", Task{2, 10}}} {
		got, err := Parse(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("Parse(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if tc.in == "3/4" && got.String() != "3/4" {
			t.Errorf("String() = %q", got.String())
		}
	}
	for _, bad := range []string{"", "1", "4/4", "-1/4", "0/0", "a/b", "1/2/3", "1/ 2x"} {
		if got, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", bad, got)
		}
	}
}

// The ranges of all tasks cover every unit exactly once, in order, with
// sizes that differ by at most one.
func TestTaskRange(t *testing.T) {
	for n := 0; n <= 40; n++ {
		for count := 1; count <= 12; count++ {
			next := 0
			smallest, largest := n, 0
			for i := range count {
				lo, hi := Task{i, count}.Range(n)
				if lo != next || hi < lo {
					t.Fatalf("n=%d, %d tasks: task %d has [%d,%d), expected to start at %d", n, count, i, lo, hi, next)
				}
				next = hi
				smallest, largest = min(smallest, hi-lo), max(largest, hi-lo)
			}
			if next != n || largest-smallest > 1 {
				t.Fatalf("n=%d, %d tasks: cover %d units, sizes %d..%d", n, count, next, smallest, largest)
			}
		}
	}
	if lo, hi := (Task{3, 4}).Range(1 << 40); lo != 3<<38 || hi != 1<<40 {
		t.Errorf("large n: [%d,%d)", lo, hi)
	}
}
