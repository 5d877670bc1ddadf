package d2d

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/volume"
)

// readCost reads a cost matrix: a 2D NPY of float32 or float64 (rows
// ground-truth maps, columns submitted maps), as voxlab distance writes
// each metric's.
func readCost(path string) (cost []float64, rows, cols int, err error) {
	v, err := volume.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer v.Close()
	if v.Shape[0] != 1 {
		return nil, 0, 0, fmt.Errorf("%s: a %d × %d × %d array; a cost matrix is 2D (ground-truth maps × submitted maps)", path, v.Shape[0], v.Shape[1], v.Shape[2])
	}
	rows, cols = v.Shape[1], v.Shape[2]
	b, err := v.ReadAll()
	if err != nil {
		return nil, 0, 0, err
	}
	switch v.DType {
	case volume.Float64:
		cost = slices.Clone(volume.Float64s(b))
	case volume.Float32:
		for _, x := range volume.Float32s(b) {
			cost = append(cost, float64(x))
		}
	default:
		return nil, 0, 0, fmt.Errorf("%s: a matrix of %s; a cost matrix is float32 or float64", path, v.DType)
	}
	for i, x := range cost {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, 0, 0, fmt.Errorf("%s: cost %v at row %d, column %d; costs must be finite", path, x, i/cols, i%cols)
		}
	}
	return cost, rows, cols, nil
}

// readMetadata reads the ground truth's metadata CSV (the challenge's
// metadata.csv): a header naming at least the columns populations and
// pc1, then a row per ground-truth map in the cost matrix's row order.
// Order is the rows sorted by pc1 (stably; the challenge's pandas
// sort_values is not stable, which matters only for equal pc1).
func readMetadata(path string) (Ground, error) {
	f, err := os.Open(path)
	if err != nil {
		return Ground{}, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	head, err := r.Read()
	if err != nil {
		return Ground{}, fmt.Errorf("%s: no header: %w", path, err)
	}
	pi, ci := slices.Index(head, "populations"), slices.Index(head, "pc1")
	if pi < 0 || ci < 0 {
		return Ground{}, fmt.Errorf("%s: the header %q lacks populations or pc1", path, strings.Join(head, ","))
	}
	var g Ground
	var pc1 []float64
	for line := 2; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Ground{}, fmt.Errorf("%s: %w", path, err)
		}
		p, err1 := strconv.ParseFloat(rec[pi], 64)
		c, err2 := strconv.ParseFloat(rec[ci], 64)
		if err := errors.Join(err1, err2); err != nil || p < 0 || math.IsNaN(c) || math.IsInf(p, 0) {
			return Ground{}, fmt.Errorf("%s line %d: populations %q and pc1 %q must be numbers, populations non-negative", path, line, rec[pi], rec[ci])
		}
		g.Populations, pc1 = append(g.Populations, p), append(pc1, c)
	}
	if len(g.Populations) == 0 {
		return Ground{}, fmt.Errorf("%s: no rows after the header", path)
	}
	g.Order = make([]int, len(pc1))
	for i := range g.Order {
		g.Order[i] = i
	}
	slices.SortStableFunc(g.Order, func(a, b int) int { return cmpFloat(pc1[a], pc1[b]) })
	return g, nil
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// readPopulations reads the submitted populations: a text file of
// numbers separated by white space or commas (the challenge's
// populations.txt), or an NPY of one row or column. They must sum to 1
// as the challenge asserts (np.isclose: within 1e-8 + 1e-5).
func readPopulations(path string) ([]float64, error) {
	var pops []float64
	if strings.HasSuffix(strings.ToLower(path), ".npy") {
		v, rows, cols, err := readCost(path)
		if err != nil {
			return nil, err
		}
		if rows != 1 && cols != 1 {
			return nil, fmt.Errorf("%s: a %d × %d array; populations are one row or column", path, rows, cols)
		}
		pops = v
	} else {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		for _, w := range strings.FieldsFunc(string(b), func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' }) {
			x, err := strconv.ParseFloat(w, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q is not a number", path, w)
			}
			pops = append(pops, x)
		}
	}
	sum := 0.0
	for _, x := range pops {
		if x < 0 || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%s: population %v; populations are finite and non-negative", path, x)
		}
		sum += x
	}
	if len(pops) == 0 || math.Abs(sum-1) > 1e-8+1e-5 {
		return nil, fmt.Errorf("%s: %d populations summing to %v; they must sum to 1", path, len(pops), sum)
	}
	return pops, nil
}
