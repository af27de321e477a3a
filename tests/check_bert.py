"""check_bert.py: BERT through from_torch at BERT-base's width, against torch.

The modules are Hugging Face's, written out in tests/hf_bert.py with their
names and arithmetic (post-norm layers, GELU with erf, LayerNorm ε 1e-12,
the extended padding mask), with seeded weights. attnlab reads them in
BERT's order (`norm_order: post`) and computes everything in double
precision; torch computes in float32, and again in float64 with the same
weights. Every weight is checked within 1e-5 of both; every stream within
1e-9 of torch's float64 pass and 1e-4 of its float32 one (four layers of
float32 sums over 768 and 3072 products drift by about 1e-5), printed.
Checked:

- a BertModel of 768 wide, 12 heads, an MLP of 3072 and four layers (the
  most of that width the limits for loaded numbers admit), at 16 and 128
  tokens with padding at the end and two segments (token_type_ids): every
  layer's every head's weights, the stream after attention
  (`resid_mid` = BertAttention's output) and the layer's output
  (`resid_post` = hidden_states[i + 1]); no weight on padding;
- one BertLayer at 512 tokens (BERT's positions), its weights and output;
- a BertAttention (no MLP) and a BertEncoder over given hidden states;
- the model view from_torch ends the model with (every head of every
  layer, layer by layer) and Lesson.heads() of it.

And what is refused, naming the parameter: a batch of several sequences
without batch=, an attention_mask of the wrong length.
"""

import copy
import os
import sys

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
import attnlab                                  # noqa: E402
import hf_bert as hb                            # noqa: E402
from tcheck import check, finish, worst        # noqa: E402


def tokens(n, pad):
    """n token labels, the last pad of them padding."""
    return ["[CLS]"] + ["w%d" % i for i in range(1, n - pad - 1)] + ["[SEP]"] + ["[PAD]"] * pad


def check_layers(les, layers, what, pad, tol=1e-5):
    """Every layer's heads, stream after attention and output, as torch left
    them in the modules (setups count from 1), within tol (weights 1e-5)."""
    worst_seen = 0.0
    for i, layer in enumerate(layers):
        s = i + 1
        w = les.weights(setup=s)
        e = worst(w, layer.attention.self.probs[0])
        check(e <= min(tol, 1e-5), "%s, layer %d: every head's weights within %g (%.2g)" % (what, s, min(tol, 1e-5), e))
        if pad:
            check(float(w[:, :, -pad:].max()) == 0.0, "%s, layer %d: no weight on the %d padding tokens" % (what, s, pad))
        e = worst(les.matrix("resid_mid", setup=s), layer.attention_out[0])
        check(e <= tol, "%s, layer %d: the stream after attention within %g (%.2g)" % (what, s, tol, e))
        e2 = worst(les.matrix("resid_post", setup=s), layer.out[0])
        check(e2 <= tol, "%s, layer %d: the layer's output within %g (%.2g)" % (what, s, tol, e2))
        worst_seen = max(worst_seen, e, e2)
    return worst_seen


base = hb.config(layers=4)
model = hb.seeded(hb.BertModel(base), 3)
model64 = copy.deepcopy(model).double()        # the same weights (a float32 is a double exactly)
g = torch.Generator().manual_seed(5)
for n in (16, 128):
    pad = 3
    ids = torch.randint(5, base.vocab_size, (1, n), generator=g)
    mask = torch.ones(1, n, dtype=torch.long)
    mask[0, -pad:] = 0
    segments = torch.zeros(1, n, dtype=torch.long)
    segments[0, n // 2:] = 1
    with torch.no_grad():
        model(ids, mask, segments)
        # from_torch takes the embeddings torch computes in float32: the float64 pass starts from them too
        ext = (1.0 - mask[:, None, None, :].double()) * torch.finfo(torch.float32).min
        model64.encoder(model.embeddings(ids, segments).double(), ext)
    les = attnlab.from_torch(model, ids, tokens(n, pad), attention_mask=mask, token_type_ids=segments)
    e = check_layers(les, model64.encoder.layer, "BertModel, %d tokens, against torch in float64" % n, pad, 1e-9)
    e32 = check_layers(les, model.encoder.layer, "BertModel, %d tokens, against torch in float32" % n, pad, 1e-4)
    print("bert: BertModel at %d tokens: streams within %.1g of torch in float64, %.1g of torch in float32" % (n, e, e32))
    grid = les.matrix("heads_grid", stage=len(les.stages))
    want = np.concatenate([np.concatenate(list(layer.attention.self.probs[0].double().numpy()), axis=1)
                           for layer in model64.encoder.layer], axis=0)
    e = worst(grid, want)
    check(les.stages[-1] == "model_view" and grid.shape == (4 * n, 12 * n) and e <= 1e-9,
          "BertModel, %d tokens: the model view holds every head of every layer, %s (%.2g)" % (n, grid.shape, e))
    check(les.heads().png()[:8] == b"\x89PNG\r\n\x1a\n", "BertModel, %d tokens: heads() draws" % n)

layer = model.encoder.layer[0]
x = torch.randn(1, 512, 768, generator=g)
keep = torch.ones(1, 512, dtype=torch.long)
keep[0, -40:] = 0
with torch.no_grad():
    layer(x, (1.0 - keep[:, None, None, :].float()) * torch.finfo(torch.float32).min)
les = attnlab.from_torch(layer, x, tokens(512, 40), attention_mask=keep)
check_layers(les, [layer], "BertLayer, 512 tokens", 40)

small = hb.config(hidden=32, heads=4, intermediate=64, layers=3)
enc = hb.seeded(hb.BertEncoder(small), 9)
x = torch.randn(1, 10, 32, generator=g)
with torch.no_grad():
    enc(x)
les = attnlab.from_torch(enc, x, tokens(10, 0))
check_layers(les, enc.layer, "BertEncoder", 0)
att = enc.layer[1].attention
with torch.no_grad():
    out = att(x)
les = attnlab.from_torch(att, x, tokens(10, 0))
e = worst(les.weights(), att.self.probs[0])
check(e <= 1e-5, "BertAttention: every head's weights within 1e-5 (%.2g)" % e)
e = worst(les.matrix("ln"), out[0])
check(e <= 1e-5, "BertAttention: its output, LN(x + attention), within 1e-5 (%.2g)" % e)

try:
    attnlab.from_torch(model, torch.randint(5, 50, (2, 6)), tokens(6, 0))
    check(False, "a batch of two sequences without batch= is refused")
except (ValueError, IndexError) as err:
    check("batch=" in str(err), "a batch of two sequences without batch= is refused, saying how: %s" % err)
try:
    attnlab.from_torch(model, ids[:, :6], tokens(6, 0), attention_mask=torch.ones(5))
    check(False, "an attention_mask of the wrong length is refused")
except ValueError as err:
    check("attention_mask" in str(err) and "(6,)" in str(err), "an attention_mask of the wrong length is refused: %s" % err)
finish("bert")
