package h5

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/voxlab/voxlab/processing/volume"
)

// The crafted datasets below are 2 planes of 64x64 uint16 (8 KiB a
// plane), one plane per chunk: plane 1 is intact (every voxel 7), plane 0
// holds the chunk under test.
var (
	craftShape = []int{2, 64, 64}
	craftChunk = []int{1, 64, 64}
)

const craftPlane = 64 * 64 * 2

func sevens(n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; i += 2 {
		b[i] = 7
	}
	return b
}

func zlibBytes(t testing.TB, data []byte) []byte {
	var buf bytes.Buffer
	w, _ := zlib.NewWriterLevel(&buf, zlib.BestCompression)
	w.Write(data)
	w.Close()
	return buf.Bytes()
}

// shuffle2 is HDF5's byte shuffle of 2-byte elements (H5Zshuffle.c):
// every element's first byte, then every second byte.
func shuffle2(b []byte) []byte {
	n := len(b) / 2
	out := make([]byte, len(b))
	for i := 0; i < n; i++ {
		out[i], out[n+i] = b[2*i], b[2*i+1]
	}
	return out
}

// lz4Raw frames data as the LZ4 filter does when a block does not
// compress: header, then the block stored as it is.
func lz4Raw(data []byte) []byte {
	out := binary.BigEndian.AppendUint64(nil, uint64(len(data)))
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	out = binary.BigEndian.AppendUint32(out, uint32(len(data)))
	return append(out, data...)
}

var (
	gzipF       = Filter{ID: 1, Name: "gzip", Params: []uint{4}, Optional: true}
	shuffleF    = Filter{ID: 2, Name: "shuffle", Params: []uint{2}, Optional: true}
	fletcherF   = Filter{ID: 3, Name: "fletcher32"}
	lz4F        = Filter{ID: 32004, Name: "lz4", Optional: true}
	bloscF      = Filter{ID: 32001, Name: "blosc", Params: []uint{2, 2, 2, 0, 5, 1, 0}, Optional: true}
	zstdF       = Filter{ID: 32015, Name: "zstd", Params: []uint{3}, Optional: true}
	bitshuffleF = Filter{ID: 32008, Name: "bitshuffle", Params: []uint{0, 4, 2, 0, 2}, Optional: true}
)

// craftCase is a dataset whose chunk 0 is data, under filters fs with
// mask.
type craftCase struct {
	name string
	fs   []Filter
	mask uint32
	data []byte
	want string // in the error
}

func craftOne(t *testing.T, dir string, cases []craftCase, intact func(fs []Filter) []byte) string {
	t.Helper()
	var sets []rawSet
	for _, c := range cases {
		chunks := []rawChunk{{off: []int{0, 0, 0}, mask: c.mask, data: c.data}}
		if b := intact(c.fs); b != nil {
			chunks = append(chunks, rawChunk{off: []int{1, 0, 0}, data: b})
		}
		sets = append(sets, rawSet{name: c.name, dtype: volume.Uint16, shape: craftShape, chunk: craftChunk, filters: c.fs, chunks: chunks})
	}
	p := filepath.Join(dir, "crafted.h5")
	if err := craftFile(p, sets...); err != nil {
		t.Fatal(err)
	}
	return p
}

// encodeSevens encodes the intact plane through fs (the ones the tests
// craft: gzip, shuffle+gzip, lz4, no filter).
func encodeSevens(t *testing.T) func(fs []Filter) []byte {
	return func(fs []Filter) []byte {
		data := sevens(craftPlane)
		for _, f := range fs {
			switch f.ID {
			case 1:
				data = zlibBytes(t, data)
			case 2:
				data = shuffle2(data)
			case 3:
				data = binary.BigEndian.AppendUint32(data, 0) // wrong on purpose: never read
			case 32004:
				data = lz4Raw(data)
			case 32015:
				data = zstdOf(data)
			case 32008:
				data = encodeBitshuffle(data, 2, 256, true)
			default:
				return nil
			}
		}
		return data
	}
}

