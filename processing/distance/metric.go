package distance

import (
	"fmt"
	"strings"
)

// Metric is one matrix the pipeline computes.
type Metric int

// The metrics; see Kind for their formulas.
const (
	L2 Metric = iota
	L2Sq
	Corr
	CorrDistance
	BioEM
	FSC
	Res
	numMetrics
)

var metricInfo = [numMetrics]struct {
	name, describe, unit string
	kind                 Kind
}{
	L2:           {"l2", "distance: ‖a − b‖ of the masked, normalised maps", "l2 distance", KindL2},
	L2Sq:         {"l2sq", "distance: ‖a − b‖²", "squared l2 distance", KindL2Sq},
	Corr:         {"corr", "similarity (not a distance: larger is closer): Σ a·b / n over the n masked voxels", "correlation (a similarity)", KindCorr},
	CorrDistance: {"corr-distance", "distance: 1 − Σ a·b / n", "1 − correlation", KindCorrDist},
	BioEM:        {"bioem", "distance: −log P of Cossio & Hummer 2013 eq. 10 (BioEM), smaller is closer", "BioEM −log P", KindBioEM},
	FSC:          {"fsc", "distance: 1 − mean Fourier shell correlation over shells 1…box/2", "1 − mean FSC", KindFSC},
	Res:          {"res", "resolution (Å) where the FSC first drops below 0.5 (Nyquist, 2 voxels, when it never does); smaller is closer", "resolution at FSC 0.5 (Å)", KindRes},
}

// DefaultMetrics are the metrics `voxlab distance` computes unless told.
var DefaultMetrics = []Metric{L2, Corr, BioEM, FSC, Res}

func (m Metric) String() string {
	if m < 0 || m >= numMetrics {
		return fmt.Sprintf("Metric(%d)", int(m))
	}
	return metricInfo[m].name
}

// Describe says what the metric's values mean (distance or similarity,
// unit).
func (m Metric) Describe() string { return metricInfo[m].describe }

// Unit labels the metric's values on plots ("l2 distance").
func (m Metric) Unit() string { return metricInfo[m].unit }

// Similarity reports whether larger values mean closer maps.
func (m Metric) Similarity() bool { return m == Corr }

// spectral reports whether the metric needs the maps' Fourier shells.
func (m Metric) spectral() bool { return m == FSC || m == Res }

// AllMetrics returns every metric in order.
func AllMetrics() []Metric {
	out := make([]Metric, numMetrics)
	for i := range out {
		out[i] = Metric(i)
	}
	return out
}

// ParseMetric parses a metric name.
func ParseMetric(s string) (Metric, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for m := Metric(0); m < numMetrics; m++ {
		if metricInfo[m].name == t {
			return m, nil
		}
	}
	var names []string
	for _, m := range AllMetrics() {
		names = append(names, m.String())
	}
	return 0, fmt.Errorf("unknown metric %q (use %s)", s, strings.Join(names, ", "))
}

// ParseMetrics parses a comma-separated list, rejecting repeats.
func ParseMetrics(s string) ([]Metric, error) {
	var out []Metric
	seen := map[Metric]bool{}
	for _, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		m, err := ParseMetric(part)
		if err != nil {
			return nil, err
		}
		if seen[m] {
			return nil, fmt.Errorf("metric %s listed twice", m)
		}
		seen[m] = true
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no metrics in %q", s)
	}
	return out, nil
}
