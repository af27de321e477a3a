#!/usr/bin/python3
"""check_python.py: the Python module (python/attnlab) against numpy and torch.

Run: PYTHONPATH=python check_python.py   (ATTNLAB: the program to use)

- tokens as tokenizers write them (WordPiece's ##, BPE's Ġ, quotes,
  backslashes, spaces, #) reach the slides exactly, through the quoting rule
  and through a token array loaded from a .npz;
- from_torch on nn.MultiheadAttention (packed and separate projections,
  biases or none, batch_first either way, attn_mask, key_padding_mask,
  cross-attention) gives torch's per-head weights and output to 1e-6;
- a GPT-2 block given as a state dict (Conv1D weights, a prefix, heads=)
  gives the attention, MLP output and next-token probabilities of a numpy
  forward pass to 1e-9;
- lesson 13's layer norm, MLP and next token equal numpy's recomputation
  of the same random weights (numpy's generator, seed 13, in file order);
- pictures come back as PNG and SVG, --dump as Python objects;
- bad input raises a Python exception with a message that says what is
  wrong, never anything worse.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

import attnlab
from tcheck import check, finish

BIN = os.environ.get("ATTNLAB", "build/attnlab")


def close(a, b, tol, what):
    """Check that two arrays have the same shape and differ by at most tol."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    diff = np.abs(a - b).max() if a.shape == b.shape else np.inf
    return check(diff <= tol, "%s: max diff %g (shapes %s, %s)" % (what, diff, a.shape, b.shape))


def raises(kind, fn, words, what):
    """Check that fn() raises kind with all of words in its message."""
    try:
        fn()
    except kind as e:
        return check(all(w in str(e) for w in words), "%s: message %r lacks %s" % (what, str(e), words))
    except Exception as e:          # noqa: BLE001 - any other exception is the fault being looked for
        return check(False, "%s: raised %s (%s), expected %s" % (what, type(e).__name__, e, kind.__name__))
    return check(False, "%s: raised nothing" % what)


def softmax(s):
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x, g, b, eps=1e-5):
    m = x.mean(axis=-1, keepdims=True)
    v = ((x - m) ** 2).mean(axis=-1, keepdims=True)
    return (x - m) / np.sqrt(v + eps) * g + b


def gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def heads_of(q, k, v, H, causal):
    """Per-head weights (H, n, m) and the joined heads (n, H·dv)."""
    n, d = q.shape
    split = lambda t: t.reshape(t.shape[0], H, -1).transpose(1, 0, 2)
    qh, kh, vh = split(q), split(k), split(v)
    s = qh @ kh.transpose(0, 2, 1) / np.sqrt(qh.shape[-1])
    if causal:
        s = np.where(np.triu(np.ones((n, k.shape[0]), bool), 1), -np.inf, s)
    w = softmax(s)
    return w, (w @ vh).transpose(1, 0, 2).reshape(n, -1)


# ---------------------------------------------------------------- tokens

pieces = ["[CLS]", "the", "play", "##ing", '"', "Ġcat", "a b", "\\x", "#1", "é"]
A = softmax(np.random.RandomState(1).randn(len(pieces), len(pieces)))
les = attnlab.show(A, pieces)
d = les.dump()
labels = d["stages"][0]["matrices"][0]["row_labels"]
check(labels == pieces, "tokens written with the quoting rule come back as written: %s" % labels)
close(les.weights()[0], A, 1e-15, "show: the weights given are the weights shown")
many = ["tok%d" % i for i in range(200)] + ['"q"', "##x"]
big = attnlab.Lesson("tokens from a .npz")
big.setup(many, np.random.RandomState(2).randn(len(many), 200))
big.stage("embeddings")
check(big._needs_npz() and 'tokens = load "arrays.npz" s1_tokens' in big.lesson_text(),
      "a lesson too big to write out loads its tokens and matrices from a .npz")
check(big.dump()["stages"][0]["matrices"][0]["row_labels"] == many, "tokens loaded from a .npz come back as saved")

