#!/usr/bin/python3
"""check_views.py: properties of what attnlab shows, on lessons generated here.

Usage: check_views.py ATTNLAB [COUNT] [SEED]

Writes COUNT random lessons (8-32 tokens, 1-16 heads, 6-64 dimensions,
with and without a causal mask, some cross-attention, tokens in several
scripts) with every input written out, some with a second setup given
numpy's weights (`attention: A`), then checks against numpy:

- every per-head weight matrix in --dump equals softmax(Q_h K_hᵀ / √d_k
  + mask) recomputed here with d_k = the head width, to 1e-12 (exactly,
  in a setup given those numbers);
- with two heads or more, no stage shows scores, weights or outputs across
  heads (Q, K and V are whole projections; no plain
  "weights", "raw_scores" ...), and the same (head, query, key) weight is
  the same number in every stage that shows it;
- every number printed in a cell of every stage of the SVG export (read
  back from its data-row/data-col attributes) rounds to the true value at
  the precision it is printed with, and a weight prints as 0 or 1 only
  when it is exactly 0 or 1.

Prints 'views: N passed, M failed' and exits 1 on any failure.
"""
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import numpy as np
from tcheck import check, finish

WORDS = ["the", "cat", "sat", "on", "mat", "it", "was", "tired", "dog", "ran",
         "猫", "座った", "القطة", "חתול", "बिल्ली", "кот", "γάτα", "고양이"]
PER_HEAD = ("raw_scores", "scaled_scores", "masked_scores", "weights", "output")



def rows(m):
    return "\n".join("  " + " ".join(repr(float(x)) for x in r) for r in m)


