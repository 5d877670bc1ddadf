package gpu

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ptxEntry is a kernel declared in a PTX module: its name and the size in
// bytes of each parameter, in order.
type ptxEntry struct {
	Name   string
	Params []int
}

// PTX entry declarations look like
//
//	.visible .entry dezing_median3(
//		.param .u64 dezing_median3_param_0,
//		.param .align 4 .b8 dezing_median3_param_1[12]
//	)
//
// (PTX ISA, "Kernel function parameters"). The CUDA 11.8 driver has no
// call that reports a kernel's parameter sizes (cuFuncGetParamInfo came in
// 12.4), so launch reads them from the PTX to copy exactly the bytes each
// argument has and to reject a wrong argument count; no library parses
// PTX declarations, hence this small hand-written reader.
var (
	ptxEntryRE = regexp.MustCompile(`\.entry\s+([A-Za-z_$%][\w$%]*)\s*\(([^)]*)\)`)
	ptxParamRE = regexp.MustCompile(`^\.param\s+(?:\.align\s+\d+\s+)?\.([a-z]+)(\d+)\s+[\w$%]+(?:\[(\d+)\])?$`)
)

// ptxEntries returns the kernels a PTX module declares.
func ptxEntries(src string) ([]ptxEntry, error) {
	var out []ptxEntry
	for _, m := range ptxEntryRE.FindAllStringSubmatch(src, -1) {
		e := ptxEntry{Name: m[1]}
		list := strings.TrimSpace(m[2])
		if list != "" {
			for _, p := range strings.Split(list, ",") {
				n, err := ptxParamSize(strings.Join(strings.Fields(p), " "))
				if err != nil {
					return nil, fmt.Errorf("kernel %s: %w", e.Name, err)
				}
				e.Params = append(e.Params, n)
			}
		}
		out = append(out, e)
	}
	return out, nil
}

// ptxParamSize returns the size of one ".param" declaration: the type's
// bits / 8, times the array length for byte arrays (structs by value).
func ptxParamSize(decl string) (int, error) {
	m := ptxParamRE.FindStringSubmatch(decl)
	if m == nil {
		return 0, fmt.Errorf("unrecognised PTX parameter %q", decl)
	}
	switch m[1] {
	case "b", "u", "s", "f":
	default:
		return 0, fmt.Errorf("PTX parameter %q: unsupported type .%s%s", decl, m[1], m[2])
	}
	bits, _ := strconv.Atoi(m[2])
	if bits%8 != 0 || bits == 0 {
		return 0, fmt.Errorf("PTX parameter %q: %d-bit type", decl, bits)
	}
	n := bits / 8
	if m[3] != "" {
		count, _ := strconv.Atoi(m[3])
		n *= count
	}
	return n, nil
}

// CheckPTX checks a committed PTX module the way the CUDA backend will
// read it when LoadModule is called, so that a bad module is caught on
// machines without a GPU: it is built for compute_70, it declares at
// least one kernel, every kernel's name starts with prefix (kernel names
// are one namespace across modules) and no parameter is over the 8
// bytes Launch copies. It returns the kernels' names.
func CheckPTX(src, prefix string) ([]string, error) {
	if !strings.Contains(src, ".target sm_70") {
		return nil, fmt.Errorf("not built for compute_70 (run scripts/build-ptx.sh)")
	}
	entries, err := ptxEntries(src)
	if err != nil {
		return nil, err
	}
	if len(entries) == 0 {
		return nil, fmt.Errorf("declares no kernel")
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !strings.HasPrefix(e.Name, prefix) {
			return nil, fmt.Errorf("kernel %s lacks the prefix %q", e.Name, prefix)
		}
		for i, n := range e.Params {
			if n > 8 {
				return nil, fmt.Errorf("kernel %s parameter %d is %d bytes; Launch takes at most 8 (pass structs by pointer)", e.Name, i, n)
			}
		}
		names = append(names, e.Name)
	}
	return names, nil
}