// TestShortChunks reads chunks that decode to fewer bytes than the chunk
// holds (through libhdf5's built-in gzip, voxlab's decoders, or no filter
// at all): libhdf5 used to hand back the rest of the chunk as whatever the
// heap held, and the read succeeded. Each is now an error naming the file,
// the dataset and the chunk, and the intact plane still reads.
func TestShortChunks(t *testing.T) {
	short := sevens(200)
	bsShort := encodeBitshuffle(short, 2, 64, true) // its header says 200 bytes
	cases := []craftCase{
		{"gzip", []Filter{gzipF}, 0, zlibBytes(t, short), "decodes to 200 bytes, short of the 8192"},
		{"shuffle_gzip", []Filter{shuffleF, gzipF}, 0, zlibBytes(t, shuffle2(short)), "decodes to 200 bytes, short of the 8192"},
		{"gzip_skipped", []Filter{gzipF}, 1, short, "stored unfiltered in 200 bytes, but the chunk holds 8192"},
		{"plain", nil, 0, short, "stored unfiltered in 200 bytes, but the chunk holds 8192"},
		{"lz4", []Filter{lz4F}, 0, lz4Raw(short), "decodes to 200 bytes, short of the 8192"},
		{"zstd", []Filter{zstdF}, 0, zstdOf(short), "decodes to 200 bytes, short of the 8192"},
		{"bitshuffle_lz4", []Filter{bitshuffleF}, 0, bsShort, "decodes to 200 bytes, short of the 8192"},
	}
	p := craftOne(t, t.TempDir(), cases, encodeSevens(t))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Open(p, c.name)
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			buf := make([]byte, 2*craftPlane)
			err = v.ReadSlab(0, 2, buf)
			if err == nil {
				t.Fatalf("read succeeded; plane 0 starts %v", buf[190:210])
			}
			for _, w := range []string{p, "/" + c.name, "chunk at (0, 0, 0) (planes 0-1)", c.want} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			if enc := encodeSevens(t)(c.fs); enc != nil {
				if err := v.ReadSlab(1, 2, buf[:craftPlane]); err != nil || !bytes.Equal(buf[:craftPlane], sevens(craftPlane)) {
					t.Errorf("intact plane 1: %v", err)
				}
			}
		})
	}
}

