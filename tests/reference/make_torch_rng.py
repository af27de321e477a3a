#!/usr/bin/python3
"""Write tests/reference/torch_rng.json: draws printed by the installed torch.

Usage: /usr/bin/python3 tests/reference/make_torch_rng.py > tests/reference/torch_rng.json

Each case is one call sequence: seed (a string, as 64-bit seeds do not fit in
a JSON double), what is drawn (kind, rows, cols, gain) and the float32 values
torch returned, written as doubles (exact). Cases marked "portable" are run in
a child process with ATEN_CPU_CAPABILITY=default, where torch uses its
portable kernels instead of the AVX2 ones. tests/test_trng.c reads the file.
"""
import json
import math
import os
import subprocess
import sys

import torch

# (seed, kind, rows, cols, gain, portable)
CASES = [
    (42, "randn", 1, 3, 0, False),        # small path: double Box-Muller, cached sine
    (0, "randn", 1, 15, 0, False),        # the largest small tensor
    (42, "randn", 1, 16, 0, False),       # one block of 16 (AVX2 transform)
    (7, "randn", 4, 5, 0, False),         # 20: a block and a redrawn tail
    (42, "randn", 1, 16, 0, True),        # one block of 16, portable transform
    (2**32 - 1, "randn", 3, 7, 0, True),  # 21, portable
    (2**32 - 1, "rand", 1, 5, 0, False),
    (2**64 - 1, "rand", 1, 4, 0, False),  # same low 32 bits as 2^32-1
    (42, "xavier", 4, 4, 1.0, False),     # the first weight of seed 002
    (42, "xavier", 3, 5, 1.0, True),      # portable: no fused multiply-add
    (123, "xavier", 2, 6, math.sqrt(2.0), False),
    (42, "linear", 4, 3, 0, False),       # nn.Linear(3, 4): weight then bias
]


def run_case(seed, kind, rows, cols, gain):
    """The values torch gives for one case, as Python floats."""
    torch.manual_seed(seed)
    if kind == "randn":
        vals = torch.randn(rows * cols).tolist()
        call = "manual_seed(%d); randn(%d)" % (seed, rows * cols)
    elif kind == "rand":
        vals = torch.rand(rows * cols).tolist()
        call = "manual_seed(%d); rand(%d)" % (seed, rows * cols)
    elif kind == "xavier":
        w = torch.empty(rows, cols)
        torch.nn.init.xavier_uniform_(w, gain=gain)
        vals = w.reshape(-1).tolist()
        call = "manual_seed(%d); xavier_uniform_(empty(%d, %d), gain=%r)" % (seed, rows, cols, gain)
    else:
        lin = torch.nn.Linear(cols, rows)
        vals = lin.weight.detach().reshape(-1).tolist() + lin.bias.detach().tolist()
        call = "manual_seed(%d); nn.Linear(%d, %d): weight (row-major) then bias" % (seed, cols, rows)
    return call, vals


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--portable":
        out = []
        for seed, kind, rows, cols, gain, portable in CASES:
            if portable:
                out.append(run_case(seed, kind, rows, cols, gain))
        json.dump(out, sys.stdout)
        return
    env = dict(os.environ, ATEN_CPU_CAPABILITY="default")
    child = subprocess.run([sys.executable, __file__, "--portable"], env=env,
                           capture_output=True, text=True, check=True).stdout
    portable_vals = iter(json.loads(child))
    cases = []
    for seed, kind, rows, cols, gain, portable in CASES:
        call, vals = next(portable_vals) if portable else run_case(seed, kind, rows, cols, gain)
        cases.append({"call": call, "seed": str(seed), "kind": kind, "rows": rows, "cols": cols,
                      "gain": gain, "portable": portable, "values": vals})
    doc = {"about": "PyTorch %s CPU generator: manual_seed, rand, randn, nn.init.xavier_uniform_, "
                    "nn.Linear's default init; float32 values written as doubles; portable cases "
                    "ran with ATEN_CPU_CAPABILITY=default" % torch.__version__,
           "made_by": "tests/reference/make_torch_rng.py",
           "cases": cases}
    json.dump(doc, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
