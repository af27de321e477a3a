#!/usr/bin/python3
"""check_trained_model.py: the bundled trained-model lesson against the
training script's own forward pass (tests/reference/induction_forward.npz,
written by lessons/models/train_induction.py).

Run: check_trained_model.py ATTNLAB_BINARY LESSON REFERENCE_NPZ

From `attnlab --dump LESSON`:
  - the first multi_head stage is layer 1, the second layer 2; each head's
    weights must equal the reference attention pattern to 1e-6, and layer
    1's output after W_o plus its input must equal the reference residual
    stream entering layer 2;
  - the previous-token head (layer 1) puts most of its weight on the
    previous token, and the induction head (layer 2) on the token after the
    earlier occurrence of the query's token, for every query of the
    repeated run; the averages must match the reference's;
  - the next-token stage after layer 2 shows the reference's logits through
    W_U and gets every next word of the repeated run right;
  - setup 3 is given layer 2's exported patterns (per_token and entropy);
  - with layer 1's heads 1 and 3 switched off (setups 4 and 5), the lesson
    ends with two compare stages of layer 2 (A, setup 2) against the same
    layer without those heads (B, setup 5): the induction head's weights,
    then the next word's probabilities, then the model view of all five
    setups' heads. A, B and B − A are recomputed with
    numpy from the model (the forward pass with and without the heads): the
    induction head loses its target in B, A gets every next word of the
    repeated run right and B none; the slide of a head switched off shows
    what replaces its output (zeros, and with `ablate: 1 3 mean` its mean
    over the tokens) as numpy computes it, and every slide of those setups
    names the heads in its note.
Per-head matrices are found by name pattern: a name with 'weights' and a
head number ('head3.weights' and the like); W_o's output is 'final' (or,
if renamed, the last tokens x d_model matrix of the stage that is not the
concatenation).
"""
import json
import os
import re
import subprocess
import sys

import numpy as np
from tcheck import check, finish, inline_shared

binary, lesson, refpath = sys.argv[1:4]


def as_array(m):
    return np.array([[-np.inf if v is None else v for v in row] for row in m["data"]], dtype=float)


def head_of(name):
    """The head number in a per-head matrix name, or None."""
    m = re.search(r"head\D{0,3}(\d+)", name, re.I) or re.search(r"\bh(\d+)\b", name, re.I)
    return int(m.group(1)) if m else None


def numbered(labels):
    """Labels as the lesson's tokens read them: "14 rocket" (a stage with
    `indices: yes`, counting from 1) as (14, "rocket"), "rocket" as (None,
    "rocket")."""
    out = []
    for lab in labels:
        n, _, word = lab.partition(" ")
        out.append((int(n), word) if n.isdigit() and word else (None, lab))
    return out


def labelled_with_tokens(labels, tokens):
    """Whether labels are the tokens, numbered from 1 or not at all."""
    got = numbered(labels)
    return [w for _, w in got] == tokens and all(n in (None, i + 1) for i, (n, _) in enumerate(got)) \
        and len({n is None for n, _ in got}) == 1


ref = np.load(refpath)
W, resid = ref["weights"], ref["resid"]
tokens = [str(t) for t in ref["tokens"]]
pre, L = int(ref["run_start"]), int(ref["run_length"])
prev_head, ind_head = int(ref["previous_token_head"]), int(ref["induction_head"])
second = range(pre + L, pre + 2 * L)              # the queries of the repeated run

out = subprocess.run([binary, "--dump", lesson], capture_output=True, text=True)
check(out.returncode == 0, "--dump exits 0: " + out.stderr.strip())
d = inline_shared(json.loads(out.stdout))

layers = []                                       # per multi_head stage: {head: weights}, final
for st in d["stages"]:
    if st["id"] != "multi_head" or st["setup"] > 2:     # setups 4 and 5 are the model with heads switched off
        continue
    heads, final = {}, None
    for m in st["matrices"]:
        if "weights" in m["name"] and head_of(m["name"]):
            heads[head_of(m["name"])] = as_array(m)
            check(labelled_with_tokens(m["row_labels"], tokens), "%s is labelled with the lesson's tokens" % m["name"])
        if "final" in m["name"]:
            final = as_array(m)
    if final is None:       # renamed: W_o's output is the last (tokens x d_model) matrix that is not the concatenation
        outs = [m for m in st["matrices"] if "concat" not in m["name"] and m["rows"] == len(tokens)
                and m["cols"] == resid.shape[2] and not head_of(m["name"])]
        final = as_array(outs[-1]) if outs else None
    layers.append((heads, final))
check(len(layers) == 2, "two multi_head stages (layer 1, layer 2), found %d" % len(layers))

