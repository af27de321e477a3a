"""check_torch_layers.py: BERT's self-attention and PyTorch's own encoder
layer at BERT-base's size through from_torch, against torch.

A BertSelfAttention is built here with Hugging Face's names (query, key
and value as nn.Linear, num_attention_heads, attention_head_size) and its
forward pass (scores ÷ √64 plus the extended padding mask, softmax), 768
wide with 12 heads, seeded; nn.TransformerEncoderLayer is PyTorch's own
(GELU, a feed-forward of 3072, batch_first), with norm_first=True
(GPT-2's order) and with its default norm_first=False (after each
residual add: `norm_order: post`). At 16 and 128 tokens, with padding at
the end, every head's weights and the layer's output must be within 1e-5
of torch's. tests/check_bert.py takes BERT's whole layers and model.
"""

import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnlab                                  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tcheck import check, finish, worst        # noqa: E402

D, H, F = 768, 12, 3072


class BertSelfAttention(torch.nn.Module):
    """Hugging Face's BertSelfAttention (eager), its names and its arithmetic."""

    def __init__(self):
        super().__init__()
        self.num_attention_heads, self.attention_head_size = H, D // H
        self.all_head_size = D
        self.query, self.key, self.value = (torch.nn.Linear(D, D) for _ in range(3))

    def forward(self, hidden, attention_mask):
        n = hidden.shape[0]

        def heads(t):
            return t.view(n, H, D // H).transpose(0, 1)
        q, k, v = heads(self.query(hidden)), heads(self.key(hidden)), heads(self.value(hidden))
        scores = q @ k.transpose(-1, -2) / math.sqrt(D // H)
        extended = (1.0 - attention_mask[None, None, :].float()) * torch.finfo(torch.float32).min
        self.probs = torch.softmax(scores + extended[0], dim=-1)
        return (self.probs @ v).transpose(0, 1).reshape(n, D)


torch.manual_seed(7)
bert = BertSelfAttention().eval()
encoders = {order: torch.nn.TransformerEncoderLayer(D, H, F, dropout=0.0, activation="gelu", batch_first=True,
                                                    norm_first=order == "pre").eval() for order in ("pre", "post")}
for n in (16, 128):
    x = torch.randn(n, D)
    keep = torch.ones(n, dtype=torch.long)
    keep[-3:] = 0                               # three padding tokens at the end
    with torch.no_grad():
        ctx = bert(x, keep)
    les = attnlab.from_torch(bert, x, ["t%d" % i for i in range(n)], attention_mask=keep)
    e = worst(les.weights(), bert.probs)
    check(e <= 1e-5, "BertSelfAttention, %d tokens, 3 padded: every head's weights within 1e-5 (%.2g)" % (n, e))
    e = worst(les.matrix("concat"), ctx)
    check(e <= 1e-5, "BertSelfAttention, %d tokens: the heads' context within 1e-5 (%.2g)" % (n, e))
    check(float(les.weights()[:, :, -3:].max()) == 0.0, "BertSelfAttention, %d tokens: no weight on padding" % n)

    pad = keep == 0
    for order, enc in encoders.items():
        with torch.no_grad():
            out = enc(x[None], src_key_padding_mask=pad[None])[0]
            h = enc.norm1(x) if order == "pre" else x
            _, w = enc.self_attn(h[None], h[None], h[None], key_padding_mask=pad[None], need_weights=True,
                                 average_attn_weights=False)
        les = attnlab.from_torch(enc, x[None], ["t%d" % i for i in range(n)], src_key_padding_mask=pad[None])
        what = "TransformerEncoderLayer (norm_first=%s), %d tokens" % (order == "pre", n)
        e = worst(les.weights(), w[0])
        check(e <= 1e-5, "%s: every head's weights within 1e-5 (%.2g)" % (what, e))
        e = worst(les.matrix("resid_post"), out)
        check(e <= 1e-5, "%s: the layer's output within 1e-5 of torch's (%.2g)" % (what, e))
    print("torch-layers: %d tokens checked" % n)

try:
    attnlab.from_torch(bert, torch.randn(3, D), list("abc"), attention_mask=torch.tensor([1, 0]))
    check(False, "a mask of the wrong length is refused")
except ValueError as e:
    check("attention_mask" in str(e) and "(3,)" in str(e), "a padding mask of the wrong length is refused: %s" % e)
finish("torch-layers")
