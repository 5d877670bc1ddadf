//go:build ignore

// gen.go writes net.go: the compare-exchange networks
// of the kernel-3 median (k3.go) as straight-line Go, because
// Go does not unroll loops and a network written out by hand is easy to
// get wrong. Run it with `go generate ./processing/zinger` (see doc.go).
//
// Merges are Batcher's odd-even merge (Batcher 1968, "Sorting networks and
// their applications"; Knuth TAOCP 5.3.4) of two lists padded to a power of
// two with +Inf sentinels; comparators that meet a sentinel are resolved
// here, at generation time, and comparators whose outputs no required rank
// depends on are pruned (one-sided min or max where only one output is
// used), as in Adams 2021, "Fast median filters using separable sorting
// networks" (ACM TOG 40(4)). Every network is checked exhaustively on
// 0-1 inputs before it is written (the 0-1 principle holds for any
// network of min and max operations).
package main

import (
	"bytes"
	"fmt"
	"go/format"
	"log"
	"os"
	"strings"
)

// op is one comparator on variables a and b: a gets the minimum and b the
// maximum (kind 'x'), or only a = min(a, b) ('<'), or only b = max(a, b)
// ('>').
type op struct {
	a, b int
	kind byte
}

// network is a merge of two sorted lists A and B held in variables
// 0..m-1 and m..m+n-1; out[r] is the variable holding rank r at the end.
type network struct {
	m, n int
	ops  []op
	out  []int
}

func pow2(n int) int {
	p := 1
	for p < n {
		p *= 2
	}
	return p
}

// batcherMerge returns the comparators (wire pairs) of Batcher's odd-even
// merge of wires lo..hi (inclusive) whose halves are sorted, step r.
func batcherMerge(lo, hi, r int, emit func(i, j int)) {
	step := r * 2
	if step < hi-lo {
		batcherMerge(lo, hi, step, emit)
		batcherMerge(lo+r, hi, step, emit)
		for i := lo + r; i+r < hi; i += step {
			emit(i, i+r)
		}
	} else {
		emit(lo, lo+r)
	}
}

// merge builds the merge network of sorted lists of m and n values.
func merge(m, n int) network {
	p := pow2(max(m, n))
	// wire -> variable, -1 for a +Inf sentinel.
	wire := make([]int, 2*p)
	for i := range wire {
		wire[i] = -1
	}
	for i := 0; i < m; i++ {
		wire[i] = i
	}
	for i := 0; i < n; i++ {
		wire[p+i] = m + i
	}
	nw := network{m: m, n: n}
	batcherMerge(0, 2*p-1, 1, func(i, j int) {
		a, b := wire[i], wire[j]
		switch {
		case a == -1 && b == -1, b == -1:
			// The sentinel already sits on the max wire.
		case a == -1:
			wire[i], wire[j] = b, a
		default:
			nw.ops = append(nw.ops, op{a, b, 'x'})
		}
	})
	for r := 0; r < m+n; r++ {
		nw.out = append(nw.out, wire[r])
	}
	return nw
}

// prune keeps only what ranks [lo, hi) of the output depend on.
func (nw network) prune(lo, hi int) network {
	live := map[int]bool{}
	for r := lo; r < hi; r++ {
		live[nw.out[r]] = true
	}
	var kept []op
	for i := len(nw.ops) - 1; i >= 0; i-- {
		o := nw.ops[i]
		la, lb := live[o.a], live[o.b]
		switch {
		case la && lb:
		case la:
			o.kind = '<'
		case lb:
			o.kind = '>'
		default:
			continue
		}
		live[o.a], live[o.b] = true, true
		kept = append(kept, o)
	}
	for i, j := 0, len(kept)-1; i < j; i, j = i+1, j-1 {
		kept[i], kept[j] = kept[j], kept[i]
	}
	out := make([]int, len(nw.out))
	for r := range out {
		out[r] = -1
		if r >= lo && r < hi {
			out[r] = nw.out[r]
		}
	}
	return network{m: nw.m, n: nw.n, ops: kept, out: out}
}

