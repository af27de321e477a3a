#!/usr/bin/python3
"""matplotlib_baseline.py: the seeds' way of drawing an attention heatmap,
timed, as the baseline for attnlab's PNG export (bench/bench.c runs it).

One figure is what the seed notebooks draw for a 7x7 weight matrix: imshow
with a colour bar, one text per cell with the weight, tick labels with the
tokens, axis labels and a title, tight_layout, then savefig to a PNG. The
figure is 12x8 inches at matplotlib's default 100 dpi, so 1200x800 pixels,
the size bench.c exports attnlab's picture at. The weights are those of
bench.c's generated lesson: np.random.seed(7), X = randn(7, 8), softmax of
X.Xt / sqrt(8) row by row.

Everything runs in one process: import and a few warm-up figures first
(Agg backend, fonts cached), then each figure is timed from plt.figure to
the saved file. The last line printed is "median_ms VALUE"; before it,
"runs N", the figure size and the file size.

Usage: /usr/bin/python3 bench/matplotlib_baseline.py [--runs N] [--warmup N]
       [--out PATH]
Needs Debian's python3-matplotlib (and python3-numpy).
"""

import argparse
import statistics
import struct
import time

import matplotlib

matplotlib.use("Agg")  # no display, and Debian's matplotlibrc says TkAgg

import matplotlib.pyplot as plt  # noqa: E402  (after choosing the backend)
import numpy as np  # noqa: E402

TOKENS = ["the", "old", "cat", "sat", "on", "my", "mat"]


def weights():
    """The softmax weights bench.c's 7-token lesson computes."""
    np.random.seed(7)
    x = np.random.randn(len(TOKENS), 8)
    s = x @ x.T / np.sqrt(8)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def draw(w, path):
    """One figure, drawn and saved the way the seed notebooks do it."""
    n = w.shape[0]
    plt.figure(figsize=(12, 8))
    plt.imshow(w, cmap="viridis")
    plt.colorbar(label="Attention Weight")
    plt.xlabel("Keys (attended to)")
    plt.ylabel("Queries")
    plt.title("Attention weights: how much each query looks at each key")
    for i in range(n):
        for j in range(n):
            plt.text(j, i, f"{w[i, j]:.2f}", ha="center", va="center",
                     color="white" if w[i, j] < 0.5 else "black")
    plt.xticks(range(n), TOKENS)
    plt.yticks(range(n), TOKENS)
    plt.tight_layout()
    plt.savefig(path)
    plt.close()


def png_size(path):
    """Width and height from a PNG's IHDR chunk."""
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24])


def main():
    """Warm up, time the figures, print the median."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--out", default="/tmp/attnlab-matplotlib-baseline.png")
    a = ap.parse_args()
    w = weights()
    for _ in range(a.warmup):
        draw(w, a.out)
    times = []
    for _ in range(a.runs):
        t0 = time.perf_counter()
        draw(w, a.out)
        times.append((time.perf_counter() - t0) * 1000.0)
    width, height = png_size(a.out)
    with open(a.out, "rb") as f:
        nbytes = len(f.read())
    print(f"runs {len(times)}")
    print(f"size {width}x{height}, {nbytes} bytes, matplotlib {matplotlib.__version__}")
    print(f"median_ms {statistics.median(times):.3f}")


if __name__ == "__main__":
    main()
