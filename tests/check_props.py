#!/usr/bin/python3
"""check_props.py: properties of the K/V cache, ALiBi, grouped-query heads and
the projections with positions, recomputed with numpy over generated lessons.

Usage: check_props.py ATTNLAB [COUNT] [SEED]

Every lesson is written out in full (every input a number), dumped with
--dump, and every matrix the dump shows (sub-steps and parts included) whose
name the numpy side knows is compared to 1e-12 (relative beyond 1):

- kv_cache with every score kind (one head chosen, and every head): scaled dot products (by the square root of
  the head width, or a divisor), plain dot products, additive scores (keys as
  wide as the queries, or narrower), with a temperature, every kind of
  position and causal, sliding and padding masks. numpy decodes token t from
  the cache alone, scoring as the setup scores; the decoded rows must also be
  exactly the rows of the full causal weights.
- alibi with 1 to 16 heads (every count): the bias and the biased scores of
  every head, with the slopes of the paper's code (get_slopes).
- grouped_query with 1 to 16 K/V heads (every count, with as many query heads
  or a multiple of them up to 16): the keys each query head reads, who reads
  which, the size of the cache, the weights, and every head decoded from its
  group's cache (kv_cache); the stage shows the keys of min(G, 4) K/V heads.
- qkv_projection with sinusoidal, RoPE and ALiBi positions: the input the
  projections read (X + PE with sinusoidal positions) and Q, K, V computed
  from it, and the slide's product holds: the input panel times the weight
  panel is the role panel.

Prints 'props: N passed, M failed' and exits 1 on any failure. COUNT lessons
of each kind (default 12) keep it to seconds.
"""
import atexit
import json
import math
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from tcheck import check, finish, inline_shared, part_of
from tref import alibi_slopes, kv_tables, rope_angles, rope_turn, sinusoidal, softmax_rows

binary = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 12
rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 23)
tmpdir = tempfile.mkdtemp(prefix="attnlab-props-")
atexit.register(shutil.rmtree, tmpdir, True)


def dump(text, label):
    """The lesson's --dump with shared matrices put back, or None."""
    path = os.path.join(tmpdir, "p.lesson")
    with open(path, "w") as f:
        f.write(text)
    out = subprocess.run([binary, "--dump", path], capture_output=True, text=True)
    if not check(out.returncode == 0, f"{label}: --dump failed: {out.stderr.strip()}"):
        return None
    return inline_shared(json.loads(out.stdout))


def arr(m):
    return np.array([[-np.inf if v is None else v for v in row] for row in m["data"]], dtype=float)


def rows(m):
    return "\n".join("  " + " ".join(repr(float(x)) for x in r) for r in np.atleast_2d(m))


def mat(name, m):
    return f"{name} =\n{rows(m)}\n"


def randm(r, c, s=0.7):
    return np.array([[rng.gauss(0, s) for _ in range(c)] for _ in range(r)])


# ------------------------------------------------------------------ numpy

def mask_of(words, tokens):
    n = len(tokens)
    i, j = np.indices((n, n))
    w = words.split()
    M = (j <= i) if ("causal" in w or "sliding" in w) else np.ones((n, n), bool)
    if "sliding" in w:
        M = M & ((i - j) < int(w[w.index("sliding") + 1]))
    if "padding" in w:
        pad = np.array([t == w[w.index("padding") + 1] for t in tokens])
        M = M & ~pad[:, None] & ~pad[None, :]
    return M


# ------------------------------------------------------------------ compare

def compare(label, d, ref, seen):
    """Every matrix of every stage and sub-step whose name ref knows."""
    for s in d["stages"]:
        for group in [s] + s.get("steps", []):
            for m in group["matrices"]:
                name = m["name"]
                base, want = part_of(name, ref)
                if want is None or m.get("data") is None:
                    continue
                got = arr(m)
                seen.add(re.sub(r"^head\d+\.", "", base))
                fin = np.isfinite(want)
                tol = 1e-12 * np.maximum(1.0, np.abs(np.where(fin, want, 0)))
                ok = got.shape == want.shape and np.array_equal(np.isfinite(got), fin) and \
                    np.all(got[~fin] == want[~fin]) and np.all(np.abs(got[fin] - want[fin]) <= tol[fin])
                if not ok and got.shape == want.shape:
                    with np.errstate(invalid="ignore"):
                        diff = np.nanmax(np.abs(np.where(fin, got - want, 0)))
                    check(False, f"{label}: stage {s['index']} {s['id']}: {name} differs from numpy by {diff:.3g}")
                else:
                    check(ok, f"{label}: stage {s['index']} {s['id']}: {name} has shape {got.shape}, numpy {want.shape}")


