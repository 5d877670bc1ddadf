package posixlocale

import (
	"os"
	"strings"
)

func init() { normalise() }

// normalise replaces a C or POSIX locale, which Fyne cannot parse, with
// en_US.UTF-8; any other setting is left as it is.
func normalise() {
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
