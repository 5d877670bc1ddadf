package volume

import (
	"fmt"
	"sort"
	"strings"
)

// Subset returns a Source whose plane i is plane frames[i] of src: the
// projections of a NeXus scan picked out by image_key, one map of a stack.
// A slab read takes each run of consecutive ascending frames with a single
// src.ReadSlab, so interleaved flats cost one read per run, not per frame.
// The subset does not own src: its Close does nothing.
func Subset(src Source, frames []int) (Source, error) {
	in := src.Info()
	for i, f := range frames {
		if f < 0 || f >= in.Shape[0] {
			return nil, fmt.Errorf("subset: frame %d (entry %d) outside [0,%d)", f, i, in.Shape[0])
		}
	}
	if len(frames) == 0 {
		return nil, fmt.Errorf("subset: no frames")
	}
	info := in
	info.Shape[0] = len(frames)
	return &subset{info: info, src: src, frames: append([]int(nil), frames...)}, nil
}

type subset struct {
	info   Info
	src    Source
	frames []int
}

func (s *subset) Info() Info { return s.info }

// Frames returns the parent frame of each plane.
func (s *subset) Frames() []int { return s.frames }

func (s *subset) ReadSlab(z0, z1 int, dst []byte) error {
	if err := CheckSlab(s.info, z0, z1, len(dst)); err != nil {
		return err
	}
	pb := s.info.PlaneBytes()
	for i := z0; i < z1; {
		j := i + 1
		for j < z1 && s.frames[j] == s.frames[j-1]+1 {
			j++
		}
		part := dst[int64(i-z0)*pb : int64(j-z0)*pb]
		if err := s.src.ReadSlab(s.frames[i], s.frames[j-1]+1, part); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// ReadBox reads a box of the subset's planes, each run of consecutive
// frames with one read of the parent's box when the parent is a
// BoxReader, else plane by plane through ReadSlab (cropped here).
func (s *subset) ReadBox(b Box, dst []byte) error {
	if err := CheckBox(s.info, b, len(dst)); err != nil {
		return err
	}
	br, ok := s.src.(BoxReader)
	pb := int64(b.Y1-b.Y0) * int64(b.X1-b.X0) * int64(s.info.DType.Size())
	var plane []byte
	for i := b.Z0; i < b.Z1; {
		j := i + 1
		for ok && j < b.Z1 && s.frames[j] == s.frames[j-1]+1 {
			j++
		}
		part := dst[int64(i-b.Z0)*pb : int64(j-b.Z0)*pb]
		if ok {
			pbox := b
			pbox.Z0, pbox.Z1 = s.frames[i], s.frames[j-1]+1
			if err := br.ReadBox(pbox, part); err != nil {
				return err
			}
		} else {
			if plane == nil {
				plane = make([]byte, s.info.PlaneBytes())
			}
			if err := s.src.ReadSlab(s.frames[i], s.frames[i]+1, plane); err != nil {
				return err
			}
			cropPlane(part, plane, s.info, b)
		}
		i = j
	}
	return nil
}

// cropPlane copies rows [b.Y0, b.Y1) and columns [b.X0, b.X1) of one
// whole plane of a volume described by in into dst.
func cropPlane(dst, plane []byte, in Info, b Box) {
	es := in.DType.Size()
	row := (b.X1 - b.X0) * es
	for y := b.Y0; y < b.Y1; y++ {
		off := (y*in.Shape[2] + b.X0) * es
		copy(dst[(y-b.Y0)*row:(y-b.Y0+1)*row], plane[off:off+row])
	}
}

// base is the parent: its reader (and cache) serves the subset's reads.
func (s *subset) base() Source { return s.src }

func (s *subset) Close() error { return nil }

// SortNatural sorts names so that runs of digits compare by value:
// plane2 < plane10 < plane100. Names that differ only in leading zeros
// keep a stable order.
func SortNatural(names []string) {
	sort.SliceStable(names, func(i, j int) bool { return naturalLess(names[i], names[j]) })
}

func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := isDigit(a[0]), isDigit(b[0])
		if da && db {
			na, ra := digitRun(a)
			nb, rb := digitRun(b)
			ta, tb := strings.TrimLeft(na, "0"), strings.TrimLeft(nb, "0")
			if len(ta) != len(tb) {
				return len(ta) < len(tb)
			}
			if ta != tb {
				return ta < tb
			}
			a, b = ra, rb
			continue
		}
		if a[0] != b[0] {
			return lowerByte(a[0]) < lowerByte(b[0]) || (lowerByte(a[0]) == lowerByte(b[0]) && a[0] < b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func digitRun(s string) (string, string) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
