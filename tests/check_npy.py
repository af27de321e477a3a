#!/usr/bin/python3
"""check_npy.py: NumPy files in lessons, end to end.

Run: check_npy.py ATTNLAB_BINARY       (from the repository root; `make test` does)

1. Round trips: arrays of every supported dtype (float16/32/64, int8..64,
   uint8..64, bool), both byte orders, C and Fortran order, format versions
   1.0, 2.0 and 3.0, 1-D to 4-D with selectors, in .npy files and in stored
   and deflated .npz archives, are written by numpy, loaded by a lesson, and
   `attnlab --dump` must hold exactly numpy's values (as float64).
2. Broken files, each written here: `attnlab --check` must exit 2 with exactly
   the expected one-line error.
Prints one line per failure and 'check_npy: N passed, N failed'.
"""
import io
import json
import os
import struct
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
from tcheck import check, finish, inline_shared

binary = os.path.abspath(sys.argv[1])
tmp = tempfile.mkdtemp(prefix="check_npy.")


def lesson(body, tokens):
    """Write t.lesson with a setup of the given tokens and body lines; its path."""
    path = os.path.join(tmp, "t.lesson")
    with open(path, "w") as f:
        f.write("title: NumPy files\n[setup]\ntokens: %s\n%s\n[embeddings]\n" % (" ".join(tokens), body))
    return "t.lesson"


def run(args):
    return subprocess.run([binary] + args, capture_output=True, text=True, cwd=tmp)


def dumped_x(body, rows):
    """The matrix X of the embeddings stage, as float64, or None."""
    out = run(["--dump", lesson(body, ["t%d" % i for i in range(rows)])])
    if out.returncode != 0:
        print("   ", out.stderr.strip())
        return None
    d = inline_shared(json.loads(out.stdout))
    for m in d["stages"][0]["matrices"]:
        if m["name"] == "X":
            return np.array(m["data"], dtype=np.float64)
    return None


def save(name, arr, version=None, fortran=False):
    """Write arr as tmp/name with numpy's own writer."""
    arr = np.asfortranarray(arr) if fortran else np.ascontiguousarray(arr)
    with open(os.path.join(tmp, name), "wb") as f:
        np.lib.format.write_array(f, arr, version=version)


def values(dtype, shape, rng):
    """Values that exercise dtype: its extremes, negatives, fractions."""
    dt = np.dtype(dtype).newbyteorder("=")
    n = int(np.prod(shape))
    if dt.kind == "b":
        v = rng.integers(0, 2, n).astype(bool)
    elif dt.kind == "f":
        v = rng.normal(0, 3, n).astype(dt)
        v[0] = np.finfo(dt).max if dt.itemsize == 2 else 1e30 if dt.itemsize == 4 else 1e150  # large, yet Q·Kᵀ stays finite
        v[-1] = np.finfo(dt).tiny / 4 if dt.itemsize > 2 else np.float16(6e-8)   # subnormal
    else:
        info = np.iinfo(dt)
        v = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
        v[0], v[-1] = info.min, info.max
    return v.astype(dtype).reshape(shape)


rng = np.random.default_rng(5)
dtypes = ["f2", "f4", "f8", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "b1"]
# (shape, selector text, what the lesson's X must equal as a function of the array)
shapes = [
    ((5,), "", lambda a: a.reshape(1, -1)),
    ((3, 4), "", lambda a: a),
    ((2, 3, 4), "", lambda a: np.hstack(list(a))),           # a stack, side by side
    ((2, 3, 4), "head 2", lambda a: a[1]),
    ((3, 2, 3, 4), "layer 3", lambda a: np.hstack(list(a[2]))),
    ((3, 2, 3, 4), "layer 2 head 1", lambda a: a[1, 0]),
]
count = 0
for dt in dtypes:
    orders = ["|"] if dt[1] == "1" else ["<", ">"]
    for bo in orders:
        for shape, sel, want in shapes:
            for fortran in (False, True):
                count += 1
                a = values(bo + dt, shape, rng)
                version = [(1, 0), (2, 0), (3, 0)][count % 3]
                save("a.npy", a, version, fortran)
                x = dumped_x('X = load "a.npy" %s' % sel, want(a).shape[0])
                w = want(a).astype(np.float64)
                check(x is not None and x.shape == w.shape and np.array_equal(x, w),
                      "round trip %s%s %s %s %s v%d.%d" % (bo, dt, shape, sel, "F" if fortran else "C", *version))

