"""check_checkpoint.py: model folders opened by a lesson's `model:` setup,
against the published tokenizers and torch.

The test builds two folders as the Hugging Face hub serves them:

- GPT-2: config.json, model.safetensors (GPT2LMHeadModel's names, F32 and
  again in F16 and BF16), vocab.json and merges.txt of a byte-level BPE
  learned here on the corpus below (a few hundred tokens);
- BERT: config.json, model.safetensors (BertModel's names, with the older
  gamma/beta for two of its layer norms), vocab.txt of a few hundred pieces
  (some characters left out, so that some words are [UNK]).

Tokens: every sentence of a corpus in several scripts is cut by the
library (through its lesson, as a student's text is) and by this file's
own writing of the published algorithms (GPT-2's pattern with the regex
module and its merge loop; BERT's basic cleaning, lowering, accent removal,
punctuation and Chinese splits, and its greedy WordPiece); the tokens must
be the same, in order.

Numbers: the same weights run through tests/hf_gpt2.py and tests/hf_bert.py
(Hugging Face's module layout) in float32; every layer's every head's
weights, every layer's output and GPT-2's next-token probabilities must
agree within 1e-5 (outputs 1e-4). F16 and BF16 files hold the same model
rounded; the library reads their numbers exactly, so torch runs on the same
rounded weights and the same bounds hold. The bundled lesson
(lessons/models/gpt2-reads.lesson) opens with a small stand-in for GPT-2
among the user's models, and bad folders get their exact messages.
"""

import json
import os
import struct
import subprocess
import sys
import tempfile
import unicodedata
from collections import Counter

import numpy as np
import regex
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, HERE)
import hf_bert as hb                            # noqa: E402
import hf_gpt2 as hg                            # noqa: E402
import tiny_model                               # noqa: E402
from attnlab import _library                    # noqa: E402
from tcheck import check, finish, worst         # noqa: E402

CORPUS = [
    "The cat sat on the mat because it was warm.",
    "It's 2026 and we've   got 3,141 reasons!",
    "  leading spaces\nand a newline\n\n",
    "Ünïcödé café naïve résumé ÀÉÎÕÜ",
    "Ελληνικά: ΟΔΟΣ και ΣΟΦΟΣ.",
    "Привет, мир! Как дела?",
    "مرحبا بالعالم، كيف حالك؟",
    "日本語のテキストと漢字。",
    "中文句子，还有标点。",
    "हिन्दी वाक्य में मात्राएँ",
    "emoji 🙂👍🏽 and tabs\tend",
    "don't won't I'm you'll they'd 'tis",
    "İstanbul ŞEHİR ﬁne Ǆ",
    "x" * 120 + " long words",
    "numbers 12345 ٣٤٥ ²³ ½",
    "한국어 문장입니다",
    "a\u00a0non-breaking\u2003em space\u200bzero width",
    "control\x01char\x7f and \ufffd replacement",
]
TRAIN = CORPUS + ["the cat and the dog sat on the mat", "attention is all you need, they said"] * 3

GPT2_PATTERN = regex.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+""")


B2C = dict(enumerate(tiny_model.byte_chars()))


def pieces(text):
    """GPT-2's pre-tokens of text, as byte characters."""
    return ["".join(B2C[b] for b in p.encode("utf-8")) for p in GPT2_PATTERN.findall(text)]


def merge(word, pair):
    """word (a tuple of symbols) with every pair, left to right, made one symbol."""
    out, i = [], 0
    while i < len(word):
        if i + 1 < len(word) and (word[i], word[i + 1]) == pair:
            out.append(word[i] + word[i + 1])
            i += 2
        else:
            out.append(word[i])
            i += 1
    return tuple(out)