// check runs the network on every pair of sorted 0-1 lists and compares
// the required ranks with the true merge.
func (nw network) check(name string) {
	for za := 0; za <= nw.m; za++ {
		for zb := 0; zb <= nw.n; zb++ {
			v := make([]int, nw.m+nw.n)
			for i := 0; i < nw.m; i++ {
				if i >= za {
					v[i] = 1
				}
			}
			for i := 0; i < nw.n; i++ {
				if i >= zb {
					v[nw.m+i] = 1
				}
			}
			for _, o := range nw.ops {
				lo, hi := min(v[o.a], v[o.b]), max(v[o.a], v[o.b])
				switch o.kind {
				case 'x':
					v[o.a], v[o.b] = lo, hi
				case '<':
					v[o.a] = lo
				case '>':
					v[o.b] = hi
				}
			}
			zeros := za + zb
			for r, x := range nw.out {
				if x < 0 {
					continue
				}
				want := 0
				if r >= zeros {
					want = 1
				}
				if v[x] != want {
					log.Fatalf("%s: rank %d wrong for %d+%d zeros", name, r, za, zb)
				}
			}
		}
	}
}

// code writes the network on variables named by vars, in place.
func (nw network) code(w *bytes.Buffer, vars []string) {
	for _, o := range nw.ops {
		a, b := vars[o.a], vars[o.b]
		switch o.kind {
		case 'x':
			fmt.Fprintf(w, "%s, %s = min(%s, %s), max(%s, %s)\n", a, b, a, b, a, b)
		case '<':
			fmt.Fprintf(w, "%s = min(%s, %s)\n", a, a, b)
		case '>':
			fmt.Fprintf(w, "%s = max(%s, %s)\n", b, a, b)
		}
	}
}

func names(prefix string, n int) []string {
	s := make([]string, n)
	for i := range s {
		s[i] = fmt.Sprintf("%s%d", prefix, i)
	}
	return s
}

