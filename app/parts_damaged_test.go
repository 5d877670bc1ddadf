package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/cluster"
)

// flipDigit changes the first ASCII digit at or after the middle of b's
// payload (after the header's two lines) to another digit: a change that
// keeps a JSON payload (detect's) well-formed and a binary one (dezing's
// projections, distance's matrices) the same length, so only a checksum
// can tell.
func flipDigit(t *testing.T, b []byte) []byte {
	t.Helper()
	start := bytes.IndexByte(b[bytes.IndexByte(b, '\n')+1:], '\n') + bytes.IndexByte(b, '\n') + 2
	for i := start + (len(b)-start)/2; i < len(b); i++ {
		if b[i] >= '0' && b[i] <= '9' {
			b[i] = '0' + (b[i]-'0'+1)%10
			return b
		}
	}
	t.Fatal("no digit in the second half of the part")
	return nil
}

// zeroBytes zeroes 2048 bytes in the middle of b's payload, as a disk
// that lost a block would.
func zeroBytes(t *testing.T, b []byte) []byte {
	t.Helper()
	mid := len(b) / 2
	if mid < 2048 {
		t.Fatalf("part of %d bytes is too small to zero 2048 of", len(b))
	}
	n := 0
	for i := mid - 1024; i < mid+1024; i++ {
		if b[i] != 0 {
			n++
		}
		b[i] = 0
	}
	if n == 0 {
		t.Fatal("the zeroed bytes were zero already")
	}
	return b
}

// TestMergeRefusesDamagedParts: a merge of tasks whose part has a changed
// digit or 2048 zeroed bytes fails, naming the part and its task and
// saying how to run it again, and writes no output; for every pipeline
// that splits (each has its own payload: dezing's projections, detect's
// JSON, distance's matrices behind a JSON line).
func TestMergeRefusesDamagedParts(t *testing.T) {
	t.Setenv(cluster.EnvShared, "")
	scan, _ := dezingScan(t)
	brain, _ := smallBrain(t)
	gt, sub, mask := distDemo(t)
	dir := t.TempDir()
	cpu := []string{"--backend", "cpu", "--quiet"}
	for _, tc := range []struct {
		pipeline string
		args     []string
		out      string
		damage   map[string]func(*testing.T, []byte) []byte
	}{
		{"dezing", []string{scan, filepath.Join(dir, "d.h5")}, filepath.Join(dir, "d.h5"),
			map[string]func(*testing.T, []byte) []byte{"digit": flipDigit, "zeroed": zeroBytes}},
		{"detect", []string{brain, filepath.Join(dir, "cells.csv")}, filepath.Join(dir, "cells.csv"),
			map[string]func(*testing.T, []byte) []byte{"digit": flipDigit}},
		{"distance", []string{gt, sub, filepath.Join(dir, "dist"), "--mask", mask, "--chunk-size", "10"}, filepath.Join(dir, "dist"),
			map[string]func(*testing.T, []byte) []byte{"digit": flipDigit, "zeroed": zeroBytes}},
	} {
		for name, damage := range tc.damage {
			args := append(append([]string{}, tc.args...), cpu...)
			for i := range 2 {
				mustRun(t, append([]string{tc.pipeline, "--task", fmt.Sprintf("%d/2", i)}, args...)...)
			}
			part := cluster.PartPath(cluster.PartsDir(tc.out), tc.pipeline, cluster.Task{Index: 1, Count: 2})
			if err := os.WriteFile(part, damage(t, fileBytes(t, part)), 0o644); err != nil {
				t.Fatal(err)
			}
			code, _, stderr := runCmd(append([]string{"merge", tc.pipeline, "--tasks", "2"}, args...)...)
			if code != 1 {
				t.Errorf("%s, %s part: merge exit %d, want 1: %s", tc.pipeline, name, code, stderr)
			}
			for _, want := range []string{part, "task 1/2", "--task 1/2", "--resubmit 1", "damaged"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("%s, %s part: the error does not say %q: %s", tc.pipeline, name, want, stderr)
				}
			}
			if _, err := os.Stat(tc.out); !os.IsNotExist(err) {
				t.Errorf("%s, %s part: the refused merge wrote %s (%v)", tc.pipeline, name, tc.out, err)
			}
			os.RemoveAll(tc.out)
			os.RemoveAll(cluster.PartsDir(tc.out))
		}
	}
}
