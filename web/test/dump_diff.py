#!/usr/bin/python3
"""dump_diff.py: two --dump files with the same structure whose numbers
agree within a bound.

Run: dump_diff.py NATIVE.json WASM.json BOUND [NAME]
Prints one line (how many numbers differ and the largest absolute and
relative difference); exits 0 when every key, label and shape is equal and
every number is within BOUND absolutely, 1 otherwise.
"""
import json
import sys

native, wasm, bound = sys.argv[1], sys.argv[2], float(sys.argv[3])
name = sys.argv[4] if len(sys.argv) > 4 else wasm
a, b = json.load(open(native)), json.load(open(wasm))
stats = {"numbers": 0, "differ": 0, "abs": 0.0, "rel": 0.0, "where": ""}
problems = []


def walk(x, y, path):
    if isinstance(x, dict) and isinstance(y, dict):
        if sorted(x) != sorted(y):
            problems.append(f"{path}: keys differ")
            return
        for k in x:
            walk(x[k], y[k], f"{path}/{k}")
    elif isinstance(x, list) and isinstance(y, list):
        if len(x) != len(y):
            problems.append(f"{path}: {len(x)} items against {len(y)}")
            return
        for i, (u, v) in enumerate(zip(x, y)):
            walk(u, v, f"{path}[{i}]")
    elif isinstance(x, float) and isinstance(y, (int, float)) and not isinstance(y, bool):
        stats["numbers"] += 1
        d = abs(x - y)
        if d > 0:
            stats["differ"] += 1
            if d > stats["abs"]:
                stats["abs"], stats["where"] = d, path
            stats["rel"] = max(stats["rel"], d / max(abs(x), 1e-300))
        if not d <= bound:
            problems.append(f"{path}: {x!r} against {y!r}")
    elif x != y:
        problems.append(f"{path}: {x!r} against {y!r}")


walk(a, b, "")
ok = not problems
print(f"{'ok' if ok else 'FAIL'}: {name}: {stats['differ']} of {stats['numbers']} numbers differ "
      f"(libm sin), largest |difference| {stats['abs']:.3g} at {stats['where'] or '-'}, "
      f"largest relative {stats['rel']:.3g}; bound {bound:g}")
for p in problems[:10]:
    print("  ", p)
sys.exit(0 if ok else 1)