for l, (heads, final) in enumerate(layers[:2]):
    check(sorted(heads) == [1, 2, 3, 4], "layer %d shows heads 1-4, found %s" % (l + 1, sorted(heads)))
    for h, w in heads.items():
        diff = np.abs(w - W[l, h - 1]).max() if w.shape == W[l, h - 1].shape else np.inf
        check(diff <= 1e-6, "layer %d head %d weights equal the reference (max diff %g)" % (l + 1, h, diff))
    if final is not None and l == 0:
        diff = np.abs(resid[0] + final - resid[1]).max()
        check(diff <= 1e-6, "layer 1: X + output·W_o is the residual stream entering layer 2 (max diff %g)" % diff)
    else:
        check(final is not None or l == 1, "layer 1 shows W_o's output ('final')")

if len(layers) >= 2 and prev_head in layers[0][0] and ind_head in layers[1][0]:
    p, q = layers[0][0][prev_head], layers[1][0][ind_head]
    on_prev = np.array([p[i, i - 1] for i in second])
    on_next = np.array([q[i, i - L + 1] for i in second])
    ref_prev = np.mean([W[0, prev_head - 1, i, i - 1] for i in second])
    ref_next = np.mean([W[1, ind_head - 1, i, i - L + 1] for i in second])
    print("check_trained_model: layer 1 head %d puts %.4f on the previous token; layer 2 head %d puts %.4f "
          "on the token after the earlier occurrence (second run, mean)" % (prev_head, on_prev.mean(), ind_head, on_next.mean()))
    check(abs(on_prev.mean() - ref_prev) <= 1e-6, "previous-token weight matches the reference")
    check(abs(on_next.mean() - ref_next) <= 1e-6, "induction weight matches the reference")
    check(on_prev.mean() > 0.9 and on_prev.min() > 0.5, "previous-token head: most weight on the previous token")
    check(on_next.mean() > 0.8 and on_next.min() > 0.5, "induction head: most weight on the token after the earlier occurrence")
    check(all(int(np.argmax(q[i])) == i - L + 1 for i in second), "induction head: the largest weight of every repeated query")
    check(all(int(np.argmax(p[i])) == i - 1 for i in range(1, len(tokens))), "previous-token head: the largest weight of every query")
    check(all(tokens[i - L] == tokens[i] for i in second), "the reference sequence repeats its run")

# The predictions, then the same model with layer 1's previous-token heads
# switched off (setups 4 and 5), recomputed here with numpy from the weights.
model = np.load(lesson.rsplit("/", 1)[0] + "/models/induction.npz")
vocab = [str(w) for w in model["vocab"]]


