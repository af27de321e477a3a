#!/usr/bin/python3
"""check_modern.py: masks made of parts, positions, grouped-query heads, the
K/V cache and the online softmax, recomputed here with numpy.

Usage: check_modern.py ATTNLAB LESSONS_DIR [COUNT] [SEED]

For the bundled lessons 08-10 and COUNT generated lessons (1-64 tokens,
1-16 heads, every K/V head count that divides the heads, windows and
prefixes of 1…n, blocks of 1…n, pad tokens, every kind of position), every
matrix --dump shows (every sub-step too) whose name this script knows is
compared with numpy's own computation to 1e-12 (relative beyond 1). The
inputs of a bundled lesson are read back from a copy of it with
[embeddings] and [qkv_projection] stages added to each setup. The numpy side follows the
definitions, not attnlab's code: the mask from its parts, RoPE by its
rotation, ALiBi's slopes by the paper's get_slopes, decoding one token at a time with its
own softmax over the cached keys, and the online softmax's states in closed
form (the running max after block b is the max of the keys so far, the
running output the softmax of the keys so far times their values, and so
on). Then properties: RoPE scores of identical vectors depend only on m-n;
decoded rows equal the causal weights; the online softmax equals softmax;
kv_heads equal to heads is multi-head attention; a window of n is causal.

Prints 'modern: N passed, M failed' and exits 1 on any failure.
"""
import json
import math
import os
import random
import re
import subprocess
import sys
import tempfile

import numpy as np
from tcheck import check, finish, inline_shared, part_of
from tref import alibi_slopes, kv_tables, rope_angles, rope_turn, sinusoidal, softmax_rows

binary, lessons = sys.argv[1], sys.argv[2]
count = int(sys.argv[3]) if len(sys.argv) > 3 else 40
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 13
kinds_seen = set()


def dump_text(text, name):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, name + ".lesson")
        with open(path, "w") as f:
            f.write(text)
        out = subprocess.run([binary, "--dump", path], capture_output=True, text=True)
    if out.returncode != 0:
        check(False, f"{name}: --dump failed: {out.stderr.strip()}")
        return None
    return inline_shared(json.loads(out.stdout))


def arr(m):
    return np.array([[-np.inf if v is None else v for v in row] for row in m["data"]], dtype=float)


# ---------------------------------------------------------------- settings

def setups_of(text):
    """The settings of each [setup], inherited as the lesson format says."""
    out, cur = [], None
    for line in text.split("\n"):
        s = line.split(" #")[0].strip()
        if s.startswith("[setup"):
            cur = dict(cur) if cur else {"heads": "1", "mask": "none", "positions": "none"}
            out.append(cur)
            continue
        if s.startswith("["):
            continue
        m = re.match(r"^(\w+):\s*(.*)$", s)
        if m and cur is not None and not line.startswith(" ") and m.group(1) in (
                "tokens", "queries", "keys", "values", "heads", "kv_heads", "mask", "positions"):
            cur[m.group(1)] = m.group(2)
    return out


def instrument(text):
    """The lesson with [embeddings] and [qkv_projection] stages closing every
    setup, so that the dump shows every setup's inputs (X, and its weights)."""
    parts = re.split(r"(?m)^(?=\[setup)", text)
    return "\n".join(p.rstrip("\n") + ("\n\n[embeddings]\n[qkv_projection]\n" if p.startswith("[setup") else "")
                     for p in parts) + "\n"


def blocks_of(text):
    """Block sizes of the online_softmax stages of each setup (None: the default)."""
    res, cur, in_os = [], None, False
    for line in text.split("\n"):
        s = line.strip()
        if s.startswith("[setup"):
            res.append([])
            in_os = False
        elif s.startswith("[online_softmax"):
            res[-1].append(None)
            in_os = True
        elif s.startswith("["):
            in_os = False
        elif in_os and s.startswith("block:"):
            res[-1][-1] = int(s.split(":")[1])
    return res


# --------------------------------------------------------------- reference

def mask_parts(words, tokens):
    n = len(tokens)
    i, j = np.indices((n, n))
    parts, w = {}, words.split()
    if w == ["none"]:
        return parts, None
    causal = "causal" in w or "sliding" in w or "prefix" in w
    M = np.ones((n, n), bool)
    if causal:
        parts["mask_causal"] = j <= i
        M = parts["mask_causal"].copy()
    if "prefix" in w:
        p = int(w[w.index("prefix") + 1])
        parts["mask_prefix"] = (i < p) & (j < p)
        M = M | parts["mask_prefix"]
    if "sliding" in w:
        win = int(w[w.index("sliding") + 1])
        parts["mask_window"] = (i - j) < win
        M = M & parts["mask_window"]
    if "padding" in w:
        pad = w[w.index("padding") + 1]
        isp = np.array([t == pad for t in tokens])
        parts["mask_padding"] = ~isp[:, None] & ~isp[None, :]
        M = M & parts["mask_padding"]
    if w == ["causal"]:
        parts = {}
    return parts, M


