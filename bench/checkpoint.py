"""checkpoint.py: a GPT-2-small folder opened from its checkpoint, in the benchmark.

Usage: checkpoint.py ATTNLAB BENCH_SENTENCE [--quick] [--keep DIR]

Writes a folder with GPT-2 small's shapes and names (config.json,
model.safetensors of 124 million seeded float32 numbers, 548 MB; vocab.json
of 50,257 words and merges.txt of 50,000 merges made up from the bytes'
symbols, so that the tokenizer's tables have the real sizes), then times
what a teacher waits for:

  checkpoint_open_64_ms     the lesson `attnlab --model DIR` makes of a
                            64-token sentence, opened through libattnlab:
                            the file mapped, the text cut, all twelve layers
                            and the next token over 50,257 words computed,
                            the first slide drawn (target 1.5 s)
  checkpoint_sentence_16_ms a 16-token sentence typed into the window
                            while the 64-token lesson is open, from Enter to
                            its frame drawn (bench/sentence.c: the window's
                            own calls, offscreen; the folder shared, the
                            lesson made again; target 200 ms)
  checkpoint_sentence_16_lib_ms
                            the same sentence's lesson opened and its first
                            slide drawn to a PNG through libattnlab, the
                            lesson before open (new caches every time)
  checkpoint_rss_ratio      the peak memory of `attnlab --model DIR --check`
                            at 64 tokens over the file's size (target 1.3:
                            the weights mapped, not copied)

Each figure is the median of its runs; torch's own forward pass of the same
model over the same 64 tokens is timed in the same run for scale.
"""

import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from tiny_model import byte_chars                   # noqa: E402


def write_folder(d, seed=124):
    """GPT-2 small's folder, seeded."""
    rng = np.random.default_rng(seed)
    L, D, H, V, P = 12, 768, 12, 50257, 1024
    tensors = {"wte.weight": (V, D), "wpe.weight": (P, D)}
    for i in range(L):
        p = "h.%d." % i
        tensors.update({p + "ln_1.weight": (D,), p + "ln_1.bias": (D,), p + "attn.c_attn.weight": (D, 3 * D),
                        p + "attn.c_attn.bias": (3 * D,), p + "attn.c_proj.weight": (D, D),
                        p + "attn.c_proj.bias": (D,), p + "ln_2.weight": (D,), p + "ln_2.bias": (D,),
                        p + "mlp.c_fc.weight": (D, 4 * D), p + "mlp.c_fc.bias": (4 * D,),
                        p + "mlp.c_proj.weight": (4 * D, D), p + "mlp.c_proj.bias": (D,)})
    tensors.update({"ln_f.weight": (D,), "ln_f.bias": (D,)})
    header, at = {}, 0
    for name, shape in tensors.items():
        n = int(np.prod(shape)) * 4
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [at, at + n]}
        at += n
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(os.path.join(d, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h)
        for name, shape in tensors.items():
            if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or name == "ln_f.weight":
                a = 1 + 0.1 * rng.standard_normal(shape, dtype=np.float32)
            else:
                a = 0.02 * rng.standard_normal(shape, dtype=np.float32)
            f.write(a.astype("<f4").tobytes())
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump({"model_type": "gpt2", "n_layer": L, "n_head": H, "n_embd": D, "vocab_size": V,
                   "n_positions": P, "layer_norm_epsilon": 1e-5, "activation_function": "gelu_new"}, f)
    words = byte_chars()
    seen = set(words)
    merges = []
    letters = [c for c in words if c.isalpha()]
    while len(merges) < 50000:
        a = letters[rng.integers(len(letters))] if rng.random() < 0.5 else words[rng.integers(len(words))]
        b = letters[rng.integers(len(letters))]
        if a + b in seen:
            continue
        seen.add(a + b)
        words.append(a + b)
        merges.append((a, b))
    words.append("<|endoftext|>")
    with open(os.path.join(d, "vocab.json"), "w") as f:
        json.dump({w: i for i, w in enumerate(words)}, f, ensure_ascii=False)
    with open(os.path.join(d, "merges.txt"), "w") as f:
        f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in merges))
    return os.path.getsize(os.path.join(d, "model.safetensors"))