def all_matrices(d):
    out = {}
    for s in d["stages"]:
        for group in [s] + s.get("steps", []):
            for m in group["matrices"]:
                if m.get("data") is not None:
                    out.setdefault(m["name"], arr(m))
    return out


# ------------------------------------------------------- kv_cache, all scores

def kv_lesson(k):
    """A setup of one score kind, with a K/V cache, and numpy's matrices."""
    kind = ["scaled", "divisor", "dot", "additive", "additive-narrow"][k % 5]
    additive = kind.startswith("additive")
    n = rng.randint(1, 12)
    tokens = [f"t{i}" for i in range(n)]
    pad = n > 2 and rng.random() < 0.3
    if pad:
        tokens[-1] = "<pad>"
    H = 1 if additive else rng.choice([1, 2, 4])
    positions = rng.choice(["none", "sinusoidal", "alibi"] + ([] if additive else ["rope", "rope base 100"]))
    if kind == "additive-narrow":
        positions = rng.choice(["none", "alibi"])       # sinusoidal needs one input
    mask = rng.choice(["causal", f"sliding {rng.randint(1, n)}"]) + (" padding <pad>" if pad and rng.random() < 0.8 else "")
    temp = rng.choice([1, 1, 0.5, 2.5])
    dk = 2 * rng.randint(1, 2)
    d = H * dk
    X = randm(n, d)
    Y = randm(n, rng.randint(1, d - 1) if kind == "additive-narrow" and d > 1 else d)
    text = ["title: kv", "[setup]", "tokens: " + " ".join(tokens), mat("X", X).rstrip()]
    q, kk = X, X
    if kind == "additive-narrow":
        text += [mat("Y", Y).rstrip(), "queries: X", "keys: Y", "values: Y"]
        kk = Y
    u = rng.randint(1, 4)
    W1, W2, v = randm(X.shape[1], u), randm(kk.shape[1], u), randm(1, u)
    if additive:
        text += [mat("W1", W1).rstrip(), mat("W2", W2).rstrip(), mat("v", v).rstrip(), "score: additive",
                 "additive: W1 W2 v"]
    div = rng.choice([0.5, 3.0])
    if kind == "dot":
        text += ["score: dot"]
    if kind == "divisor":
        text += [f"divisor: {div}"]
    text += [f"heads: {H}", f"mask: {mask}", f"positions: {positions}", f"temperature: {temp}", "[kv_cache]"]
    if H > 1:
        text += ["head: %d" % rng.randint(1, H), "[kv_cache]"]      # one head chosen, then every head
    text += ["[softmax]"]

    # numpy
    if positions == "sinusoidal":
        X = X + sinusoidal(n, X.shape[1])
        q = kk = X
    V = kk if kind == "additive-narrow" else X
    M = mask_of(mask, tokens)
    ref = {}
    base = 100.0 if positions == "rope base 100" else 10000.0
    for h in range(1, H + 1):
        pre = f"head{h}." if H > 1 else ""
        qh, kh, vh = q[:, (h - 1) * dk:h * dk], kk[:, (h - 1) * dk:h * dk], V[:, (h - 1) * dk:h * dk]
        if additive:
            qh, kh, vh = q, kk, V
        if positions.startswith("rope"):
            ang = rope_angles(n, qh.shape[1], base)
            qh, kh = rope_turn(qh, ang), rope_turn(kh, ang)
        slope = alibi_slopes(H)[h - 1] if positions == "alibi" else 0.0

        def score(qs, ks):
            if additive:
                return np.tanh((qs @ W1)[:, None, :] + (ks @ W2)[None, :, :]) @ v.reshape(-1) / temp
            S = qs @ ks.T
            if kind == "scaled":
                S = S / math.sqrt(dk)
            if kind == "divisor":
                S = S / div
            return S / temp

        i, j = np.indices((n, n))
        S = score(qh, kh) - slope * np.abs(i - j)
        W = softmax_rows(np.where(M, S, -np.inf))
        KW, KO = np.zeros((n, n)), np.zeros((n, vh.shape[1]))
        for t in range(n):
            s = score(qh[t:t + 1], kh[:t + 1])[0] - slope * (t - np.arange(t + 1))
            w = softmax_rows(np.where(M[t, :t + 1], s, -np.inf)[None, :])[0]
            KW[t, :t + 1], KO[t] = w, w @ vh[:t + 1]
        ref.update({pre + "weights": W, pre + "output": W @ vh, pre + "kv_weights": KW, pre + "kv_output": KO})
        if positions.startswith("rope"):
            ref[pre + "Q_rot"], ref[pre + "K_rot"] = qh, kh
    return f"kv {kind}", "\n".join(text) + "\n", ref, H


