// Package iocheck keeps a run from writing over what it reads. A
// pipeline declares its inputs (the main input, darks and flats, masks,
// ground truth, points files: as given, volume specs such as
// FILE.h5:/path included) and its outputs (files, companion files, and
// folders: replaced as a whole, like a Zarr store or distance's OUT_DIR,
// or written into, file by file); Check refuses the run before anything
// is written when an output is an input (the same path, through a
// symbolic link, or a hard link to it), lies inside an input folder (a
// folder of planes, a Zarr or N5 store), or is a folder to be replaced
// that holds an input. The generic pipeline code calls Check once per
// run, for the command line, merges, cluster submissions and the GUI.
package iocheck
