package posixlocale

import (
	"os"
	"strings"
)

func init() {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := os.Getenv(k)
		if v == "" {
			continue
		}
		base, _, _ := strings.Cut(v, ".")
		if base == "C" || base == "POSIX" {
			os.Setenv(k, "en_US.UTF-8")
		}
	}
}