with tempfile.TemporaryDirectory() as tmp:
    words = ["[CLS]", "##ing", '"', "Ġcat", "a b"]
    np.save(os.path.join(tmp, "tokens.npy"), np.array(words))
    np.savez(os.path.join(tmp, "more.npz"), vocab=np.array([w.encode("utf-8") for w in ["x", "y#", "z"]]))
    with open(os.path.join(tmp, "t.lesson"), "w") as f:
        f.write('title: t\n[setup]\nseed: 1\ntokens = load "tokens.npy"\nX = randn 5x3\nW_U = randn 3x3\n'
                'unembed: W_U\nvocab = load "more.npz" vocab\n[next_token]\ntop: 3\n')
    done = subprocess.run([BIN, "--dump", os.path.join(tmp, "t.lesson")], capture_output=True, text=True)
    if check(done.returncode == 0, "tokens from a .npy of str and a vocabulary from a .npz of bytes load: " + done.stderr):
        m = json.loads(done.stdout)["stages"][0]["matrices"][-1]
        check(m["row_labels"] == words and sorted(m["col_labels"]) == ["x", "y#", "z"],
              "the loaded strings label the rows and columns: %s %s" % (m["row_labels"], m["col_labels"]))

# ------------------------------------------------- nn.MultiheadAttention


def mha_case(what, mha, x, key=None, value=None, tokens=None, key_tokens=None, torch_kw=None, **kw):
    """from_torch's weights and output against torch's, to 1e-6."""
    torch_kw = torch_kw or {}
    k = x if key is None else key
    v = k if value is None else value
    with torch.no_grad():
        out, w = mha(x, k, v, average_attn_weights=False, **torch_kw)
    b = kw.get("batch", 0)
    if x.dim() == 3:
        out, w = (out[b], w[b]) if mha.batch_first else (out[:, b], w[b])
    else:
        out, w = out, w
    n = w.shape[-2]
    les = attnlab.from_torch(mha, x, tokens or ["t%d" % i for i in range(n)], key=key, value=value,
                             key_tokens=key_tokens, **kw)
    close(les.weights(), w.numpy(), 1e-6, what + ": per-head weights equal torch's")
    final = les.matrix("final")
    close(final, out.numpy(), 1e-6, what + ": the output after W_o and b_o equals torch's")


torch.manual_seed(0)
mha = torch.nn.MultiheadAttention(12, 3)
x = torch.randn(len(pieces), 12)
mha_case("3 heads, biases, tokenizer pieces", mha, x, tokens=pieces)
mha_case("the same, causal bool attn_mask", mha, x, torch_kw={"attn_mask": torch.ones(10, 10, dtype=torch.bool).triu(1)},
         attn_mask=torch.ones(10, 10, dtype=torch.bool).triu(1))
mha_nb = torch.nn.MultiheadAttention(8, 2, bias=False, batch_first=True)
xb = torch.randn(2, 5, 8)
pad = torch.tensor([[False] * 5, [False, False, False, True, True]])
mha_case("batch_first, no bias, key_padding_mask, second sequence", mha_nb, xb, batch=1,
         torch_kw={"key_padding_mask": pad}, key_padding_mask=pad)
cross = torch.nn.MultiheadAttention(8, 2, kdim=6, vdim=5)
q, kk, vv = torch.randn(4, 1, 8), torch.randn(7, 1, 6), torch.randn(7, 1, 5)
mha_case("separate projections, cross-attention, (L, N, E)", cross, q, key=kk, value=vv,
         key_tokens=["k%d" % i for i in range(7)])
raises(ValueError, lambda: attnlab.from_torch(mha, x, pieces, attn_mask=torch.randn(10, 10)),
       ["attn_mask", "0 and -inf"], "an additive float mask")
raises(TypeError, lambda: attnlab.from_torch(torch.nn.Linear(3, 3), x, pieces), ["expected nn.MultiheadAttention"],
       "a module that is not attention")

# ------------------------------------------------ a GPT-2 block's state dict