def make_lesson(rng, k):
    """A random lesson and what numpy needs to recompute it."""
    cross = rng.random() < 0.2
    nq = rng.randint(8, 32)
    nk = rng.randint(8, 32) if cross else nq
    heads = rng.choice([1, 2, 3, 4, 6, 8, 16])
    dh = rng.randint(2, max(2, 64 // heads))
    d = heads * dh
    din = rng.randint(6, 64)
    causal = not cross and rng.random() < 0.5
    X = np.array([[rng.gauss(0, 1) for _ in range(din)] for _ in range(nq)])
    Y = np.array([[rng.gauss(0, 1) for _ in range(din)] for _ in range(nk)]) if cross else X
    W = {n: np.array([[rng.gauss(0, 0.5) for _ in range(d)] for _ in range(din)]) for n in ("W_q", "W_k", "W_v")}
    qt = [rng.choice(WORDS) + str(i) for i in range(nq)]
    kt = [rng.choice(WORDS) + str(i) for i in range(nk)] if cross else qt
    text = [f"title: generated lesson {k}", "", "[setup]"]
    if cross:
        text += ["query_tokens: " + " ".join(qt), "key_tokens: " + " ".join(kt)]
    else:
        text += ["tokens: " + " ".join(qt)]
    text += ["X =", rows(X)]
    if cross:
        text += ["Y =", rows(Y)]
    for n, m in W.items():
        text += [f"{n} =", rows(m)]
    src = "Y" if cross else "X"
    text += ["queries: X @ W_q", f"keys: {src} @ W_k", f"values: {src} @ W_v", f"heads: {heads}"]
    if causal:
        text += ["mask: causal"]
    stages = ["embeddings", "qkv_projection", "raw_scores", "scaled_scores", "softmax", "weighted_sum", "per_token", "entropy"]
    if heads > 1:
        stages.append("multi_head")
    if causal:
        stages.append("causal_mask")
    if cross:
        stages.append("cross_attention")
    for st in stages:
        text += ["", f"[{st}]"]
        if st == "per_token":
            text += [f"query: {rng.randint(1, nq)}"]
    text += [""]
    # numpy's own computation, head by head
    Q, K, V = X @ W["W_q"], Y @ W["W_k"], Y @ W["W_v"]
    weights = {}
    for h in range(heads):
        q, kk = Q[:, h * dh:(h + 1) * dh], K[:, h * dh:(h + 1) * dh]
        s = q @ kk.T / math.sqrt(dh)
        if causal:
            s = np.where(np.tril(np.ones((nq, nk))) == 1, s, -np.inf)
        m = s.max(axis=1, keepdims=True)
        e = np.exp(s - m)
        weights[h + 1] = e / e.sum(axis=1, keepdims=True)
    # a second setup given numpy's weights (attention: A), as a model exports them
    if rng.random() < 0.4:
        text += ["[setup]", "A = stack %d" % heads]
        text += ["  " + " ".join(repr(float(weights[h + 1][r, c])) for h in range(heads) for c in range(nk))
                 for r in range(nq)]
        text += ["attention: A", f"values: {src} @ W_v"]
        given = ["softmax", "per_token", "entropy", "weighted_sum"] + (["multi_head"] if heads > 1 else []) \
            + (["causal_mask"] if causal else []) + (["cross_attention"] if cross else [])
        for st in given:
            text += ["", f"[{st}]"] + ([f"query: {rng.randint(1, nq)}"] if st == "per_token" else [])
        text += [""]
    return "\n".join(text), heads, weights


def number(text):
    """A printed cell back to a float and its decimals; None for −∞."""
    t = text.replace("\u2212", "-")
    if "∞" in t:
        return None, 0
    dec = len(t.split(".")[1]) if "." in t and "e" not in t else 0
    if "e" in t:
        mant = t.split("e")[0]
        dec = len(mant.split(".")[1]) if "." in mant else 0
        return float(t), ("e", dec, int(t.split("e")[1]))
    return float(t), dec


def tolerance(dec):
    if isinstance(dec, tuple):
        _, d, exp = dec
        return 0.5 * 10 ** (exp - d) * 1.0001
    return 0.5 * 10 ** (-dec) + 1e-12


def check_lesson(attnlab, path, heads, weights, tmp):
    name = os.path.basename(path)
    out = subprocess.run([attnlab, "--dump", path], capture_output=True, text=True)
    if out.returncode != 0:
        check(False, f"{name}: --dump failed: {out.stderr.strip()}")
        return
    dump = json.loads(out.stdout)
    mats = {}
    setup_of = {st["index"]: st["setup"] for st in dump["stages"]}
    for st in dump["stages"]:
        for m in st["matrices"]:
            nm = m["name"]
            if heads > 1:
                check(nm not in PER_HEAD, f"{name}: stage {st['id']} shows {nm}, a matrix across {heads} heads")
            rows = m["data"] if "data" in m else dump["matrices"][str(st["setup"])][nm]   # big ones: once per setup
            data = np.array([[np.nan if x is None else x for x in r] for r in rows])
            mats.setdefault((st["setup"], nm), []).append((st["id"], data))
            mt = re.fullmatch(r"(?:head(\d+)\.)?weights(?:\[(\d+)\])?", nm)
            if mt:
                h = int(mt.group(1) or 1)
                want = weights[h] if not mt.group(2) else weights[h][int(mt.group(2)) - 1:int(mt.group(2))]
                err = float(np.max(np.abs(data - want)))
                # computed: numpy's to rounding; given (setup 2): numpy's own numbers, read back exactly
                check(err <= (0 if st["setup"] == 2 else 1e-12),
                      f"{name}: {nm} in {st['id']} (setup {st['setup']}) differs from numpy by {err:g}")
    for (su, nm), shows in mats.items():
        first = shows[0][1]
        for sid, data in shows[1:]:
            same = first.shape == data.shape and np.array_equal(np.nan_to_num(first, nan=7), np.nan_to_num(data, nan=7))
            check(same, f"{name}: {nm} of setup {su} differs between {shows[0][0]} and {sid}")
    # every printed number, read back from the SVG
    svgdir = os.path.join(tmp, "svg-" + name)
    out = subprocess.run([attnlab, "--export", svgdir, "--format", "svg", path], capture_output=True, text=True)
    if out.returncode != 0:
        check(False, f"{name}: --export failed: {out.stderr.strip()}")
        return
    ns = "{http://www.w3.org/2000/svg}"
    for f in sorted(os.listdir(svgdir)):
        su = setup_of[int(re.search(r"-(\d+)-[a-z_]+(-\d\d+(-[a-z0-9-]+)?)?\.svg$", f).group(1))]
        full = {nm: shows[0][1] for (s, nm), shows in mats.items() if s == su}
        root = ET.parse(os.path.join(svgdir, f)).getroot()
        for g in root.iter(ns + "g"):
            nm = g.get("data-matrix")
            if not nm:
                continue
            row0 = int(g.get("data-first-row", "0"))
            key = f"{nm}[{row0 + 1}]" if f"{nm}[{row0 + 1}]" in full and nm not in full else nm
            m = full.get(key)
            if m is None:
                continue
            for t in g.iter(ns + "text"):
                if t.get("data-row") is None:
                    continue
                r, c = int(t.get("data-row")), int(t.get("data-col"))
                rr = r if key != nm else r + row0
                true = m[rr][c]
                v, dec = number(t.text)
                if v is None:
                    check(np.isnan(true), f"{name} {f}: {nm}[{rr}][{c}] prints −∞ but is {true}")
                    continue
                ok = abs(v - true) <= tolerance(dec)
                if nm.endswith("weights") and t.text in ("0", "1"):
                    ok = ok and true == float(t.text)
                check(ok, f"{name} {f}: {nm}[{rr}][{c}] prints {t.text!r} but is {true!r}")


def main():
    attnlab = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 20261123)
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(count):
            text, heads, weights = make_lesson(rng, k)
            path = os.path.join(tmp, f"gen{k:02d}.lesson")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            check_lesson(attnlab, path, heads, weights, tmp)
    finish("views")


if __name__ == "__main__":
    sys.exit(main())
