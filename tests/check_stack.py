#!/usr/bin/python3
"""check_stack.py: generated stacks of blocks, pre- and post-norm, and their
model view, recomputed with numpy.

Usage: check_stack.py ATTNLAB [COUNT] [SEED]

Each lesson stacks 2 to 4 setups with `residual: yes` over 8 to 32 tokens
(Latin, Greek, Devanagari or CJK words), 1 to 8 heads, with or without a
causal mask, every block with layer norms and a ReLU MLP in one order
(`norm_order: pre` or `post`), every input written out as numbers, and ends
in a model_view stage. numpy computes the same stack; --dump must give, to
1e-12 (relative beyond 1), every layer's weights, its residual sums and
norms (attn_sum, ln, resid_mid, mlp_sum, resid_post, as the order has
them), and the model view's grid block by block; the grid's rows are
labelled by the query tokens. Prints 'stack: N passed, M failed'.
"""
import atexit
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from tcheck import check, finish, inline_shared

binary = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 12
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 41)
tmpdir = tempfile.mkdtemp(prefix="attnlab-stack-")
atexit.register(shutil.rmtree, tmpdir, True)
WORDS = {"latin": "the cat sat on a mat and ran off to see its old friend".split(),
         "greek": "ο γάτος κάθισε στο χαλί και έτρεξε να δει τον παλιό φίλο".split(),
         "devanagari": "बिल्ली चटाई पर बैठी और अपने पुराने दोस्त से मिलने दौड़ी".split(),
         "cjk": "猫 坐 在 垫子 上 然后 跑 去 见 它 的 老 朋友".split()}


def randm(r, c, s=0.5):
    return np.array([[rng.gauss(0, s) for _ in range(c)] for _ in range(r)])


def mat(name, m):
    return "%s =\n%s\n" % (name, "\n".join("  " + " ".join(repr(float(x)) for x in row) for row in np.atleast_2d(m)))


def norm(x, g, b, eps=1e-5):
    mu = x.mean(1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(1, keepdims=True) + eps) * g + b


def softmax(s):
    e = np.exp(s - s.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def close(got, want):
    return got.shape == want.shape and np.all(np.abs(got - want) <= 1e-12 * np.maximum(1, np.abs(want)))


def one(k):
    script = rng.choice(sorted(WORDS))
    n, d, H, layers = rng.randint(8, 32), 8, rng.choice([1, 2, 4, 8]), rng.randint(2, 4)
    causal, post = rng.random() < 0.6, rng.random() < 0.5
    toks = ["%s%d" % (rng.choice(WORDS[script]), i) for i in range(n)]
    X = randm(n, d, 1.0)
    text = ["title: Stack %d\n" % k]
    want, x = [], X
    for l in range(layers):
        Wq, Wk, Wv, Wo = (randm(d, d) for _ in range(4))
        g1, b1, g2, b2 = 1 + randm(1, d, 0.1), randm(1, d, 0.1), 1 + randm(1, d, 0.1), randm(1, d, 0.1)
        Wi, bi, Wu = randm(d, 2 * d), randm(1, 2 * d, 0.1), randm(2 * d, d)
        text.append("[setup: Layer %d]\n" % (l + 1))
        if l == 0:
            text.append("tokens: %s\n%s" % (" ".join(toks), mat("X", X)))
        else:
            text.append("residual: yes\n")
        for name, m in (("W_q", Wq), ("W_k", Wk), ("W_v", Wv), ("W_o", Wo), ("g1", g1), ("b1", b1), ("g2", g2),
                        ("b2", b2), ("W_in", Wi), ("b_in", bi), ("W_out", Wu)):
            text.append(mat(name, m))
        text.append("queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\noutput: W_o\nheads: %d\nmask: %s\n"
                    "layer_norm: g1 b1\nmlp_norm: g2 b2\nmlp: W_in + b_in relu W_out\nnorm_order: %s\n"
                    "[layer_norm]\n[mlp]\n" % (H, "causal" if causal else "none", "post" if post else "pre"))
        a = x if post else norm(x, g1, b1)
        q, kk, v = a @ Wq, a @ Wk, a @ Wv
        dk = d // H
        ws, outs = [], []
        for h in range(H):
            s = q[:, h * dk:(h + 1) * dk] @ kk[:, h * dk:(h + 1) * dk].T / np.sqrt(dk)
            if causal:
                s = np.where(np.tril(np.ones((n, n), bool)), s, -np.inf)
            w = softmax(s)
            ws.append(w)
            outs.append(w @ v[:, h * dk:(h + 1) * dk])
        out = np.concatenate(outs, 1) @ Wo
        mats = {}
        if post:
            mats["attn_sum"] = x + out
            mats["ln"] = mats["resid_mid"] = mid = norm(mats["attn_sum"], g1, b1)
            mats["mlp_sum"] = mid + np.maximum(mid @ Wi + bi, 0) @ Wu
            mats["resid_post"] = x = norm(mats["mlp_sum"], g2, b2)
        else:
            mats["ln"] = a
            mats["resid_mid"] = mid = x + out
            mats["resid_post"] = x = mid + np.maximum(norm(mid, g2, b2) @ Wi + bi, 0) @ Wu
        want.append((ws, mats))
    text.append("[model_view]\n")
    return "".join(text), want, toks, n, H, post


for k in range(count):
    text, want, toks, n, H, post = one(k)
    label = "stack %d (%d tokens, %d heads, %d layers, %s-norm)" % (k + 1, n, H, len(want), "post" if post else "pre")
    path = os.path.join(tmpdir, "s.lesson")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    out = subprocess.run([binary, "--dump", path], capture_output=True, text=True)
    if not check(out.returncode == 0, "%s: --dump failed: %s" % (label, out.stderr.strip())):
        continue
    d = inline_shared(json.loads(out.stdout))
    for st in d["stages"]:
        l = st["setup"] - 1
        for m in st["matrices"]:
            got = np.array(m["data"], dtype=float) if m.get("data") is not None else None
            if got is None:
                continue
            if m["name"] in want[l][1]:
                check(close(got, want[l][1][m["name"]]), "%s: layer %d %s equals numpy" % (label, l + 1, m["name"]))
            if m["name"] == "heads_grid":
                grid = np.concatenate([np.concatenate(ws, 1) for ws, _ in want], 0)
                check(close(got, grid), "%s: the model view holds every layer's every head, %s" % (label, got.shape))
                check(m["row_labels"] == toks * len(want) and m["col_labels"] == toks * H,
                      "%s: the model view's rows and columns are named by their tokens" % label)
print("stack: %d generated stacks checked" % count)
finish("stack")
