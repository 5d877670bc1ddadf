package h5

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// shuffleNaive is bitshuffle's transpose of one block written bit by bit
// from the format's definition (bit k of byte j of element i goes to row
// 8j+k, bit i of the row, little bit order): the reference the C
// decoder's unshuffle must invert.
func shuffleNaive(block []byte, elem int) []byte {
	n := len(block) / elem
	out := make([]byte, len(block))
	for i := 0; i < n; i++ {
		for j := 0; j < elem; j++ {
			for k := 0; k < 8; k++ {
				if block[i*elem+j]>>k&1 == 1 {
					bit := (8*j+k)*n + i
					out[bit/8] |= 1 << (bit % 8)
				}
			}
		}
	}
	return out
}

// lz4Literals encodes b as one LZ4 block of literals only (a valid block
// by the LZ4 block format: a last sequence has no match).
func lz4Literals(b []byte) []byte {
	var out []byte
	n := len(b)
	if n < 15 {
		out = append(out, byte(n<<4))
	} else {
		out = append(out, 0xf0)
		for r := n - 15; ; r -= 255 {
			if r < 255 {
				out = append(out, byte(r))
				break
			}
			out = append(out, 255)
		}
	}
	return append(out, b...)
}

// encodeBitshuffle frames data as bitshuffle's filter does (see
// bitshuffle.c), with literal-only LZ4 blocks when lz4.
func encodeBitshuffle(data []byte, elem, block int, lz4 bool) []byte {
	n := len(data) / elem
	var out []byte
	if lz4 {
		out = binary.BigEndian.AppendUint64(out, uint64(len(data)))
		out = binary.BigEndian.AppendUint32(out, uint32(block*elem))
	}
	pos := 0
	for rest := n; rest >= 8; {
		m := min(block, rest/8*8)
		sh := shuffleNaive(data[pos:pos+m*elem], elem)
		if lz4 {
			c := lz4Literals(sh)
			out = binary.BigEndian.AppendUint32(out, uint32(len(c)))
			out = append(out, c...)
		} else {
			out = append(out, sh...)
		}
		pos += m * elem
		rest -= m
	}
	return append(out, data[pos:]...)
}

func pseudo(n int) []byte {
	b := make([]byte, n)
	x := uint32(12345)
	for i := range b {
		x = x*1664525 + 1013904223
		b[i] = byte(x >> 24)
	}
	return b
}

func TestBitshuffleRoundTrip(t *testing.T) {
	for _, elem := range []int{1, 2, 4, 8} {
		for _, n := range []int{0, 1, 7, 8, 9, 64, 200, 1221, 5000} {
			for _, block := range []int{8, 64, 256} {
				for _, lz4 := range []bool{true, false} {
					data := pseudo(n * elem)
					chunk := encodeBitshuffle(data, elem, block, lz4)
					dst := make([]byte, len(data))
					if lz4 {
						size, err := bitshuffleSize(chunk, elem)
						if err != nil || size != len(data) {
							t.Fatalf("header size %d, %v", size, err)
						}
					}
					if err := decodeBitshuffle(dst, chunk, elem, block, lz4Comp(lz4)); err != nil {
						t.Fatalf("elem %d n %d block %d lz4 %v: %v", elem, n, block, lz4, err)
					}
					if !bytes.Equal(dst, data) {
						t.Fatalf("elem %d n %d block %d lz4 %v: decoded differs", elem, n, block, lz4)
					}
				}
			}
		}
	}
}

// TestBitshuffleDefaultBlock checks the block size a shuffle-only chunk
// with block 0 uses: bitshuffle's default, 8 KiB of elements.
func TestBitshuffleDefaultBlock(t *testing.T) {
	data := pseudo(2 * 5000)
	chunk := encodeBitshuffle(data, 2, 4096, false)
	dst := make([]byte, len(data))
	if err := decodeBitshuffle(dst, chunk, 2, 0, 0); err != nil || !bytes.Equal(dst, data) {
		t.Fatalf("default block: %v", err)
	}
}

func TestBitshuffleDamaged(t *testing.T) {
	data := pseudo(2 * 300)
	good := encodeBitshuffle(data, 2, 64, true)
	dst := make([]byte, len(data))
	for name, chunk := range map[string][]byte{
		"truncated": good[:len(good)-3],
		"header":    good[:11],
		"no blocks": good[:12],
		"zero block": func() []byte {
			c := bytes.Clone(good)
			binary.BigEndian.PutUint32(c[8:], 0)
			return c
		}(),
		"odd block": func() []byte {
			c := bytes.Clone(good)
			binary.BigEndian.PutUint32(c[8:], 3)
			return c
		}(),
		"huge block size": func() []byte {
			c := bytes.Clone(good)
			binary.BigEndian.PutUint32(c[12:], 1<<31)
			return c
		}(),
		"lz4 garbage": func() []byte {
			c := bytes.Clone(good)
			for i := 16; i < 40; i++ {
				c[i] = 0xff
			}
			return c
		}(),
	} {
		if err := decodeBitshuffle(dst, chunk, 2, 0, 2); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	big := bytes.Clone(good)
	binary.BigEndian.PutUint64(big, 1<<40)
	if _, err := bitshuffleSize(big, 2); err == nil {
		t.Error("a 1 TiB chunk header is accepted")
	}
	if err := decodeBitshuffle(make([]byte, len(data)+2), good, 2, 0, 2); err == nil {
		t.Error("an output size other than the header's is accepted")
	}
}

// FuzzBitshuffle decodes arbitrary chunks (it must fail cleanly, never
// crash or write past dst) and checks that any data framed by the naive
// encoder decodes to itself.
func FuzzBitshuffle(f *testing.F) {
	f.Add(pseudo(100), uint8(1), uint8(3), true)
	f.Add(encodeBitshuffle(pseudo(600), 2, 64, true), uint8(1), uint8(1), true)
	f.Add(encodeBitshuffle(pseudo(600), 4, 8, false), uint8(2), uint8(0), false)
	f.Fuzz(func(t *testing.T, in []byte, e, b uint8, lz4 bool) {
		elem := []int{1, 2, 4, 8}[e%4]
		block := 8 * (int(b%32) + 1)
		// Arbitrary bytes as a chunk: an error or the right size, and a
		// guard after dst that stays untouched.
		size := len(in) / elem * elem
		if lz4 {
			if s, err := bitshuffleSize(in, elem); err == nil && s <= 1<<20 {
				size = s
			}
		}
		buf := make([]byte, size+8)
		for i := size; i < len(buf); i++ {
			buf[i] = 0xa5
		}
		_ = decodeBitshuffle(buf[:size:size], in, elem, block, lz4Comp(lz4))
		for i := size; i < len(buf); i++ {
			if buf[i] != 0xa5 {
				t.Fatalf("decoder wrote past its output at %d", i)
			}
		}
		// The fuzz bytes as data: encode, decode, compare.
		data := in[:len(in)/elem*elem]
		chunk := encodeBitshuffle(data, elem, block, lz4)
		dst := make([]byte, len(data))
		if err := decodeBitshuffle(dst, chunk, elem, block, lz4Comp(lz4)); err != nil {
			t.Fatalf("valid chunk: %v", err)
		}
		if !bytes.Equal(dst, data) {
			t.Fatal("round trip differs")
		}
	})
}

// lz4Comp is bitshuffle's compressor value: LZ4 (2) or none (0).
func lz4Comp(lz4 bool) int {
	if lz4 {
		return 2
	}
	return 0
}
