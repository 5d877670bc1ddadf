// Package plan is voxlab's one memory model for every pipeline. A pipeline
// describes, phase by phase, every array it keeps resident at once — where
// it lives (device, pinned host, pageable host), how many bytes it takes
// per unit of the block (slice, plane, map) and whether it also holds the
// halo units on each side — plus fixed arrays such as darks, flats, masks
// and kernels. Make turns that description and a memory budget into the
// largest block that fits under the budget's safety margin, the predicted
// peak and a per-array breakdown, or an error saying how much the smallest
// block needs and how much is available (*TooSmallError). A Plan prints
// itself for people (Format, with a breakdown table) and as JSON for
// `voxlab plan --json` (MarshalJSON).
//
// The model follows httomo's per-method memory estimators (bytes per slice
// times slices, available memory = free x 0.9), but counts every resident
// array, which fixes the failure reported in httomo issue 245 where darks
// and flats sat on a 2 GB device beside a block the estimate had sized
// alone.
package plan