// TestMixedMasks reads a dataset whose chunks skip different filters
// (gzip gave up on an incompressible chunk, which was stored as it is):
// both planes read, and a short chunk among them is still named.
func TestMixedMasks(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "mixed.h5")
	plane := sevens(craftPlane)
	err := craftFile(p,
		rawSet{name: "ok", dtype: volume.Uint16, shape: craftShape, chunk: craftChunk, filters: []Filter{gzipF},
			chunks: []rawChunk{{off: []int{0, 0, 0}, mask: 1, data: plane}, {off: []int{1, 0, 0}, data: zlibBytes(t, plane)}}},
		rawSet{name: "short", dtype: volume.Uint16, shape: craftShape, chunk: craftChunk, filters: []Filter{gzipF},
			chunks: []rawChunk{{off: []int{0, 0, 0}, mask: 1, data: plane}, {off: []int{1, 0, 0}, data: zlibBytes(t, plane[:100])}}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := Open(p, "ok")
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	buf := make([]byte, 2*craftPlane)
	if err := v.ReadSlab(0, 2, buf); err != nil || !bytes.Equal(buf, sevens(2*craftPlane)) {
		t.Fatalf("mixed masks: %v", err)
	}
	w, err := Open(p, "short")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	err = w.ReadSlab(0, 2, buf)
	if err == nil || !strings.Contains(err.Error(), "chunk at (1, 0, 0)") || !strings.Contains(err.Error(), "short of the 8192") {
		t.Fatalf("short chunk among mixed masks: %v", err)
	}
}

// TestDecoderReason checks that a damaged chunk's error carries the
// decoder's own reason (voxlab's decoders, or libhdf5's error stack for
// the filters it runs itself) and names the chunk; it used to say only
// "damaged file, or a filter this libhdf5 lacks".
func TestDecoderReason(t *testing.T) {
	plane := sevens(craftPlane)
	bs := encodeBitshuffle(plane, 2, 256, true)
	garbage := bytes.Repeat([]byte{0xde, 0xad}, 100)
	cases := []craftCase{
		{"gzip_garbage", []Filter{gzipF}, 0, garbage, "gzip: incorrect header check"},
		{"gzip_truncated", []Filter{gzipF}, 0, zlibBytes(t, pseudo(craftPlane))[:500], "gzip stream ends after"},
		{"bitshuffle_truncated", []Filter{bitshuffleF}, 0, bs[:len(bs)/2], "bitshuffle: chunk truncated"},
		{"lz4_truncated", []Filter{lz4F}, 0, lz4Raw(plane)[:1000], "lz4: block runs past the end of the chunk"},
		{"blosc_garbage", []Filter{bloscF}, 0, garbage, "blosc: invalid header"},
		{"zstd_garbage", []Filter{zstdF}, 0, garbage, "zstd: not a zstd frame"},
		{"fletcher32", []Filter{fletcherF}, 0, append(bytes.Clone(plane), 1, 2, 3, 4), "fletcher32"},
	}
	p := craftOne(t, t.TempDir(), cases, encodeSevens(t))
	for _, c := range cases {
		v, err := Open(p, c.name)
		if err != nil {
			t.Fatal(err)
		}
		err = v.ReadSlab(0, 1, make([]byte, craftPlane))
		v.Close()
		if err == nil {
			t.Errorf("%s: read succeeded", c.name)
			continue
		}
		for _, w := range []string{"/" + c.name, "chunk at (0, 0, 0)", c.want} {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.name, err, w)
			}
		}
	}
}

// Decompression bombs: chunks of 4 MiB (1x1024x2048 uint16) stored in
// well under that, whose streams decode to 256 MiB. libhdf5's gzip and
// the plugins decoded them whole (RSS 1.1-1.6 GB in the fault campaign
// for 1-1.5 GiB bombs); now each is refused before more than the chunk's
// 4 MiB is allocated.
const (
	bombChunk = 1024 * 2048 * 2
	bombTotal = 256 << 20
)

func bombSets(t *testing.T) []rawSet {
	shape, chunk := []int{2, 1024, 2048}, []int{1, 1024, 2048}
	mk := func(name string, f Filter, data []byte) rawSet {
		if data == nil {
			t.Fatalf("%s: no bomb", name)
		}
		if int64(len(data)) > maxStored(bombChunk) {
			t.Fatalf("%s: bomb of %d bytes is refused by its stored size alone", name, len(data))
		}
		return rawSet{name: name, dtype: volume.Uint16, shape: shape, chunk: chunk, filters: []Filter{f},
			chunks: []rawChunk{{off: []int{0, 0, 0}, data: data}}}
	}
	bs := Filter{ID: 32008, Params: []uint{0, 4, 2, 0, 2}}
	return []rawSet{
		mk("gzip", gzipF, zlibZeros(bombTotal)),
		mk("lz4", lz4F, lz4Zeros(bombTotal, 1<<20, int(maxStored(bombChunk)))),
		mk("bitshuffle_lz4", bs, lz4Zeros(bombTotal, 1<<20, int(maxStored(bombChunk)))),
		mk("blosc", bloscF, bloscZeros(bombTotal)),
		mk("zstd", zstdF, zstdZeros(bombTotal)),
	}
}

