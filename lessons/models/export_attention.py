#!/usr/bin/python3
"""export_attention.py: write lessons/models/induction-attention.npz, the
attention patterns of the bundled model on its lesson sequence, in the form
other tools export them: one float32 array of shape (layers, heads, n, n).

    /usr/bin/python3 lessons/models/export_attention.py      (from the repository root)

Needs only numpy. It runs the forward pass of lessons/models/induction.npz
(the one train_induction.py describes) on the saved sequence and keeps each
layer's softmax, as a model run with output_attentions=True would return
it. lessons/07-induction-head.lesson loads it with `attention: A`, and
tests/check_trained_model.py compares it with the patterns attnlab computes
from the weights.
"""
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "lessons", "models", "induction.npz")
OUT = os.path.join(ROOT, "lessons", "models", "induction-attention.npz")


def patterns(z):
    """Every layer's attention weights for z's sequence, (layers, heads, n, n), float64."""
    seq = z["sequence"]
    n = len(seq)
    x = z["W_E"][seq] + z["W_pos"][:n]
    layers, heads, _, dh = z["W_q"].shape
    blocked = np.triu(np.ones((n, n), dtype=bool), 1)
    out = []
    for l in range(layers):
        q = np.einsum("nd,hde->hne", x, z["W_q"][l])
        k = np.einsum("nd,hde->hne", x, z["W_k"][l])
        v = np.einsum("nd,hde->hne", x, z["W_v"][l])
        s = q @ k.transpose(0, 2, 1) / np.sqrt(dh)
        s[:, blocked] = -np.inf
        w = np.exp(s - s.max(axis=-1, keepdims=True))
        w /= w.sum(axis=-1, keepdims=True)
        z_heads = (w @ v).transpose(1, 0, 2).reshape(n, heads * dh)
        x = x + z_heads @ z["W_o"][l]
        out.append(w)
    return np.stack(out)


def main():
    z = np.load(MODEL)
    w = patterns(z).astype(np.float32)
    tokens = np.array([str(z["vocab"][i]) for i in z["sequence"]])
    np.savez_compressed(OUT, attention=w, tokens=tokens)
    print("wrote", os.path.relpath(OUT, ROOT), w.shape, os.path.getsize(OUT), "bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