func main() {
	m33 := merge(3, 3)
	m33.check("merge 3+3")
	m63 := merge(6, 3)
	m63.check("merge 6+3")
	// The x stage needs ranks 4..13 of the merge of two sorted 9-lists
	// (see dzSelect in k3.go).
	m99 := merge(9, 9).prune(4, 14)
	m99.check("merge 9+9, ranks 4..13")

	var w bytes.Buffer
	w.WriteString("// Code generated by gen.go; DO NOT EDIT.\n\npackage zinger\n\n")
	fmt.Fprintf(&w, "// Comparators: merge 3+3: %d, merge 6+3: %d, merge 9+9 pruned to ranks 4..13: %d.\n\n",
		len(m33.ops), len(m63.ops), len(m99.ops))

	// dzMergeRowPair: sorted 9-lists (y stage) of two output rows at once.
	w.WriteString(`// dzMergeRowPair writes, for every padded column x of two consecutive
// output rows y and y+1, the sorted 9 values of the z-sorted triples of
// rows y-1..y+1 (to s9a) and y..y+2 (to s9b). zm, z0, z1, z2 hold the
// z-sorted triples of rows y-1, y, y+1 and y+2; rows y and y+1 are merged
// once for both outputs.
func dzMergeRowPair[T Key](s9a, s9b, zm, z0, z1, z2 []T, w int) {
	for x := 0; x < w; x++ {
		m := zm[3*x : 3*x+3 : 3*x+3]
		a := z0[3*x : 3*x+3 : 3*x+3]
		b := z1[3*x : 3*x+3 : 3*x+3]
		c := z2[3*x : 3*x+3 : 3*x+3]
		p0, p1, p2, p3, p4, p5 := a[0], a[1], a[2], b[0], b[1], b[2]
`)
	m33.code(&w, names("p", 6))
	// Outputs of m33 in rank order become the first six variables of m63.
	perm := func(out []int, prefix string) []string {
		s := make([]string, len(out))
		for r, v := range out {
			s[r] = fmt.Sprintf("%s%d", prefix, v)
		}
		return s
	}
	ps := perm(m33.out, "p")
	for _, side := range []struct{ v, src, dst string }{{"u", "m", "s9a"}, {"v", "c", "s9b"}} {
		vars := names(side.v, 9)
		fmt.Fprintf(&w, "%s := %s, %s[0], %s[1], %s[2]\n", strings.Join(vars, ", "), strings.Join(ps, ", "), side.src, side.src, side.src)
		m63.code(&w, vars)
		fmt.Fprintf(&w, "o%s := %s[9*x : 9*x+9 : 9*x+9]\n", side.v, side.dst)
		for r, v := range m63.out {
			fmt.Fprintf(&w, "o%s[%d] = %s\n", side.v, r, vars[v])
		}
	}
	w.WriteString("}\n}\n\n")

	w.WriteString(`// dzMergeRow is dzMergeRowPair for one output row y: zm, z0, z1 hold the
// triples of rows y-1, y, y+1.
func dzMergeRow[T Key](s9, zm, z0, z1 []T, w int) {
	for x := 0; x < w; x++ {
		m := zm[3*x : 3*x+3 : 3*x+3]
		a := z0[3*x : 3*x+3 : 3*x+3]
		b := z1[3*x : 3*x+3 : 3*x+3]
		p0, p1, p2, p3, p4, p5 := a[0], a[1], a[2], b[0], b[1], b[2]
`)
	m33.code(&w, names("p", 6))
	vars := names("u", 9)
	fmt.Fprintf(&w, "%s := %s, m[0], m[1], m[2]\n", strings.Join(vars, ", "), strings.Join(ps, ", "))
	m63.code(&w, vars)
	w.WriteString("o := s9[9*x : 9*x+9 : 9*x+9]\n")
	for r, v := range m63.out {
		fmt.Fprintf(&w, "o[%d] = %s\n", r, vars[v])
	}
	w.WriteString("}\n}\n\n")

	// dzMedianRow: x stage.
	var q []string
	for r := 4; r < 14; r++ {
		q = append(q, fmt.Sprintf("a%d", m99.out[r]))
	}
	w.WriteString(`// dzMedianRow writes the median of 27 for each of the n columns of a row
// to med, from the sorted 9-lists of the padded columns in s9 (column x
// of the row is padded column x+1). Columns x and x+1 share the merge of
// their middle lists, of which only ranks 4..13 are needed (dzSelect).
func dzMedianRow[T Key](med, s9 []T, n int) {
	x := 0
	for ; x < n; x += 2 {
		a := s9[9*(x+1) : 9*(x+1)+18 : 9*(x+1)+18]
		l := s9[9*x : 9*x+9 : 9*x+9]
		a0, a1, a2, a3, a4, a5, a6, a7, a8 := a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8]
		a9, a10, a11, a12, a13, a14, a15, a16, a17 := a[9], a[10], a[11], a[12], a[13], a[14], a[15], a[16], a[17]
`)
	m99.code(&w, names("a", 18))
	fmt.Fprintf(&w, "med[x] = dzSelect(%s, l[8], l[7], l[6], l[5], l[4], l[3], l[2], l[1], l[0])\n", strings.Join(q, ", "))
	w.WriteString(`if x+1 < n {
			r := s9[9*(x+3) : 9*(x+3)+9 : 9*(x+3)+9]
`)
	fmt.Fprintf(&w, "med[x+1] = dzSelect(%s, r[8], r[7], r[6], r[5], r[4], r[3], r[2], r[1], r[0])\n", strings.Join(q, ", "))
	w.WriteString("}\n}\n}\n")

	// dzVoxel27: one voxel's median, for the few voxels the bound does
	// not settle.
	w.WriteString(`// dzVoxel27 returns the median of 27 of the voxel at padded column p of
// a row, from the z-sorted triples of the rows above (zm), at (z0) and
// below (z1): the sorted 9-lists of columns p-1, p and p+1 as in
// dzMergeRow, then the selection of dzMedianRow.
func dzVoxel27[T Key](zm, z0, z1 []T, p int) T {
	var s [27]T
	q := 3 * (p - 1)
	dzMergeRow(s[:], zm[q:], z0[q:], z1[q:], 3)
`)
	w.WriteString(`	a0, a1, a2, a3, a4, a5, a6, a7, a8 := s[9], s[10], s[11], s[12], s[13], s[14], s[15], s[16], s[17]
	a9, a10, a11, a12, a13, a14, a15, a16, a17 := s[18], s[19], s[20], s[21], s[22], s[23], s[24], s[25], s[26]
`)
	m99.code(&w, names("a", 18))
	fmt.Fprintf(&w, "return dzSelect(%s, s[8], s[7], s[6], s[5], s[4], s[3], s[2], s[1], s[0])\n}\n", strings.Join(q, ", "))

	src, err := format.Source(w.Bytes())
	if err != nil {
		log.Fatalf("format: %v\n%s", err, w.Bytes())
	}
	if err := os.WriteFile("net.go", src, 0o644); err != nil {
		log.Fatal(err)
	}
}