def sentence(tokens):
    """A sentence of about that many GPT-2 tokens (one a word, each unmerged
    letter one more: the made-up merges seldom apply)."""
    words = ("the cat sat on a mat and it was warm so the dog came in too while the rain fell outside all day "
             "long").split()
    return " ".join(words[i % len(words)] for i in range(tokens))


def peak_rss(cmd):
    """The peak resident memory of cmd alone, in bytes (the children's
    figure would be the largest of every run so far, the longer sentences
    words_for tried among them)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        sys.exit("checkpoint.py: %s failed" % " ".join(cmd[:3]))
    return usage.ru_maxrss * 1024


def median_ms(fn, runs):
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(1000 * (time.perf_counter() - t))
    return statistics.median(out)


def main():
    args = sys.argv[1:]
    quick = "--quick" in args
    keep = args[args.index("--keep") + 1] if "--keep" in args else None
    attnlab, bench_sentence = [a for a in args if not a.startswith("--") and a != keep][:2]
    d = keep or tempfile.mkdtemp(prefix="attnlab-gpt2-")
    os.makedirs(d, exist_ok=True)
    size = os.path.getsize(os.path.join(d, "model.safetensors")) if keep and \
        os.path.exists(os.path.join(d, "model.safetensors")) else write_folder(d)
    runs = 1 if quick else 3

    def count(text):
        out = subprocess.run([attnlab, "--model", d, "--dump", "--stage", "1", text], check=True,
                             capture_output=True, text=True).stdout
        return len(json.loads(out)["stages"][0]["matrices"][0]["row_labels"])

    def words_for(tokens):
        """The longest sentence() that is at most tokens long."""
        n = 1
        while count(sentence(n + 1)) <= tokens:
            n += 1
        return n

    text64 = sentence(words_for(64))
    text16 = sentence(words_for(16))
    rss = peak_rss([attnlab, "--model", d, "--check", text64])
    from attnlab import _library
    if not _library.available():
        sys.exit("checkpoint.py: no libattnlab (set ATTNLAB_LIB)")

    def first_slide(text, keep=False):
        """The lesson --model makes, opened (every layer computed) and its first page drawn."""
        esc = text.replace("\\", "\\\\").replace('"', '\\"')
        h = _library.Handle('title: t\n\n[setup]\nmodel: "%s"\ntext: "%s"\n' % (d, esc), {})
        h.render(1, 1, 1280, 720, 1, False, False, None)
        if keep:
            return h
        h.close()
        return None
    print("checkpoint_open_64_ms %.0f   (%d tokens; target 1500)" % (median_ms(lambda: first_slide(text64), runs),
                                                                    count(text64)))
    out = subprocess.run([bench_sentence, d, text64, text16, str(3 if quick else 9)], check=True,
                         capture_output=True, text=True).stdout.split()
    print("checkpoint_sentence_16_ms %.0f   (%s tokens typed into the window, Enter to its frame; least %.0f; "
          "target 200)" % (float(out[0]), out[2], float(out[1])))
    # the library's way: the lesson of the sentence before lives on while the new one is made
    before = first_slide(text64, keep=True)
    print("checkpoint_sentence_16_lib_ms %.0f   (%d tokens, through libattnlab to a PNG, the lesson before open)"
          % (median_ms(lambda: first_slide(text16), runs), count(text16)))
    before.close()
    print("checkpoint_rss_ratio %.2f   (attnlab --check at 64 tokens: peak %.0f MB, the file %.0f MB; target 1.3)"
          % (rss / size, rss / 2**20, size / 2**20))
    try:
        import torch
        torch.set_num_threads(os.cpu_count() or 1)
        import hf_gpt2 as hg
        model = hg.GPT2LMHeadModel(hg.config()).eval()
        ids = torch.arange(count(text64))
        with torch.no_grad():
            print("checkpoint_torch_forward_64_ms %.0f   (torch's own forward pass, the same shapes)"
                  % median_ms(lambda: model(ids), runs))
    except ImportError:
        pass


if __name__ == "__main__":
    main()
