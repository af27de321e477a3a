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
- save() writes what the name's extension says (.lesson, .png, .svg, the
  .pdf handout, the .html page), refuses any other naming it and those it
  writes, and leaves nothing half-written when it fails;
- no string from Python (brackets, line breaks, '#', quotes, backslashes,
  NUL, lone surrogates, in every parameter that reaches the lesson's text)
  adds a line or a section to a lesson: it is refused naming the
  parameter, or the program reads exactly what was given; the stage kinds
  and options the module knows are the program's own lists;
- an unknown keyword names the function called and the closest name, and
  every number in a message counts from 1;
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
nan_mha = torch.nn.MultiheadAttention(8, 2)
with torch.no_grad():
    nan_mha.in_proj_weight[3, 2] = float("nan")
raises(ValueError, lambda: attnlab.from_torch(nan_mha, torch.randn(4, 8), list("abcd")),
       ["in_proj_weight holds NaN at [3, 2]"], "a NaN weight is refused, naming the tensor and its place")
two_seqs = torch.nn.MultiheadAttention(8, 2, batch_first=True)
raises(ValueError, lambda: attnlab.from_torch(two_seqs, torch.randn(2, 4, 8), list("abcd")),
       ["x holds a batch of 2 sequences", "batch=0", "batch=1"], "a batch of two without batch= says how to pick one")
check(attnlab.from_torch(two_seqs, torch.randn(2, 4, 8), list("abcd"), batch=1).weights().shape == (2, 4, 4),
      "batch=1 picks the second sequence")
raises(ValueError, lambda: attnlab.show(np.full((2, 3, 3), np.inf), list("abc")), ["attention holds an infinity"],
       "show(): an infinity is refused, naming the parameter")

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

# ------------------------------------------- every head of every layer

rng = np.random.default_rng(3)
causal = np.tril(np.ones((5, 5)))
per_layer = []
for _ in range(3):                                  # as a model returns outputs.attentions: (batch, heads, n, n)
    w = rng.random((1, 2, 5, 5)) * causal
    per_layer.append(w / w.sum(-1, keepdims=True))
view = attnlab.show(tuple(per_layer), list("abcde"), mask="causal")
check(view.stages == ["model_view"], "show() of a layer's weights each: the model view, %s" % view.stages)
grid = view.matrix("heads_grid")
check(grid.shape == (15, 10) and all(np.array_equal(grid[5 * l:5 * l + 5, 5 * h:5 * h + 5], per_layer[l][0, h])
                                     for l in range(3) for h in range(2)),
      "the model view holds every layer's every head in its block, %s" % (grid.shape,))
check(len(two.heads().lesson.stages) == 3 and two.stages == ["multi_head", "entropy"],
      "heads() of a lesson without a model view draws one and leaves the lesson as it was")
check(attnlab.show(per_layer, list("abcde"), stage="multi_head").stages == ["multi_head"] * 3,
      "show() of layers with stage= shows that stage of every layer")
check(attnlab.show(per_layer[0][0].tolist(), list("abcde")).stages == ["multi_head"],
      "show() of nested lists of numbers is one array, as before (two heads: multi_head)")
for bad, want in (([per_layer[0], np.ones(5)], "attention[1] has shape (5,)"),):
    try:
        attnlab.show(bad, list("abcde"))
        check(False, "show() refuses %s" % want)
    except ValueError as e:
        check(want in str(e), "show() refuses layers: %s" % e)

# ------------------------------------------------------------ bad input

raises(ValueError, lambda: attnlab.show(np.ones(3), ["a"]), ["shape (3,)"], "show: a 1-D array")
raises(ValueError, lambda: attnlab.show(np.full((2, 2), np.nan), ["a", "b"]), ["NaN"], "show: NaN")
raises(attnlab.LessonError, lambda: attnlab.show(np.full((2, 2), 0.5), ["a", "b", "c"])._repr_png_(), ["<stdin>:"],
       "show: three tokens for two rows")
raises(attnlab.LessonError, lambda: attnlab.show(np.full((2, 2), 0.9), ["a", "b"])._repr_png_(), ["sum"],
       "show: rows that do not sum to 1")
raises(ValueError, lambda: attnlab.Lesson().stage("softmax"), ["add a setup"], "a stage before any setup")
raises(attnlab.LessonError, lambda: attnlab.Lesson().setup(["a"], np.ones((1, 2))).stage("sofmax"),
       ["unknown stage kind 'sofmax'; did you mean 'softmax'?", "the stages: embeddings,"],
       "a misspelt stage, refused at once")
raises(IndexError, lambda: two.matrices(9), ["no stage 9"], "a stage past the last")
raises(ValueError, lambda: two.stage("softmax", text="# not a comment"), ["cannot start with"],
       "a paragraph the format would read as a comment")
raises(ValueError, lambda: attnlab.show(np.eye(2), ["a", "b"], title="Q # K"), ["title", "comment"],
       "a title the format would cut at a comment")
raises(ValueError, lambda: two.stage("softmax", title="w[i]"), ["stage's title", "']'"],
       "a stage title the format would end early")

# ------------------------------------------------- saving by the extension


def program_error(lesson_text):
    """The program's one-line error for a lesson, run in the C locale."""
    done = subprocess.run([BIN, "--check", "-"], input=lesson_text, capture_output=True, text=True,
                          env=dict(os.environ, LC_ALL="C.UTF-8", LANGUAGE=""))
    return done.stderr.strip()


def expected_list(message):
    """The names a program's 'expected one of: a, b, c' message lists."""
    at = message.index("expected one of: ") + len("expected one of: ")
    return message[at:].split(" (")[0].split(", ")


def refused_whole(what, fn, kind, words, path, before=None):
    """Check that fn() raises kind with words and leaves path as it was (absent, or holding before)."""
    raises(kind, fn, words, what)
    if before is None:
        check(not os.path.exists(path), "%s: nothing written at %s" % (what, os.path.basename(path)))
    else:
        with open(path, "rb") as f:
            check(f.read() == before, "%s: %s kept as it was" % (what, os.path.basename(path)))


def carried(page):
    """The files an interactive page carries: {data-name: (bytes, data-link)}."""
    import base64
    import re
    out = {}
    for m in re.finditer(r'<script type="application/x-attnlab-file" data-name="([^"]*)"'
                         r'(?: data-open data-link="([^"]*)")?>([^<]*)</script>', page):
        out[m.group(1)] = (base64.b64decode(m.group(3)), m.group(2))
    return out


with tempfile.TemporaryDirectory() as tmp:
    at = lambda name: os.path.join(tmp, name)
    two.save(at("page.svg"))
    with open(at("page.svg"), "rb") as f:
        check(f.read() == two.slide(1).svg().encode("utf-8"), "Lesson.save(x.svg) writes the shown stage's SVG")
    two.save(at("UPPER.PNG"))
    with open(at("UPPER.PNG"), "rb") as f:
        check(f.read() == two.slide(1).png(), "Lesson.save(X.PNG): the extension is read in any case")
    two.save(at("handout.pdf"))
    with open(at("handout.pdf"), "rb") as f:
        pdf = f.read()
    check(pdf[:5] == b"%PDF-" and pdf.rstrip().endswith(b"%%EOF"), "Lesson.save(x.pdf) writes a PDF: %r" % pdf[:16])
    info = subprocess.run(["pdfinfo", at("handout.pdf")], capture_output=True, text=True).stdout
    check("Pages:           2" in info, "the PDF is the handout, a page per stage (two):\n%s" % info)
    shown_text = subprocess.run(["pdftotext", at("handout.pdf"), "-"], capture_output=True, text=True).stdout
    check("Two heads" in shown_text, "the handout's text is the lesson's: %r" % shown_text[:200])
    refused_whole("Lesson.save(x.txt)", lambda: two.save(at("notes.txt")), attnlab.LessonError,
                  ["Lesson.save()", "'.txt'", ".lesson", ".png", ".svg", ".pdf", ".html"], at("notes.txt"))
    refused_whole("Lesson.save(a name without an extension)", lambda: two.save(at("noext")), attnlab.LessonError,
                  ["Lesson.save()", "no extension", ".lesson", ".png"], at("noext"))
    refused_whole("Slide.save(x.pdf)", lambda: two.slide(2).save(at("one.pdf")), attnlab.LessonError,
                  ["Slide.save()", "every stage", "Lesson.save"], at("one.pdf"))
    refused_whole("Slide.save(x.gif)", lambda: two.slide(2).save(at("one.gif")), attnlab.LessonError,
                  ["Slide.save()", "'.gif'", ".png", ".svg", ".html"], at("one.gif"))
    raises(attnlab.LessonError, lambda: attnlab.show(np.full((2, 2), 0.9), ["a", "b"]), ["<stdin>:8:1", "sums to 1.8"],
           "show() refuses weights that are no softmax when it is called, not when they are drawn")
    bad = attnlab.Lesson("bad").setup(["a", "b"], attention=np.full((2, 2), 0.9)).stage("softmax")
    with open(at("keep.png"), "wb") as f:
        f.write(b"old")
    for name in ("keep.png", "bad.svg", "bad.pdf"):
        refused_whole("a lesson the program refuses, saved as %s" % name, lambda: bad.save(at(name)),
                      attnlab.LessonError, ["sum"], at(name), b"old" if name == "keep.png" else None)
    check(sorted(os.listdir(tmp)) == ["UPPER.PNG", "handout.pdf", "keep.png", "page.svg"],
          "no temporary or half-written file is left: %s" % sorted(os.listdir(tmp)))
    # .html: the interactive page, from the browser edition the module finds
    with open(at("edition.html"), "w") as f:
        f.write("<!doctype html>\n<html><body class=x>\n<p>the browser edition</p>\n</body></html>\n")
    os.environ["ATTNLAB_HTML"] = at("edition.html")
    two.save(at("page.html"))
    with open(at("page.html"), "rb") as f:
        page = f.read()
    check(page[:8] != b"\x89PNG\r\n\x1a\n" and b"<p>the browser edition</p>" in page,
          "Lesson.save(x.html) writes the browser edition's page, not a PNG: %r" % page[:40])
    files = carried(page.decode("utf-8", "replace"))
    check(files.get("lesson.lesson") == (two.lesson_text("arrays.npz").encode("utf-8"), "stage=1"),
          "the page carries the lesson, opened at the shown stage: %s" % files.keys())
    two.slide(2).save(at("two.html"))
    with open(at("two.html"), encoding="utf-8", errors="replace") as f:
        check(carried(f.read()).get("lesson.lesson", (0, 0))[1] == "stage=2", "Slide.save(x.html) opens its stage")
    big.save(at("big.html"))
    with open(at("big.html"), encoding="utf-8", errors="replace") as f:
        files = carried(f.read())
    check(set(files) == {"lesson.lesson", "arrays.npz"} and files["arrays.npz"][0][:2] == b"PK",
          "a lesson whose arrays go to a .npz carries them in its page: %s" % sorted(files))
    refused_whole("Interactive.save(x.png)", lambda: two.interactive().save(at("i.png")), attnlab.LessonError,
                  ["Interactive.save()", "'.png'", ".html"], at("i.png"))
    # in a notebook: the page (deflated) in the kernel's first output only, or when asked; the arrays as float32
    # or float16; the PNG for where no script runs
    import base64
    import io
    import re
    import zlib
    from attnlab import _interactive
    _interactive._carried.clear()
    outs = [two.interactive()._repr_html_(), big.interactive()._repr_html_(), two.interactive(carry=True)._repr_html_(),
            two.interactive(carry=False)._repr_html_()]
    packed = [re.findall(r'<script type="application/x-attnlab-page" data-key="([^"]*)">([^<]*)</script>', o) for o in outs]
    check([len(p) for p in packed] == [1, 0, 1, 0], "the page travels in the first output and when carry=True: %s"
          % [len(p) for p in packed])
    with open(at("edition.html"), "rb") as f:
        check(zlib.decompress(base64.b64decode(packed[0][0][1]), -15) == f.read(), "the carried page is the edition, deflated")
    check(all('<img class="attnlab-still"' in o and "data:image/png;base64,iVBOR" in o for o in outs),
          "every output holds its stage's PNG")
    check(carried(outs[0])["lesson.lesson"] == (two.lesson_text("arrays.npz").encode("utf-8"), "stage=1"),
          "an output carries its lesson, opened at its stage")

    def npz_of(o):
        return np.load(io.BytesIO(carried(o)["arrays.npz"][0]))
    half = big.interactive(dtype="float16")._repr_html_()
    for name, dtype in (("float32", np.float32), ("float16", np.float16)):
        arrays = npz_of(outs[1] if name == "float32" else half)
        check(all(arrays[k].dtype == dtype for k in arrays.files if arrays[k].dtype.kind == "f"),
              "the arrays travel as %s: %s" % (name, {k: str(arrays[k].dtype) for k in arrays.files}))
    raises(ValueError, lambda: attnlab.Lesson("wide").setup(["t%d" % i for i in range(40)], np.full((40, 64), 7e4)).stage("embeddings")
           .interactive(dtype="float16")._repr_html_(), ["dtype='float16'", "70000", "65504", "float32"],
           "a number past float16's range is refused, naming the array and what to do")
    raises(ValueError, lambda: two.interactive(dtype="int8"), ["dtype='int8'", "float32 or float16"], "an unknown dtype")
    raises(ValueError, lambda: two.interactive(carry="yes"), ["carry='yes'", "None, True or False"], "carry is a bool")
    # without the browser edition: a clear refusal, nothing written
    from attnlab import _program
    here, saved_env = _program._HERE, dict(os.environ)
    try:
        _program._HERE = tmp
        os.environ["ATTNLAB"] = os.path.abspath(BIN)
        os.environ.pop("ATTNLAB_HTML", None)
        installed, _program._installed = _program._installed, None
        refused_whole("Lesson.save(x.html) without the browser edition", lambda: two.save(at("none.html")),
                      FileNotFoundError, ["browser edition", "make web", "ATTNLAB_HTML", ".pdf", ".png"],
                      at("none.html"))
        _program._installed = installed
    finally:
        _program._HERE = here
        os.environ.clear()
        os.environ.update(saved_env)
    # a .lesson whose arrays go to a .npz: both written, read back by the program
    big.save(at("big.lesson"))
    done = subprocess.run([BIN, "--check", at("big.lesson")], capture_output=True, text=True)
    check(done.returncode == 0 and os.path.exists(at("big.npz")), "a saved .lesson and its .npz check: " + done.stderr)
    refused_whole("a .lesson whose .npz name a lesson cannot write", lambda: big.save(at('say "hi".lesson')),
                  attnlab.LessonError, ["file name", '"'], at('say "hi".lesson'))
    check(not os.path.exists(at('say "hi".npz')), "no .npz is written beside a refused lesson")

# ------------------------------------------------- strings from Python

HOSTILE = ["a]", "[a", "a\nb", "a\n[setup]\nheads: 3", "#a", "a #b", 'a"b', "a\\b", "a\x00b", "a\ud800b", "a\rb",
           "a\x1bb", "a\u2028b", "a\ufffeb", "]\n[softmax", "a\n\n[setup]"]
X2 = np.eye(2)


def shown(text):
    """Text as a check's message can print it (a lone surrogate escaped)."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def no_injection(what, build, benign="a", stages=1, lines=1, read=None):
    """For every hostile string h, build(h) (a Lesson) is refused with a
    LessonError naming `what`, or its text differs from build(benign)'s in
    `lines` lines (nothing added, no section made) and the program reads it
    with the stages asked for (and read(dump) gives h back when it is
    printable), or refuses it at one of those lines."""
    base = build(benign).lesson_text().splitlines()
    for h in HOSTILE:
        label = "%s=%r" % (what, h)
        try:
            les = build(h)
            text = les.lesson_text().splitlines()
        except attnlab.LessonError as e:
            check(what in str(e) and "\n" not in str(e).split("\n    ")[0], "%s: refused: %s" % (label, shown(str(e))))
            continue
        except Exception as e:      # noqa: BLE001 - any other exception is the fault looked for
            check(False, "%s: raised %s: %s" % (label, type(e).__name__, shown(str(e))))
            continue
        changed = [i + 1 for i, (x, y) in enumerate(zip(base, text)) if x != y]
        if not check(len(text) == len(base) and len(changed) == lines,
                     "%s: the text differs in %d line(s), found %d lines (%d changed):\n%s"
                     % (label, lines, len(text), len(changed), shown("\n".join(text)))):
            continue
        try:
            d = les.dump()
        except attnlab.LessonError as e:
            check(e.line in changed, "%s: the program refuses line %s, not %s: %s"
                  % (label, changed, e.line, shown(str(e))))
            continue
        except Exception as e:      # noqa: BLE001
            check(False, "%s: the program was not run: %s: %s" % (label, type(e).__name__, shown(str(e))))
            continue
        check(len(d["stages"]) == stages, "%s: %d stages read, expected %d" % (label, len(d["stages"]), stages))
        if read and h.isprintable():
            check(read(d) == h, "%s: read back as %r" % (label, read(d)))


def setup_with(**kw):
    """A one-stage lesson whose setup takes kw."""
    return attnlab.Lesson("t").setup(["x", "y"], X2, **kw).stage("embeddings")


no_injection("title", lambda h: attnlab.Lesson(h).setup(["x", "y"], X2).stage("embeddings"), read=lambda d: d["title"])
no_injection("summary", lambda h: attnlab.Lesson("t", h).setup(["x", "y"], X2).stage("embeddings"))
no_injection("language", lambda h: attnlab.Lesson("t", language=h).setup(["x", "y"], X2).stage("embeddings"), "en")
no_injection("setup's title", lambda h: setup_with(title=h))
no_injection("stage's title", lambda h: attnlab.Lesson("t").setup(["x", "y"], X2).stage("embeddings", title=h),
             read=lambda d: d["stages"][0]["title"])
no_injection("text", lambda h: attnlab.Lesson("t").setup(["x", "y"], X2).stage("embeddings", text=h))
no_injection("tokens", lambda h: attnlab.Lesson("t").setup(["x", h], X2).stage("embeddings"),
             read=lambda d: d["stages"][0]["matrices"][0]["row_labels"][1])
no_injection("vocab", lambda h: setup_with(unembed=np.eye(2), vocab=["v", h]))
no_injection("mask", lambda h: setup_with(mask=h))
no_injection("positions", lambda h: setup_with(positions=h))
no_injection("score", lambda h: setup_with(score=h))
no_injection("heads", lambda h: setup_with(heads=h))
no_injection("seed", lambda h: setup_with(seed=h))
no_injection("queries", lambda h: setup_with(queries=h))
no_injection("ablate", lambda h: setup_with(W_q=np.eye(2), heads=2, ablate=([1], h)))
no_injection("mlp", lambda h: setup_with(mlp=(np.eye(2), None, h, np.eye(2), None)))
no_injection("settings", lambda h: setup_with(settings={"mask": h}))
no_injection("settings", lambda h: setup_with(settings={h: "causal"}))
no_injection("matrices", lambda h: setup_with(matrices={h: np.eye(2)}))
no_injection("cmap", lambda h: attnlab.Lesson("t").setup(["x", "y"], X2).stage("softmax", cmap=h))
no_injection("decimals", lambda h: attnlab.Lesson("t").setup(["x", "y"], X2).stage("softmax", decimals=h))
no_injection("kind", lambda h: attnlab.Lesson("t").setup(["x", "y"], X2).stage(h), "softmax")
no_injection("title", lambda h: attnlab.show(np.eye(2), ["x", "y"], title=h))
no_injection("mask", lambda h: attnlab.show(np.eye(2), ["x", "y"], mask=h), "causal")
no_injection("stage", lambda h: attnlab.show(np.eye(2), ["x", "y"], stage=h), "softmax")


class NpzNamed:
    """big's lesson with its arrays in a .npz of a given name: its text, and its dump in a directory holding it."""

    def __init__(self, name):
        self.name, self.text = name, big.lesson_text(name)

    def lesson_text(self):
        return self.text

    def dump(self):
        with tempfile.TemporaryDirectory() as d:
            try:
                np.savez(os.path.join(d, self.name), **big._arrays())
            except (OSError, ValueError, UnicodeError):
                pass                # a name no file can have: the program is to refuse its line
            return json.loads(attnlab._program.run(["--dump", "-"], self.text, cwd=d))


no_injection("npz", lambda h: NpzNamed(h + ".npz"), lines=2)
no_injection("stages", lambda h: attnlab.from_torch(mha, x, pieces, stages=["softmax", h]), "softmax", stages=2)
raises(attnlab.LessonError, lambda: attnlab.Lesson("t").setup(["x", "y"], X2).stage("setup"),
       ["stage kind 'setup'", "Lesson.setup()"], "a stage kind 'setup' would start a setup")
raises(attnlab.LessonError, lambda: attnlab.Lesson("t").setup(["x", "y"], X2).stage("embeddings", text="a\n\n[setup]"),
       ["text", "paragraph 2", "'['"], "a paragraph that would start a section")
prose = attnlab.Lesson("t").setup(["x", "y"], X2).stage("next_token" if False else "embeddings", text="a\n\ntop: 3")
check(prose.dump()["stages"][0]["id"] == "embeddings" and "\n\ntop: 3\n" in prose.lesson_text(),
      "a paragraph 'top: 3' stays prose after the blank line")
for what, make in (("theme", lambda h: attnlab.Lesson("t", theme=h)), ("cmap", lambda h: attnlab.Lesson("t", cmap=h)),
                   ("format", lambda h: attnlab.Lesson("t", format=h))):
    for h in ("light\x00", "dark\ud800", "--dump"):
        raises(attnlab.LessonError, lambda: make(h).setup(["x", "y"], X2).stage("softmax")._repr_png_(),
               [what], "%s=%r: the module's error naming it" % (what, h))
region = attnlab.Lesson("t", language="pt_BR").setup(["x", "y"], X2).stage("softmax")
check(region.dump()["stages"][0]["id"] == "softmax",
      "a language code with a region is written as it is")

# the program's own lists
message = program_error("title: t\n[setup]\ntokens: a\nX =\n  1\n[no_such_stage]\n")
check(expected_list(message) == ["setup"] + list(getattr(attnlab._lesson, "STAGES", ())),
      "the module's stage kinds are the program's: %s\n%s" % (message, getattr(attnlab._lesson, "STAGES", ())))
message = program_error("title: t\n[setup]\ntokens: a\nX =\n  1\n[softmax]\nno_such_option: 1\n")
check(expected_list(message) == list(attnlab._lesson._STAGE_OPTIONS),
      "the module's stage options are the program's: %s" % message)

# ------------------------------------------------- lone surrogates in tokens

raises(attnlab.LessonError, lambda: attnlab.Lesson("t").setup(["x", "a\ud800"], X2),
       ["tokens", "token 2", "'a\\ud800'"], "a lone surrogate in a token")
raises(attnlab.LessonError, lambda: attnlab.show(np.eye(2), ["\udc80", "y"]), ["token 1", "'\\udc80'"],
       "a lone surrogate in a token given to show")
raises(attnlab.LessonError, lambda: setup_with(unembed=np.eye(2), vocab=["v", "w", "\udfff"]),
       ["vocab", "token 3", "'\\udfff'"], "a lone surrogate in the vocabulary")
raises(attnlab.LessonError, lambda: attnlab.from_torch(mha, x, pieces[:-1] + ["\ud83d"]), ["token 10", "'\\ud83d'"],
       "a lone surrogate in a token given to from_torch")

# ------------------------------------------------- keyword arguments


def keyword(fn, words, what):
    """Check that fn() raises TypeError naming the function called, the bad keyword and the suggestion."""
    raises(TypeError, fn, words, what)
    try:
        fn()
    except TypeError as e:
        check("__init__" not in str(e) and "_multihead" not in str(e) and "_block" not in str(e),
              "%s: the message names what was called: %s" % (what, e))


keyword(lambda: attnlab.show(np.eye(2), ["x", "y"], colour="red"),
        ["show() got an unexpected keyword argument 'colour'; did you mean 'cmap'?"], "show(colour=)")
keyword(lambda: attnlab.show(np.eye(2), ["x", "y"], tittle="t"), ["show()", "'tittle'", "'title'"], "show(tittle=)")
keyword(lambda: attnlab.Lesson("t", thme="dark"), ["Lesson()", "'thme'", "did you mean 'theme'?"], "Lesson(thme=)")
keyword(lambda: attnlab.Lesson("t").setup(["x"], np.ones((1, 2)), W_Q=np.eye(2)),
        ["Lesson.setup()", "'W_Q'", "'W_q'"], "Lesson.setup(W_Q=)")
keyword(lambda: two.stage("softmax", colour="red"), ["Lesson.stage()", "'colour'", "did you mean 'cmap'?"],
        "Lesson.stage(colour=)")
keyword(lambda: two.stage("softmax", zzz=1), ["Lesson.stage()", "'zzz'", "cmap, decimals"], "Lesson.stage(zzz=)")
keyword(lambda: attnlab.from_torch(mha, x, pieces, colour="red"), ["from_torch()", "'colour'", "'cmap'"],
        "from_torch(nn.MultiheadAttention, colour=)")
keyword(lambda: attnlab.from_torch(mha, x, pieces, atn_mask=None), ["from_torch()", "'atn_mask'", "'attn_mask'"],
        "from_torch(nn.MultiheadAttention, atn_mask=)")
keyword(lambda: attnlab.from_torch(sd, X, list("abcde"), heads=2, unembd=wte),
        ["from_torch()", "'unembd'", "'unembed'"], "from_torch(a state dict, unembd=)")
check(attnlab.show(np.eye(2), ["x", "y"], theme="dark", summary="s").theme == "dark",
      "show still passes Lesson's options on")
try:
    with_indices = attnlab.Lesson("t").setup(["x", "y"], X2).stage("softmax", indices=True).lesson_text()
except TypeError as e:
    with_indices = str(e)
check(with_indices.endswith("indices: yes\n"), "the stage option indices is taken, True written yes: " + with_indices)

# ------------------------------------------------- counting from 1


class TinyBlock(torch.nn.Module):
    """A GPT-2 block's parts with nn.Linear layers (weights read transposed)."""

    def __init__(self, d, h):
        super().__init__()
        self.ln_1, self.ln_2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.attn = torch.nn.Module()
        self.attn.c_attn, self.attn.c_proj, self.attn.num_heads = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d), h
        self.mlp = torch.nn.Module()
        self.mlp.c_fc, self.mlp.c_proj = torch.nn.Linear(d, 2 * d), torch.nn.Linear(2 * d, d)
        self.mlp.act = torch.nn.ReLU()


