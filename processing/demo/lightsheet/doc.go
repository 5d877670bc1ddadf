// Package lightsheet renders synthetic light-sheet brain volumes with bright
// somata at known positions: the demo data of cell detection, and the test
// and benchmark volumes of processing/detect. It needs nothing but
// processing/volume (no HDF5, no GUI), so CUDA test binaries that use it
// run on a bare GPU machine.
package lightsheet
