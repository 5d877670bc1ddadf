package cluster

import (
	"fmt"
	"strings"
)

// ShellQuote returns s as one bash word that stands for exactly s: the
// whole string in single quotes, inside which bash expands nothing, each
// single quote becoming a closing quote, an escaped quote and an opening
// quote:
//
//	it's  →  'it'\''s'
//
// NUL cannot be passed in an argument, so it is an error.
func ShellQuote(s string) (string, error) {
	if strings.ContainsRune(s, 0) {
		return "", fmt.Errorf("argument %q contains a NUL byte, which no program can receive", s)
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'", nil
}

// sbatchQuote quotes s for an #SBATCH line. sbatch reads those lines with
// its own tokenizer, not bash: a backslash escapes the next character and
// double quotes group words, so s goes in double quotes with \ and "
// escaped. A line cannot hold a line break, so those are errors.
func sbatchQuote(s string) (string, error) {
	if strings.ContainsAny(s, "\n\r\x00") {
		return "", fmt.Errorf("%q contains a line break, which an sbatch script line cannot hold", s)
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`, nil
}

// slurmLiteral escapes % in a path used as a SLURM file name pattern
// (--output), where %j, %A, %a… are replaced and %% means %.
func slurmLiteral(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// safeOption reports whether an option value (partition, gres, time) is
// made only of characters SLURM uses in them, so it can be written
// unquoted and cannot start another option.
func safeOption(v string) bool {
	if v == "" || v[0] == '-' {
		return false
	}
	for _, c := range v {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case strings.ContainsRune("_.:,=+-@/[]", c):
		default:
			return false
		}
	}
	return true
}
