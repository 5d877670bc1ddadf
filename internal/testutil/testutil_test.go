package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWriteNPY: the bytes numpy.save writes for np.arange(6,
// dtype='<u2').reshape(2, 3) and for np.zeros(2, dtype='<f4').
func TestWriteNPY(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		shape  []int
		values any
		want   string
	}{
		{[]int{2, 3}, []uint16{0, 1, 2, 3, 4, 5},
			"\x93NUMPY\x01\x00v\x00{'descr': '<u2', 'fortran_order': False, 'shape': (2, 3), }" + spaces(58) + "\n" +
				"\x00\x00\x01\x00\x02\x00\x03\x00\x04\x00\x05\x00"},
		{[]int{2}, []float32{0, 0},
			"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }" + spaces(60) + "\n" +
				"\x00\x00\x00\x00\x00\x00\x00\x00"},
	} {
		path := filepath.Join(dir, "a.npy")
		WriteNPY(t, path, tc.shape, tc.values)
		got, _ := os.ReadFile(path)
		if string(got) != tc.want {
			t.Errorf("%v:\n%q\nwant\n%q", tc.shape, got, tc.want)
		}
	}
}

func spaces(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = ' '
	}
	return string(b)
}
