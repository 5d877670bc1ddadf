// Package fileio opens voxlab's input files safely: only regular files
// are read (a FIFO would block the reader for ever, a device such as
// /dev/zero would feed it without end), the check is made on the opened
// descriptor (fstat) so that a path swapped after a check cannot slip
// past it, and small metadata files are read whole only up to a limit
// that says which file was too large.
//
// Every reader of processing/volume and its format sub-packages, and the
// points readers, open their inputs through Open or ReadFile.
package fileio
