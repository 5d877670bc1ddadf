#!/bin/sh
# Side by side on the same sinogram (720 angles x 512 columns, ramp,
# padding to the diagonal, circle mask): scikit-image's iradon
# (bench_iradon.py, Debian's python3-skimage, 2 threads) and voxlab's FBP
# and gridrec (BenchmarkFBP, BenchmarkGridrec) with 1 and 2 threads, the
# load average before, between and after, for BENCHMARKS.md.
# Run from processing/reconstruct:  sh testdata/bench_side_by_side.sh
set -e
uptime
OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 /usr/bin/python3 testdata/bench_iradon.py 5
uptime
go test -run '^$' -bench 'FBP|Gridrec' -cpu 1,2 -count 3 -benchtime 20x .
uptime
