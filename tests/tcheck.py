"""tcheck.py: what every Python check in tests/ shares.

    from tcheck import check, finish
    check(value == want, "what was checked")     # counts; prints FAIL: what
    finish("views")                               # 'views: N passed, M failed'; exits 1 on a failure
"""
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


def inline_shared(dump):
    """Put the numbers of every matrix --dump wrote once per setup (a stage
    entry with "shared": true) back into the stages that show it."""
    table = dump.get("matrices", {})
    for st in dump.get("stages", []):
        for group in [st] + st.get("steps", []):
            for m in group.get("matrices", []):
                if m.get("shared"):
                    m["data"] = table[str(st["setup"])][m["name"]]
    return dump
