#!/usr/bin/python3
"""Compare attnlab's PyTorch generator (src/core/compute/trng.c) with the installed torch, bit for bit.

Usage: check_torch_rng.py TRNG_DUMP [ATTNLAB]

For many seeds (0, 42, 2**32-1, 64-bit ones, negative ones as torch maps them),
sizes 1..64 and a few larger ones (both paths of torch's normal_: below 16
elements and from 16 on, with and without a tail that is not a multiple of 16),
it runs the same sequence of draws in torch and through TRNG_DUMP (built from
tests/tools/trng_dump.c) and compares every float32 bit pattern: torch.rand,
torch.randn, tensor.uniform_, nn.init.xavier_uniform_ and nn.Linear's weight
and bias. The sequences interleave the generators, so the state carried from
one call to the next (the cached second normal of the small path included)
is checked too.

torch chooses its normal_ and uniform_ kernels by CPU: the AVX2 build on
machines that have AVX2, the portable build otherwise or when
ATEN_CPU_CAPABILITY=default. The script checks the build this machine runs
and, in a child process with ATEN_CPU_CAPABILITY=default, the portable one.

With ATTNLAB, it also writes lessons that use every torch generator of the
lesson format (torch_seed, torch_rand, torch_randn with scales and stacks,
xavier_uniform with a gain, linear, linear_bias, transpose), one matrix per
setup shown by an [embeddings] stage, and compares `attnlab --dump` with
the same calls made in torch.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

import torch

from tcheck import inline_shared

SEEDS = [0, 1, 7, 42, 1234, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 42,
         2**40 + 3, 2**63, 2**64 - 1, 67280421310721, -1, -42]
SIZES = list(range(1, 65)) + [100, 255, 1000]
SHAPES = [(1, 1), (1, 5), (3, 4), (4, 4), (5, 3), (8, 16), (16, 16), (7, 64), (64, 9)]
GAINS = [1.0, math.sqrt(2.0), 5.0 / 3.0, 0.5]


def bits(t):
    """The float32 bit patterns of a tensor, as 8-digit hex strings."""
    return " ".join("%08x" % (v & 0xffffffff) for v in t.detach().reshape(-1).view(torch.int32).tolist())


def plan():
    """The command script for trng_dump and, in order, what torch gives for each draw."""
    cmds, want = [], []

    def seed(s):
        torch.manual_seed(s)
        cmds.append("seed %d" % (s % 2**64))

    for k, s in enumerate(SEEDS):
        seed(s)
        for n in SIZES:
            want.append(("randn %d (seed %d)" % (n, s), bits(torch.randn(n))))
            cmds.append("randn %d" % n)
            want.append(("rand %d (seed %d)" % (n, s), bits(torch.rand(n))))
            cmds.append("rand %d" % n)
        seed(s)
        # small normals one at a time: the cached second value crosses calls
        for n in [1, 1, 3, 1, 2, 16, 1, 5, 17, 1]:
            want.append(("randn %d after others (seed %d)" % (n, s), bits(torch.randn(n))))
            cmds.append("randn %d" % n)
        for j, (r, c) in enumerate(SHAPES):
            g = GAINS[(j + k) % len(GAINS)]
            w = torch.empty(r, c)
            torch.nn.init.xavier_uniform_(w, gain=g)
            want.append(("xavier %dx%d gain %r (seed %d)" % (r, c, g, s), bits(w)))
            cmds.append("xavier %d %d %.17g" % (r, c, g))
            lin = torch.nn.Linear(c, r, bias=(j % 2 == 0))
            want.append(("linear %dx%d weight (seed %d)" % (r, c, s), bits(lin.weight)))
            cmds.append("linear %d %d" % (r, c))
            if lin.bias is not None:
                want.append(("linear %dx%d bias (seed %d)" % (r, c, s), bits(lin.bias)))
                cmds.append("bias %d %d" % (r, c))
            lo, hi = -0.1 * (j + 1), 0.3 * (j + 2)
            u = torch.empty(r * c).uniform_(lo, hi)
            want.append(("uniform_(%r, %r) (seed %d)" % (lo, hi, s), bits(u)))
            cmds.append("uniform %d %.17g %.17g" % (r * c, lo, hi))
    return cmds, want


def compare(dump, portable):
    """Run the plan in torch and in trng_dump; the number of mismatches."""
    cmds, want = plan()
    script = "portable %d\n" % portable + "\n".join(cmds) + "\n"
    out = subprocess.run([dump], input=script, capture_output=True, text=True, check=True).stdout
    got = out.splitlines()
    if len(got) != len(want):
        print("FAIL: trng_dump gave %d lines for %d draws" % (len(got), len(want)))
        return 1
    bad = 0
    for (what, w), g in zip(want, got):
        if w != g:
            bad += 1
            if bad <= 5:
                print("FAIL: %s\n  torch:   %s\n  attnlab: %s" % (what, w[:160], g[:160]))
    values = sum(len(w.split()) for _, w in want)
    kind = "portable kernels" if portable else "this machine's kernels (%s)" % capability()
    print("%s: %d draws, %d values, %d mismatches" % (kind, len(want), values, bad))
    return bad


def capability():
    """The CPU capability torch dispatches its kernels to (AVX2, NO AVX, ...)."""
    show = torch.__config__.show()
    return show.split("CPU capability usage:")[1].split("\n")[0].strip() if "CPU capability usage:" in show else "?"


# One lesson per seed: (lesson lines of a setup, the tensor torch gives for it).
def lesson_plan(seed):
    """Setups that each show one generated X, and what torch gives for each X."""
    torch.manual_seed(seed)
    steps = []
    steps.append(("tokens: a b c\ntorch_seed: %d\nX = torch_randn 3x5" % seed, torch.randn(3, 5)))
    steps.append(("tokens: a b c d\nX = torch_rand 4x7 * 0.37", torch.rand(4, 7) * 0.37))
    steps.append(("X = torch_randn 4x8 * sqrt(2/(64+16))", torch.randn(4, 8) * math.sqrt(2 / (64 + 16))))
    t = torch.randn(2, 4, 3)   # a stack: matrix h is column block h
    steps.append(("X = torch_randn 2x4x3", torch.cat([t[0], t[1]], dim=1)))
    w = torch.empty(4, 6)
    torch.nn.init.xavier_uniform_(w, gain=math.sqrt(2.0))
    steps.append(("X = xavier_uniform 4x6 gain sqrt(2)", w))
    w = torch.empty(4, 4)
    torch.nn.init.xavier_uniform_(w)
    steps.append(("X = xavier_uniform 4x4", w))
    lin = torch.nn.Linear(3, 5)
    steps.append(("tokens: a\nW = linear 5x3\nX = linear_bias 5", lin.bias.reshape(1, 5)))
    steps.append(("tokens: a b c\nX = transpose W", lin.weight.t()))
    lin = torch.nn.Linear(4, 3, bias=False)
    steps.append(("X = linear 3x4", lin.weight))
    steps.append(("tokens: a b c d e\nX = torch_rand 5x3", torch.rand(5, 3)))
    return steps


def compare_lessons(attnlab):
    """Lessons through attnlab --dump against torch; the number of mismatches."""
    bad = count = 0
    with tempfile.TemporaryDirectory() as tmp:
        for seed in [0, 42, 2**32 - 1, 2**32 + 7, 2**64 - 1]:
            steps = lesson_plan(seed)
            text = "title: torch generators\n"
            for lines, _ in steps:
                text += "[setup]\n%s\n[embeddings]\n" % lines
            path = os.path.join(tmp, "t.lesson")
            with open(path, "w") as f:
                f.write(text)
            out = subprocess.run([attnlab, "--dump", path], capture_output=True, text=True)
            if out.returncode != 0:
                print("FAIL: attnlab --dump: %s" % out.stderr.strip())
                return 1
            stages = inline_shared(json.loads(out.stdout))["stages"]
            for (lines, want), st in zip(steps, stages):
                got = [m for m in st["matrices"] if m["name"] == "X"][0]["data"]
                count += 1
                if torch.tensor(got, dtype=torch.float64).tolist() != want.double().tolist():
                    bad += 1
                    print("FAIL: seed %d, %s\n  torch:   %s\n  attnlab: %s"
                          % (seed, lines.splitlines()[-1], want.tolist(), got))
    print("lessons through attnlab --dump: %d generated matrices, %d mismatches" % (count, bad))
    return bad


def main():
    if len(sys.argv) == 3 and sys.argv[2] == "--portable":
        sys.exit(1 if compare(sys.argv[1], 1) else 0)
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: check_torch_rng.py TRNG_DUMP [ATTNLAB]")
    dump = sys.argv[1]
    print("torch %s" % torch.__version__)
    cap = capability()
    bad = 0
    if cap.startswith("AVX"):
        bad += compare(dump, 0)
    else:
        print("note: this machine runs torch's portable kernels (%s); the AVX2 ones are not checked here" % cap)
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    bad += subprocess.run([sys.executable, __file__, dump, "--portable"], env=env).returncode
    if len(sys.argv) == 3 and cap.startswith("AVX"):
        bad += compare_lessons(sys.argv[2])
    if bad:
        sys.exit("check_torch_rng: FAILED")
    print("check_torch_rng: all draws identical to torch")


if __name__ == "__main__":
    main()