tiny = torch.nn.Module()
tiny.wte, tiny.wpe, tiny.ln_f = torch.nn.Embedding(5, 4), torch.nn.Embedding(8, 4), torch.nn.LayerNorm(4)
tiny.h = torch.nn.ModuleList([TinyBlock(4, 2), TinyBlock(4, 2)])
ids = torch.tensor([1, 2, 3])
tiny_stages = attnlab.from_torch(tiny, ids, ["a", "b", "c"], ablate={2: [1]}).stages
check(len(tiny_stages) == 6 and tiny_stages[-1] == "model_view", "a tiny model's lesson: %s" % tiny_stages)
raises(IndexError, lambda: attnlab.from_torch(tiny, ids, ["a", "b", "c"], ablate={0: [1]}),
       ["ablate", "block 0", "from 1", "2 blocks"], "ablate names block 0")
raises(IndexError, lambda: attnlab.from_torch(tiny, ids, ["a", "b", "c"], ablate={3: [1]}),
       ["ablate", "block 3", "2 blocks"], "ablate names a block past the last")
raises(IndexError, lambda: two.weights(setup=0), ["setup 0", "from 1", "1 setup"], "weights(setup=0)")
raises(IndexError, lambda: two.weights(setup=2), ["setup 2", "1 setup"], "weights(setup=2)")
unshown = attnlab.Lesson("t").setup(["a", "b"], np.eye(2)).setup().stage("softmax")
raises(KeyError, lambda: unshown.weights(setup=1), ["no stage of setup 1"], "weights() of a setup no stage shows")
raises(IndexError, lambda: two.next_token(setup=0), ["setup 0", "from 1"], "next_token(setup=0)")
raises(IndexError, lambda: two.matrices(0), ["stage 0", "from 1", "2 stages"], "matrices(0)")
raises(IndexError, lambda: two.matrix("weights", stage=0), ["stage 0", "from 1"], "matrix(stage=0)")
raises(IndexError, lambda: two.slide(0).png(), ["stage 0", "from 1", "2 stages"], "slide(0)")
raises(IndexError, lambda: two.slide(3).png(), ["stage 3", "2 stages"], "slide(3)")
kv = attnlab.Lesson("t").setup(["a", "b"], X2, W_q=np.eye(2), mask="causal").stage("kv_cache")
raises(IndexError, lambda: kv.slide(1, step=0).png(), ["step 0", "from 1", "3 sub-steps"], "a sub-step 0")
raises(IndexError, lambda: attnlab.show(np.ones((2, 1, 2, 2)) / 2, ["a", "b"], batch=2),
       ["batch=2", "2 sequences", "first", "batch=0"], "a batch past the last")