def softmax(s):
    e = np.exp(s - s.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def head_parts(x, l):
    """Each head's weights and output of layer l (causal, no norm), before the heads are joined."""
    n = x.shape[0]
    outs, ws = [], []
    for h in range(model["W_q"].shape[1]):
        q, k, v = (x @ model[w][l, h] for w in ("W_q", "W_k", "W_v"))
        sc = np.where(np.triu(np.ones((n, n), bool), 1), -np.inf, q @ k.T / np.sqrt(q.shape[1]))
        ws.append(softmax(sc))
        outs.append(ws[-1] @ v)
    return ws, outs


def replaced(o, mean):
    """What a head switched off hands on: zeros, or every row its output's mean over the tokens."""
    return np.broadcast_to(o.mean(0), o.shape).copy() if mean else np.zeros_like(o)


def layer(x, l, off=(), mean=False):
    """One attention layer of the model (causal, no norm, no MLP), heads in
    off replaced (zeros, or their mean) where they are joined: the stream
    after it, and each head's weights."""
    ws, outs = head_parts(x, l)
    outs = [replaced(o, mean) if h + 1 in off else o for h, o in enumerate(outs)]
    return x + np.concatenate(outs, 1) @ model["W_o"][l], ws


def right_words(probs):
    """How many next words of the repeated run probs gets right."""
    return sum(int(np.argmax(probs[i])) == int(ref["sequence"][i + 1]) for i in range(pre + L, pre + 2 * L - 1))


predictions = [st for st in d["stages"] if st["id"] == "next_token"]
check([st["setup"] for st in predictions] == [2], "one next_token stage, after layer 2, found %s"
      % [st["setup"] for st in predictions])
for st in predictions:
    mats = {m["name"]: m for m in st["matrices"]}
    x = as_array(mats["resid_post"])
    check(np.abs(x - resid[2]).max() <= 1e-9, "the stream after layer 2 equals numpy's (max diff %g)"
          % np.abs(x - resid[2]).max())
    probs = softmax(x @ model["W_U"])
    top = mats["top_probs.k3"]
    cols = [vocab.index(w) for w in top["col_labels"]]
    check(np.abs(as_array(top) - probs[:, cols]).max() <= 1e-12, "the probabilities shown are numpy's")
    check(np.abs(x @ model["W_U"] - ref["logits"]).max() <= 1e-9, "the model's logits equal the reference")
    check(right_words(probs) == L - 1, "the model predicts every next word of the repeated run (%d of %d)"
          % (right_words(probs), L - 1))

# The two compare stages that end the lesson: A the model, B without heads 1 and 3 of layer 1.
x2, w2 = layer(layer(model["x_layer1"], 0)[0], 1)
x2_off, w2_off = layer(layer(model["x_layer1"], 0, off=(1, 3))[0], 1)
compares = [st for st in d["stages"] if st["id"] == "compare"]
n_st = len(d["stages"])
check([(st["setup"], st["index"]) for st in compares] == [(5, n_st - 2), (5, n_st - 1)],
      "the lesson ends with two compare stages of setup 5 before its model view, found %s"
      % [(st["setup"], st["index"]) for st in compares])
check(all("heads 1 and 3 off" in st.get("note", "") for st in compares), "each compare stage's note names the heads "
      "switched off: %s" % [st.get("note") for st in compares])
wants = [("head%d.weights" % ind_head, w2[ind_head - 1], w2_off[ind_head - 1]),
         ("probs", softmax(x2 @ model["W_U"]), softmax(x2_off @ model["W_U"]))]
for st, (name, want_a, want_b) in zip(compares, wants):
    ms = st["matrices"]
    check([(m["name"], m.get("setup")) for m in ms] == [(name, 2), (name, None), (name + ".diff", None)],
          "compare shows %s of setups 2 and 5 and their difference, found %s" % (name, [(m["name"], m.get("setup")) for m in ms]))
    if len(ms) != 3:
        continue
    a, b, diff = (as_array(m) for m in ms)
    for got, want, what in ((a, want_a, "A"), (b, want_b, "B"), (diff, want_b - want_a, "B - A")):
        err = np.abs(got - want).max() if got.shape == want.shape else np.inf
        check(err <= 1e-9, "compare %s: %s equals numpy's (max diff %g)" % (name, what, err))
    check(np.array_equal(diff, b - a), "compare %s: B - A is exactly the difference of the panels" % name)
    if name == "probs":
        check(ms[0]["col_labels"] == vocab, "the next token's columns are the vocabulary, in order")
        check(right_words(a) == L - 1 and right_words(b) == 0, "A gets %d of %d next words of the repeated run right "
              "(all), B %d (none)" % (right_words(a), L - 1, right_words(b)))
    else:
        on_next = np.mean([b[i, i - L + 1] for i in second])
        print("check_trained_model: with them off, layer 2 head %d puts %.4f on the token after the earlier "
              "occurrence" % (ind_head, on_next))
        check(on_next < 0.1, "the induction head loses its target (%.4f)" % on_next)

# The model view that ends the lesson: every head of its five setups (all of
# the same tokens and four heads), a block each, as numpy computes them.
view = d["stages"][-1]
check(view["id"] == "model_view" and view["setup"] == 5, "the lesson ends with a model view of setup 5, found %s of "
      "setup %s" % (view["id"], view["setup"]))
grid = as_array(view["matrices"][0])
blocks = [layer(model["x_layer1"], 0)[1], w2, w2, layer(model["x_layer1"], 0, off=(1, 3))[1], w2_off]
want = np.concatenate([np.concatenate(list(b), axis=1) for b in blocks], axis=0)
err = np.abs(grid - want).max() if grid.shape == want.shape else np.inf
check(err <= 1e-6, "the model view holds every head of the five setups in its blocks, %s (max diff %g; the "
      "exported patterns are float32)" % (grid.shape, err))

# What replaces a head switched off, as the slide of its output shows it
# (head1.ablated_output: what goes into the concatenation) and as every
# slide after it says in its note: zeros as the lesson says, then the mean
# over the tokens (the lesson with `ablate: 1 3 mean`, read from standard
# input in the lessons' folder), each against numpy.
def off_stage_checks(dd, mean, what):
    x1 = model["x_layer1"]
    outs = head_parts(x1, 0)[1]
    mh = [st for st in dd["stages"] if st["id"] == "multi_head" and st["setup"] == 4]
    check(len(mh) == 1, "%s: one multi_head stage of the ablated layer 1" % what)
    mats = {m["name"]: m for m in mh[0]["matrices"]}
    for h in (1, 3):
        m = mats.get("head%d.ablated_output" % h)
        check(m is not None, "%s: head %d's slide shows what replaces its output (head%d.ablated_output), found %s"
              % (what, h, h, sorted(mats)))
        if m is None:
            continue
        want = replaced(outs[h - 1], mean)
        diff = np.abs(as_array(m) - want).max()
        check(diff <= 1e-12, "%s: head %d's replacement equals numpy's (max diff %g)" % (what, h, diff))
        check("head%d.output" % h not in mats, "%s: head %d's own output is not shown as if it reached W_o" % (what, h))
    concat = as_array(mats["concat"])
    want = np.concatenate([replaced(o, mean) if h + 1 in (1, 3) else o for h, o in enumerate(outs)], 1)
    check(np.abs(concat - want).max() <= 1e-12, "%s: the concatenation holds the replacements (max diff %g)"
          % (what, np.abs(concat - want).max()))
    how = "its mean over the tokens" if mean else "0"
    for st in dd["stages"]:
        if st["setup"] in (4, 5) and st["id"] == "compare":     # its own words: what B differs in
            note = st.get("note") or ""
            words = "heads 1 and 3 off (\u2192 %s)" % ("their mean over the tokens" if mean else "0")
            check(words in note, "%s: stage %d (compare) says %s, found %r" % (what, st["index"], words, note))
        elif st["setup"] in (4, 5):
            note = st.get("note") or ""
            for h in (1, 3):
                check("head %d \u2192 %s" % (h, how) in note, "%s: stage %d (%s) says head %d \u2192 %s, found %r"
                      % (what, st["index"], st["id"], h, how, note))
    probs = [st for st in dd["stages"] if st["id"] == "compare" and st["setup"] == 5][-1:]
    check(len(probs) == 1, "%s: the predictions after the ablated layers, compared" % what)
    if probs:
        b = as_array(probs[0]["matrices"][1])
        x = layer(layer(x1, 0, off=(1, 3), mean=mean)[0], 1)[0]
        want = softmax(x @ model["W_U"])
        check(np.abs(b - want).max() <= 1e-9, "%s: the probabilities after layer 2 equal numpy's (max diff %g)"
              % (what, np.abs(b - want).max()))


off_stage_checks(d, False, "zero ablation")
text = open(lesson, encoding="utf-8").read()
check(text.count("ablate: 1 3\n") == 1, "the lesson switches heads 1 and 3 off once")
out = subprocess.run([os.path.abspath(binary), "--dump", "-"], input=text.replace("ablate: 1 3\n", "ablate: 1 3 mean\n"),
                     capture_output=True, text=True, cwd=lesson.rsplit("/", 1)[0])
check(out.returncode == 0, "--dump of the lesson with mean ablation exits 0: " + out.stderr.strip())
if out.returncode == 0:
    off_stage_checks(inline_shared(json.loads(out.stdout)), True, "mean ablation")

# The setup given the exported patterns of layer 2: the third.
given = [st for st in d["stages"] if st["setup"] == 3]
check([st["id"] for st in given] == ["per_token", "entropy"], "setup 3 shows per_token and entropy, found %s"
      % [st["id"] for st in given])
exported = np.load(lesson.rsplit("/", 1)[0] + "/models/induction-attention.npz")["attention"]
check(exported.dtype == np.float32 and exported.shape == W.shape, "the exported patterns are float32, shaped %s"
      % (W.shape,))
check(np.abs(exported - W).max() <= 1e-6, "the exported patterns equal the reference to 1e-6 (max diff %g)"
      % np.abs(exported - W).max())
for st in given:
    m = st["matrices"][0]
    if st["id"] == "per_token":
        row = as_array(m)[0]
        n, word = numbered(m["row_labels"])[0]
        q = tokens.index(word, pre + L) if n is None else n - 1     # the query shown: in the repeated run
        check(tokens[q] == word and q >= pre + L, "per_token shows %s, a query of the repeated run" % m["row_labels"][0])
        check(head_of(m["name"]) == ind_head, "per_token shows the induction head, found %s" % m["name"])
        diff = np.abs(row - exported[1, ind_head - 1, q]).max()
        check(diff == 0, "per_token shows the file's row exactly (max diff %g)" % diff)
        check(int(np.argmax(row)) == q - L + 1 and row[q - L + 1] > 0.99,
              "the given row puts %.4f on the token after the earlier occurrence" % row[q - L + 1])
    else:
        e = as_array(m)
        w = exported[1].astype(float)
        ref_e = -np.where(w > 0, w * np.log(np.where(w > 0, w, 1)), 0).sum(-1).T
        check(np.abs(e - ref_e).max() <= 1e-12, "entropy of the given patterns (max diff %g)" % np.abs(e - ref_e).max())
        check(e[pre + L:].max() < 0.1, "every head of layer 2 is sharp on the repeated run (largest entropy %.3f)"
              % e[pre + L:].max())

finish("check_trained_model")