# .npz: stored (np.savez) and deflated (np.savez_compressed), keys with dots
a = values("<f8", (4, 2, 3, 5), rng)
b = values(">i4", (3, 6), rng)
for saver, kind in ((np.savez, "stored"), (np.savez_compressed, "deflated")):
    saver(os.path.join(tmp, "m.npz"), W=a, **{"x.b": b})
    x = dumped_x('X = load "m.npz" W layer 4 head 2', 3)
    check(x is not None and np.array_equal(x, a[3, 1]), "npz %s: W layer 4 head 2" % kind)
    x = dumped_x('X = load "m.npz" x.b', 3)
    check(x is not None and np.array_equal(x, b.astype(np.float64)), "npz %s: key x.b" % kind)

# Keys of any length: 70 A's and 70 A's then a B are two members, each
# loaded as itself (no name is cut short), and so is a key of 1000 letters
c = values("<f8", (3, 2), rng)
long_keys = {"A" * 70: a[0, 0], "A" * 70 + "B": c, "K" * 1000: b}
np.savez(os.path.join(tmp, "long.npz"), **long_keys)
for key, arr in long_keys.items():
    x = dumped_x('X = load "long.npz" %s' % key, 3)
    check(x is not None and np.array_equal(x, arr.astype(np.float64)), "npz key of %d characters" % len(key))
out = run(["--check", lesson('X = load "long.npz" %s' % ("A" * 71), ["a", "b", "c"])])
check(out.returncode == 2 and out.stderr.endswith("the archive has no member %s.npy (np.savez names it after the keyword)\n"
                                                  % ("A" * 71)), "a key no member has is not loaded as another one")

# An archive written to a stream that cannot seek: sizes come after the data
# (zip data descriptors), as other tools than np.savez may write them.
class Stream(io.RawIOBase):
    def __init__(self):
        self.data = bytearray()

    def writable(self):
        return True

    def write(self, b):
        self.data += b
        return len(b)


stream = Stream()
with zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as z:
    with z.open("W.npy", "w") as f:
        np.lib.format.write_array(f, b)
write_to = os.path.join(tmp, "stream.npz")
with open(write_to, "wb") as f:
    f.write(bytes(stream.data))
x = dumped_x('X = load "stream.npz" W', 3)
check(x is not None and np.array_equal(x, b.astype(np.float64)), "npz with data descriptors")

# A lesson in another directory finds its files next to itself.
os.makedirs(os.path.join(tmp, "sub"), exist_ok=True)
save("sub/near.npy", np.arange(6.0).reshape(2, 3))
path = os.path.join(tmp, "sub", "near.lesson")
with open(path, "w") as f:
    f.write('title: t\n[setup]\ntokens: a b\nX = load "near.npy"\n[embeddings]\n')
out = subprocess.run([binary, "--check", path], capture_output=True, text=True)
check(out.returncode == 0, "a path relative to the lesson's directory: " + out.stderr.strip())


# ---------------------------------------------------------------- bad files

def npy_bytes(descr="<f8", fortran=False, shape=(3, 4), data=None, version=1, dict_text=None, pad=True):
    """A .npy file built by hand (so that it can lie)."""
    if dict_text is None:
        dict_text = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (descr, fortran, repr(tuple(shape)))
    h = dict_text.encode("latin1")
    pre = 10 if version == 1 else 12
    if pad:
        h += b" " * ((64 - (pre + len(h) + 1) % 64) % 64)
    h += b"\n"
    head = b"\x93NUMPY" + bytes([version, 0]) + (struct.pack("<H", len(h)) if version == 1 else struct.pack("<I", len(h)))
    if data is None:
        data = np.zeros(int(np.prod(shape)), dtype=np.dtype(descr) if descr[1] in "fiub" else "<f8").tobytes()
    return head + h + data