rs = np.random.RandomState(3)
D, H, n, V = 8, 2, 5, 6
sd = {"h.0.ln_1.weight": 1 + 0.1 * rs.randn(D), "h.0.ln_1.bias": 0.1 * rs.randn(D),
      "h.0.attn.c_attn.weight": 0.4 * rs.randn(D, 3 * D), "h.0.attn.c_attn.bias": 0.1 * rs.randn(3 * D),
      "h.0.attn.c_proj.weight": 0.4 * rs.randn(D, D), "h.0.attn.c_proj.bias": 0.1 * rs.randn(D),
      "h.0.ln_2.weight": 1 + 0.1 * rs.randn(D), "h.0.ln_2.bias": 0.1 * rs.randn(D),
      "h.0.mlp.c_fc.weight": 0.4 * rs.randn(D, 4 * D), "h.0.mlp.c_fc.bias": 0.1 * rs.randn(4 * D),
      "h.0.mlp.c_proj.weight": 0.2 * rs.randn(4 * D, D), "h.0.mlp.c_proj.bias": 0.1 * rs.randn(D)}
sd = {k: torch.tensor(v) for k, v in sd.items()}
p = {k[4:]: v.numpy() for k, v in sd.items()}
X, wte = rs.randn(n, D), rs.randn(V, D)
lnf = (1 + 0.1 * rs.randn(D), 0.1 * rs.randn(D))
words = ["w%d" % i for i in range(V)]
block = attnlab.from_torch(sd, X, ["a", "b", "c", "d", "e"], heads=H, unembed=wte, final_norm=lnf + (1e-5,),
                           vocab=words, top=V)
