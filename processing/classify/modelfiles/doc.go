// Package modelfiles holds the classification tests that read and write
// Keras weight files: they link libhdf5 (processing/volume/h5), which the
// pipeline's own test binary must not (docs/ARCHITECTURE.md: its CUDA
// test binaries start on a bare GPU machine). It has no code of its own.
package modelfiles
