package posixlocale

import (
	"os"
	"testing"
)

func TestNormalise(t *testing.T) {
	cases := []struct{ key, in, want string }{
		{"LANG", "C", "en_US.UTF-8"},
		{"LANG", "C.UTF-8", "en_US.UTF-8"},
		{"LC_ALL", "POSIX", "en_US.UTF-8"},
		{"LC_MESSAGES", "C", "en_US.UTF-8"},
		{"LANG", "de_DE.UTF-8", "de_DE.UTF-8"},
		{"LANG", "", ""},
	}
	for _, c := range cases {
		for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
			t.Setenv(k, "")
		}
		t.Setenv(c.key, c.in)
		normalise()
		if got := os.Getenv(c.key); got != c.want {
			t.Errorf("%s=%q became %q, want %q", c.key, c.in, got, c.want)
		}
	}
}