def write(name, content):
    with open(os.path.join(tmp, name), "wb") as f:
        f.write(content)


good = npy_bytes()
ZERO = "the header's shape and dtype '<f8' need 96 bytes of data"
cases = [
    # (file name, bytes or None, lesson line, tokens, expected error after "t.lesson:5:")
    ("magic.npy", b"\x93NUMPX\x01\x00" + good[8:], 'X = load "magic.npy"', 3,
     "10: error: magic.npy: not a NumPy .npy file: it does not start with the magic string \\x93NUMPY"),
    ("text.npy", b"1 2 3\n4 5 6\n", 'X = load "text.npy"', 3,
     "10: error: text.npy: not a NumPy .npy file: it does not start with the magic string \\x93NUMPY"),
    ("empty.npy", b"", 'X = load "empty.npy"', 3,
     "10: error: empty.npy: truncated: the file ends inside the magic string"),
    ("version.npy", good[:6] + b"\x04\x00" + good[8:], 'X = load "version.npy"', 3,
     "10: error: version.npy: unsupported .npy format version 4.0; expected 1.0, 2.0 or 3.0"),
    ("cut-header.npy", good[:40], 'X = load "cut-header.npy"', 3,
     "10: error: cut-header.npy: truncated: the header says it is 118 bytes, the file ends after 30"),
    ("cut-data.npy", good[:-46], 'X = load "cut-data.npy"', 3,
     "10: error: cut-data.npy: truncated: %s, found 50" % ZERO),
    ("lying.npy", npy_bytes(shape=(2, 2), data=bytes(96)), 'X = load "lying.npy"', 2,
     "10: error: lying.npy: the header's shape and dtype '<f8' need 32 bytes of data, but 96 follow it"),
    ("huge.npy", npy_bytes(shape=(100000, 100000), data=b""), 'X = load "huge.npy"', 3,
     "10: error: huge.npy: shape holds more than 134217728 numbers, over the limit"),
    ("huge-dim.npy", npy_bytes(shape=(99999999999999999999,), data=b""), 'X = load "huge-dim.npy"', 3,
     "10: error: huge-dim.npy: shape has a dimension over 134217728, the most numbers an array may hold"),
    ("five-d.npy", npy_bytes(shape=(1, 1, 1, 1, 1)), 'X = load "five-d.npy"', 1,
     "10: error: five-d.npy: shape has more than 4 dimensions"),
    ("complex.npy", npy_bytes(descr="<c16", data=bytes(192)), 'X = load "complex.npy"', 3,
     "10: error: complex.npy: unsupported dtype '<c16'; expected float16/32/64, int8/16/32/64, uint8/16/32/64 "
     "or bool ('<f8', '>f4', '<i8', '|u1', '|b1', ...)"),
    ("object.npy", npy_bytes(descr="|O", data=bytes(96)), 'X = load "object.npy"', 3,
     "10: error: object.npy: unsupported dtype '|O'; expected float16/32/64, int8/16/32/64, uint8/16/32/64 "
     "or bool ('<f8', '>f4', '<i8', '|u1', '|b1', ...)"),
    ("wide-pipe.npy", npy_bytes(descr="|f8"), 'X = load "wide-pipe.npy"', 3,
     "10: error: wide-pipe.npy: unsupported dtype '|f8'; expected float16/32/64, int8/16/32/64, uint8/16/32/64 "
     "or bool ('<f8', '>f4', '<i8', '|u1', '|b1', ...)"),
    ("fields.npy", npy_bytes(dict_text="{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (3,), }", data=bytes(24)),
     'X = load "fields.npy"', 1,
     "10: error: fields.npy: unsupported dtype: a structured array (a list of fields); expected one number per "
     "element (float, int, uint or bool)"),
    ("no-shape.npy", npy_bytes(dict_text="{'descr': '<f8', 'fortran_order': False, }"), 'X = load "no-shape.npy"', 3,
     "10: error: no-shape.npy: bad header: the key 'shape' is missing"),
    ("extra-key.npy", npy_bytes(dict_text="{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), 'x': 1}"),
     'X = load "extra-key.npy"', 3,
     "10: error: extra-key.npy: bad header: unknown key 'x'; expected 'descr', 'fortran_order' and 'shape'"),
    ("twice.npy", npy_bytes(dict_text="{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (3, 4)}"),
     'X = load "twice.npy"', 3, "10: error: twice.npy: bad header: key 'descr' appears twice"),
    ("order.npy", npy_bytes(dict_text="{'descr': '<f8', 'fortran_order': 0, 'shape': (3, 4)}"), 'X = load "order.npy"', 3,
     "10: error: order.npy: bad header: expected True or False for 'fortran_order', found '0'"),
    ("neg-shape.npy", npy_bytes(dict_text="{'descr': '<f8', 'fortran_order': False, 'shape': (-3, 4)}"),
     'X = load "neg-shape.npy"', 3,
     "10: error: neg-shape.npy: bad header: expected a size (a whole number >= 0) in the shape, found '-3'"),
    ("no-newline.npy", good[:10 + 117] + b" " + good[128:], 'X = load "no-newline.npy"', 3,
     "10: error: no-newline.npy: bad header: it does not end with a newline"),
    ("big-header.npy", b"\x93NUMPY\x02\x00" + struct.pack("<I", 1 << 20), 'X = load "big-header.npy"', 3,
     "10: error: big-header.npy: header is 1048576 bytes, over the limit of 65536 bytes"),
    ("nan.npy", np.lib.format.magic(1, 0) + good[8:128] + np.array([0, 1, float("nan")] + [0] * 9).tobytes(),
     'X = load "nan.npy"', 3,
     "10: error: nan.npy: the number at (1, 3) (numpy's [0, 2]) is NaN; NaN and infinity are not allowed"),
    ("inf16.npy", npy_bytes(descr="<f2", shape=(2,), data=np.array([1, np.inf], "<f2").tobytes()),
     'X = load "inf16.npy"', 1,
     "10: error: inf16.npy: the number at (2) (numpy's [1]) is infinite; NaN and infinity are not allowed"),
    ("bool2.npy", npy_bytes(descr="|b1", shape=(1, 3), data=b"\x00\x01\x02"), 'X = load "bool2.npy"', 1,
     "10: error: bool2.npy: the bool at (1, 3) (numpy's [0, 2]) is 2, expected 0 or 1"),
    ("four-d.npy", npy_bytes(shape=(2, 2, 2, 2)), 'X = load "four-d.npy"', 2,
     "10: error: four-d.npy is 4-D; expected 1 to 3 dimensions after the selectors (pick one with 'layer N', then 'head N')"),
    ("sel-range.npy", npy_bytes(shape=(2, 3, 4)), 'X = load "sel-range.npy" layer 3', 3,
     "32: error: layer must be between 1 and 2, found 3"),
    ("vec.npy", npy_bytes(shape=(3,)), 'X = load "vec.npy" layer 1 head 1', 1,
     "28: error: vec.npy: 'head' picks an index of the first axis left, but there is none (or it is empty)"),
    ("scalar.npy", npy_bytes(shape=()), 'X = load "scalar.npy"', 1,
     "10: error: scalar.npy is 0-D; expected 1 to 3 dimensions after the selectors"),
    ("many-heads.npy", npy_bytes(shape=(17, 2, 2)), 'X = load "many-heads.npy"', 2,
     "10: error: many-heads.npy: a stack of 17 matrices is over the limit of 16 heads"),
    ("rows.npy", npy_bytes(shape=(4, 3)), 'X = load "rows.npy"', 3,
     "..."),                       # filled below: the setup's own check
    (None, None, 'X = load "missing.npy"', 3,
     "10: error: missing.npy: cannot open: No such file or directory"),
    (None, None, 'X = load "sub"', 3, '10: error: expected a .npy or .npz file, found "sub"'),
    (None, None, 'X = load "dir.npy"', 3, "10: error: dir.npy: cannot read: a directory, not a regular file"),
    (None, None, 'X = load "fifo.npy"', 3, "10: error: fifo.npy: cannot read: a named pipe (FIFO), not a regular file"),
    (None, None, 'X = load "m.npz"', 3,
     "17: error: expected the name of an array in m.npz after the file (as given to np.savez), found the end of the line"),
    (None, None, 'X = load "m.npz" nope', 3,
     "10: error: m.npz: the archive has no member nope.npy (np.savez names it after the keyword)"),
    ("good.npy", npy_bytes(shape=(2, 3, 4)), 'X = load "good.npy" head 1 layer 1', 3,
     "28: error: expected the end of the line, found 'layer'"),
]
os.makedirs(os.path.join(tmp, "dir.npy"), exist_ok=True)
if not os.path.exists(os.path.join(tmp, "fifo.npy")):
    os.mkfifo(os.path.join(tmp, "fifo.npy"))

