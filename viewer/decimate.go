package viewer

import (
	"fmt"

	"github.com/voxlab/voxlab/internal/bytesize"
	"github.com/voxlab/voxlab/processing/volume"
)

// A plane larger than planeBudget (a 65536² mosaic, 8 GiB; a bogus
// pyramid level of terabytes) is never allocated whole: it is read
// decimated to the screen, every s-th row and column (nearest
// neighbour, as the viewer draws), s the smallest stride that brings
// both sides to maxDecimatedSide. Rows are read through the source's
// volume.BoxReader one at a time, in pieces of at most pieceBytes, so
// that the memory a read holds is the decimated plane and one piece.
// The plane records the stride as a pyramid level's factors (fy, fx),
// so it is drawn, and its values read, at level-0 coordinates. A source
// that cannot read part of a plane is refused with the file and the
// sizes, never read whole.

// maxDecimatedSide bounds each side of a decimated plane: more than any
// screen shows (a 4K display is 3840 wide), at most 128 MiB of float64.
const maxDecimatedSide = 4096

// pieceBytes bounds one ReadBox of a decimated read.
const pieceBytes = 16 << 20

// decimation returns the stride a rows x cols plane of es-byte voxels is
// read at: 1 when it fits planeBudget.
func decimation(rows, cols, es int) int {
	if int64(rows)*int64(cols)*int64(es) <= planeBudget {
		return 1
	}
	return max((rows+maxDecimatedSide-1)/maxDecimatedSide, (cols+maxDecimatedSide-1)/maxDecimatedSide, 2)
}

// errWhole says that v's planes are too large to read whole and its
// format cannot read part of one.
func errWhole(v *volume.Volume) error {
	return fmt.Errorf("%s: a plane of %d x %d %s (%s) is larger than the viewer reads at once (%s), and this file's format cannot read part of a plane: open a pyramid level or a crop of it",
		v.Name, v.Shape[1], v.Shape[2], v.DType, bytesize.Format(v.PlaneBytes()), bytesize.Format(planeBudget))
}

// readDecimatedZ reads z plane idx of v at stride s.
func readDecimatedZ(v *volume.Volume, idx, s int, step stepFunc) (*plane, error) {
	br, ok := v.Source().(volume.BoxReader)
	if !ok {
		return nil, errWhole(v)
	}
	ny, nx, es := v.Shape[1], v.Shape[2], v.DType.Size()
	p := &plane{dtype: v.DType, rows: (ny + s - 1) / s, cols: (nx + s - 1) / s, fy: float64(s), fx: float64(s)}
	p.data = make([]byte, p.rows*p.cols*es)
	if step == nil {
		step = func(int64, int64) error { return nil }
	}
	line := decimatedLine{br: br, in: v.Info, s: s}
	total := int64(p.rows) * int64(nx) * int64(es)
	for r := range p.rows {
		b := volume.Box{Z0: idx, Z1: idx + 1, Y0: r * s, Y1: r*s + 1, X0: 0, X1: nx}
		if err := line.read(p.data[r*p.cols*es:(r+1)*p.cols*es], b, 2); err != nil {
			return nil, fmt.Errorf("read z slice %d of %s (every %dth row and column): %w", idx, v.Name, s, err)
		}
		if err := step(int64(r+1)*int64(nx)*int64(es), total); err != nil {
			return nil, err
		}
	}
	p.stats = computeStats(p)
	return p, nil
}

// readDecimatedSide reads the y or x slice idx of planes [z0, z1) of v at
// stride s along z and along the slice (s may be 1 when only the planes
// are too large for readSideSlabs, which reads them whole).
func readDecimatedSide(v *volume.Volume, br volume.BoxReader, axis Axis, idx, z0, z1, s int, step stepFunc) (*plane, error) {
	if br == nil {
		return nil, errWhole(v)
	}
	_, colAx := axis.DisplayAxes()
	n, es := v.Shape[colAx], v.DType.Size()
	p := &plane{dtype: v.DType, rows: (z1 - z0 + s - 1) / s, cols: (n + s - 1) / s}
	if s > 1 {
		p.fy, p.fx = float64(s), float64(s)
	}
	p.data = make([]byte, p.rows*p.cols*es)
	line := decimatedLine{br: br, in: v.Info, s: s}
	total := int64(p.rows) * int64(n) * int64(es)
	for r := range p.rows {
		z := z0 + r*s
		b := sideBox(v.Info, axis, idx, z, z+1)
		if err := line.read(p.data[r*p.cols*es:(r+1)*p.cols*es], b, colAx); err != nil {
			return nil, fmt.Errorf("read %s slice %d of %s (plane %d): %w", axis, idx, v.Name, z, err)
		}
		if err := step(int64(r+1)*int64(n)*int64(es), total); err != nil {
			return nil, err
		}
	}
	p.stats = computeStats(p)
	return p, nil
}

// decimatedLine reads one line of a volume (a box one voxel thick but
// along one axis) in pieces, keeping every s-th voxel.
type decimatedLine struct {
	br  volume.BoxReader
	in  volume.Info
	s   int
	buf []byte
}

// read reads box b, a line along axis ax (1: y, 2: x), into dst, one
// element per s voxels from its start.
func (d *decimatedLine) read(dst []byte, b volume.Box, ax int) error {
	es := d.in.DType.Size()
	lo, hi := b.Y0, b.Y1
	if ax == 2 {
		lo, hi = b.X0, b.X1
	}
	// A whole number of strides per piece, so that every piece starts on
	// a kept voxel.
	per := max(pieceBytes/es/d.s, 1) * d.s
	if len(d.buf) < min(per, hi-lo)*es {
		d.buf = make([]byte, min(per, hi-lo)*es)
	}
	j := 0
	for a := lo; a < hi; a += per {
		c := min(a+per, hi)
		pb := b
		if ax == 2 {
			pb.X0, pb.X1 = a, c
		} else {
			pb.Y0, pb.Y1 = a, c
		}
		buf := d.buf[:(c-a)*es]
		if err := d.br.ReadBox(pb, buf); err != nil {
			return err
		}
		for i := 0; i < c-a; i += d.s {
			copy(dst[j*es:(j+1)*es], buf[i*es:(i+1)*es])
			j++
		}
	}
	return nil
}
