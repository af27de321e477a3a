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
library removes; last, once each, a whole GPT-2-small-shaped model
(twelve blocks, 50,257 words) at 128 and 1,024 tokens to its first
picture, and the peak memory of the process against the float32 weights
and activations.
"""

import os
import resource
import statistics
import sys
import time

import numpy as np
import torch

import attnlab
from attnlab import _library

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
import hf_gpt2 as hg                            # noqa: E402  Hugging Face's GPT-2 modules, written out

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


def main():
    if not _library.available():
        print("notebook: libattnlab is not built (make lib); nothing measured")
        return 1
    torch.manual_seed(0)
    tokens128, tokens1024 = ["t%d" % i for i in range(128)], ["t%d" % i for i in range(1024)]
    a128, a1024 = weights(12, 128), weights(12, 1024)
    show128 = median_time(lambda: attnlab.show(a128, tokens128).picture(1))
    show1024 = median_time(lambda: attnlab.show(a1024, tokens1024).picture(1), max(3, RUNS // 2))
    block, x = hg.GPT2Block(hg.config()).eval(), torch.randn(128, 768)
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
    whole_model()
    return 0


def whole_model():
    """A whole GPT-2-small-shaped model (twelve blocks, 50,257 words, 124 M
    numbers) at 128 and 1,024 tokens: from_torch (every block computed) to
    its first picture, once each, and the process's peak memory against the
    float32 weights plus the activations torch returns (every head's
    weights and the logits, float32)."""
    model = hg.GPT2LMHeadModel(hg.config()).eval()
    weights = sum(p.numel() * p.element_size() for p in model.parameters())
    for n in (128, 1024):
        ids = torch.randint(0, 50257, (n,), generator=torch.Generator().manual_seed(1))
        t = time.perf_counter()
        les = attnlab.from_torch(model, ids, ["t%d" % i for i in range(n)])
        les.picture(1)
        took = time.perf_counter() - t
        print("notebook: whole GPT-2-small model, %4d tokens: from_torch -> first picture %8.1f s" % (n, took))
        del les
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    activations = 4 * (12 * 12 * n * n + n * 50257)
    print("notebook: peak memory of this process %.2f GB: %.1fx the float32 weights and activations (%.2f GB)"
          % (peak / 1e9, peak / (weights + activations), (weights + activations) / 1e9))


if __name__ == "__main__":
    sys.exit(main())
