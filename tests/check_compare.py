#!/usr/bin/python3
"""check_compare.py: compare stages, recomputed here with numpy.

Usage: check_compare.py ATTNLAB [COUNT] [SEED]

COUNT generated lessons (2-12 tokens, 1-4 heads, numbers written out by
this script): a setup, then the same setup at another temperature, with or
without a causal mask, with a head switched off, each followed by compare
stages of one head's weights, the attention's output and one head's output
(the setup above as A, this one as B). For each, --dump's A, B and B - A
must equal numpy's softmax(Q_h K_h^T / sqrt(d_k) / T) (masked), weights
times V and the joined heads times W_o, to 1e-12; B - A must be exactly
the difference of the two panels; A's panel must say it comes from setup
1; the note must name what differs ("temperature 0.5 vs 1", "mask causal
vs none", "head 2 off (→ 0)").

Prints 'compare: N passed, M failed' and exits 1 on any failure.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np
from tcheck import check, finish, inline_shared

binary = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 30
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 7)


def rows(m):
    """A matrix written out, one indented row a line."""
    return "\n".join("  " + " ".join(repr(float(v)) for v in r) for r in m)


def softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def attention(X, Wq, Wk, Wv, Wo, heads, temp, causal, off):
    """Each head's weights and output, and the joined heads times W_o (heads in off give 0 there)."""
    n, d = X.shape[0], Wq.shape[1] // heads
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    ws, outs = [], []
    for h in range(heads):
        s = Q[:, h * d:(h + 1) * d] @ K[:, h * d:(h + 1) * d].T / np.sqrt(d) / temp
        if causal:
            s = np.where(np.triu(np.ones((n, n), bool), 1), -np.inf, s)
        ws.append(softmax(s))
        outs.append(ws[-1] @ V[:, h * d:(h + 1) * d])
    joined = np.concatenate([np.zeros_like(o) if h + 1 in off else o for h, o in enumerate(outs)], 1)
    return ws, outs, joined @ Wo


def dump(text):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "compare.lesson")
        with open(path, "w") as f:
            f.write(text)
        out = subprocess.run([binary, "--dump", path], capture_output=True, text=True)
    if out.returncode != 0:
        check(False, "--dump failed: %s\n%s" % (out.stderr.strip(), text))
        return None
    return inline_shared(json.loads(out.stdout))


def arr(m):
    return np.array(m["data"], dtype=float)


def close(got, want):
    return got.shape == want.shape and np.all(np.abs(got - want) <= 1e-12 * np.maximum(1, np.abs(want)))


for t in range(count):
    n, heads = rng.randint(2, 12), rng.randint(1, 4)
    dk, d = heads * rng.randint(1, 3), rng.randint(2, 6)
    np_rng = np.random.default_rng(1000 + t)
    X, Wq, Wk, Wv = (np_rng.normal(size=s) for s in ((n, d), (d, dk), (d, dk), (d, dk)))
    Wo = np_rng.normal(size=(dk, d))
    kind = ("temperature", "mask", "ablate")[t % 3]
    temp_b = rng.choice((0.25, 0.5, 2.0, 3.0))
    causal_a = rng.random() < 0.5
    off = {rng.randint(1, heads)} if kind == "ablate" and heads > 1 else set()
    if kind == "ablate" and not off:
        kind = "temperature"
    tokens = " ".join("t%d" % i for i in range(n))
    text = ("title: Compare %d\n[setup]\ntokens: %s\nX =\n%s\nW_q =\n%s\nW_k =\n%s\nW_v =\n%s\nW_o =\n%s\n"
            "queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\noutput: W_o\nheads: %d\n%s"
            % (t, tokens, rows(X), rows(Wq), rows(Wk), rows(Wv), rows(Wo), heads, "mask: causal\n" if causal_a else ""))
    text += "[softmax]\n[setup]\n"
    temp, causal = 1.0, causal_a
    if kind == "temperature":
        temp = temp_b
        text += "temperature: %r\n" % temp
    elif kind == "mask":
        causal = not causal_a
        text += "mask: %s\n" % ("causal" if causal else "none")
    else:
        text += "ablate: %s\n" % " ".join(str(h) for h in sorted(off))
    h = rng.randint(1, heads)
    text += "[compare]\nhead: %d\n[compare]\nshow: output\n[compare]\nshow: output\nhead: %d\n" % (h, h)
    d_ = dump(text)
    if d_ is None:
        continue
    wa, oa, fa = attention(X, Wq, Wk, Wv, Wo, heads, 1.0, causal_a, set())
    wb, ob, fb = attention(X, Wq, Wk, Wv, Wo, heads, temp, causal, off)
    wants = [(wa[h - 1], wb[h - 1]), (fa, fb), (oa[h - 1], ob[h - 1])]
    what = {"temperature": "temperature %g vs 1" % temp, "mask": "mask %s vs %s"
            % (("causal", "none") if causal else ("none", "causal")),
            "ablate": "head %d off (\u2192 0)" % min(off) if off else ""}[kind]
    stages = [s for s in d_["stages"] if s["id"] == "compare"]
    check(len(stages) == 3, "lesson %d: three compare stages" % t)
    for st, (want_a, want_b) in zip(stages, wants):
        ms = st["matrices"]
        name = "lesson %d (%s, %d heads) stage %d" % (t, kind, heads, st["index"])
        check(len(ms) == 3 and ms[0].get("setup") == 1 and "setup" not in ms[1] and ms[2]["name"] == ms[1]["name"] + ".diff",
              "%s: A from setup 1, B from its own, then B - A: %s" % (name, [(m["name"], m.get("setup")) for m in ms]))
        if len(ms) != 3:
            continue
        a, b, diff = (arr(m) for m in ms)
        check(close(a, want_a), "%s: A (%s) equals numpy's" % (name, ms[0]["name"]))
        check(close(b, want_b), "%s: B equals numpy's" % name)
        check(close(diff, want_b - want_a), "%s: B - A equals numpy's" % name)
        check(np.array_equal(diff, b - a), "%s: B - A is exactly B minus A as dumped" % name)
        check(st.get("note") == "B vs A: " + what, "%s: the note says what differs: %r" % (name, st.get("note")))

finish("compare")
