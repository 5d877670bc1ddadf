package volume

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// The PackBits example of Apple's Technical Note TN1023, with a −128
// no-op byte added (decoders must skip it).
func TestUnpackBits(t *testing.T) {
	packed := []byte{0xFE, 0xAA, 0x02, 0x80, 0x00, 0x2A, 0x80, 0xFD, 0xAA, 0x03, 0x80, 0x00, 0x2A, 0x22, 0xF7, 0xAA}
	want := []byte{0xAA, 0xAA, 0xAA, 0x80, 0x00, 0x2A, 0xAA, 0xAA, 0xAA, 0xAA, 0x80, 0x00, 0x2A, 0x22,
		0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA, 0xAA}
	got := make([]byte, len(want))
	if err := unpackBits(got, packed); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got % X\nwant % X", got, want)
	}
	for _, bad := range [][]byte{
		packed[:len(packed)-1], // the last run's byte is missing
		packed[:5],             // a literal run cut short
	} {
		if err := unpackBits(make([]byte, len(want)), bad); err == nil {
			t.Errorf("% X: no error", bad)
		}
	}
	if err := unpackBits(make([]byte, 4), packed); err == nil {
		t.Error("a strip decoding to more bytes than its rows: no error")
	}
}

func TestUndoHorizontalDiff(t *testing.T) {
	// Two rows of three uint16 samples stored as differences (mod 2^16).
	diffs := []uint16{10, 5, 0xFFFF, 7, 1, 2}
	b := make([]byte, 2*len(diffs))
	for i, d := range diffs {
		binary.NativeEndian.PutUint16(b[2*i:], d)
	}
	undoHorizontalDiff(b, 3, 2, 1)
	want := []uint16{10, 15, 14, 7, 8, 10}
	for i, w := range want {
		if got := binary.NativeEndian.Uint16(b[2*i:]); got != w {
			t.Fatalf("sample %d: %d, want %d", i, got, w)
		}
	}
}
