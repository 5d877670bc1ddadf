#!/usr/bin/python3
"""Golden NPY for matrix's WriteNPY: numpy.save of a small float64 matrix
(with values that need every digit, an infinity and a NaN). Run here."""
import numpy as np

m = np.array([[0.1, -2.5, 1e-300], [np.pi, np.inf, np.nan]], dtype="<f8")
np.save("golden.npy", m)