def learn_bpe(texts, merges_wanted):
    """A byte-level BPE learned on texts: the merges in rank order."""
    words = Counter(tuple(p) for t in texts for p in pieces(t))
    merges = []
    for _ in range(merges_wanted):
        pairs = Counter()
        for w, c in words.items():
            for a, b in zip(w, w[1:]):
                pairs[a, b] += c
        if not pairs:
            break
        best = max(pairs, key=lambda p: (pairs[p], p))
        merges.append(best)
        merged = Counter()
        for w, c in words.items():
            merged[merge(w, best)] += c
        words = merged
    return merges


def bpe(piece, ranks):
    """GPT-2's merge loop: the lowest ranked pair merged everywhere, until none is ranked."""
    word = tuple(piece)
    while len(word) > 1:
        best = min(zip(word, word[1:]), key=lambda p: ranks.get(p, float("inf")))
        if best not in ranks:
            break
        word = merge(word, best)
    return list(word)


def gpt2_tokens(text, ranks):
    """GPT-2's tokens of text."""
    return [t for p in pieces(text) for t in bpe(p, ranks)]


def is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF or 0x2A700 <= cp <= 0x2B73F
            or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF or 0xF900 <= cp <= 0xFAFF
            or 0x2F800 <= cp <= 0x2FA1F)


def is_punct(ch):
    cp = ord(ch)
    return 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126 or \
        unicodedata.category(ch).startswith("P")


def bert_words(text, lower=True):
    """BERT's basic tokenizer: the words before WordPiece."""
    clean = []
    for ch in text:
        cp = ord(ch)
        if ch in " \t\n\r" or unicodedata.category(ch) == "Zs":
            clean.append(" ")
        elif cp == 0 or cp == 0xFFFD or unicodedata.category(ch).startswith("C"):
            continue
        elif is_cjk(cp):
            clean.append(" %s " % ch)
        else:
            clean.append(ch)
    out = []
    for w in "".join(clean).split():
        if lower:
            w = "".join(c for c in unicodedata.normalize("NFD", w.lower()) if unicodedata.category(c) != "Mn")
        cur = ""
        for ch in w:
            if is_punct(ch):
                if cur:
                    out.append(cur)
                out.append(ch)
                cur = ""
            else:
                cur += ch
        if cur:
            out.append(cur)
    return out


def wordpiece(word, vocab):
    """The longest pieces first, or [UNK]."""
    if len(word) > 100:
        return ["[UNK]"]
    out, start = [], 0
    while start < len(word):
        end = len(word)
        while end > start:
            p = ("##" if start else "") + word[start:end]
            if p in vocab:
                break
            end -= 1
        if end == start:
            return ["[UNK]"]
        out.append(p)
        start = end
    return out


def bert_tokens(text, vocab):
    return ["[CLS]"] + [p for w in bert_words(text) for p in wordpiece(w, vocab)] + ["[SEP]"]


def write_safetensors(path, tensors, dtype="F32"):
    """tensors (name → torch tensor) as a .safetensors file of dtype."""
    header, blobs, at = {}, [], 0
    for name, t in tensors.items():
        t = t.detach().contiguous()
        if dtype == "F32":
            b = t.float().numpy().astype("<f4").tobytes()
        elif dtype == "F16":
            b = t.half().numpy().astype("<f2").tobytes()
        else:
            b = (t.float().numpy().astype("<f4").view("<u4") >> 16).astype("<u2").tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))


def rounded(module, dtype):
    """module's parameters rounded as a file of dtype stores them."""
    with torch.no_grad():
        for p in module.parameters():
            if dtype == "F16":
                p.copy_(p.half().float())
            elif dtype == "BF16":
                p.copy_(torch.from_numpy((p.numpy().view("<u4") >> 16 << 16).view("<f4")))
    return module


def lesson(folder, text, layers=None, stages=""):
    """A lesson reading text with the model in folder."""
    esc = text.replace("\\", "\\\\").replace('"', '\\"')
    esc = "".join("\\x%02X" % ord(c) if ord(c) < 0x20 or ord(c) == 0x7F else c for c in esc)
    return ('title: t\n\n[setup: Reading]\nmodel: "%s"\ntext: "%s"\n%s%s' %
            (folder, esc, "layers: %s\n" % layers if layers else "", stages))