# .npz problems: not a zip, a zip bomb, a member cut short, an unknown method
write("notzip.npz", good)
cases.append(("notzip.npz", None, 'X = load "notzip.npz" W', 3,
              "10: error: notzip.npz: not a readable .npz (zip) archive: Not a zip archive"))
# a bomb: a member whose directory says it inflates to 3 GiB (refused before
# anything is inflated: the sizes are all the reader looks at first)
raw = io.BytesIO()
with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("W.npy", good)
blob = bytearray(raw.getvalue())
for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
    i = blob.find(sig)
    blob[i + off:i + off + 4] = struct.pack("<I", 3 << 30)
write("bomb.npz", bytes(blob))
cases.append(("bomb.npz", None, 'X = load "bomb.npz" W', 3,
              "10: error: bomb.npz: W.npy is 3221225472 bytes uncompressed, over the limit of 1073741824 bytes"))
with zipfile.ZipFile(os.path.join(tmp, "cut.npz"), "w", zipfile.ZIP_STORED) as z:
    z.writestr("W.npy", good[:-8])
cases.append(("cut.npz", None, 'X = load "cut.npz" W', 3,
              "10: error: cut.npz: W.npy: truncated: %s, found 88" % ZERO))
with zipfile.ZipFile(os.path.join(tmp, "bz.npz"), "w", zipfile.ZIP_BZIP2) as z:
    z.writestr("W.npy", good)
