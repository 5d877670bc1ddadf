//go:build !amd64

package reconstruct

// hasAVX512 and hasAVX2 are false off amd64: accumulate's loops are
// plain Go.
const hasAVX512, hasAVX2 = false, false

func accumulateVector([]float64, []float32, int64, int64) int { return 0 }

func accumulate2Vector([]float64, []float32, int64, int64, []float32, int64, int64) int { return 0 }
