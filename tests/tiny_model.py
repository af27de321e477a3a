"""tiny_model.py: a small GPT-2 folder for the tests that open one (numpy only).

Usage: tiny_model.py DIR [LAYERS]

Writes DIR/config.json, DIR/model.safetensors (GPT-2's names, F32, seeded:
16 wide, 2 heads, 64 positions), DIR/vocab.json (the 256 byte symbols, a
few merged words and <|endoftext|>) and DIR/merges.txt, as the Hugging Face
hub serves a GPT-2 folder, at a size that computes in milliseconds.
"""
import json
import os
import struct
import sys

import numpy as np


def byte_chars():
    """GPT-2's printable character for each byte."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAD)) + list(range(0xAE, 0x100))
    out, extra = [], 0
    for b in range(256):
        if b in keep:
            out.append(chr(b))
        else:
            out.append(chr(256 + extra))
            extra += 1
    return out


MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("a", "t"), ("Ġ", "c"), ("Ġc", "at"), ("Ġ", "s"), ("Ġs", "at"),
          ("o", "n"), ("Ġ", "on"), ("Ġ", "m"), ("Ġm", "at"), ("Ġ", "d"), ("o", "g"), ("Ġd", "og"), ("T", "he")]


def write(d, layers=2, width=16, heads=2, positions=64, seed=5):
    os.makedirs(d, exist_ok=True)
    words = byte_chars() + [a + b for a, b in MERGES] + ["<|endoftext|>"]
    V = len(words)
    rng = np.random.default_rng(seed)
    shapes = {"wte.weight": (V, width), "wpe.weight": (positions, width)}
    for i in range(layers):
        p = "h.%d." % i
        shapes.update({p + "ln_1.weight": (width,), p + "ln_1.bias": (width,),
                       p + "attn.c_attn.weight": (width, 3 * width), p + "attn.c_attn.bias": (3 * width,),
                       p + "attn.c_proj.weight": (width, width), p + "attn.c_proj.bias": (width,),
                       p + "ln_2.weight": (width,), p + "ln_2.bias": (width,),
                       p + "mlp.c_fc.weight": (width, 4 * width), p + "mlp.c_fc.bias": (4 * width,),
                       p + "mlp.c_proj.weight": (4 * width, width), p + "mlp.c_proj.bias": (width,)})
    shapes.update({"ln_f.weight": (width,), "ln_f.bias": (width,)})
    header, blobs, at = {}, [], 0
    for name, shape in shapes.items():
        a = (1 + 0.1 * rng.standard_normal(shape)) if name.endswith("ln_1.weight") or name.endswith(
            "ln_2.weight") or name == "ln_f.weight" else 0.3 * rng.standard_normal(shape)
        b = a.astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(shape), "data_offsets": [at, at + len(b)]}
        blobs.append(b)
        at += len(b)
    h = json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    with open(os.path.join(d, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + b"".join(blobs))
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump({"model_type": "gpt2", "n_layer": layers, "n_head": heads, "n_embd": width, "vocab_size": V,
                   "n_positions": positions}, f)
    with open(os.path.join(d, "vocab.json"), "w") as f:
        json.dump({w: i for i, w in enumerate(words)}, f, ensure_ascii=False)
    with open(os.path.join(d, "merges.txt"), "w") as f:
        f.write("#version: 0.2\n" + "".join("%s %s\n" % m for m in MERGES))


if __name__ == "__main__":
    write(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 2)
