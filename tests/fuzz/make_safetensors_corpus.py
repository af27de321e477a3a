#!/usr/bin/python3
"""make_safetensors_corpus.py DIR: seed inputs for fuzz_safetensors, written
into DIR (created if missing): small checkpoints of every dtype, shapes of
0 to 3 dimensions, a __metadata__, headers padded with spaces as writers pad
them, and a GPT-2-like layout of names. Written by hand from the format (an
8-byte little-endian length, the JSON header, the data), as no safetensors
package is at hand. Inputs the fuzzer found earlier stay in DIR."""
import json
import os
import struct
import sys

import numpy as np

DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
          "U8": "u1", "BOOL": "?"}


def checkpoint(tensors, metadata=None, pad=True):
    """The bytes of a checkpoint of tensors {name: (dtype, array or raw bytes, shape)}."""
    header, blobs, at = {}, [], 0
    if metadata is not None:
        header["__metadata__"] = metadata
    for name, (dtype, raw, shape) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [at, at + len(raw)]}
        blobs.append(raw)
        at += len(raw)
    text = json.dumps(header).encode()
    if pad:
        text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


out = sys.argv[1]
os.makedirs(out, exist_ok=True)
rng = np.random.default_rng(1)
seeds = {}
for k, (name, dt) in enumerate(DTYPES.items()):
    for shape in [(), (3,), (2, 3), (2, 1, 2)]:
        a = rng.normal(0, 3, shape).astype(dt) if name[0] == "F" else rng.integers(0, 2, shape).astype(dt)
        seeds["%s-%d" % (name, len(shape))] = checkpoint({"w": (name, a.tobytes(), shape)})
bf16 = (np.array([1.0, -2.5, 3.140625], "<f4").view("<u4") >> 16).astype("<u2").tobytes()
seeds["bf16"] = checkpoint({"w": ("BF16", bf16, (3,))}, {"format": "pt"})
seeds["empty"] = checkpoint({"e": ("F32", b"", (0, 4)), "s": ("F32", np.float32(1).tobytes(), ())}, pad=False)
block = {}
for i in range(2):
    for part, shape in [("ln_1.weight", (8,)), ("attn.c_attn.weight", (8, 24)), ("attn.c_attn.bias", (24,)),
                        ("mlp.c_fc.weight", (8, 32))]:
        block["h.%d.%s" % (i, part)] = ("F32", rng.normal(0, 1, shape).astype("<f4").tobytes(), shape)
seeds["gpt2-like"] = checkpoint(block, {"format": "pt"})
for name, data in seeds.items():
    with open(os.path.join(out, "seed-" + name), "wb") as f:
        f.write(data)
print("make_safetensors_corpus: %d seeds in %s" % (len(seeds), out))