# -------------------------------------------------------------------- ALiBi

def alibi_lesson(H):
    n = rng.randint(2, 7)
    dk = rng.randint(1, 2)
    X = randm(n, H * dk)
    mask = rng.choice(["none", "causal"])
    text = ["title: alibi", "[setup]", "tokens: " + " ".join(f"t{i}" for i in range(n)), mat("X", X).rstrip(),
            f"heads: {H}", f"mask: {mask}", "positions: alibi", "[alibi]", "[alibi]", f"head: {rng.randint(1, H)}"]
    ref = {}
    i, j = np.indices((n, n))
    for h in range(1, H + 1):
        pre = f"head{h}." if H > 1 else ""
        q = X[:, (h - 1) * dk:h * dk]
        B = -alibi_slopes(H)[h - 1] * np.abs(i - j)
        ref[pre + "alibi"], ref[pre + "biased_scores"] = B, q @ q.T / math.sqrt(dk) + B
    return "\n".join(text) + "\n", ref


# ------------------------------------------------------- grouped-query heads

def gqa_lesson(G):
    H = G * rng.randint(1, 16 // G)
    n = rng.randint(1, 6)
    dk, dv = rng.randint(1, 2), rng.randint(1, 2)
    din = rng.randint(1, 4)
    X, Wq, Wk, Wv = randm(n, din), randm(din, H * dk), randm(din, G * dk), randm(din, G * dv)
    text = ["title: gqa", "[setup]", "tokens: " + " ".join(f"t{i}" for i in range(n)), mat("X", X).rstrip(),
            mat("W_q", Wq).rstrip(), mat("W_k", Wk).rstrip(), mat("W_v", Wv).rstrip(),
            "queries: X @ W_q", "keys: X @ W_k", "values: X @ W_v", f"heads: {H}", f"kv_heads: {G}", "mask: causal",
            "[grouped_query]", "[softmax]", "[kv_cache]"]
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    M = mask_of("causal", [f"t{i}" for i in range(n)])
    groups, size = kv_tables(n, H, G, dk, dv)
    ref = {"kv_groups": groups, "kv_cache_size": size}
    for h in range(1, H + 1):
        pre = f"head{h}." if H > 1 else ""
        g = (h - 1) * G // H
        q, k, v = Q[:, (h - 1) * dk:h * dk], K[:, g * dk:(g + 1) * dk], V[:, g * dv:(g + 1) * dv]
        if H > 1:
            ref[pre + "K"], ref[pre + "V"] = k, v
        W = softmax_rows(np.where(M, q @ k.T / math.sqrt(dk), -np.inf))
        ref[pre + "weights"] = W
        KW, KO = np.zeros((n, n)), np.zeros((n, dv))       # decoded from the cache of the group alone
        for t in range(n):
            w = softmax_rows((q[t:t + 1] @ k[:t + 1].T) / math.sqrt(dk))[0]
            KW[t, :t + 1], KO[t] = w, w @ v[:t + 1]
        ref[pre + "kv_weights"], ref[pre + "kv_output"] = KW, KO
    return "\n".join(text) + "\n", ref, H


# ---------------------------------------------- projections with positions

def qkv_lesson(k):
    positions = ["sinusoidal", "rope", "alibi"][k % 3]
    H = rng.choice([1, 2])
    n = rng.randint(1, 8)
    din, dk = rng.randint(1, 6), 2 * rng.randint(1, 2)
    X, Wq, Wk, Wv = randm(n, din), randm(din, H * dk), randm(din, H * dk), randm(din, H * dk)
    text = ["title: qkv", "[setup]", "tokens: " + " ".join(f"t{i}" for i in range(n)), mat("X", X).rstrip(),
            mat("W_q", Wq).rstrip(), mat("W_k", Wk).rstrip(), mat("W_v", Wv).rstrip(),
            "queries: X @ W_q", "keys: X @ W_k", "values: X @ W_v", f"heads: {H}", f"positions: {positions}",
            "[qkv_projection]"]
    In = X + sinusoidal(n, din) if positions == "sinusoidal" else X
    ref = {"Q": In @ Wq, "K": In @ Wk, "V": In @ Wv, "W_q": Wq}
    if positions == "sinusoidal":
        ref["x_plus_pe"] = In
    else:
        ref["X"] = X
    return positions, "\n".join(text) + "\n", ref


seen = set()
# every score kind decodes as numpy decodes, and as the full causal rows
for k in range(5 * count):
    label, text, ref, H = kv_lesson(k)
    d = dump(text, label)
    if d is None:
        continue
    compare(f"{label} #{k}", d, ref, seen)
    ms = all_matrices(d)
    for h in range(1, H + 1):
        pre = f"head{h}." if H > 1 else ""
        if pre + "kv_weights" in ms and pre + "weights" in ms:
            check(np.array_equal(ms[pre + "kv_weights"], ms[pre + "weights"]),
                  f"{label} #{k}: decoded rows are the full causal rows ({pre}weights)")
# ALiBi for every head count from 1 to 16
for H in range(1, 17):
    text, ref = alibi_lesson(H)
    d = dump(text, f"alibi H={H}")
    if d is not None:
        compare(f"alibi H={H}", d, ref, seen)
# grouped-query heads for every K/V head count from 1 to 16
for G in range(1, 17):
    text, ref, H = gqa_lesson(G)
    d = dump(text, f"gqa G={G}")
    if d is None:
        continue
    compare(f"gqa G={G} H={H}", d, ref, seen)
    keys = [m for m in d["stages"][0]["matrices"] if re.match(r"^(head\d+\.)?K$", m["name"])]
    check(len(keys) == min(G, 4), f"gqa G={G}: grouped_query shows {len(keys)} K/V heads' keys, want {min(G, 4)}")
# projections with positions: what they read, and the product on the slide
for k in range(3 * count):
    positions, text, ref = qkv_lesson(k)
    d = dump(text, f"qkv {positions}")
    if d is None:
        continue
    compare(f"qkv {positions} #{k}", d, ref, seen)
    ms = {m["name"]: arr(m) for m in d["stages"][0]["matrices"]}
    src = ms.get("x_plus_pe" if positions == "sinusoidal" else "X")
    check(src is not None and "Q" in ms and np.allclose(src @ ms["W_q"], ms["Q"], rtol=1e-12, atol=1e-12),
          f"qkv {positions} #{k}: the input panel times W_q is the Q panel")
    names = [m["name"] for m in d["stages"][0]["matrices"] if not m["name"].startswith("W_")]
    check(len(names) == len(set(names)), f"qkv {positions} #{k}: each matrix once, got {names}")

want = {"weights", "output", "kv_weights", "kv_output", "Q_rot", "K_rot", "alibi", "biased_scores", "kv_groups",
        "kv_cache_size", "K", "V", "Q", "x_plus_pe", "X", "W_q"}
check(want <= seen, f"every kind was compared (missing: {sorted(want - seen)})")
finish("props")