def opened(folder, text, layers="1", stages="\n[multi_head]\n"):
    return _library.Handle(lesson(folder, text, layers, stages), {})


def tokens_of(h):
    """The tokens the first stage's rows are labelled with."""
    d = json.loads(h.dump(1))
    return d["stages"][0]["matrices"][0]["row_labels"]


def refused(folder, text, layers="1"):
    try:
        opened(folder, text, layers).close()
    except _library.Failed as e:
        return str(e)
    return None


tmp = os.environ.get("CKPT_DIR") or tempfile.mkdtemp(prefix="attnlab-ckpt-")
os.makedirs(tmp, exist_ok=True)

# ---------------------------------------------------------------- GPT-2
merges = learn_bpe(TRAIN, 300)
ranks = {m: i for i, m in enumerate(merges)}
words = [B2C[b] for b in range(256)]
for a, b in merges:
    if a + b not in words:
        words.append(a + b)
words.append("<|endoftext|>")
gdir = os.path.join(tmp, "gpt2")
os.makedirs(gdir, exist_ok=True)
with open(os.path.join(gdir, "vocab.json"), "w") as f:
    json.dump({w: i for i, w in enumerate(words)}, f, ensure_ascii=False)
with open(os.path.join(gdir, "merges.txt"), "w") as f:
    f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in merges))
gc = hg.config(n_embd=32, n_head=4, n_layer=3, vocab_size=len(words), n_positions=64)
with open(os.path.join(gdir, "config.json"), "w") as f:
    json.dump({"model_type": "gpt2", "n_embd": 32, "n_head": 4, "n_layer": 3, "vocab_size": len(words),
               "n_positions": 64, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}, f)
torch.manual_seed(40)
gpt2 = hg.GPT2LMHeadModel(gc).eval()
sd = {k: v for k, v in gpt2.state_dict().items() if not k.startswith("lm_head")}
write_safetensors(os.path.join(gdir, "model.safetensors"), sd)

vocab_index = {w: i for i, w in enumerate(words)}


def same_tokens(name, folder, reference):
    """Every sentence of the corpus (of at most 64 tokens) cut by the library
    as reference cuts it."""
    for s in CORPUS:
        want = reference(s)
        if len(want) > 64:
            continue
        h = opened(folder, s)
        got = tokens_of(h)
        h.close()
        check(got == want, "%s tokens of %r: %s (the published algorithm: %s)" % (name, s[:40], got[:12], want[:12]))


same_tokens("GPT-2", gdir, lambda s: gpt2_tokens(s, ranks))

# ---------------------------------------------------------------- BERT
bert_vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
seen = Counter(w for s in TRAIN for w in bert_words(s))
chars = sorted({c for w in seen for c in w if ord(c) < 0x900 or is_cjk(ord(c))})   # no Hindi, Hangul or emoji
for c in chars:
    bert_vocab += [c, "##" + c]
for w, _ in seen.most_common(60):
    if len(w) > 2 and w not in bert_vocab:
        bert_vocab += [w, "##" + w[1:]]
bert_vocab += ["##ing", "##s", "##ed", "un", "##able"]
bert_vocab = list(dict.fromkeys(bert_vocab))
bdir = os.path.join(tmp, "bert")
os.makedirs(bdir, exist_ok=True)
with open(os.path.join(bdir, "vocab.txt"), "w") as f:
    f.write("".join(w + "\n" for w in bert_vocab))
bc = hb.config(hidden=32, heads=4, intermediate=64, layers=2, vocab=len(bert_vocab), positions=64)
with open(os.path.join(bdir, "config.json"), "w") as f:
    json.dump({"model_type": "bert", "hidden_size": 32, "num_attention_heads": 4, "num_hidden_layers": 2,
               "intermediate_size": 64, "vocab_size": len(bert_vocab), "max_position_embeddings": 64,
               "type_vocab_size": 2, "layer_norm_eps": 1e-12, "hidden_act": "gelu"}, f)
