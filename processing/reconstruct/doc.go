// Package reconstruct turns a tomography scan into reconstructed slices:
// the chain of httomo and tomopy after the detector, each stage as the
// field defines it and citing where it is defined —
//
//   - dezinging of the projections, darks and flats (--dezing:
//     remove_outlier, the 3D median of voxlab dezing, through
//     processing/zinger's kernel; dezing.go), each block of rows read
//     with the kernel's halo rows so that results do not depend on it
//     (with --paganin, each whole projection over its neighbours);
//   - dark/flat-field correction and −log (FlatField, MinusLog; as
//     httomolibgpu's prep/normalize.py dark_flat_field_correction and
//     minus_log);
//   - stripe (ring) removal by sorting (StripeSorter; Vo et al. 2018,
//     httomolibgpu's prep/stripe.py remove_stripe_based_sorting) and all
//     of Vo's stripe methods together (AllStripes: remove_all_stripe);
//   - Paganin phase retrieval of a projection (Paganin; httomolibgpu's
//     prep/phase.py paganin_filter);
//   - the centre of rotation by Vo's method (CenterVo; Vo et al. 2014,
//     httomolibgpu's and tomopy's recon/rotation.py find_center_vo);
//   - filtered back-projection (FBP; scikit-image's iradon and tomopy's
//     fbp: ramp, Shepp-Logan, cosine, Hamming and Hann filters, detector
//     padding, the circular mask recon_mask_radius) and Fourier gridding
//     (Gridrec; tomopy's gridrec).
//
// Gridrec's transforms are FFTW's, in single precision (internal/fftw,
// cgo over Debian's libfftw3-single3; the Makefile's APT_PKGS installs
// libfftw3-dev): gonum's fftpack is scalar float64 and its transforms
// were half of a slice's time. Its Kaiser-Bessel spreading is C
// (internal/kbspread), which GCC vectorises where Go's compiler does
// not. Both are packages of their own because Go builds no cgo in a
// package with Go assembly (FBP's AVX-512 back-projection). Plans are
// made once per size under a lock (FFTW's planner is not thread-safe)
// with FFTW_ESTIMATE, and the spreading adds a cell's samples in an
// order set by the geometry alone, so a slice is the same bit for bit
// whatever the block of rows, the run or the number of cores.
//
// The kernels are plain functions and types over float32 slices,
// destination first; those that need scratch (FBP, Gridrec, CenterVo's
// search, StripeSorter, Paganin) hold it in a value made once per
// geometry, so the per-slice loops allocate nothing (AllStripes, a
// chain of whole-sinogram steps, allocates its copies per sinogram).
//
// Spec (spec.go) is reconstruction as voxlab offers it — `voxlab
// reconstruct SCAN OUT`, its YAML step and its panel form — and registers
// itself. A run (run.go, write.go) opens a NeXus scan through
// volume.OpenScan (darks, flats and rotation angles from the file) or a
// plain volume with darks, flats and angles from files (scan.go); reads
// blocks of detector rows across every projection, as many rows as the
// memory plan (plan.go) allows, one block read while the previous one
// is reconstructed; and writes float32 slices through the output
// format's writer (volume.ExporterFor), under a temporary name renamed
// when complete. With --paganin each projection is read whole first
// (Paganin mixes rows) and the rows asked are kept in memory. It splits
// into tasks of slices whose parts the merge joins into the whole run's
// output (parts.go).
//
// # Backends
//
// On the CPU backend everything above runs on the CPU. On a device
// backend (CUDA, the cuda build) FBP's back-projection — the stage whose
// work grows with angles × pixels — runs on the device through Ops
// (ops.go; reconstruct.cu's recon_backproject, compiled to the embedded
// reconstruct.ptx by scripts/build-ptx.sh, launched by cuda_ops.go): per
// slice, the projections are filtered on the CPU (FBP.filterAll, an FFT
// per projection on every core), uploaded, back-projected on the device
// and the slice downloaded (deviceFBP, device.go). The kernel computes
// the detector positions and the sum over angles in float32 where the CPU
// uses float64; BackProjectTolerance states the bound that costs, which
// the parity tests (cuda_ops_test.go) and the self-check a run makes
// before trusting the device (selfcheck.go) hold it to. Gridrec, the
// flat-field correction, stripe removal, Paganin, the centre search and
// dezinging stay on the CPU on every backend, and a run's report says
// what ran where. The CUDA path is compile-checked (make cuda-check),
// not yet run on a GPU.
package reconstruct
