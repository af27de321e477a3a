"""check_library.py: libattnlab (build/lib) against the attnlab program.

Usage: check_library.py ATTNLAB LESSONS_DIR

For every bundled lesson and six lessons generated as check_views.py makes
them (8 to 32 tokens, 1 to 16 heads, masks, cross-attention, given weights),
through the library (python/attnlab/_library.py, ctypes) and through the
program: --dump's JSON is the same text, every
stage takes the same pages with the same names as --export gives its
files, and page 1 of every stage is the same PNG, byte for byte. The
Python module draws, dumps and reads matrices without starting a
process (subprocess is made to fail), with arrays handed over in memory,
and gives the same numbers as the program; the library's refusals carry
the program's own line.
"""

import json
import os
import random
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import attnlab                                  # noqa: E402
from attnlab import _library                    # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tcheck import check, finish                # noqa: E402

PROGRAM, LESSONS = os.path.abspath(sys.argv[1]), sys.argv[2]
check(_library.available(), "the library loads from the tree (build/lib/libattnlab.so.0)")


def program(*args):
    """The program's standard output, or its error line."""
    done = subprocess.run([PROGRAM] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return done.returncode, done.stdout, done.stderr.decode("utf-8", "replace").strip()


def same_as_program(name, text, where):
    """Lesson `text` (file name `name`, its `load` lines reading beside it in
    `where`) through the library and through the program: the same dump,
    pages, page names and first pages. Returns the pictures compared."""
    cwd = os.getcwd()
    os.chdir(where)
    try:
        h = _library.Handle(text, {})
    finally:
        os.chdir(cwd)
    done = subprocess.run([PROGRAM, "--dump", "-"], input=text.encode("utf-8"), cwd=where, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    check(done.returncode == 0, "%s: the program dumps it (%s)" % (name, done.stderr.decode("utf-8", "replace")))
    mine = h.dump()
    check(mine == done.stdout.decode("utf-8"), "%s: the library's dump is the program's, byte for byte" % name)
    compared = 0
    with tempfile.TemporaryDirectory() as d:
        rc, _, err = program("--export", d, os.path.join(where, name))
        check(rc == 0, "%s: the program exports it (%s)" % (name, err))
        want = {}
        for f in sorted(os.listdir(d)):         # <lesson>-NN-<id>[-SS-<step>].png
            parts = f[len(name) - len(".lesson") + 1:-4].split("-", 3)
            want.setdefault(int(parts[0]), []).append((f, parts[3] if len(parts) > 3 else ""))
        for k in range(1, len(json.loads(mine)["stages"]) + 1):
            files = want.get(k, [])
            pages = h.pages(k)
            check(pages == len(files), "%s stage %d: %d pages, --export wrote %d" % (name, k, pages, len(files)))
            seen = [h.page_name(k, p) for p in range(1, pages + 1)]
            check(seen == [w[1] for w in files][:pages] or pages == 1 and seen == [""],
                  "%s stage %d: page names %s, --export's %s" % (name, k, seen[:4], [w[1] for w in files][:4]))
            with open(os.path.join(d, files[0][0]), "rb") as f:
                same = h.render(k, 1, 1280, 720, 1, False, False, None) == f.read()
            check(same, "%s stage %d: page 1 is the program's PNG, byte for byte" % (name, k))
            compared += 1
    h.close()
    return compared


names = sorted(n for n in os.listdir(LESSONS) if n.endswith(".lesson"))
pictures = 0
for name in names:
    with open(os.path.join(LESSONS, name), "rb") as f:
        pictures += same_as_program(name, f.read().decode("utf-8"), LESSONS)
# and lessons written for no test: 8 to 32 tokens, 1 to 16 heads, masks, cross-attention, given weights
from check_views import make_lesson            # noqa: E402
made = random.Random(20261202)
with tempfile.TemporaryDirectory() as gen:
    for i in range(6):
        text = make_lesson(made, i)[0]
        with open(os.path.join(gen, "gen%d.lesson" % i), "w", encoding="utf-8") as f:
            f.write(text)
        pictures += same_as_program("gen%d.lesson" % i, text, gen)
print("library: %d bundled and 6 generated lessons dumped, %d pictures compared with the program's"
      % (len(names), pictures))

# The module draws in this process: no program is started.
real_run = subprocess.run
subprocess.run = None
try:
    rng = np.random.default_rng(7)
    a = rng.random((3, 5, 5))
    a /= a.sum(-1, keepdims=True)
    les = attnlab.show(a.astype(np.float32), list("abcde"))
    png = les.picture(1)
    check(png[:8] == b"\x89PNG\r\n\x1a\n", "show(): a PNG without a process")
    w = les.matrices(1)["head2.weights"]
    check(np.abs(w - a[1].astype(np.float32)).max() < 1e-7, "the weights come back as given (float32)")
    big = attnlab.Lesson("big").setup(["t%d" % i for i in range(64)], rng.standard_normal((64, 128)),
                                      W_q=rng.standard_normal((128, 128)), W_k=rng.standard_normal((128, 128)),
                                      W_v=rng.standard_normal((128, 128)), heads=4).stage("softmax")
    check(big._needs_npz(), "a lesson of 57,000 numbers hands its arrays over in memory")
    check(len(big.picture(1)) > 1000 and big.dump()["stages"][0]["id"] == "softmax",
            "...and draws and dumps without a process")
finally:
    subprocess.run = real_run
big_text = big.lesson_text("arrays.npz")
with tempfile.TemporaryDirectory() as d:
    np.savez(os.path.join(d, "arrays.npz"), **big._arrays())
    with open(os.path.join(d, "big.lesson"), "w") as f:
        f.write(big_text)
    rc, dumped, err = program("--dump", os.path.join(d, "big.lesson"))
    from_file = json.loads(dumped.decode("utf-8"))
    in_memory = dict(big.dump())
    check(from_file.pop("lesson") == "big" and in_memory.pop("lesson") == "stdin" and from_file == in_memory,
          "the arrays in memory give the program's numbers from a .npz")

# A stage's pages by name: every head side by side first, then each head's, the same through the program.
heads4 = rng.random((4, 12, 12))
heads4 /= heads4.sum(-1, keepdims=True)
paged = attnlab.show(heads4, ["t%d" % i for i in range(12)])
names = paged.pages(1)
check(names[0] == "heads" and len(names) > 1, "a 4-head stage lists its pages, the heads side by side first: %s" % names)
check(paged.slide(1, step=names[-1]).png() == paged.picture(1, step=len(names)), "a page is reachable by its name")
try:
    paged.slide(1, step="nowhere").png()
    check(False, "a page name the stage lacks is refused")
except KeyError as e:
    check("its pages are 'heads'" in str(e), "a page name the stage lacks is refused, listing them: %s" % e)
os.environ["ATTNLAB_NO_LIB"] = "1"
_library._lib, _library._tried = None, False
try:
    by_program = attnlab.show(heads4, ["t%d" % i for i in range(12)])
    check(by_program.pages(1) == names, "the program names the pages alike: %s" % by_program.pages(1))
    check(by_program.slide(1, step=names[-1]).png() == paged.slide(1, step=names[-1]).png(),
          "the program's picture of a named page is the library's, byte for byte")
finally:
    del os.environ["ATTNLAB_NO_LIB"]
    _library._lib, _library._tried = None, False

# Refusals carry the program's line.
bad = attnlab.Lesson("t").setup(["a", "b"], np.ones((2, 2)), heads=3).stage("softmax")
try:
    bad.picture(1)
    check(False, "a lesson the program refuses is refused")
except attnlab.LessonError as e:
    done = real_run([PROGRAM, "--check", "-"], input=bad.lesson_text().encode(), stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE)
    check(e.message == done.stderr.decode().strip(), "the library's refusal is the program's line: %r / %r"
            % (e.message, done.stderr.decode().strip()))
    check(e.line is not None, "...with the lesson line it points at")
finish("library")
