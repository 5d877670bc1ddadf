package bytesize

import "testing"

func TestFormat(t *testing.T) {
	for n, want := range map[int64]string{
		0: "0 B", 1023: "1023 B", 1024: "1 KiB", 1536: "1.5 KiB", 14 << 20: "14 MiB",
		3 << 30: "3 GiB", 1<<40 + 1<<39: "1.5 TiB", 5 << 50: "5 PiB", 2048 << 50: "2048 PiB", 1000 << 20: "1000 MiB", 1023 << 10: "1023 KiB",
	} {
		if got := Format(n); got != want {
			t.Errorf("Format(%d) = %q, want %q", n, got, want)
		}
	}
}