bert = hb.seeded(hb.BertModel(bc), 41)
bsd = dict(bert.state_dict())
for k in list(bsd):                             # the older names of two layer norms
    if k.startswith("encoder.layer.1.output.LayerNorm."):
        bsd[k.replace(".weight", ".gamma").replace(".bias", ".beta")] = bsd.pop(k)
write_safetensors(os.path.join(bdir, "model.safetensors"), {"bert." + k: v for k, v in bsd.items()})
bset = set(bert_vocab)
same_tokens("BERT", bdir, lambda s: bert_tokens(s, bset))


# ---------------------------------------------------------------- numbers
def layer_matrices(h, nlayers):
    """Each layer's heads' weights (from its multi_head stage) and output (its mlp stage)."""
    w, out = {}, {}
    for k in range(1, h.stages() + 1):
        s = h.stage_setup(k)
        d = json.loads(h.dump(k))["stages"][0]
        names = [m["name"] for m in d["matrices"]]
        if "head1.weights" in names and s not in w:
            heads, i = [], 1
            while "head%d.weights" % i in names:
                heads.append(h.matrix(k, "head%d.weights" % i))
                i += 1
            w[s] = np.stack(heads)
        if "resid_post" in names:
            out[s] = h.matrix(k, "resid_post")
    return w, out


SENTENCE = "The cat sat on the mat because it was warm, and the dog sat too."
for dtype, tol in (("F32", 1e-5), ("F16", 1e-5), ("BF16", 1e-5)):
    model = gpt2
    folder = gdir
    if dtype != "F32":
        folder = os.path.join(tmp, "gpt2-" + dtype)
        os.makedirs(folder, exist_ok=True)
        for name in ("vocab.json", "merges.txt", "config.json"):
            with open(os.path.join(gdir, name)) as a, open(os.path.join(folder, name), "w") as b:
                b.write(a.read())
        write_safetensors(os.path.join(folder, "model.safetensors"), sd, dtype)
        model = rounded(hg.GPT2LMHeadModel(gc), dtype).eval()
        model.load_state_dict(gpt2.state_dict())
        rounded(model, dtype)
    ids = torch.tensor([vocab_index[t] for t in gpt2_tokens(SENTENCE, ranks)])
    with torch.no_grad():
        logits = model(ids)
        probs = torch.softmax(logits, dim=-1).numpy()
    h = opened(folder, SENTENCE, None, "")
    w, out = layer_matrices(h, 3)
    check(sorted(w) == [1, 2, 3] and sorted(out) == [1, 2, 3], "GPT-2 %s: every layer's heads and output are shown" % dtype)
    we = max(worst(w[i + 1], b.attn.weights) for i, b in enumerate(model.transformer.h))
    oe = max(worst(out[i + 1], b.out) for i, b in enumerate(model.transformer.h))
    nt = [k for k in range(1, h.stages() + 1) if json.loads(h.dump(k))["stages"][0]["id"] == "next_token"]
    d = json.loads(h.dump(nt[0]))
    st = d["stages"][0]
    m = [m for m in st["matrices"] if m["name"].startswith("top_probs.")][0]
    cols = [vocab_index[c] for c in m["col_labels"]]
    got = h.matrix(nt[0], m["name"])
    pe = worst(got, probs[:, cols])
    check(we <= tol and oe <= tol * 10 and pe <= tol,
          "GPT-2 %s, %d tokens: heads' weights %.2g, layers' outputs %.2g, next-token probabilities %.2g (≤ %g)"
          % (dtype, len(ids), we, oe, pe, tol))
    print("checkpoint: GPT-2 %s, %d tokens: weights %.1g, outputs %.1g, probabilities %.1g" % (dtype, len(ids), we, oe, pe))
    h.close()

