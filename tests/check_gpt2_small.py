"""check_gpt2_small.py: a GPT-2-small-shaped block at full size through
from_torch and libattnlab, against its torch forward pass.

Usage: check_gpt2_small.py [TOKENS...]   (default: 16 128 1024)

The block is built here in Hugging Face's module layout and names (Conv1D
with its (in, out) weight, attn.c_attn packing Q, K and V, attn.c_proj,
mlp.c_fc, mlp.c_proj, ln_1, ln_2; 768 wide, 12 heads, an MLP of 3072, GELU
with tanh) with seeded weights, and run forward the way GPT2Block runs
(causal softmax of Q·Kᵀ ÷ √64, residual adds, layer norms before the
attention and the MLP), in float32 as a checkpoint holds it. At each number
of tokens, every head's weights, the stream after attention and the block's
output that attnlab computes (from the float32 weights, in float64) must be
within 1e-5 of torch's; the numbers are read from the library (no dump of
12 million weights); a first picture of the heads side by side is drawn;
and from_torch refuses, when it is called, a block past the limits with the
limit in its words.
"""

import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnlab                                  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tcheck import check, finish               # noqa: E402

D, H, F = 768, 12, 3072


class Conv1D(torch.nn.Module):
    """Hugging Face's Conv1D: a linear layer whose weight is (in, out)."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = torch.nn.Parameter(torch.empty(nx, nf))
        self.bias = torch.nn.Parameter(torch.empty(nf))
        torch.nn.init.normal_(self.weight, std=0.02)
        torch.nn.init.normal_(self.bias, std=0.02)

    def forward(self, x):
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).reshape(x.shape[:-1] + (self.nf,))


class NewGELUActivation(torch.nn.Module):
    """GPT-2's GELU, with tanh."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Attention(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.num_heads, self.head_dim, self.embed_dim = H, D // H, D
        self.c_attn, self.c_proj = Conv1D(3 * D, D), Conv1D(D, D)

    def forward(self, x):
        n = x.shape[0]
        q, k, v = self.c_attn(x).split(D, dim=1)
        q, k, v = (t.reshape(n, H, D // H).transpose(0, 1) for t in (q, k, v))
        s = q @ k.transpose(-1, -2) / math.sqrt(D // H)
        s = s.masked_fill(torch.triu(torch.ones(n, n, dtype=torch.bool), 1), torch.finfo(s.dtype).min)
        self.weights = torch.softmax(s, dim=-1)
        return self.c_proj((self.weights @ v).transpose(0, 1).reshape(n, D))


class GPT2MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c_fc, self.c_proj, self.act = Conv1D(F, D), Conv1D(D, F), NewGELUActivation()

    def forward(self, x):
        return self.c_proj(self.act(self.c_fc(x)))


class GPT2Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.attn = torch.nn.LayerNorm(D), GPT2Attention()
        self.ln_2, self.mlp = torch.nn.LayerNorm(D), GPT2MLP()
        for ln in (self.ln_1, self.ln_2):
            torch.nn.init.normal_(ln.weight, 1.0, 0.1)
            torch.nn.init.normal_(ln.bias, 0.0, 0.1)

    def forward(self, x):
        self.mid = x + self.attn(self.ln_1(x))
        return self.mid + self.mlp(self.ln_2(self.mid))


def worst(a, b):
    """The largest absolute difference."""
    return float(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)).max())


torch.manual_seed(124)
block = GPT2Block().eval()
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
wide = GPT2Block()
wide.mlp.c_fc, wide.mlp.c_proj = Conv1D(5000, D), Conv1D(D, 5000)
try:
    attnlab.from_torch(wide, torch.randn(4, D), list("abcd"))
    check(False, "an MLP 5000 wide is refused")
except attnlab.LessonError as e:
    check("over the limit of 4096 rows or columns" in e.message and e.line is not None,
          "from_torch refuses an MLP 5000 wide when called, naming the limit: %s" % e.message)
finish("gpt2-small")
