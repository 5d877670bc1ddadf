package convert

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/volume"
)

// parseBox reads --box "z0:z1,y0:y1,x0:x1" against a volume's shape; an
// empty bound is the axis' start or end ("100:200,:,:"), "" the whole
// volume.
func parseBox(s string, shape [3]int) (volume.Box, error) {
	b := volume.Box{Z1: shape[0], Y1: shape[1], X1: shape[2]}
	if strings.TrimSpace(s) == "" {
		return b, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return b, fmt.Errorf("--box %q: want z0:z1,y0:y1,x0:x1", s)
	}
	lo := []*int{&b.Z0, &b.Y0, &b.X0}
	hi := []*int{&b.Z1, &b.Y1, &b.X1}
	for d, p := range parts {
		a, c, ok := strings.Cut(strings.TrimSpace(p), ":")
		if !ok {
			return b, fmt.Errorf("--box %q: axis %c is %q, want START:END", s, "zyx"[d], p)
		}
		for _, e := range []struct {
			text string
			dst  *int
		}{{a, lo[d]}, {c, hi[d]}} {
			if e.text == "" {
				continue
			}
			n, err := strconv.Atoi(strings.TrimSpace(e.text))
			if err != nil {
				return b, fmt.Errorf("--box %q: axis %c: %q is not a whole number", s, "zyx"[d], e.text)
			}
			*e.dst = n
		}
		if *lo[d] < 0 || *hi[d] > shape[d] || *lo[d] >= *hi[d] {
			return b, fmt.Errorf("--box %q: axis %c: [%d, %d) is empty or outside the input's [0, %d)", s, "zyx"[d], *lo[d], *hi[d], shape[d])
		}
	}
	return b, nil
}

// parseShape reads "z,y,x" (chunks, shards); "" and "auto" are zeros.
func parseShape(flag, s string) ([3]int, error) {
	var out [3]int
	if s == "" || s == "auto" {
		return out, nil
	}
	parts := strings.Split(s, ",")
	if len(parts) != 3 {
		return out, fmt.Errorf("--%s %q: want z,y,x", flag, s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n <= 0 {
			return out, fmt.Errorf("--%s %q: %q is not a positive whole number", flag, s, p)
		}
		out[i] = n
	}
	return out, nil
}
