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

# Paganin phase retrieval: httomolibgpu's prep/phase.py paganin_filter
# (defaults: next_power_of_2 padding) written out in NumPy, since
# httomolibgpu needs CuPy and a GPU.
#   paganin_in.npy   (2, 20, 30) float32: flat-field corrected projections
#                    (transmission 0.3 to 1) of two discs
#   paganin_out.npy  (2, 20, 30) float32: paganin_filter of them, with
#                    pixel_size 1.28 um, distance 1 m, energy 53 keV,
#                    ratio_delta_beta 250
import math


def paganin(data, pixel_size, distance, energy, ratio):
    _, dy, dx = data.shape
    pads = [(0, 0)]
    for n in (dy, dx):
        diff = (1 << n.bit_length()) - n          # _shift_bit_length(n + 1) - n
        pads.append((diff // 2, diff - diff // 2))
    padded = np.pad(data, pads, "edge").astype(np.complex64)
    f = np.fft.fft2(padded, axes=(-2, -1))
    wavelength = 2 * math.pi * 6.58211928e-19 * 299792458e2 * 10000.0 / energy
    alpha = wavelength * (distance / 1e-6) / (4 * math.pi) * ratio

    def coord(n):
        m = n - 1
        return np.arange(-m, n, 2, dtype=np.float32) * (2 * math.pi / (m * pixel_size))

    ky, kx = coord(padded.shape[1]), coord(padded.shape[2])
    filt = np.fft.fftshift(1.0 / (1.0 + alpha * np.add.outer(ky ** 2, kx ** 2)))
    filt = filt / filt.max()
    out = np.fft.ifft2(f * filt, axes=(-2, -1))
    out = out[:, pads[1][0]:pads[1][0] + dy, pads[2][0]:pads[2][0] + dx].real.astype(np.float32)
    return -np.log(out)


yy, xx = np.mgrid[:20, :30]
proj = np.ones((2, 20, 30), np.float32)
proj[0] -= 0.7 * (((yy - 9) ** 2 + (xx - 12) ** 2) < 25)
proj[1] -= 0.5 * (((yy - 11) ** 2 + (xx - 18) ** 2) < 36)
np.save("paganin_in.npy", proj)
np.save("paganin_out.npy", paganin(proj, 1.28, 1.0, 53.0, 250.0))
