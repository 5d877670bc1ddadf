#!/usr/bin/python3
"""Times scikit-image's iradon on BenchmarkFBP's and BenchmarkGridrec's
sinogram (bench_test.go): 720 angles over [0, 180) degrees, 512 columns,
value (i mod 97)/97 at index i = angle*512 + column, ramp filter, linear
interpolation, circle=True (padding to the diagonal, the mask of radius 1).

Run with Debian's python3-skimage, two threads, beside the Go benchmarks:

  OMP_NUM_THREADS=2 OPENBLAS_NUM_THREADS=2 /usr/bin/python3 bench_iradon.py [REPEATS]
  go test -run '^$' -bench 'FBP|Gridrec' -cpu 1,2 -count 3 .

It prints the best and median wall seconds per slice of REPEATS (default
5), the CPU seconds per slice (all threads; the Go benchmarks report
theirs as cpu-s/op) and the load average before and after, for
BENCHMARKS.md.
"""
import os
import sys
import time

import numpy as np
from skimage.transform import iradon

NANG, COLS = 720, 512


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    sino = (np.arange(NANG * COLS) % 97 / 97).astype(np.float32)
    # iradon takes one column per angle; the Go benchmark one row per angle.
    sino = sino.reshape(NANG, COLS).T.astype(np.float64)
    theta = np.linspace(0, 180, NANG, endpoint=False)
    load0 = os.getloadavg()[0]
    iradon(sino, theta)  # warm up
    times = []
    cpu = time.process_time()
    for _ in range(repeats):
        t = time.perf_counter()
        iradon(sino, theta, filter_name="ramp", interpolation="linear", circle=True)
        times.append(time.perf_counter() - t)
    cpu = (time.process_time() - cpu) / repeats
    load1 = os.getloadavg()[0]
    print(f"iradon {COLS} columns x {NANG} angles: best {min(times):.3f} s, "
          f"median {np.median(times):.3f} s, {cpu:.3f} CPU s per slice of "
          f"{repeats}; load average {load0:.2f} -> {load1:.2f}")


if __name__ == "__main__":
    main()
