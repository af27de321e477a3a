"""tcheck.py: what every Python check in tests/ shares.

    from tcheck import check, finish
    check(value == want, "what was checked")     # counts; prints FAIL: what
    finish("views")                               # 'views: N passed, M failed'; exits 1 on a failure
"""
import re
import sys

passed = failed = 0


def check(ok, what):
    """Count one check; say what failed."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)
    return ok


def finish(name):
    """Print the closing line and exit: 0 when every check passed."""
    print(f"{name}: {passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


def worst(a, b):
    """The largest absolute difference of two arrays (numpy's, torch's), as a float."""
    import numpy as np
    return float(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)).max())


def inline_shared(dump):
    """Put the numbers of every matrix --dump wrote once per setup (a stage
    entry with "shared": true) back into the stages that show it: under the
    matrix's own setup when it names one (a compare stage's A and B), else
    under its stage's."""
    table = dump.get("matrices", {})
    for st in dump.get("stages", []):
        for group in [st] + st.get("steps", []):
            for m in group.get("matrices", []):
                if m.get("shared"):
                    m["data"] = table[str(m.get("setup", st["setup"]))][m["name"]]
    return dump


SLICE = re.compile(r"^(.*)\[(\d+)\.\.(\d+), (\d+)\.\.(\d+)\]$")
ROW = re.compile(r"^(.*)\[(\d+)\]$")
PLOT = re.compile(r"^(.*)\[head \d+\]$")


def part_of(name, ref):
    """A dumped matrix's name read as --dump writes parts, counting from 1
    ("K[1..3, 1..4]": rows 1 to 3 and columns 1 to 4 of K, "weights[3]" its
    row 3): the whole matrix's name, and the same part of ref[that name]
    (None when ref has no such matrix). Any other name ending in "]" but a
    plot's "NAME[head H]" raises ValueError: a part is never skipped unseen."""
    sl, rw = SLICE.match(name), ROW.match(name)
    if name.endswith("]") and not sl and not rw and not PLOT.match(name):
        raise ValueError(f"--dump named a part {name!r}, which is neither NAME[ROW] nor NAME[R1..R2, C1..C2]")
    base = sl.group(1) if sl else rw.group(1) if rw else name
    if base not in ref:
        return base, None
    want = ref[base]
    if sl:
        r0, r1, c0, c1 = map(int, sl.groups()[1:])
        want = want[r0 - 1:r1, c0 - 1:c1]
    elif rw:
        want = want[int(rw.group(2)) - 1:int(rw.group(2))]
    return base, want