h = layer_norm(X, p["ln_1.weight"], p["ln_1.bias"])
qkv = h @ p["attn.c_attn.weight"] + p["attn.c_attn.bias"]
w, joined = heads_of(qkv[:, :D], qkv[:, D:2 * D], qkv[:, 2 * D:], H, True)
mid = X + joined @ p["attn.c_proj.weight"] + p["attn.c_proj.bias"]
mlp = gelu_tanh(layer_norm(mid, p["ln_2.weight"], p["ln_2.bias"]) @ p["mlp.c_fc.weight"] + p["mlp.c_fc.bias"])
mlp = mlp @ p["mlp.c_proj.weight"] + p["mlp.c_proj.bias"]
probs = softmax(layer_norm(mid + mlp, *lnf) @ wte.T)
close(block.weights(), w, 1e-9, "GPT-2 block (state dict): attention")
close(block.matrix("mlp_out"), mlp, 1e-9, "GPT-2 block (state dict): MLP output")
got, shown = block.next_token()
close(got, probs[:, [words.index(s) for s in shown]], 1e-9, "GPT-2 block (state dict): next-token probabilities")
raises(ValueError, lambda: attnlab.from_torch(sd, X, list("abcde")), ["heads="], "a state dict without heads=")
off = attnlab.from_torch(sd, X, list("abcde"), heads=H, ablate=[2])
_, joined_off = heads_of(qkv[:, :D], qkv[:, D:2 * D], qkv[:, 2 * D:], H, True)
joined_off[:, D // 2:] = 0
mid_off = X + joined_off @ p["attn.c_proj.weight"] + p["attn.c_proj.bias"]
close(off.matrix("resid_mid"), mid_off, 1e-9, "head 2 switched off: the stream after attention lacks its output")

# ------------------------------------------- lesson 13 against numpy

out = subprocess.run([BIN, "--dump", "lessons/13-a-whole-block.lesson"], capture_output=True, text=True)
check(out.returncode == 0, "lesson 13 dumps: " + out.stderr)
d13 = json.loads(out.stdout)
m13 = {m["name"]: np.array(m["data"], float) for st in d13["stages"] for m in st["matrices"] if m.get("data")}
np.random.seed(13)
r = np.random.randn
X13 = r(5, 8)
Wq, Wk, Wv = r(8, 8) * 0.35, r(8, 8) * 0.35, r(8, 8) * 0.35
bq, bk, bv = r(1, 8) * 0.1, r(1, 8) * 0.1, r(1, 8) * 0.1
Wo, bo = r(8, 8) * 0.35, r(1, 8) * 0.1
Win, bin_, Wout, bout = r(8, 32) * 0.35, r(1, 32) * 0.1, r(32, 8) * 0.18, r(1, 8) * 0.1
WU = r(8, 6)
ln13 = layer_norm(X13, 1, 0)
close(m13["ln"], ln13, 1e-12, "lesson 13: layer norm")
w13, j13 = heads_of(ln13 @ Wq + bq, ln13 @ Wk + bk, ln13 @ Wv + bv, 2, True)
close(m13["head2.weights"], w13[1], 1e-12, "lesson 13: head 2's weights, projections with biases")
mid13 = X13 + j13 @ Wo + bo
close(m13["resid_mid"], mid13, 1e-12, "lesson 13: the stream after attention")
mlp13 = gelu_tanh(layer_norm(mid13, 1, 0) @ Win + bin_) @ Wout + bout
close(m13["mlp_out"], mlp13, 1e-12, "lesson 13: MLP output")
p13 = softmax(layer_norm(mid13 + mlp13, 1, 0) @ WU)
top = next(m for st in d13["stages"] for m in st["matrices"] if m["name"].startswith("top_probs"))
vocab13 = "the cat sat on mat dog".split()
close(np.array(top["data"]), p13[:, [vocab13.index(c) for c in top["col_labels"]]], 1e-12,
      "lesson 13: next-token probabilities")

# ------------------------------------------------------- pictures, dump

two = attnlab.Lesson("Two heads")
two.setup(["a", "b", "c"], np.eye(3), W_q=np.eye(3)[:, :2], W_k=np.eye(3)[:, :2], W_v=np.eye(3)[:, :2], heads=2)
two.stage("multi_head").stage("entropy")
png = two._repr_png_()
check(png[:8] == b"\x89PNG\r\n\x1a\n", "a Lesson renders a PNG inline")
svg = two.slide(2).svg()
check(svg.lstrip().startswith("<?xml") or svg.lstrip().startswith("<svg"), "a slide renders SVG")
with tempfile.TemporaryDirectory() as tmp:
    path = two.save(os.path.join(tmp, "two.lesson"))
    done = subprocess.run([BIN, "--check", path], capture_output=True, text=True)
    check(done.returncode == 0, "the saved lesson passes attnlab --check: " + done.stderr)
    two.slide(1).save(os.path.join(tmp, "one.png"))
    with open(os.path.join(tmp, "one.png"), "rb") as f:
        check(f.read() == two.slide(1).png(), "save(path.png) writes the slide's PNG")
check([st["id"] for st in two.dump()["stages"]] == ["multi_head", "entropy"], "dump() is --dump as Python objects")

# ------------------------------------------------------------ bad input

raises(ValueError, lambda: attnlab.show(np.ones(3), ["a"]), ["shape (3,)"], "show: a 1-D array")
raises(ValueError, lambda: attnlab.show(np.full((2, 2), np.nan), ["a", "b"]), ["NaN"], "show: NaN")
raises(attnlab.LessonError, lambda: attnlab.show(np.full((2, 2), 0.5), ["a", "b", "c"])._repr_png_(), ["<stdin>:"],
       "show: three tokens for two rows")
raises(attnlab.LessonError, lambda: attnlab.show(np.full((2, 2), 0.9), ["a", "b"])._repr_png_(), ["sum"],
       "show: rows that do not sum to 1")
raises(ValueError, lambda: attnlab.Lesson().stage("softmax"), ["add a setup"], "a stage before any setup")
raises(TypeError, lambda: two.stage("softmax", colour="red"), ["unknown stage option colour"], "an unknown stage option")
raises(attnlab.LessonError, lambda: attnlab.Lesson().setup(["a"], np.ones((1, 2))).stage("sofmax")._repr_png_(),
       ["unknown section 'sofmax'"], "a misspelt stage")
raises(IndexError, lambda: two.matrices(9), ["no stage 9"], "a stage past the last")
raises(ValueError, lambda: two.stage("softmax", text="# not a comment"), ["cannot start with"],
       "a paragraph the format would read as a comment")
raises(ValueError, lambda: attnlab.show(np.eye(2), ["a", "b"], title="Q # K"), ["title", "comment"],
       "a title the format would cut at a comment")
raises(ValueError, lambda: two.stage("softmax", title="w[i]"), ["stage's title", "']'"],
       "a stage title the format would end early")
finish("python")