# a head switched off (ablate: 2.3): its output replaced by 0 before c_proj, as a hook does it in torch
ids = torch.tensor([vocab_index[t] for t in gpt2_tokens(SENTENCE, ranks)])
hd = 32 // 4


def zero_head(module, inputs):
    x = inputs[0].clone()
    x[:, 2 * hd:3 * hd] = 0
    return (x,)


hook = gpt2.transformer.h[1].attn.c_proj.register_forward_pre_hook(zero_head)
with torch.no_grad():
    probs = torch.softmax(gpt2(ids), dim=-1).numpy()
hook.remove()
h = opened(gdir, SENTENCE, None, "ablate: 2.3\n")
w, out = layer_matrices(h, 3)
oe = max(worst(out[i + 1], b.out) for i, b in enumerate(gpt2.transformer.h))
nt = [k for k in range(1, h.stages() + 1) if json.loads(h.dump(k))["stages"][0]["id"] == "next_token"][0]
m = [m for m in json.loads(h.dump(nt))["stages"][0]["matrices"] if m["name"].startswith("top_probs.")][0]
pe = worst(h.matrix(nt, m["name"]), probs[:, [vocab_index[c] for c in m["col_labels"]]])
check(oe <= 1e-4 and pe <= 1e-5, "GPT-2 with head 3 of layer 2 off: layers' outputs %.2g, next-token probabilities %.2g, "
      "against torch with the head's output zeroed" % (oe, pe))
h.close()

# the same model twice in one lesson, the second with that head off, and a compare stage: the next token's
# probabilities side by side (A the first model's last layer, by default) and B - A, against torch with and without the hook
with torch.no_grad():
    intact = torch.softmax(gpt2(ids), dim=-1).numpy()
two = (lesson(gdir, SENTENCE, None, "") + '\n[setup: Off]\nmodel: "%s"\ntext: "%s"\nablate: 2.3\n\n'
       '[compare: Without head 2.3]\nshow: next_token\n\n[compare: Layer 3]\nshow: weights\nhead: 1\n' % (gdir, SENTENCE))
h = _library.Handle(two, {})
stages = [json.loads(h.dump(k))["stages"][0] for k in range(1, h.stages() + 1)]
cmp = {st["title"]: st for st in stages if st["id"] == "compare"}
check(sorted(cmp) == ["Layer 3, layer 1", "Layer 3, layer 2", "Layer 3, layer 3", "Without head 2.3"],
      "compare stages: the next token's once, the weights' for each layer: %s" % sorted(cmp))
kc = 1 + [st["title"] for st in stages].index("Without head 2.3")
kn = 1 + [st["id"] for st in stages].index("next_token")         # the first model's, in setup 3
a, b, _ = cmp["Without head 2.3"]["matrices"]
cols = [vocab_index[c] for c in a["col_labels"]]
ae = worst(h.matrix(kn, "probs"), intact[:, cols])
be = worst(h.matrix(kc, "probs"), probs[:, cols])
path = os.path.join(tmp, "two.lesson")
with open(path, "w") as f:
    f.write(two)
dumped = subprocess.run([os.environ.get("ATTNLAB", "build/attnlab"), "--dump", "--stage", str(kc), path], check=True,
                        capture_output=True, text=True).stdout
diff = [m for m in json.loads(dumped)["stages"][0]["matrices"] if m["name"] == "probs.diff"][0]
de = worst(np.array(diff["data"]), (probs - intact)[:, cols])
check(a.get("setup") == 3 and b.get("setup") is None and ae <= 1e-5 and be <= 1e-5 and de <= 1e-5,
      "compare of two GPT-2s, head 2.3 off in B: A (setup %s) %.2g, B %.2g, B - A %.2g against torch" %
      (a.get("setup"), ae, be, de))
st = cmp["Layer 3, layer 2"]
check(st["matrices"][0].get("setup") == 2, "layer 2's compare reads the first model's layer 2 as A: setup %s"
      % st["matrices"][0].get("setup"))