// TestBombs reads each bomb in a child process, which reports the
// largest buffer voxlab's decoders allocated and its peak RSS (VmHWM).
func TestBombs(t *testing.T) {
	if p := os.Getenv("VOXLAB_BOMB_FILE"); p != "" {
		readBombs(t, p)
		return
	}
	if testing.Short() {
		t.Skip("crafts 256 MiB bombs")
	}
	p := filepath.Join(t.TempDir(), "bombs.h5")
	if err := craftFile(p, bombSets(t)...); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBombs$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), "VOXLAB_BOMB_FILE="+p)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	var hwm, peak int64 = -1, -1
	refused := 0
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "hwm "):
			hwm, _ = strconv.ParseInt(strings.TrimPrefix(line, "hwm "), 10, 64)
		case strings.HasPrefix(line, "peak "):
			peak, _ = strconv.ParseInt(strings.TrimPrefix(line, "peak "), 10, 64)
		case strings.HasPrefix(line, "refused "):
			refused++
		}
	}
	if refused != 5 || hwm < 0 || peak < 0 {
		t.Fatalf("child said:\n%s", out)
	}
	if peak > bombChunk {
		t.Errorf("a decoder allocated %d bytes for a chunk of %d", peak, bombChunk)
	}
	// The child's own heap and libhdf5 are a few tens of MB; a bomb
	// decoded whole is 256 MiB or more.
	if hwm > 120<<20 {
		t.Errorf("peak RSS %d MiB reading the bombs", hwm>>20)
	}
	t.Logf("bombs: largest decoder buffer %d KiB, peak RSS %d MiB", peak>>10, hwm>>20)
}

func readBombs(t *testing.T, p string) {
	lib.Lock()
	resetPeak()
	lib.Unlock()
	for _, name := range []string{"gzip", "lz4", "bitshuffle_lz4", "blosc", "zstd"} {
		v, err := Open(p, name)
		if err != nil {
			t.Fatal(err)
		}
		err = v.ReadSlab(0, 1, make([]byte, bombChunk))
		v.Close()
		if err == nil {
			t.Fatalf("%s: bomb read", name)
		}
		if !strings.Contains(err.Error(), "more than") || !strings.Contains(err.Error(), "chunk at (0, 0, 0)") {
			t.Fatalf("%s: refusal %q", name, err)
		}
		fmt.Printf("refused %s: %v\n", name, err)
	}
	lib.Lock()
	fmt.Printf("peak %d\n", peakDecode())
	lib.Unlock()
	fmt.Printf("hwm %d\n", vmHWM(t))
}

// vmHWM returns this process's peak resident set, from /proc.
func vmHWM(t *testing.T) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// TestDecodeBytes checks the figure a plan counts per decoded chunk.
func TestDecodeBytes(t *testing.T) {
	for _, tc := range []struct {
		file, name string
		want       int64
	}{
		{"testdata/codecs.h5", "lz4", maxStored(17*37*2) + 17*37*2},
		{"testdata/codecs.h5", "gzip_shuffle", 2 * maxStored(2*16*16*2)},
		{"testdata/single.h5", "", 0},
	} {
		v, err := Open(tc.file, tc.name)
		if err != nil {
			t.Fatal(err)
		}
		d := v.Source().(*dataset)
		if got := d.DecodeBytes(); got != tc.want {
			t.Errorf("%s:%s: DecodeBytes %d, want %d", tc.file, tc.name, got, tc.want)
		}
		v.Close()
	}
}

// TestZFPDeclaredSize checks the size the guard reads from ZFP's filter
// values (the plugin allocates it before decoding; more than the chunk
// is refused): the fields of codecs.h5's ZFP datasets, whose chunks are
// 1x16x16.
func TestZFPDeclaredSize(t *testing.T) {
	for name, want := range map[string]uint64{"zfp_int32": 1024, "zfp_float32": 1024, "zfp_float64": 2048} {
		s, err := templateOf("testdata/codecs.h5", name)
		if err != nil {
			t.Fatal(err)
		}
		if got := zfpBytes(s.filters[0].Params); got != want {
			t.Errorf("%s: values %v declare %d bytes, want %d", name, s.filters[0].Params, got, want)
		}
	}
}