def reference(su, X, Wq, Wk, Wv, blocks):
    """Every matrix of the new kinds a setup computes, by dump name."""
    tokens = su["tokens"].split()
    n = len(tokens)
    H = int(su["heads"])
    G = int(su.get("kv_heads", H))
    pos = su["positions"].split()
    ref = {}
    if pos[0] == "sinusoidal":
        PE = sinusoidal(n, X.shape[1])
        ref["pe"], X = PE, X + PE
        ref["x_plus_pe"] = X
    Q, K, V = X @ Wq, X @ Wk, X @ Wv
    dk, dv = Q.shape[1] // H, V.shape[1] // G
    parts, M = mask_parts(su["mask"], tokens)
    ref.update({k: v.astype(float) for k, v in parts.items()})
    if M is not None:
        ref["mask"] = M.astype(float)
    if "kv_heads" in su:
        ref["kv_groups"], ref["kv_cache_size"] = kv_tables(n, H, G, dk, dv)
    base = float(pos[2]) if len(pos) > 2 else 10000.0
    ang = rope_angles(n, dk, base) if pos[0] == "rope" else None
    if ang is not None:
        ref["rope_angles"] = ang

    def rot(A):
        return rope_turn(A, ang)

    for h in range(1, H + 1):
        pre = f"head{h}." if H > 1 else ""
        g = (h - 1) * G // H
        q, k, v = Q[:, (h - 1) * dk:h * dk], K[:, g * dk:(g + 1) * dk], V[:, g * dv:(g + 1) * dv]
        if H > 1:
            ref[pre + "Q"], ref[pre + "K"], ref[pre + "V"] = q, k, v
        if ang is not None:
            q, k = rot(q), rot(k)
            ref[pre + "Q_rot"], ref[pre + "K_rot"] = q, k
        S = (q @ k.T) / math.sqrt(dk)
        if pos[0] == "alibi":
            m = alibi_slopes(H)[h - 1]
            i, j = np.indices((n, n))
            ref[pre + "alibi"] = -m * np.abs(i - j)
            S = S + ref[pre + "alibi"]
            ref[pre + "biased_scores"] = S
        if M is not None:
            S = np.where(M, S, -np.inf)
        W = softmax_rows(S)
        ref[pre + "weights"], ref[pre + "output"] = W, W @ v
        # decoding: token t sees the cache of keys 0..t only
        KW, KO = np.zeros((n, n)), np.zeros((n, v.shape[1]))
        for t in range(n):
            s = (q[t] @ k[:t + 1].T) / math.sqrt(dk)
            if pos[0] == "alibi":
                s = s - alibi_slopes(H)[h - 1] * (t - np.arange(t + 1))
            if M is not None:
                s = np.where(M[t, :t + 1], s, -np.inf)
            w = softmax_rows(s[None, :])[0]
            KW[t, :t + 1], KO[t] = w, w @ v[:t + 1]
        ref[pre + "kv_weights"], ref[pre + "kv_output"] = KW, KO
        for B in blocks:
            B = B or (max(1, (n + 3) // 4) if n >= 4 else 1)
            nb = (n + B - 1) // B
            mx, sm, rs, ac = (np.zeros((n, nb)) for _ in range(4))
            ac = np.zeros((n, nb * v.shape[1]))
            for b in range(nb):
                end = min((b + 1) * B, n)
                seen = S[:, :end]
                mb = seen.max(axis=1)
                mold = S[:, :b * B].max(axis=1) if b else np.full(n, -np.inf)
                with np.errstate(invalid="ignore"):
                    e = np.where(seen == -np.inf, 0.0, np.exp(seen - mb[:, None]))
                    rs[:, b] = np.where(mb == -np.inf, 1.0, np.exp(mold - mb))
                mx[:, b], sm[:, b] = mb, e.sum(axis=1)
                # the running output: the values seen so far, weighted by exp(s - m) / l
                ac[:, b * v.shape[1]:(b + 1) * v.shape[1]] = (e @ v[:end]) / np.where(sm[:, b] > 0, sm[:, b], 1)[:, None]
            tag = f".b{B}"
            out = ac[:, -v.shape[1]:]
            ref.update({pre + "online_max" + tag: mx, pre + "online_sum" + tag: sm, pre + "online_rescale" + tag: rs,
                        pre + "online_acc" + tag: ac, pre + "online_output" + tag: out,
                        pre + "online_diff" + tag: (out - W @ v) / np.finfo(float).eps})
    return ref


def compare(label, mats, ref):
    """Every dumped matrix whose name the reference knows, to 1e-12."""
    for m in mats:
        name, got = m["name"], arr(m)
        base, want = part_of(name, ref)
        if want is None:
            continue
        kind = re.sub(r"^head\d+\.|\.b\d+$", "", base)
        kinds_seen.add(kind)
        tol = 1e-12 * np.maximum(1.0, np.abs(np.where(np.isfinite(want), want, 0)))
        if kind == "online_diff":       # in units of ε: 1e-12 of the outputs
            tol = np.full(want.shape, 1e-12 / np.finfo(float).eps)
        fin = np.isfinite(want)
        ok = got.shape == want.shape and np.array_equal(np.isfinite(got), fin) and \
            np.all(got[~fin] == want[~fin]) and np.all(np.abs(got[fin] - want[fin]) <= tol[fin])
        if ok:
            check(True, name)
        elif got.shape != want.shape:
            check(False, f"{label}: {name} has shape {got.shape}, numpy {want.shape}")
        else:
            with np.errstate(invalid="ignore"):
                diff = np.nanmax(np.abs(np.where(fin, got - want, 0)))
            check(False, f"{label}: {name} differs from numpy by {diff:.3g}")


def check_lesson(text, label):
    """Dump the instrumented lesson and compare every setup."""
    text = instrument(text)
    d = dump_text(text, label)
    if d is None:
        return None
    sus, blocks = setups_of(text), blocks_of(text)
    counts, stages = [], iter(d["stages"])
    for line in text.split("\n"):
        if line.startswith("[setup"):
            counts.append(0)
        elif line.startswith("[") and counts:
            counts[-1] += 1
    for k, su in enumerate(sus):
        group = [next(stages) for _ in range(counts[k])]
        ins = {m["name"]: arr(m) for g in group[-2:] for m in g["matrices"]}   # the added stages
        X = ins[su["queries"].split("@")[0].strip()]
        W = [ins[su[key].split("@")[1].strip()] for key in ("queries", "keys", "values")]
        ref = reference(su, X, *W, blocks[k])
        for s in group:
            compare(f"{label} stage {s['index']} {s['id']}", s["matrices"], ref)
            for st in s.get("steps", []):
                compare(f"{label} stage {s['index']} {s['id']} {st['step']}", st["matrices"], ref)
    return d


def rows(m):
    return "\n".join("  " + " ".join(repr(float(x)) for x in r) for r in m)


def gen(rng, k, n=None, H=None, G=None, mask=None, positions=None, X=None, extra_stages=()):
    """A random lesson with every input written out."""
    n = n or rng.choice([1, 2, 3, 5, 8, 13, 21, 34, 64, rng.randint(1, 64)])
    H = H or rng.choice([1, 2, 3, 4, 6, 8, 16])
    G = G or rng.choice([g for g in range(1, H + 1) if H % g == 0])
    dk = 2 * rng.randint(1, 3)
    dv = rng.randint(1, 4)
    din = rng.randint(2, 12)
    pad = rng.random() < 0.3 and n > 2
    tokens = [f"w{i}" for i in range(n)]
    if pad:
        for i in range(n - rng.randint(1, n // 2), n):
            tokens[i] = "<pad>"
    if mask is None:
        words = []
        if rng.random() < 0.6:
            words.append(rng.choice(["causal", f"sliding {rng.randint(1, n)}", f"prefix {rng.randint(1, n)}"]))
        if pad and rng.random() < 0.8:
            words.append("padding <pad>")
        mask = " ".join(words) or "none"
    if positions is None:
        positions = rng.choice(["none", "sinusoidal", "rope", f"rope base {rng.choice([100, 500, 10000])}", "alibi"])
    X = X if X is not None else np.array([[rng.gauss(0, 1) for _ in range(din)] for _ in range(n)])
    din = X.shape[1]
    W = {"W_q": (din, H * dk), "W_k": (din, G * dk), "W_v": (din, G * dv)}
    text = [f"title: generated {k}", "[setup]", "tokens: " + " ".join(tokens), "X =", rows(X)]
    for name, (r, c) in W.items():
        text += [f"{name} =", rows([[rng.gauss(0, 0.6) for _ in range(c)] for _ in range(r)])]
    text += ["queries: X @ W_q", "keys: X @ W_k", "values: X @ W_v", f"heads: {H}", f"kv_heads: {G}",
             f"mask: {mask}", f"positions: {positions}", "", "[softmax]"]
    if H > 1:
        text += ["[multi_head]"]
    if mask != "none":
        text += ["[causal_mask]"]
    kind = positions.split()[0]
    text += {"sinusoidal": ["[positional_encoding]"], "rope": ["[rope]", "[raw_scores]"], "alibi": ["[alibi]"]}.get(kind, [])
    text += ["[grouped_query]"]
    for h in range(1, H + 1):
        if h == 1 or rng.random() < 0.3:
            text += ["[alibi]" if kind == "alibi" else "[softmax]", f"head: {h}"] if H > 1 else []
    if ("causal" in mask or "sliding" in mask) and "prefix" not in mask:
        text += ["[kv_cache]"] + ([f"head: {rng.randint(1, H)}"] if H > 1 else [])
    for _ in range(rng.randint(1, 2)):
        text += ["[online_softmax]", f"block: {rng.randint(1, n)}"] + ([f"head: {rng.randint(1, H)}"] if H > 1 else [])
    text += list(extra_stages)
    return "\n".join(text) + "\n"


def weights_of(d):
    return {m["name"]: arr(m) for s in d["stages"] for m in s["matrices"] if m["name"].endswith("weights")}


rng = random.Random(seed)
# the bundled lessons
for name in sorted(os.listdir(lessons)):
    if re.match(r"(08|09|10)-.*\.lesson$", name):
        check_lesson(open(os.path.join(lessons, name)).read(), name)
# generated ones
for k in range(count):
    check_lesson(gen(rng, k), f"generated {k}")

# RoPE: identical vectors at every position give scores that depend on m - n only
for k in range(4):
    n = rng.randint(2, 20)
    X = np.tile(np.array([[rng.gauss(0, 1) for _ in range(6)]]), (n, 1))
    d = dump_text(gen(rng, k, n=n, H=1, G=1, mask="none", positions="rope", X=X), "rope-shift")
    S = next(arr(m) for s in d["stages"] for m in s["matrices"] if m["name"] == "raw_scores")
    check(all(abs(S[i, j] - S[i - 1, j - 1]) <= 1e-12 * max(1, abs(S[i, j]))
              for i in range(1, n) for j in range(1, n)), f"rope: scores of identical vectors depend on m-n only (n={n})")
# decoded rows are the causal weights; the online softmax is softmax
for k in range(6):
    d = dump_text(gen(rng, k, mask="causal"), "decode")
    for s in d["stages"]:       # the pages of a stage together: a head's comparison may take several
        ms = {m["name"]: arr(m) for st in s.get("steps", []) for m in st["matrices"]}
        for nm, m in ms.items():
            if nm.endswith("kv_weights"):
                check(np.array_equal(m, ms[nm.replace("kv_weights", "weights")]), "decoded rows equal the causal weights")
            if ".online_output." in nm:
                check(np.max(np.abs(m - ms[re.sub(r"online_output\.b\d+", "output", nm)])) <= 1e-13,
                      "online softmax equals softmax (outputs within 1e-13)")
# kv_heads = heads is multi-head attention; a window of n is the causal mask
for k in range(6):
    H = rng.choice([1, 2, 4, 8, 16])
    n = rng.randint(1, 40)
    state = rng.getstate()
    a = dump_text(gen(rng, k, n=n, H=H, G=H, mask="causal", positions="none"), "gqa")
    rng.setstate(state)
    b = dump_text(gen(rng, k, n=n, H=H, G=H, mask="causal", positions="none").replace(f"kv_heads: {H}\n", "").replace("[grouped_query]\n", ""), "mha")
    check(len(weights_of(a)) > 0 and all(np.array_equal(v, weights_of(b)[nm]) for nm, v in weights_of(a).items()),
          f"kv_heads: {H} equals {H} ordinary heads")
    rng.setstate(state)
    c = dump_text(gen(rng, k, n=n, H=H, G=H, mask=f"sliding {n}", positions="none"), "window")
    wc, wa = weights_of(c), weights_of(a)
    check(all(np.array_equal(v, wa[nm]) for nm, v in wc.items() if nm in wa) and len(wc) > 0,
          f"a sliding window of {n} equals the causal mask")

want = {"mask_causal", "mask_window", "mask_prefix", "mask_padding", "pe", "x_plus_pe", "rope_angles", "Q_rot", "K_rot",
        "alibi", "biased_scores", "kv_weights", "kv_output", "kv_groups", "kv_cache_size", "online_max", "online_sum",
        "online_rescale", "online_acc", "online_output", "online_diff"}
check(want <= kinds_seen, f"every new kind was compared (missing: {sorted(want - kinds_seen)})")
finish("modern")