h.close()

bids = torch.tensor([[bert_vocab.index(t) for t in bert_tokens(SENTENCE, bset)]])
with torch.no_grad():
    bert(bids)
h = opened(bdir, SENTENCE, None, "")
w, out = layer_matrices(h, 2)
layers = bert.encoder.layer
we = max(worst(w[i + 1], layers[i].attention.self.probs[0]) for i in range(2))
oe = max(worst(out[i + 1], layers[i].out[0]) for i in range(2))
check(we <= 1e-5 and oe <= 1e-4, "BERT, %d tokens: heads' weights %.2g, layers' outputs %.2g" % (bids.shape[1], we, oe))
print("checkpoint: BERT, %d tokens: weights %.1g, outputs %.1g" % (bids.shape[1], we, oe))
h.close()

# ---------------------------------------------------------------- the bundled lesson
# lessons/models/gpt2-reads.lesson names "gpt2", found among the user's
# models: a GPT-2-shaped folder of twelve small layers of twelve heads stands in for it.
os.environ["XDG_DATA_HOME"] = os.path.join(tmp, "data")
tiny_model.write(os.path.join(tmp, "data", "attnlab", "models", "gpt2"), 12, width=24, heads=12)
with open(os.path.join(HERE, "..", "lessons", "models", "gpt2-reads.lesson")) as f:
    h = _library.Handle(f.read(), {})
titles = [json.loads(h.dump(k))["stages"][0]["title"] for k in range(1, h.stages() + 1)]
want = ["What the heads look at, layer %d" % n for n in (1, 5, 9, 12)]
check([t for t in titles if t.startswith("What the heads")] == want,
      "the bundled lesson: its heads' stage for layers 1, 5, 9 and 12: %s" % titles)
check(titles[-3:] == ["Every head of every layer", "The word it guesses", "The word it guesses without them"],
      "the bundled lesson ends with the model view, the next token, and the next token of the model without three "
      "heads: %s" % titles[-3:])
png = h.render(len(titles), 1, 1280, 720, 1, False, False, None)
check(png[:8] == b"\x89PNG\r\n\x1a\n", "the bundled lesson's next token drawn")
h.close()

# ---------------------------------------------------------------- refusals
long_text = " ".join(["cat"] * 70)
msg = refused(gdir, long_text)
check(msg is not None and "over the model's limit of 64" in msg, "a text longer than the positions: %s" % msg)
msg = refused(os.path.join(tmp, "nowhere"), "a")
check(msg is not None and "nowhere/config.json" in msg, "a missing folder names its config.json: %s" % msg)
msg = refused(gdir, "a", "4")
check(msg is not None and "expected layer numbers from 1 to 3" in msg, "a layer past the model's: %s" % msg)
bad = os.path.join(tmp, "gpt2-bad")
os.makedirs(bad, exist_ok=True)
for name in ("vocab.json", "config.json"):
    with open(os.path.join(gdir, name)) as a, open(os.path.join(bad, name), "w") as b:
        b.write(a.read())
with open(os.path.join(bad, "merges.txt"), "w") as f:
    f.write("#version: 0.2\nĠ t\nbroken\n")
sd_bad = dict(sd)
sd_bad["transformer.h.1.attn.c_proj.weight"] = sd["transformer.h.1.attn.c_proj.weight"][:, :30]
write_safetensors(os.path.join(bad, "model.safetensors"), sd_bad)
msg = refused(bad, "a")
check(msg is not None and "h.1.attn.c_proj.weight: shape [32, 30], but config.json says [32, 32]" in msg,
      "a tensor of the wrong shape: %s" % msg)
write_safetensors(os.path.join(bad, "model.safetensors"), sd)
msg = refused(bad, "a")
check(msg is not None and "merges.txt:3:1: error: a merge is two tokens with one space between them" in msg,
      "a broken merges.txt: %s" % msg)
finish("checkpoint")
