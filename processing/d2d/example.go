package d2d

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/voxlab/voxlab/processing/matrix"
)

// example writes a small input for Spec.Example: the cost matrix of 12
// ground-truth maps along a path (t = i/11) against 4 submitted maps
// (s = j/3), cost (t−s)² plus a little that varies by map; the ground
// truth's metadata with pc1 = t, its rows in an order that is not pc1's;
// and the submitted populations. The run takes 3 replicates of windows
// of 2 maps.
func example(dir string) ([]string, error) {
	const m, n = 12, 4
	perm := []int{3, 7, 0, 11, 5, 9, 1, 4, 10, 2, 8, 6} // row i is map perm[i] along the path
	cost := make([]float64, m*n)
	var meta strings.Builder
	meta.WriteString("index,volumes,pc1,populations\n")
	total := 0.0
	for i := range m {
		total += float64(1 + perm[i]%3)
	}
	for i, p := range perm {
		t := float64(p) / (m - 1)
		for j := range n {
			s := float64(j) / (n - 1)
			cost[i*n+j] = (t-s)*(t-s) + 0.001*float64((i*7+j*3)%5)
		}
		fmt.Fprintf(&meta, "%d,%05d.mrc,%g,%.17g\n", i, p, t*100-50, float64(1+p%3)/total)
	}
	costPath, metaPath, popPath := filepath.Join(dir, "cost.npy"), filepath.Join(dir, "metadata.csv"), filepath.Join(dir, "populations.txt")
	if err := matrix.WriteNPY(costPath, m, n, cost); err != nil {
		return nil, err
	}
	if err := os.WriteFile(metaPath, []byte(meta.String()), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(popPath, []byte("0.1\n0.4\n0.3\n0.2\n"), 0o644); err != nil {
		return nil, err
	}
	return []string{costPath, filepath.Join(dir, "d2d"), "--metadata", metaPath, "--populations", popPath,
		"--replicates", "3", "--pool", "2"}, nil
}
