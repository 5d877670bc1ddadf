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
// Choose plans alternatives of one run that trade memory for speed (how
// an input's reader decodes: every core with a cache of decoded chunks,
// down to one chunk at a time) and takes the fastest that fits; a
// phase's Align keeps blocks a multiple of the input's chunk depth.
// CheckDisk bounds what a run writes against the free space of the
// output's file system before anything is written.
//
// The model follows httomo's per-method memory estimators (bytes per slice
// times slices, available memory = free x 0.9), but counts every resident
// array, which fixes the failure reported in httomo issue 245 where darks
// and flats sat on a 2 GB device beside a block the estimate had sized
// alone.
package plan