cases.append(("bz.npz", None, 'X = load "bz.npz" W', 3,
              "10: error: bz.npz: W.npy is compressed with zip method 12; expected stored or deflated "
              "(np.savez, np.savez_compressed)"))
# a deflated member whose directory entry understates its size: the stream
# holds more than announced, and the reader must stop at what was announced
raw = io.BytesIO()
with zipfile.ZipFile(raw, "w", zipfile.ZIP_DEFLATED) as z:
    z.writestr("W.npy", good + bytes(1 << 20))
blob = bytearray(raw.getvalue())
for sig, off in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
    i = blob.find(sig)
    blob[i + off:i + off + 4] = struct.pack("<I", len(good))
write("understated.npz", bytes(blob))
cases.append(("understated.npz", None, 'X = load "understated.npz" W', 3,
              "10: error: understated.npz: W.npy holds more data than the archive's directory says (224 bytes)"))

# a stored member with one byte changed: libzip's CRC check catches it
with zipfile.ZipFile(os.path.join(tmp, "crc.npz"), "w", zipfile.ZIP_STORED) as z:
    z.writestr("W.npy", good)
blob = bytearray(open(os.path.join(tmp, "crc.npz"), "rb").read())
blob[blob.find(good) + len(good) - 1] ^= 1
write("crc.npz", bytes(blob))
cases.append(("crc.npz", None, 'X = load "crc.npz" W', 3, "10: error: crc.npz: W.npy is damaged: CRC error"))

