// Package pipeline is what a processing pipeline is to the rest of
// voxlab: a Spec, one description from which the command line (its flags
// and --help), the keys of a YAML step, the processing panel's form, the
// memory plan, the run and the split into SLURM tasks are all made.
//
// A pipeline's package (processing/dezing, processing/detect, …) fills a
// Spec — its name, typed parameters (Param: int, float, bool, text,
// choice, multi-choice, size, list of floats, input or output path, each
// with its default, help, unit and validation), its positional
// arguments, the kind of partial results it emits (Live) — and registers
// it from an init function. Its Open turns a Request (the arguments and
// the parsed Values) into a Job over the opened inputs, which plans
// itself on a Device, runs and writes its outputs, and reports; a Job
// that splits (Splitter) also plans and runs one task.Task into a part
// and merges the parts. What a run reads and writes (Spec.Paths: the
// Input and Output arguments and parameters, and what the spec's
// optional Files adds) is checked by the application with
// processing/iocheck before Open, so that no output writes over an
// input.
//
// The application is generic over the registered specs (All, Lookup):
// it declares each spec's flags, opens the backend and the memory budget
// the device flags ask for, runs the job with progress on the terminal
// or in the panel, writes and reads the parts of a split run, and prints
// the Report. Nothing here knows a pipeline; this package imports no
// pipeline package and no UI.
//
// Partial results are processing types the viewer side maps to layers
// without knowing the pipeline: VolumeBlock (planes of a volume, shown as
// an image filled block by block over the input), Points (found points,
// plane by plane), MatrixChunk (rows of a matrix, a heat map and its
// plots) and Metrics (a step's scalar metrics, curves over the steps).
package pipeline