# Float32 matrices go to the library lent, not copied into doubles: a tensor's copy is the module's own
# (read-only, lent as it is); a float32 array of the caller's, writable or a read-only view of memory
# they can still change, is copied first, so changing it after the lesson opened changes nothing.
if attnlab._library.available():
    own = attnlab._text.as_array(torch.ones(3, 2))
    check(not own.flags.writeable and attnlab._text.is_own(own) and attnlab._text.is_own(own.reshape(1, -1)),
          "a tensor's copy is the module's own, read-only, views of it too")
    lent_text = ('title: lent\n[setup]\ntokens: %s\nX = load "arrays.npz" X\nW_q = load "arrays.npz" W\n'
                 'queries: X @ W_q\nkeys: X\nvalues: X\n[softmax]\n' % " ".join("t%d" % i for i in range(40)))
    rng = np.random.default_rng(5)
    x40 = rng.standard_normal((40, 48))
    for how in ("writable", "read-only view", "the module's own"):
        mine = rng.standard_normal((48, 48)).astype(np.float32)
        given = mine if how == "writable" else mine.view() if how == "read-only view" else attnlab._text.own(mine)
        given.flags.writeable = False
        if how == "writable":
            given.flags.writeable = True
        check(attnlab._text.is_own(given) == (how == "the module's own"), "%s: whose the array is" % how)
        was = mine.copy()
        handle = attnlab._library.Handle(lent_text, {"X": x40, "W": given})
        if how != "the module's own":
            mine *= 3                               # before the lesson has read W_q again for anything
        close(handle.matrix(1, "W_q"), was, 0, "%s float32 W_q, changed after the lesson opened: the lesson's "
              "is as given" % how)
        weights = handle.matrix(1, "weights")
        del mine, given
        close(handle.matrix(1, "weights"), weights, 0, "%s: the weights stay when the caller's array is gone" % how)
        close(handle.matrix(1, "W_q"), was, 0, "%s: W_q stays when the caller's array is gone" % how)
        handle.close()

finish("python")
