"""Deterministic test inputs of voxlab's classification, made exactly as
processing/classify/internal/synth makes them in Go (read that package's
comments): network weights from a hash of the layer name and the index,
and a two-channel light-sheet crop with somata at given points."""

import numpy as np

M64 = (1 << 64) - 1


def splitmix64(x):
    """SplitMix64 of a uint64 numpy array (wrapping arithmetic)."""
    with np.errstate(over="ignore"):
        z = (x + np.uint64(0x9E3779B97F4A7C15)) & np.uint64(M64)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        return z ^ (z >> np.uint64(31))


def fnv1a64(s):
    h = 0xCBF29CE484222325
    for b in s.encode():
        h ^= b
        h = (h * 0x100000001B3) & M64
    return h


def uniform(layer, var, n, scale, offset):
    """n values scale*u + offset rounded to float32, u in [-1, 1) from the
    top 24 bits of splitmix64(fnv1a64(layer) + var*2^48 + i)."""
    base = (fnv1a64(layer) + (var << 48)) & M64
    with np.errstate(over="ignore"):
        h = splitmix64(np.uint64(base) + np.arange(n, dtype=np.uint64))
    u = (h >> np.uint64(40)).astype(np.float64) / float(1 << 23) - 1.0
    return (u * scale + offset).astype(np.float32)


def crop(shape, points, seed):
    """The (signal, background) uint16 volumes of shape (z, y, x)."""
    nz, ny, nx = shape
    n = nz * ny * nx
    i = np.arange(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        noise0 = splitmix64(np.uint64(seed) + i) >> np.uint64(56)
        noise1 = splitmix64(np.uint64(seed + (1 << 40)) + i) >> np.uint64(56)
    z, y, x = np.unravel_index(np.arange(n), shape)
    signal = (200 + noise0.astype(np.int64)).astype(np.int64)
    background = 150 + (y + x) // 8 + 2 * z + noise1.astype(np.int64) // 2
    signal = signal.reshape(shape)
    background = background.reshape(shape)
    for pz, py, px in points:
        for dz in range(-3, 4):
            for dy in range(-6, 7):
                for dx in range(-6, 7):
                    zz, yy, xx = pz + dz, py + dy, px + dx
                    v = 36 - dy * dy - dx * dx - 4 * dz * dz
                    if v <= 0 or not (0 <= zz < nz and 0 <= yy < ny and 0 <= xx < nx):
                        continue
                    signal[zz, yy, xx] = min(65535, signal[zz, yy, xx] + 20 * v)
                    background[zz, yy, xx] = min(65535, background[zz, yy, xx] + 3 * v)
    return signal.astype(np.uint16), background.astype(np.uint16)


# The network's layers as cellfinder's resnet.py builds them (names,
# classes, weight shapes), in Keras's model order.
BLOCKS = {18: [2, 2, 2, 2], 34: [3, 4, 6, 3], 50: [3, 4, 6, 3], 101: [3, 4, 23, 3], 152: [3, 6, 36, 3]}


def layers(depth, inp):
    """[(name, class, [(var, shape)], params)] for a cube (h, w, d, c)."""
    out = []
    shape = list(inp)

    def add(name, cls, weights=(), params=None, new=None):
        nonlocal shape
        out.append((name, cls, list(weights), params or {}))
        if new is not None:
            shape = list(new)

    def pad(name, p):
        add(name, "ZeroPadding3D", params={"pad": p}, new=[s + 2 * p for s in shape[:3]] + [shape[3]])

    def conv(name, f, k, s):
        new = [(shape[i] - k[i]) // s[i] + 1 for i in range(3)] + [f]
        add(name, "Conv3D", [("kernel", (k[0], k[1], k[2], shape[3], f))], {"stride": s}, new)

    def bn(name):
        d = shape[2]
        add(name, "BatchNormalization", [(v, (d,)) for v in ("gamma", "beta", "moving_mean", "moving_variance")])

    add("input_layer", "InputLayer")
    pad("conv1_padding", 3)
    conv("conv1", 64, (7, 7, 3), (2, 2, 2))
    bn("conv1_bn")
    add("conv1_activation", "Activation")
    add("max_pool", "MaxPooling3D", new=[(shape[0] - 3) // 2 + 1, (shape[1] - 3) // 2 + 1, (shape[2] - 2) // 2 + 1, shape[3]])
    feats = 64
    bott = depth >= 50
    for unit, n in enumerate(BLOCKS[depth]):
        for block in range(n):
            s = 2 if unit > 0 and block == 0 else 1
            p = "resunit%d_block%d_" % (unit + 2, block)
            inshape = list(shape)
            if bott:
                conv(p + "conv_a", feats, (1, 1, 1), (s, s, s))
            else:
                pad(p + "pad_a", 1)
                conv(p + "conv_a", feats, (3, 3, 3), (s, s, s))
            bn(p + "bn_a")
            add(p + "activation_a", "Activation")
            pad(p + "pad_b", 1)
            conv(p + "conv_b", feats, (3, 3, 3), (1, 1, 1))
            bn(p + "bn_b")
            of = feats
            if bott:
                add(p + "activation_b", "Activation")
                of = 4 * feats
                conv(p + "conv_c", of, (1, 1, 1), (1, 1, 1))
                bn(p + "bn_c")
            if block == 0:
                main = list(shape)
                shape = inshape
                conv(p + "shortcut_conv", of, (1, 1, 1), (s, s, s))
                bn(p + "shortcut_bn")
                assert shape == main
            add(p + "add", "Add")
            add(p + "activation_c", "Activation")
        feats *= 2
    f = shape[3]
    add("final_average_pool", "GlobalAveragePooling3D", new=[1, 1, 1, f])
    add("fully_connected", "Dense", [("kernel", (f, 2)), ("bias", (2,))])
    return out


def weights(depth, inp, bn=None):
    """{layer: {var: float32 array}} as synth.Weights makes them."""
    bn = bn or {}
    w = {}
    for name, cls, ws, _ in layers(depth, inp):
        if cls == "Conv3D":
            s = ws[0][1]
            fan = s[0] * s[1] * s[2] * s[3]
            w[name] = {"kernel": uniform(name, 0, int(np.prod(s)), np.sqrt(6.0 / fan), 0.0).reshape(s)}
        elif cls == "Dense":
            s = ws[0][1]
            w[name] = {"kernel": uniform(name, 0, int(np.prod(s)), np.sqrt(6.0 / s[0]), 0.0).reshape(s),
                       "bias": np.zeros(2, np.float32)}
        elif cls == "BatchNormalization":
            n = ws[0][1][0]
            if name in bn and len(bn[name]["gamma"]) == n:
                w[name] = {k: np.asarray(bn[name][k], np.float32) for k in ("gamma", "beta", "moving_mean", "moving_variance")}
            else:
                w[name] = {"gamma": uniform(name, 0, n, 0.5, 1.0), "beta": uniform(name, 1, n, 0.5, 0.0),
                           "moving_mean": uniform(name, 2, n, 0.5, 0.0), "moving_variance": uniform(name, 3, n, 0.5, 1.0)}
    return w
