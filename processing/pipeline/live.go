package pipeline

import "github.com/voxlab/voxlab/processing/volume"

// LiveKind is the kind of partial results a pipeline emits (as
// job.Progress.Partial values) while it runs.
type LiveKind int

// The kinds of live results.
const (
	// NoLive: the run emits no partial results.
	NoLive LiveKind = iota
	// LiveVolume: *VolumeBlock values, the planes of the output volume
	// as they are finished, shown as an image over the input.
	LiveVolume
	// LivePoints: Points, the points found since the previous ones,
	// shown as a points layer over the input.
	LivePoints
	// LiveMatrices: MatrixChunk values, rows of one or more matrices,
	// shown as heat maps with their plots.
	LiveMatrices
	// LiveMetrics: Metrics values, a run's scalar metrics as each step
	// ends (a training run's loss and accuracy per epoch), shown as
	// curves.
	LiveMetrics
)

// Live says how a run's results show in the viewer.
type Live struct {
	Kind LiveKind
	// Title names the plots of LiveMatrices ("Distances").
	Title string
	// Result returns the spec of the output the viewer opens in place
	// of the live layer when the run ends ("" for none), given the
	// request's arguments: "out.h5:/data".
	Result func(args []string) string
	// Figures returns the PNG plots a LiveMatrices run writes beside its
	// matrices (embeddings), which the viewer shows in tabs when the run
	// ends, given the request's arguments; those not written are left
	// out. Optional.
	Figures func(args []string) []string
	// Sweep, when it returns non-nil for a request, says that the run
	// writes a sweep of a parameter: the output's planes are one map
	// each, made with the sweep's values in order. The viewer opens the
	// output as a stack of maps, labels each with its value, and offers
	// to fill the parameter with the chosen one. Optional.
	Sweep func(args []string, v Values) *Sweep
	// Next, when set, is offered once a run has finished: a button that
	// chooses another pipeline with fields this run fills (train's
	// "Classify with this model"). Optional.
	Next *Next
}

// Next is the pipeline a finished run leads on to.
type Next struct {
	// Label is the button's ("Classify with this model").
	Label string
	// Command is the pipeline it chooses ("classify").
	Command string
	// Values returns the fields it fills, by name as form text, given
	// the finished request's arguments and parameters (train's model
	// file in its output folder).
	Values func(args []string, v Values) map[string]string
}

// Sweep is a parameter swept over a run's output, a map per value
// (reconstruct's --center-sweep: a slice per centre).
type Sweep struct {
	// Param is the name of the parameter the chosen value fills
	// ("center").
	Param string
	// By is the parameter that asked for the sweep ("center-sweep"),
	// emptied when a value is chosen, so that the next run uses the value
	// rather than sweeping again ("": none).
	By string
	// Label names a value in the viewer ("centre").
	Label string
	// Values are the values of the maps, in order, as the parameter's
	// form text: what the request asked for.
	Values []string
	// Recorded, when set, reads the values the run recorded in its
	// output's metadata (result: Live.Result), which label the maps in
	// place of Values: what was written, not what was asked. ok is false
	// where the output records none (a format without attributes: NPY,
	// TIFF), and Values label the maps.
	Recorded func(result string) (values []string, ok bool, err error)
}

// VolumeBlock is a partial result of LiveVolume: planes [Z0,
// Z0+Shape[0]) of an output volume of Depth planes, each Shape[1] x
// Shape[2] of DType, in Data (a copy the pipeline never touches again).
type VolumeBlock struct {
	Z0 int
	// Depth is the number of planes of the whole output (0: unknown).
	Depth int
	Shape [3]int
	DType volume.DType
	Data  []byte
}

// Point is a point found, in voxels of the input, with its class
// ("cell", "artifact", ""). A classifier's points carry the cell
// probability it gave (Scored), so that the window can review them in
// its order even when the output file (cellfinder's XML) has no room
// for it.
type Point struct {
	Z, Y, X     float64
	Type        string
	Probability float64
	Scored      bool
}

// Points is a partial result of LivePoints: the points found since the
// previous Points.
type Points []Point

// MatrixChunk is a partial result of LiveMatrices: rows [Row0,
// Row0+Rows) of the matrix Name, which has TotalRows rows of Cols
// values, row-major in Values (final: the pipeline never changes it).
// Unit, RowLabel and ColLabel label its plots.
type MatrixChunk struct {
	Name                     string
	Unit, RowLabel, ColLabel string
	Row0, Rows, Cols         int
	TotalRows                int
	Values                   []float64
}

// Metrics is a partial result of LiveMetrics: the values logged when
// step Step (an epoch, from 0) ended, by name as Keras's CSVLogger
// names its columns ("loss", "accuracy", "val_loss", "val_accuracy"):
// a "val_" name is its base's value on the held-out data. A value not
// computed is left out.
type Metrics struct {
	Step   int
	Values map[string]float64
}
