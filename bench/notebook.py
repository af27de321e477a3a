"""bench/notebook.py: what a notebook user waits for, in one process.

Usage: PYTHONPATH=python python3 bench/notebook.py [--quick]

Medians of several runs (each a fresh Lesson, so nothing is cached):
show() of 12 heads over 128 and 1,024 tokens to its first picture; a
GPT-2-small-shaped block (768 wide, 12 heads, MLP 3072, seeded, Hugging
Face's layout) at 128 tokens from from_torch to the PNG of its heads side
by side, against the torch forward pass of the same block measured here
(the ratio is the figure to watch: it does not depend on the machine);
and the same show() through the program instead of the library
(ATTNLAB_NO_LIB), the cost of a process and a file per picture that the
library removes.
"""

import math
import os
import statistics
import sys
import time

import numpy as np
import torch

import attnlab
from attnlab import _library

QUICK = "--quick" in sys.argv
RUNS = 3 if QUICK else 7


def median_time(fn, runs=RUNS):
    """The median wall time of fn() in seconds."""
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def weights(h, n, seed=0):
    """h heads of n × n attention weights, each row a softmax."""
    a = np.random.default_rng(seed).random((h, n, n)).astype(np.float32)
    return a / a.sum(-1, keepdims=True)


class Conv1D(torch.nn.Module):
    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = torch.nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = torch.nn.Parameter(torch.randn(nf) * 0.02)

    def forward(self, x):
        return x @ self.weight + self.bias


class Block(torch.nn.Module):
    """A GPT-2 block with Hugging Face's names, and its forward pass."""

    def __init__(self, d=768, h=12):
        super().__init__()
        self.d, self.h = d, h
        self.ln_1, self.ln_2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.attn = torch.nn.Module()
        self.attn.c_attn, self.attn.c_proj, self.attn.num_heads = Conv1D(3 * d, d), Conv1D(d, d), h
        self.mlp = torch.nn.Module()
        self.mlp.c_fc, self.mlp.c_proj = Conv1D(4 * d, d), Conv1D(d, 4 * d)
        self.mlp.act = torch.nn.GELU(approximate="tanh")

    def forward(self, x):
        n, d, h = x.shape[0], self.d, self.h
        q, k, v = self.attn.c_attn(self.ln_1(x)).split(d, dim=1)
        q, k, v = (t.reshape(n, h, d // h).transpose(0, 1) for t in (q, k, v))
        s = (q @ k.transpose(-1, -2) / math.sqrt(d // h)).masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1),
                                                                       float("-inf"))
        mid = x + self.attn.c_proj((torch.softmax(s, -1) @ v).transpose(0, 1).reshape(n, d))
        return mid + self.mlp.c_proj(self.mlp.act(self.mlp.c_fc(self.ln_2(mid))))


def main():
    if not _library.available():
        print("notebook: libattnlab is not built (make lib); nothing measured")
        return 1
    torch.manual_seed(0)
    tokens128, tokens1024 = ["t%d" % i for i in range(128)], ["t%d" % i for i in range(1024)]
    a128, a1024 = weights(12, 128), weights(12, 1024)
    show128 = median_time(lambda: attnlab.show(a128, tokens128).picture(1))
    show1024 = median_time(lambda: attnlab.show(a1024, tokens1024).picture(1), max(3, RUNS // 2))
    block, x = Block().eval(), torch.randn(128, 768)
    with torch.no_grad():
        forward = median_time(lambda: block(x))
    stage = 2                                   # layer_norm, multi_head, mlp: the heads side by side

    def picture():
        les = attnlab.from_torch(block, x, tokens128)
        return les.picture(stage)
    gpt2 = median_time(picture)
    os.environ["ATTNLAB_NO_LIB"] = "1"
    _library._lib, _library._tried = None, False
    program128 = median_time(lambda: attnlab.show(a128, tokens128).picture(1))
    del os.environ["ATTNLAB_NO_LIB"]
    _library._lib, _library._tried = None, False
    print("notebook: show() of 12 heads x 128 tokens, first picture     %8.1f ms" % (1000 * show128))
    print("notebook: show() of 12 heads x 1,024 tokens, first picture   %8.1f ms" % (1000 * show1024))
    print("notebook: the same 12 x 128 through the program (a process)  %8.1f ms  (%.1fx the library)"
          % (1000 * program128, program128 / show128))
    print("notebook: GPT-2-small block, 128 tokens: from_torch -> heads %8.1f ms" % (1000 * gpt2))
    print("notebook: its torch forward pass (float32)                   %8.1f ms  (attnlab %.1fx torch)"
          % (1000 * forward, gpt2 / forward))
    return 0


if __name__ == "__main__":
    sys.exit(main())
