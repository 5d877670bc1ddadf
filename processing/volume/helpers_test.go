package volume

import "testing"

// readBack opens the volume spec names and reads it whole (the tests of
// other packages have testutil.ReadVolume, which this package's tests
// cannot import).
func readBack(t *testing.T, spec string) (Info, []byte) {
	t.Helper()
	v, err := Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	data, err := v.ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return v.Info, data
}
