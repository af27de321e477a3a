"""check_gpt2_model.py: a whole GPT-2-small-shaped model through from_torch,
against torch.

Usage: check_gpt2_model.py [TOKENS...]   (default: 16 128)

GPT2LMHeadModel is built in Hugging Face's layout (tests/hf_gpt2.py: wte,
wpe, twelve blocks of 768 wide with 12 heads and an MLP of 3072, ln_f, the
lm_head tied to wte; 50,257 words), seeded, 124 million numbers. from_torch
reads it whole: the embeddings torch computes are block 1's X, every block
a setup continuing the stream, the last one ending in the next token over
the whole vocabulary. At each number of tokens, checked against torch's
forward pass in float32 and in float64 (the same weights, the float32
embeddings): every block's every head's weights, every block's output, and
the next token's probabilities of the words the next_token stage shows
(each row's five likeliest, as torch ranks them too); every row's
likeliest word is torch's. The next_token stage draws.
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
import hf_gpt2 as hg                            # noqa: E402
from tcheck import check, finish, worst        # noqa: E402


def forward(model, x):
    """The blocks of model (a GPT2LMHeadModel) from the embeddings x, and the
    next token's probabilities: what the modules keep for the comparison."""
    t = model.transformer
    with torch.no_grad():
        for block in t.h:
            x = block(x)
        return torch.softmax(model.lm_head(t.ln_f(x)), dim=-1)


torch.manual_seed(50257)
model = hg.GPT2LMHeadModel(hg.config()).eval()
model64 = copy.deepcopy(model).double()
g = torch.Generator().manual_seed(7)
for n in [int(a) for a in sys.argv[1:]] or [16, 128]:
    ids = torch.randint(0, model.transformer.config.vocab_size, (n,), generator=g)
    with torch.no_grad():
        x = model.transformer.wte(ids) + model.transformer.wpe(torch.arange(n))
    p32 = forward(model, x)
    les = attnlab.from_torch(model, ids, ["t%d" % i for i in range(n)])
    probs, words = les.next_token()
    cols = [int(w[1:]) for w in words]          # the words are "#id" without vocab=
    check(len(cols) >= 5 and cols == sorted(cols), "%d tokens: next_token shows %d words of 50257, in the "
          "vocabulary's order" % (n, len(cols)))
    top = torch.topk(p32, 5, dim=-1).indices.numpy()
    check(set(top.ravel()) <= set(cols), "%d tokens: every row's five likeliest words (torch's) are shown" % n)
    check(np.array_equal(np.array(cols)[probs.argmax(axis=1)], top[:, 0]),
          "%d tokens: every row's likeliest word is torch's" % n)
    for precision, mod in (("float32", model), ("float64", model64)):
        p = forward(mod, x.double() if precision == "float64" else x)
        tol = 1e-5 if precision == "float32" else 1e-12
        we = max(worst(les.weights(setup=i + 1), b.attn.weights) for i, b in enumerate(mod.transformer.h))
        check(we <= 1e-5 if precision == "float32" else we <= tol,
              "%d tokens, torch in %s: every head's weights of all 12 blocks (%.2g)" % (n, precision, we))
        se = max(worst(les.matrix("resid_post", setup=i + 1), b.out) for i, b in enumerate(mod.transformer.h))
        check(se <= (1e-4 if precision == "float32" else tol),
              "%d tokens, torch in %s: every block's output (%.2g)" % (n, precision, se))
        pe = worst(probs, p[:, cols])
        check(pe <= tol, "%d tokens, torch in %s: the next token's probabilities (%.2g)" % (n, precision, pe))
        print("gpt2-model: %d tokens, torch in %s: weights %.1g, streams %.1g, probabilities %.1g"
              % (n, precision, we, se, pe))
    stage = les.stages.index("next_token") + 1
    png = les.picture(stage)
    check(png[:8] == b"\x89PNG\r\n\x1a\n", "%d tokens: the next_token stage drawn" % n)
finish("gpt2-model")