for name, content, line, ntok, want in cases:
    if content is not None:
        write(name, content)
    if name == "rows.npy":
        want = "2:1: error: queries come from X, which has 4 rows, but there are 3 tokens"
        out = run(["--check", lesson(line, ["t%d" % i for i in range(ntok)])])
        got = out.stderr.strip()
        check(out.returncode == 2 and got == "t.lesson:%s" % want, "%s: got %r" % (name, got))
        continue
    out = run(["--check", lesson(line, ["t%d" % i for i in range(ntok)])])
    got = out.stderr.strip()
    if want is None:       # any one-line error or a clean load, never a crash
        print("    %s: %s" % (name, got or "loads"))
        check(out.returncode in (0, 2) and "\n" not in got, "%s: exit %d, %r" % (name, out.returncode, got))
        continue
    check(out.returncode == 2 and got == "t.lesson:4:" + want, "%s: exit %d, got %r" % (name, out.returncode, got))

# The data of all loads together is budgeted (1 GiB): 33 loads of a 32 MiB
# file, 17 in one setup and 16 in the next (a setup names at most 32
# matrices; the second loads the same names again, and its data counts too).
save("big.npy", np.zeros((4096, 1024), dtype=np.float64))
body = "\n".join('A%d = load "big.npy" layer 1' % i for i in range(17))
body += "\n[softmax]\n[setup]\n" + "\n".join('A%d = load "big.npy" layer 1' % i for i in range(16))
out = run(["--check", lesson("X = zeros 1x1\n" + body, ["t"])])
check(out.returncode == 2 and out.stderr.strip() ==              # line 39: the second setup's 16th load
      "t.lesson:39:12: error: big.npy: the NumPy data this lesson loads would be over 1073741824 bytes in all",
      "load budget: %r" % out.stderr.strip())

# What `load` reads may be as big as a model's layer (4096 rows or columns,
# a stack of 16 heads of 1024 keys side by side), where the lesson's own
# text still makes matrices of at most 1024.
save("mlp.npy", np.full((768, 3072), 0.5, dtype=np.float32))
save("too-wide.npy", np.zeros((2, 4097), dtype=np.float32))
save("too-tall.npy", np.zeros((4097, 2), dtype=np.float32))
save("vocab-wide.npy", np.full((2, 5000), 0.5, dtype=np.float32))     # an unembedding of 5000 words
np.save(os.path.join(tmp, "words.npy"), np.array(["w%d" % i for i in range(5000)]))
save("heads.npy", np.full((12, 1024, 1024), 1 / 1024, dtype=np.float32))
for text, want in (
        ('[setup]\ntokens: a\nX = ones 1x768\nW = load "mlp.npy"\nqueries: X @ W\nkeys: X @ W\nvalues: X @ W\n[softmax]\n', None),
        ('[setup]\ntokens: a\nX = ones 1x4\nW = load "too-wide.npy"\n[embeddings]\n',
         "5:1: error: W has 4097 columns, over the limit of 4096 rows or columns; only the unembedding of this setup "
         "(unembed:) may have more, one per word, up to 65536, and only as the unembedding"),
        ('[setup]\ntokens: a\nX = ones 1x2\nW = load "vocab-wide.npy"\nunembed: W\nqueries: X @ W\n[softmax]\n',
         "5:1: error: W has 5000 columns, over the limit of 4096 rows or columns; only the unembedding of this setup "
         "(unembed:) may have more, one per word, up to 65536, and only as the unembedding"),
        ('[setup]\ntokens: a\nX = ones 1x2\nW = load "vocab-wide.npy"\nT = transpose W\nunembed: W\n[softmax]\n',
         "6:1: error: T has 5000 rows, over the limit of 4096 rows or columns"),
        ('[setup]\ntokens: a\nX = ones 1x2\nW = load "vocab-wide.npy"\nunembed: W\nvocab = load "words.npy"\n'
         '[next_token]\n', None),
        ('[setup]\ntokens: a\nX = ones 1x4\nW = load "too-tall.npy"\n[embeddings]\n',
         "5:10: error: too-tall.npy: size 4097x2 is over the limit of 4096 rows or columns (16384 columns for a "
         "stack side by side, 65536 for an unembedding)"),
        ('[setup]\ntokens: %s\nA = load "heads.npy"\nattention: A\n[multi_head]\n'
         % " ".join("t%d" % i for i in range(1024)), None),
        ('[setup]\ntokens: a\nseed: 1\nX = ones 1x4\nW = randn 2x1025\n[embeddings]\n',
         "6:11: error: size 2x1025 is over the limit of 1024 rows or columns")):
    with open(os.path.join(tmp, "big.lesson"), "w") as f:
        f.write("title: Loaded sizes\n" + text)
    out = run(["--check", "big.lesson"])
    got = out.stderr.strip()
    if want is None:
        check(out.returncode == 0, "a loaded model-sized matrix loads: %r" % got)
    else:
        check(out.returncode == 2 and got == "big.lesson:" + want, "refused: got %r" % got)

