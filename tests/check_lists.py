#!/usr/bin/python3
"""check_lists.py: the lists written outside C agree with the C tables.

Usage: check_lists.py LISTS        (LISTS: build/lists, tests/tools/lists.c)

The stage table (stage_table.c), the key table (lesson_keys.c) and the
window's keys (app/keys.c) are the one source of what they list. What
copies them by hand is checked here, both ways where the copy is a list:

- docs/lesson-format.md: its stage tables (first column "id") name every
  stage and nothing else, its settings tables ("key", "option") every key
  of their place and nothing else, and every top key is explained;
- the Python module's STAGES: every stage, in the table's order;
- README.md's table of keys and the manual page's section THE WINDOW:
  every key the window's help shows.

(The fuzzing dictionary is made from the tables at build time: nothing to
check.) Prints 'lists: N passed, M failed' and exits 1 on any failure.
"""
import os
import re
import subprocess
import sys

from tcheck import check, finish

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
LISTS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "build", "lists")


def lists(what):
    out = subprocess.run([LISTS, what], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()


def read(path):
    with open(os.path.join(TOP, path), encoding="utf-8") as f:
        return f.read()


def tables(text):
    """Every markdown table of text: (header cells, [first cells of its rows], section title)."""
    out, section, lines = [], "", text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("#"):
            section = lines[i].lstrip("# ").strip()
        if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"^\|[-| ]+\|$", lines[i + 1]):
            head = [c.strip() for c in lines[i].strip("|").split("|")]
            firsts, i = [], i + 2
            while i < len(lines) and lines[i].startswith("|"):
                firsts.append(lines[i].strip("|").split("|")[0].strip())
                i += 1
            out.append((head, firsts, section))
            continue
        i += 1
    return out


def ticked(cell):
    """The names in backticks of a table cell: "`layer_norm:`, `mlp:`" -> ["layer_norm:", "mlp:"]."""
    return re.findall(r"`([^`]+)`", cell)


stages = lists("stages")
keys = {}
for line in lists("keys"):
    place, name = line.split()
    keys.setdefault(place, []).append(name)
check(len(stages) >= 21 and all(re.fullmatch(r"[a-z_]+", s) for s in stages), "lists stages: %r" % stages[:3])
check(len(keys.get("setup", [])) >= 25 and bool(keys.get("top")) and bool(keys.get("stage")), "lists keys: %r" % keys)

# ---- docs/lesson-format.md
doc = read("docs/lesson-format.md")
named = set()
for head, firsts, section in tables(doc):
    if head[0] != "id":
        continue
    for cell in firsts:
        for name in ticked(cell):
            check(name in stages, "lesson-format.md, %s: `%s` in a table of stages is no stage" % (section, name))
            named.add(name)
for s in stages:
    check(s in named, "lesson-format.md: no table of stages has `%s`" % s)

for place, head_word in (("setup", "key"), ("stage", "option")):
    seen = set()
    for head, firsts, section in tables(doc):
        if head[0] != head_word:
            continue
        for cell in firsts:
            for name in ticked(cell):
                if not name.endswith(":"):
                    continue
                check(name[:-1] in keys[place], "lesson-format.md, %s: `%s` is no %s key" % (section, name, place))
                seen.add(name[:-1])
    for k in keys[place]:
        check(k in seen, "lesson-format.md: the table of %s keys lacks `%s:`" % (place, k))
for k in keys["top"]:
    check("`%s:`" % k in doc, "lesson-format.md does not explain `%s:`" % k)

# ---- the Python module
sys.path.insert(0, os.path.join(TOP, "python"))
try:
    import attnlab
    check(list(attnlab.STAGES) == stages, "python: attnlab.STAGES %r differs from the stage table %r"
          % (list(attnlab.STAGES), stages))
except ImportError as e:            # the module needs nothing beyond the standard library to import
    check(False, "python: cannot import attnlab: %s" % e)

# ---- the window's keys in README.md and the manual page
readme = read("README.md")
m = re.search(r"^\| keys \| \|\n\|[-| ]+\|\n((?:\|.*\n)+)", readme, re.M)
check(m is not None, "README.md has a table whose header is '| keys | |'")
readme_keys = " ".join(l.strip("|").split("|")[0] for l in (m.group(1) if m else "").splitlines())
man = read("docs/attnlab.1")
check(".SH THE WINDOW" in man, "docs/attnlab.1 has a section THE WINDOW")
man_keys = man[man.find(".SH THE WINDOW"):]
man_keys = man_keys[:man_keys.find(".SH", 4)]
man_keys = " ".join(l[3:] for l in man_keys.splitlines() if l.startswith(".B "))     # the keys of its .TP items


def spaced(s):
    return " ".join(s.split())


for line in lists("keys-desktop"):
    shown, what = line.split("\t", 1)
    for part in re.split(r"\s{2,}|, ", shown.strip()):     # "O  Ctrl+O": "O" and "Ctrl+O"
        part = spaced(part)
        for name, text in (("README.md", readme_keys), ("docs/attnlab.1", man_keys)):
            ok = re.search(r"(^|[\s,/(])" + re.escape(part) + r"($|[\s,/)])", spaced(text)) is not None
            check(ok, "%s does not list the key %r (%s)" % (name, part, what))

finish("lists")
