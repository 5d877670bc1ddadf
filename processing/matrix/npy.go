package matrix

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// npyHeader returns the NPY format 1.0 header of a C-order little-endian
// float64 array of the given shape, padded with spaces and a newline so
// that the data start at a multiple of 64 bytes, as numpy.save writes it
// (NEP 1, "A Simple File Format for NumPy Arrays").
func npyHeader(rows, cols int) []byte {
	dict := fmt.Sprintf("{'descr': '<f8', 'fortran_order': False, 'shape': (%d, %d), }", rows, cols)
	const pre = 10 // magic (6), version (2), header length (2)
	pad := 64 - (pre+len(dict)+1)%64
	if pad == 64 {
		pad = 0
	}
	h := dict + strings.Repeat(" ", pad) + "\n"
	out := []byte("\x93NUMPY\x01\x00")
	out = binary.LittleEndian.AppendUint16(out, uint16(len(h)))
	return append(out, h...)
}

// WriteNPY writes a rows x cols row-major float64 matrix as an NPY file
// that numpy.load reads as shape (rows, cols).
func WriteNPY(path string, rows, cols int, v []float64) error {
	if len(v) != rows*cols {
		return fmt.Errorf("write %s: %d values for %d x %d", path, len(v), rows, cols)
	}
	return writeFile(path, func(w *bufio.Writer) error {
		if _, err := w.Write(npyHeader(rows, cols)); err != nil {
			return err
		}
		var b [8]byte
		for _, x := range v {
			binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
			if _, err := w.Write(b[:]); err != nil {
				return err
			}
		}
		return nil
	})
}

// WriteCSV writes the matrix as CSV: one line per row, no header, values
// with the digits that round-trip a float64.
func WriteCSV(path string, rows, cols int, v []float64) error {
	if len(v) != rows*cols {
		return fmt.Errorf("write %s: %d values for %d x %d", path, len(v), rows, cols)
	}
	return writeFile(path, func(w *bufio.Writer) error {
		buf := make([]byte, 0, 32)
		for r := 0; r < rows; r++ {
			for c := 0; c < cols; c++ {
				if c > 0 {
					w.WriteByte(',')
				}
				buf = strconv.AppendFloat(buf[:0], v[r*cols+c], 'g', -1, 64)
				w.Write(buf)
			}
			if err := w.WriteByte('\n'); err != nil {
				return err
			}
		}
		return nil
	})
}

// writeFile creates path, lets fill write it through a buffer, and closes
// it, returning the first error.
func writeFile(path string, fill func(w *bufio.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	err = fill(w)
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
