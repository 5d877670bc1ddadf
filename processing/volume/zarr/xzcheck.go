package zarr

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// maxXZDict bounds the LZMA2 dictionary an xz chunk may ask for: the
// decoder allocates it whole, and xz's strongest preset (-9) uses 64
// MiB; a larger one is a damaged or hostile header.
const maxXZDict = 64 << 20

// checkXZ checks, before any decoding, that src is one xz stream (.xz
// file format 1.0.4, https://tukaani.org/xz/xz-file-format.txt) of one
// block whose LZMA2 dictionary is at most limit bytes. Written by hand:
// github.com/ulikunitz/xz allocates a block's dictionary as its header
// says, with no way to bound it. Python's lzma and xz-java (the N5
// writers) write one block per chunk; several blocks are refused.
func checkXZ(src []byte, limit int64) error {
	// Stream padding: zero bytes in fours after the footer.
	for len(src) >= 4 && binary.LittleEndian.Uint32(src[len(src)-4:]) == 0 {
		src = src[:len(src)-4]
	}
	if len(src) < 12+12 || string(src[:6]) != "\xfd7zXZ\x00" || string(src[len(src)-2:]) != "YZ" {
		return errors.New("not an xz stream")
	}
	foot := src[len(src)-12:]
	backward := (int64(binary.LittleEndian.Uint32(foot[4:8])) + 1) * 4
	idx := int64(len(src)) - 12 - backward
	if idx < 12 {
		return errors.New("damaged xz stream: its index lies outside it")
	}
	index := src[idx : len(src)-12]
	if len(index) < 2 || index[0] != 0 {
		return errors.New("damaged xz stream: no index")
	}
	n, k, ok := uvarint(index[1:])
	if !ok || n != 1 {
		return fmt.Errorf("an xz stream of %d blocks: voxlab reads xz chunks of one block", n)
	}
	// The one block fills the stream between its header and the index
	// (padded to four bytes): nothing else, another stream, hides there.
	unpadded, _, ok := uvarint(index[1+k:])
	if !ok || unpadded > uint64(len(src)) || 12+(int64(unpadded)+3)/4*4 != idx {
		return errors.New("not one xz stream of one block")
	}
	// The block header after the 12-byte stream header.
	h := src[12:]
	size := (int(h[0]) + 1) * 4
	if h[0] == 0 || size > len(h) {
		return errors.New("damaged xz block header")
	}
	h = h[1:size]
	flags := h[0]
	h = h[1:]
	for _, present := range []bool{flags&0x40 != 0, flags&0x80 != 0} {
		if present {
			_, n, ok := uvarint(h)
			if !ok {
				return errors.New("damaged xz block header")
			}
			h = h[n:]
		}
	}
	for range int(flags&3) + 1 {
		id, n, ok := uvarint(h)
		if !ok {
			return errors.New("damaged xz filter flags")
		}
		h = h[n:]
		props, n, ok := uvarint(h)
		if !ok || uint64(len(h)-n) < props {
			return errors.New("damaged xz filter flags")
		}
		p := h[n : n+int(props)]
		h = h[n+int(props):]
		if id != 0x21 { // not LZMA2: a delta or branch filter
			continue
		}
		if len(p) != 1 || p[0] > 40 {
			return errors.New("damaged xz LZMA2 properties")
		}
		dict := int64(1)<<32 - 1
		if b := p[0]; b < 40 {
			dict = int64(2|b&1) << (b/2 + 11)
		}
		if dict > limit {
			return fmt.Errorf("the xz stream asks for a %d MiB dictionary, more than voxlab's limit of %d MiB", dict>>20, limit>>20)
		}
		return nil
	}
	return errors.New("an xz stream without LZMA2")
}

// uvarint decodes an xz multibyte integer (at most 9 bytes, 7 bits
// each, least significant first): its value and length.
func uvarint(b []byte) (uint64, int, bool) {
	var v uint64
	for i := 0; i < len(b) && i < 9; i++ {
		v |= uint64(b[i]&0x7f) << (7 * i)
		if b[i]&0x80 == 0 {
			return v, i + 1, true
		}
	}
	return 0, 0, false
}
