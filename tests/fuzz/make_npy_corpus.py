#!/usr/bin/python3
"""make_npy_corpus.py DIR: seed inputs for fuzz_npy, written by numpy into DIR
(created if missing): every dtype, both byte orders, C and Fortran order,
format versions 1.0 to 3.0, 0-D to 4-D, and .npz archives (stored and
deflated) holding W.npy. Inputs the fuzzer found earlier stay in DIR."""
import io
import os
import sys

import numpy as np

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(1)
n = 0
shapes = [(), (3,), (2, 3), (2, 2, 3), (2, 1, 2, 2)]
for k, dt in enumerate(["<f2", ">f4", "<f8", "|i1", ">i2", "<i4", "<i8", "|u1", "<u2", ">u4", "<u8", "|b1"]):
    for j, shape in enumerate(shapes):
        a = (rng.normal(0, 5, shape) if dt[1] == "f" else rng.integers(0, 2, shape)).astype(dt)
        buf = io.BytesIO()
        np.lib.format.write_array(buf, np.asfortranarray(a) if j % 2 else a, version=[(1, 0), (2, 0), (3, 0)][(k + j) % 3])
        open(os.path.join(out, "seed-%s-%d.npy" % (dt.replace("<", "le").replace(">", "be").replace("|", ""), j)), "wb").write(buf.getvalue())
        n += 1
w = rng.normal(size=(2, 3))
np.savez(os.path.join(out, "seed-stored.npz"), W=w)
np.savez_compressed(os.path.join(out, "seed-deflated.npz"), W=w)
print("make_npy_corpus: %d seeds in %s" % (n + 2, out))
