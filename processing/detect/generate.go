package detect

// detect.cu is compiled to detect.ptx (committed, and embedded by the
// cuda build) with nvcc by scripts/build-ptx.sh.
//go:generate ../../scripts/build-ptx.sh
