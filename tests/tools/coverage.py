#!/usr/bin/python3
"""coverage.py: what a gcov build's counters say (make coverage).

    coverage.py sites BUILD [WHO]
                                the parser's error sites that no run so far
                                reached (make coverage runs it after the
                                bad lessons alone, and after every part;
                                WHO names the runs in its first line)
    coverage.py folders BUILD   line coverage per source folder and the
                                least covered files
    coverage.py files BUILD [FUNCTION...]
                                the source files a run reached (lines run,
                                lines with code), and how often each
                                FUNCTION was called: which test exercises
                                what (tests/README.md)

BUILD is the coverage build's directory (build/cov): its objects were
compiled with --coverage, from the top of the tree, where this runs. gcov
reads each object's counters (obj/src/.../X.gcda) and prints the source
with a count per line and, with -b -c, the calls on each line and whether
they ran.

An error site is a call that reports a bad lesson: FAIL(, lp_fail_at(,
lp_fail_line(, error_set( in src/core/lesson/lesson*.c, and in src/core/io/npy.c its
own fail( and fail_as( as well. A site is reached when its call ran: the
last call gcov lists on its line (the arguments' calls come before it, a
condition's before them), or on the first line after it that lists one
when the call continues over several lines.
"""
import glob
import os
import re
import subprocess
import sys

FOLDERS = ["src/core", "src/view", "src/sdl", "src/app"]
SITE = re.compile(r"\b(FAIL|lp_fail_at|lp_fail_line|error_set|fail_as|fail)\(")
NOT_A_SITE = re.compile(r"^\s*(#\s*define|static\s|bool\s|int\s|void\s)")  # definitions


REPORTS = {}


def gcov_text(build, source):
    """gcov's report on source's object: the annotated sources (once a run)."""
    if (build, source) not in REPORTS:
        objdir = os.path.join(build, "obj", os.path.dirname(source))
        REPORTS[(build, source)] = subprocess.run(["gcov", "-b", "-c", "-t", "-o", objdir, source],
                                                  capture_output=True, text=True).stdout
    return REPORTS[(build, source)]


def gcov(build, source):
    """{source: [(line, count or None, text, [call ran?...])]} for the
    sources gcov reports from the counters of source's object (the .c
    file and the headers whose inline functions it compiled)."""
    out = gcov_text(build, source)
    files, cur, last = {}, None, None
    for raw in out.splitlines():
        m = re.match(r"\s*([^:]+):\s*(\d+):(.*)$", raw)
        if m:
            count, num, text = m.group(1).strip(), int(m.group(2)), m.group(3)
            if num == 0:
                if text.startswith("Source:"):
                    cur = os.path.normpath(text[len("Source:"):])
                    files[cur] = []
                continue
            if cur is None:
                continue
            if count == "-":
                n = None
            elif count.startswith("#") or count.startswith("="):
                n = 0
            else:
                n = int(count.rstrip("*"))
            last = [num, n, text, []]
            files[cur].append(last)
        elif raw.startswith("call") and last is not None:
            last[3].append("returned" in raw and not raw.rstrip().endswith("returned 0"))
    return files


def sources():
    """Every .c file of the four folders."""
    return sorted(f for d in FOLDERS for f in glob.glob(d + "/*.c"))


def merged(build):
    """{(file, line): (executable, executed)} over every object's report."""
    lines = {}
    for src in sources():
        for f, rows in gcov(build, src).items():
            if not f.startswith("src/"):
                continue
            for num, n, _, _ in rows:
                if n is None:
                    continue
                was = lines.get((f, num), 0)
                lines[(f, num)] = max(was, n)
    return lines


def folders(build):
    lines = merged(build)
    per_file = {}
    for (f, _), n in lines.items():
        if not f.endswith(".c"):
            continue
        total, hit = per_file.get(f, (0, 0))
        per_file[f] = (total + 1, hit + (n > 0))
    print("line coverage per source folder (lines run at least once / lines with code):")
    all_total = all_hit = 0
    for d in FOLDERS:
        total = sum(t for f, (t, _) in per_file.items() if os.path.dirname(f) == d)
        hit = sum(h for f, (_, h) in per_file.items() if os.path.dirname(f) == d)
        all_total += total
        all_hit += hit
        print("  %-9s %5.1f%%  %5d of %5d lines" % (d, 100.0 * hit / max(total, 1), hit, total))
    print("  %-9s %5.1f%%  %5d of %5d lines" % ("all", 100.0 * all_hit / max(all_total, 1), all_hit, all_total))
    low = sorted(per_file.items(), key=lambda kv: kv[1][1] / kv[1][0])[:10]
    print("least covered files:")
    for f, (t, h) in low:
        print("  %-28s %5.1f%%  %4d of %4d lines" % (f, 100.0 * h / t, h, t))


def files(build, functions):
    called = dict.fromkeys(functions, 0)
    for src in sources():
        out = gcov_text(build, src)
        for m in re.finditer(r"^function (\S+) called (\d+)", out, re.M):
            if m.group(1) in called:
                called[m.group(1)] += int(m.group(2))
    per_file = {}
    for (f, _), n in merged(build).items():
        if f.endswith(".c"):
            total, hit = per_file.get(f, (0, 0))
            per_file[f] = (total + 1, hit + (n > 0))
    for f, (t, h) in sorted(per_file.items()):
        if h:
            print("%s %d %d" % (f, h, t))
    for fn, n in called.items():
        print("function %s %d" % (fn, n))


def sites(build, who):
    files = sorted(glob.glob("src/core/lesson/lesson*.c")) + ["src/core/io/npy.c"]
    total = 0
    missed = []
    for src in files:
        rows = gcov(build, src).get(src, [])
        by_line = {num: (n, text, calls) for num, n, text, calls in rows}
        for num in sorted(by_line):
            n, text, calls = by_line[num]
            code = text.split("//")[0]
            if not SITE.search(code) or NOT_A_SITE.match(code) or code.lstrip().startswith(("*", "/*")):
                continue
            total += 1
            k = num
            while not by_line.get(k, (0, "", []))[2] and k < num + 6 and not by_line.get(k, (0, "", []))[1].rstrip().endswith(";"):
                k += 1
            ran = by_line.get(k, (0, "", []))[2]
            if not ran or not ran[-1]:
                missed.append("%s:%d: %s" % (src, num, text.strip()[:150]))
    print("error sites: %d in src/core/lesson/lesson*.c and src/core/io/npy.c, %d reached by %s, %d not:"
          % (total, total - len(missed), who, len(missed)))
    for m in missed:
        print("  " + m)


def main():
    what = sys.argv[1] if len(sys.argv) >= 3 else None
    if what not in ("sites", "folders", "files") or (what == "folders" and len(sys.argv) > 3) \
            or (what == "sites" and len(sys.argv) > 4):
        sys.exit(__doc__)
    if not os.path.isdir("src/core"):
        sys.exit("coverage.py: run from the top of the tree")
    if what == "files":
        files(sys.argv[2], sys.argv[3:])
    elif what == "sites":
        sites(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else "the runs so far")
    else:
        folders(sys.argv[2])


if __name__ == "__main__":
    main()
