#!/usr/bin/python3
"""check_model_layer.py: a real model's layer at its full context, against numpy.

Usage: check_model_layer.py TRACE_CELLS [SEED]

Writes a lesson the size of one attention layer of GPT-2 small: 1024
tokens, 768 dimensions, 12 heads of 64, a causal mask, X and the four
projections drawn with numpy's legacy generator (seed SEED, default 11).
It must load (every limit admits it), and tests/tools/trace_cells (built
as TRACE_CELLS) answers for a sample of cells of every matrix the layer
computes: Q, K and V and each head's slices, raw and scaled scores, masked
scores, weights and outputs, the joined heads and W_o's output. numpy
computes the same layer from the same draws (its products through its
BLAS, summed in another order); each sampled cell must agree to 1e-9 of
the sum of its products' magnitudes (relative, with the rounding a sum of
768 products may carry), weights to 1e-9 relative, and masked cells must
be -inf with weight 0 exactly. Also: every row of weights sums to 1.

Prints 'model-layer: N passed, M failed' and exits 1 on any failure.
"""
import math
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
from tcheck import check, finish

tool = sys.argv[1]
seed = int(sys.argv[2]) if len(sys.argv) > 2 else 11
N, D, H = 1024, 768, 12
DH = D // H
SCALE = 0.036
WORDS = ["the", "old", "cat", "sat", "on", "my", "mat"]

text = (f"title: One layer of GPT-2 small\n\n[setup: {N} tokens, {D} dimensions, {H} heads]\n"
        f"seed: {seed}\nheads: {H}\nmask: causal\n"
        "tokens: " + " ".join(f"{WORDS[i % 7]}{i // 7}" for i in range(N)) + "\n"
        f"X = randn {N}x{D}\n"
        + "".join(f"W_{c} = randn {D}x{D} * {SCALE}\n" for c in "qkvo")
        + "queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\noutput: W_o\n\n"
        "[multi_head]\n\nTwelve heads over the whole context.\n")

# numpy's side: the same draws in the file's order, then the layer by its definition.
np.random.seed(seed)
X = np.random.randn(N, D)
Wq, Wk, Wv, Wo = (np.random.randn(D, D) * SCALE for _ in range(4))
Q, K, V = X @ Wq, X @ Wk, X @ Wv
aX = np.abs(X)
mag = {"Q": aX @ np.abs(Wq), "K": aX @ np.abs(Wk), "V": aX @ np.abs(Wv)}
causal = np.tril(np.ones((N, N), dtype=bool))
want, scale_of = {"Q": Q, "K": K, "V": V}, dict(mag)
outs = []
for h in range(H):
    cols = slice(h * DH, (h + 1) * DH)
    q, k, v = Q[:, cols], K[:, cols], V[:, cols]
    raw = q @ k.T
    raw_mag = np.abs(q) @ np.abs(k).T
    scaled = raw / math.sqrt(DH)
    masked = np.where(causal, scaled, -np.inf)
    w = np.exp(masked - masked.max(axis=1, keepdims=True))
    w = w / w.sum(axis=1, keepdims=True)
    out = w @ v
    outs.append(out)
    p = f"head{h + 1}."
    want.update({p + "Q": q, p + "K": k, p + "V": v, p + "raw_scores": raw, p + "scaled_scores": scaled,
                 p + "masked_scores": masked, p + "weights": w, p + "output": out})
    scale_of.update({p + "Q": mag["Q"][:, cols], p + "K": mag["K"][:, cols], p + "V": mag["V"][:, cols],
                     p + "raw_scores": raw_mag, p + "scaled_scores": raw_mag / math.sqrt(DH),
                     p + "masked_scores": raw_mag / math.sqrt(DH), p + "weights": np.abs(w),
                     p + "output": np.abs(w) @ np.abs(v)})
concat = np.hstack(outs)
want["concat"], scale_of["concat"] = concat, np.abs(concat)
want["final"], scale_of["final"] = concat @ Wo, np.abs(concat) @ np.abs(Wo)

# A sample of cells of every matrix: corners, the diagonal's neighbours and random ones.
rng = random.Random(seed)
asks = []
for name, m in sorted(want.items()):
    rows, cols = m.shape
    cells = {(0, 0), (rows - 1, cols - 1), (rows - 1, 0), (0, cols - 1)}
    if rows == cols:
        cells |= {(i, i) for i in (1, 511, 1023)} | {(i, i + 1) for i in (0, 700)}
    while len(cells) < 24:
        cells.add((rng.randrange(rows), rng.randrange(cols)))
    asks += [(name, r, c) for r, c in sorted(cells)]

# Rows of weights must sum to 1: whole rows of the first and last head, a cell at a time.
rows = [(h, r) for h in (1, H) for r in (0, 1, 767, 1023)]
query = "".join(f"0 {name} {r} {c}\n" for name, r, c in asks)
query += "".join(f"0 head{h}.weights {r} {c}\n" for h, r in rows for c in range(N))
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "gpt2-layer.lesson")
    with open(path, "w") as f:
        f.write(text)
    out = subprocess.run([tool, path], input=query, capture_output=True, text=True)

check(out.returncode == 0, f"the layer loads and computes: {out.stderr.strip()}")
lines = out.stdout.split("\n") if out.returncode == 0 else []
answers = lines[:len(asks)]
check(len(answers) == len(asks), f"an answer for each of the {len(asks)} cells")
worst = 0.0
for (name, r, c), a in zip(asks, answers):
    w = want[name][r, c]
    if a == "none":
        check(False, f"{name}[{r}][{c}] exists")
        continue
    got = -math.inf if a == "-inf" else float(a)
    if w == -math.inf:
        check(got == -math.inf, f"{name}[{r}][{c}] is masked: -inf, got {a}")
        continue
    if name.endswith("weights") and c > r:
        check(got == 0.0, f"{name}[{r}][{c}] above the diagonal is exactly 0, got {a}")
        continue
    tol = 1e-9 * max(scale_of[name][r, c], abs(w))
    err = abs(got - w)
    worst = max(worst, err / max(scale_of[name][r, c], abs(w), 1e-300))
    check(err <= tol, f"{name}[{r}][{c}]: attnlab {a}, numpy {w!r} (difference {err:.3g}, allowed {tol:.3g})")

vals = lines[len(asks):]
for i, (h, r) in enumerate(rows):
    row = [float(v) for v in vals[i * N:(i + 1) * N]] if len(vals) >= (i + 1) * N else [0.0]
    check(abs(sum(row) - 1.0) < 1e-12, f"head{h}.weights row {r} sums to 1 (got {sum(row)!r})")

print(f"model-layer: largest difference {worst:.3g} of the cell's magnitude")
finish("model-layer")
