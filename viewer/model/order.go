package model

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/voxlab/voxlab/processing/points"
)

// A points file with a probability column (voxlab classify's CSV:
// z,y,x,type,probability, the probability of the cell class) is reviewed
// in the order a classifier's mistakes are likeliest found: the
// non-cells first, the most probable cell first, then the cells, the
// least probable first; points without a probability (a classifier's
// unknown: its cube left the volume) are shown as unknown and come last.
// The walk follows that order instead of plane order.

// ReadProbabilities reads the probability column of a CSV points file, one
// value per point as points.ReadCSV reads them (NaN where empty); nil
// when the file is not a CSV or has no such column.
func ReadProbabilities(path string) []float64 {
	if !strings.EqualFold(pathExt(path), ".csv") {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	r := csv.NewReader(bufio.NewReader(f))
	r.FieldsPerRecord, r.Comment, r.ReuseRecord = -1, '#', true
	rec, err := r.Read()
	if err != nil {
		return nil
	}
	col := slices.IndexFunc(rec, func(h string) bool { return strings.EqualFold(strings.TrimSpace(h), "probability") })
	if col < 0 {
		return nil
	}
	var ps []float64
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return ps
		}
		if err != nil {
			return nil
		}
		p := math.NaN()
		if col < len(rec) {
			if v, err := strconv.ParseFloat(strings.TrimSpace(rec[col]), 64); err == nil {
				p = v
			}
		}
		ps = append(ps, p)
	}
}

func pathExt(p string) string {
	if i := strings.LastIndexByte(p, '.'); i >= 0 && !strings.ContainsRune(p[i:], '/') {
		return p[i:]
	}
	return ""
}

// ReviewOrder returns the order the walk visits points of classes cls
// with cell probabilities p (NaN: none): non-cells by probability
// falling, cells by probability rising, then the rest in input order.
func ReviewOrder(cls []points.Class, p []float64) []int {
	order := make([]int, len(cls))
	for i := range order {
		order[i] = i
	}
	rank := func(i int) (int, float64) {
		switch {
		case math.IsNaN(p[i]):
			return 2, 0
		case cls[i] == points.NonCell:
			return 0, -p[i]
		case cls[i] == points.Cell:
			return 1, p[i]
		}
		return 2, 0
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ga, ka := rank(a)
		gb, kb := rank(b)
		if ga != gb {
			return ga - gb
		}
		switch {
		case ka < kb:
			return -1
		case ka > kb:
			return 1
		}
		return 0
	})
	return order
}

// ReviewOf takes the probabilities ps of points pts (as read): the
// points without one become unknown; it returns the walk's order and the
// probabilities, or nil, nil (plane order) when ps is not one per point.
func ReviewOf(ps []float64, pts []Point) (order []int32, prob []float64) {
	if ps == nil || len(ps) != len(pts) {
		return nil, nil
	}
	cls := make([]points.Class, len(pts))
	for i := range pts {
		if math.IsNaN(ps[i]) {
			pts[i].Type = points.TypeUnknown
		}
		cls[i] = points.ClassOf(pts[i].Type)
	}
	o := ReviewOrder(cls, ps)
	order = make([]int32, len(o))
	for i, k := range o {
		order[i] = int32(k)
	}
	return order, ps
}

// SetReviewOrder makes the curation walk visit the layer's points in
// order (indices of points; points added later, and dead ones, are
// skipped); nil restores plane order.
func (m *PointSet) SetReviewOrder(order []int32) { m.reviewOrder = order }

// HasReviewOrder reports whether the walk follows a review order rather
// than plane order.
func (m *PointSet) HasReviewOrder() bool { return m.reviewOrder != nil }

// nextInReviewOrder is nextInPlaneOrder on a layer with a review order:
// the next (dir > 0) or previous point of the walk target after the one
// the walk stands on; -1 when there is none.
func (pl *PointSet) nextInReviewOrder(walk, dir int) int32 {
	s := &pl.s
	s.mu.RLock()
	pos := -1
	if pl.walkAt >= 0 {
		pos = slices.Index(pl.reviewOrder, pl.walkAt)
	}
	if pos < 0 && dir < 0 {
		pos = len(pl.reviewOrder)
	}
	step := 1
	if dir < 0 {
		step = -1
	}
	found := int32(-1)
	for k := pos + step; k >= 0 && k < len(pl.reviewOrder); k += step {
		i := pl.reviewOrder[k]
		if int(i) >= len(s.pts) || s.dead[i] {
			continue
		}
		if pl.walkMatch(walk, i) {
			found = i
			break
		}
	}
	s.mu.RUnlock()
	return found
}