# Arrays of strings as tokens: what cannot be a token is refused, naming the
# string counted from 1 and the limits (never "unsupported dtype ... float").
np.save(os.path.join(tmp, "nul.npy"), np.array(["x", "a\x00b"]))          # numpy keeps the inner NUL
np.save(os.path.join(tmp, "snul.npy"), np.array([b"x", b"a\x00b"]))
np.save(os.path.join(tmp, "empty-str.npy"), np.array(["x", "", "y"]))
np.save(os.path.join(tmp, "long-str.npy"), np.array(["x", "y", "z" * 65]))
write("u0.npy", npy_bytes(descr="<U0", shape=(2,), data=b""))
write("uwide.npy", npy_bytes(descr="<U262144", shape=(2,), data=b""))
write("uhuge.npy", npy_bytes(descr="<U4294967296", shape=(2,), data=b""))
write("surrogate.npy", npy_bytes(descr="<U1", shape=(2,), data=struct.pack("<2I", 0x61, 0xD800)))
WIDE = "a string array loads when they are 1 to 4096 wide ('<U64', '|S64'), and a token holds at most 64 bytes"
for name, want in (
        ("nul.npy", "nul.npy: string 2 holds a NUL character inside it, which a token cannot hold"),
        ("snul.npy", "snul.npy: string 2 holds a NUL character inside it, which a token cannot hold"),
        ("empty-str.npy", "empty-str.npy: string 2 is empty, and a token cannot be"),
        ("long-str.npy", "long-str.npy: string 3 is longer than 64 bytes"),
        ("u0.npy", "u0.npy: dtype '<U0' holds strings 0 characters wide; " + WIDE),
        ("uwide.npy", "uwide.npy: dtype '<U262144' holds strings 262144 characters wide; " + WIDE),
        ("uhuge.npy", "uhuge.npy: dtype '<U4294967296' holds strings 4294967296 characters wide; " + WIDE),
        ("surrogate.npy", "surrogate.npy: string 2 holds a code unit that is not a character")):
    with open(os.path.join(tmp, "s.lesson"), "w") as f:
        f.write('title: t\n[setup]\ntokens = load "%s"\nX = ones 2x2\n[embeddings]\n' % name)
    out = run(["--check", os.path.join(tmp, "s.lesson")])
    got = out.stderr.strip()
    check(out.returncode == 2 and got == "%s:3:15: error: %s" % (os.path.join(tmp, "s.lesson"), want),
          "%s: exit %d, got %r" % (name, out.returncode, got))

finish("check_npy")
