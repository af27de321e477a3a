"""check_gpt2_small.py: a GPT-2-small-shaped block at full size through
from_torch and libattnlab, against its torch forward pass.

Usage: check_gpt2_small.py [TOKENS...]   (default: 16 128 1024)

The block is built in Hugging Face's module layout and names (Conv1D
with its (in, out) weight, attn.c_attn packing Q, K and V, attn.c_proj,
mlp.c_fc, mlp.c_proj, ln_1, ln_2; 768 wide, 12 heads, an MLP of 3072, GELU
with tanh; tests/hf_gpt2.py) with seeded weights, and run forward the way GPT2Block runs
(causal softmax of Q·Kᵀ ÷ √64, residual adds, layer norms before the
attention and the MLP), in float32 as a checkpoint holds it. At each number
of tokens, every head's weights, the stream after attention and the block's
output that attnlab computes (from the float32 weights, in float64) must be
within 1e-5 of torch's; the numbers are read from the library (no dump of
12 million weights); a first picture of the heads side by side is drawn;
and from_torch refuses, when it is called, a block past the limits with the
limit in its words.
"""

import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnlab                                  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hf_gpt2 as hg                            # noqa: E402
from tcheck import check, finish, worst        # noqa: E402

D, H = 768, 12


torch.manual_seed(124)
block = hg.GPT2Block(hg.config()).eval()
for n in [int(a) for a in sys.argv[1:]] or [16, 128, 1024]:
    x = torch.randn(n, D)
    with torch.no_grad():
        out = block(x)
    les = attnlab.from_torch(block, x, ["t%d" % i for i in range(n)])
    w = les.weights()
    check(w.shape == (H, n, n), "%d tokens: 12 heads' weights, %s" % (n, w.shape))
    e = worst(w, block.attn.weights)
    check(e <= 1e-5, "%d tokens: every head's weights within 1e-5 of torch's (%.2g)" % (n, e))
    e = worst(les.matrix("resid_mid"), block.mid)
    check(e <= 1e-5, "%d tokens: the stream after attention within 1e-5 (%.2g)" % (n, e))
    e = worst(les.matrix("resid_post"), out)
    check(e <= 1e-5, "%d tokens: the block's output within 1e-5 of torch's (%.2g)" % (n, e))
    png = les.picture(les.stages.index("multi_head") + 1)
    check(png[:8] == b"\x89PNG\r\n\x1a\n", "%d tokens: the heads side by side drawn" % n)
    print("gpt2-small: %d tokens checked" % n)

# past the limits: refused by from_torch itself, with the limit in its words
wide = hg.GPT2Block(hg.config())
wide.mlp.c_fc, wide.mlp.c_proj = hg.Conv1D(5000, D), hg.Conv1D(D, 5000)
try:
    attnlab.from_torch(wide, torch.randn(4, D), list("abcd"))
    check(False, "an MLP 5000 wide is refused")
except attnlab.LessonError as e:
    check("over the limit of 4096 rows or columns" in e.message and e.line is not None,
          "from_torch refuses an MLP 5000 wide when called, naming the limit: %s" % e.message)
finish("gpt2-small")
