#!/usr/bin/python3
"""Golden files of filtered back-projection, made with scikit-image.

Run from this folder with Debian's python3-skimage (0.19.3 made the
committed files):  /usr/bin/python3 gen_golden.py

  shepp_sino.npy     (1, 90, 64) float32: skimage.transform.radon of the
                     Shepp-Logan phantom rescaled to 64 x 64, at 90 angles
                     over [0, 180) degrees, one row per angle
  shepp_angles.npy   (1, 1, 90) float64: the angles in degrees
  shepp_iradon.npy   (5, 64, 64) float32: skimage.transform.iradon of that
                     sinogram (as float64), linear interpolation,
                     circle=True, one slice per filter in the order ramp,
                     shepp-logan, cosine, hamming, hann
"""
import numpy as np
from skimage.data import shepp_logan_phantom
from skimage.transform import iradon, radon, resize

FILTERS = ["ramp", "shepp-logan", "cosine", "hamming", "hann"]

phantom = resize(shepp_logan_phantom(), (64, 64), anti_aliasing=True)
theta = np.linspace(0.0, 180.0, 90, endpoint=False)
sino = radon(phantom, theta=theta, circle=True).astype(np.float32)  # (64 det, 90)
recons = [
    iradon(sino.astype(np.float64), theta=theta, filter_name=f,
           interpolation="linear", circle=True).astype(np.float32)
    for f in FILTERS
]
np.save("shepp_sino.npy", np.ascontiguousarray(sino.T)[np.newaxis])
np.save("shepp_angles.npy", theta[np.newaxis, np.newaxis])
np.save("shepp_iradon.npy", np.stack(recons))
