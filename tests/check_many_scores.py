#!/usr/bin/python3
"""check_many_scores.py: a setup of more scores than the trace keeps
(TRACE_KEEP_SCORES, heads × queries × keys past 2^22): each head's raw,
scaled, ALiBi, biased and masked scores are made again when asked for, and
must be what numpy computes, as must the weights and outputs kept; the
hover of a weight reads the scores made again. Run: PYTHONPATH=python check_many_scores.py
Prints 'many-scores: N passed, M failed'.
"""
import numpy as np

import attnlab
from tcheck import check, finish

N, H, D = 1000, 5, 20                  # 5 × 1000 × 1000 = 5 M scores > 2^22
rng = np.random.default_rng(7)
X = rng.normal(size=(N, D))
Wq, Wk, Wv = (rng.normal(size=(D, D)) * 0.4 for _ in range(3))
TEMP = 0.7
tokens = ["w%d" % i for i in range(N)]
les = attnlab.Lesson("Many scores")
les.setup(tokens, X, W_q=Wq, W_k=Wk, W_v=Wv, heads=H, mask="causal", positions="alibi", temperature=TEMP)
les.stage("multi_head").stage("alibi")


def close(got, want, what, tol=1e-12):
    """got equals want to tol, relative beyond 1 (−∞ where want is −∞)."""
    same_inf = np.array_equal(np.isneginf(got), np.isneginf(want))
    fin = np.isfinite(want)
    err = np.max(np.abs(got[fin] - want[fin]) / np.maximum(1, np.abs(want[fin]))) if fin.any() else 0.0
    check(same_inf and err <= tol, "%s: within %g of numpy (%.3g)%s" % (what, tol, err, "" if same_inf else ", −∞ differ"))


lib = les._handle()
check(lib is not None, "the library is there")
Q, K, V = X @ Wq, X @ Wk, X @ Wv
d = D // H
causal = np.tril(np.ones((N, N), dtype=bool))
dist = np.abs(np.arange(N)[:, None] - np.arange(N)[None, :])


def slope(h, heads):
    """ALiBi's slope for head h of heads (Press et al.: the 2^k heads of the
    largest power of two below, then every other slope of twice as many)."""
    p = 1
    while 2 * p <= heads:
        p *= 2
    return 2.0 ** (-8.0 * h / p) if h <= p else 2.0 ** (-8.0 * (2 * (h - p) - 1) / (2 * p))


for h in range(1, H + 1):
    cols = slice((h - 1) * d, h * d)
    raw = Q[:, cols] @ K[:, cols].T
    scaled = raw / np.sqrt(d) / TEMP
    alibi = -slope(h, H) * dist
    biased = scaled + alibi
    masked = np.where(causal, biased, -np.inf)
    w = np.exp(masked - masked.max(axis=1, keepdims=True))
    w /= w.sum(axis=1, keepdims=True)
    # the weights and outputs first (kept), then the scores (made again), then the weights again
    close(lib.matrix(1, "head%d.weights" % h), w, "head %d's weights" % h)
    close(lib.matrix(1, "head%d.output" % h), w @ V[:, cols], "head %d's output" % h)
    for name, want in (("raw_scores", raw), ("scaled_scores", scaled), ("alibi", alibi), ("biased_scores", biased),
                       ("masked_scores", masked)):
        close(lib.matrix(2, "head%d.%s" % (h, name)), want, "head %d's %s, made again" % (h, name))
    close(lib.matrix(1, "head%d.weights" % h), w, "head %d's weights, after its scores were made again" % h)
    # the hover of a weight explains it from the masked scores' row maximum
    r, c = N - 1, N // 2
    lines = lib.explain(1, "head%d.weights" % h, r + 1, c + 1)
    lines = lines if isinstance(lines, str) else "\n".join(lines)
    check("subtract its max %.4g" % masked[r].max() in lines,
          "head %d: the hover of weight (%d, %d) subtracts its row's masked maximum, %.4g: %s"
          % (h, r + 1, c + 1, masked[r].max(), lines[:300]))
finish("many-scores")
