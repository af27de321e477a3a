#!/usr/bin/python3
"""package_sets.py: what each make target would install on a minimal Debian.

    make -s package-sets | /usr/bin/python3 tests/tools/package_sets.py

reads the Makefile's package sets ("NAME: pkg pkg ..." lines) and, for each
target, asks apt-get to simulate the installation (-s, nothing is installed)
against a dpkg status that holds only a minimal system: the packages marked
Essential or Priority: required on this machine and everything they depend
on (about what debootstrap's minbase installs), plus make. It prints how many
packages each target adds and their download and installed sizes (from
apt-cache, the versions apt chose). apt's default is kept: Recommends are
installed, as the Makefile's apt-get does (--no-recommends shows what
they cost). The numbers are in docs/packages.md. Needs apt's package lists
(apt-get update).
"""
import os
import re
import subprocess
import sys
import tempfile

# What each target installs: the sets it names, in the Makefile's terms.
TARGETS = [
    ("make (build)", ["build"]),
    ("make run", ["build", "run"]),
    ("make test", ["build", "run", "test"]),
    ("make bench", ["build", "run", "bench"]),
    ("make web", ["web"]),
    ("make test-web", ["build", "run", "web", "web-test"]),
    ("make deps", ["build", "run", "test", "bench"]),
]


def read_sets(text):
    """The NAME: packages lines printed by `make package-sets`."""
    sets = {}
    for line in text.splitlines():
        if ":" in line:
            name, pkgs = line.split(":", 1)
            sets[name.strip()] = pkgs.split()
    return sets


def minimal_status(path):
    """Write a dpkg status file with the minimal system only."""
    stanzas = [s for s in open("/var/lib/dpkg/status").read().split("\n\n") if s.strip()]
    by, provides = {}, {}
    for s in stanzas:
        if "install ok installed" not in s:
            continue
        name = re.search(r"^Package: (\S+)", s, re.M).group(1)
        by[name] = s
        p = re.search(r"^Provides: (.*)$", s, re.M)
        for x in (p.group(1).split(",") if p else []):
            provides.setdefault(x.strip().split()[0], name)

    def deps(s):
        out = []
        for field in ("Depends", "Pre-Depends"):
            m = re.search(r"^%s: (.*)$" % field, s, re.M)
            for alt in (m.group(1).split(",") if m else []):
                for choice in (a.strip().split()[0].split(":")[0] for a in alt.split("|")):
                    if choice in by or choice in provides:
                        out.append(choice if choice in by else provides[choice])
                        break
        return out

    todo = [n for n, s in by.items()
            if re.search(r"^Essential: yes", s, re.M) or re.search(r"^Priority: required", s, re.M)]
    seen = set()
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(deps(by[n]))
    with open(path, "w") as f:
        f.write("\n\n".join(by[n] for n in sorted(seen)) + "\n\n")
    return len(seen)


def simulate(status, pkgs, recommends):
    """The (package, version) pairs apt-get would install."""
    opts = [] if recommends else ["--no-install-recommends"]
    out = subprocess.run(["apt-get", "-s", "-o", "Dir::State::status=" + status] + opts + ["install"] + pkgs,
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("package_sets: apt-get -s failed for %s:\n%s" % (" ".join(pkgs), out.stdout[-2000:] + out.stderr))
    return [(m.group(1), m.group(2)) for m in re.finditer(r"^Inst (\S+) \((\S+)", out.stdout, re.M)]


def sizes(pairs):
    """{(package, version): (download bytes, installed KiB)} from apt-cache."""
    names = sorted({p.split(":")[0] for p, _ in pairs})
    out = subprocess.run(["apt-cache", "show"] + names, capture_output=True, text=True).stdout
    got = {}
    for s in out.split("\n\n"):
        p = re.search(r"^Package: (\S+)", s, re.M)
        v = re.search(r"^Version: (\S+)", s, re.M)
        if p and v:
            size = re.search(r"^Size: (\d+)", s, re.M)
            inst = re.search(r"^Installed-Size: (\d+)", s, re.M)
            got[(p.group(1), v.group(1))] = (int(size.group(1)) if size else 0, int(inst.group(1)) if inst else 0)
    return got


def main():
    recommends = "--no-recommends" not in sys.argv[1:]
    sets = read_sets(sys.stdin.read())
    with tempfile.TemporaryDirectory() as tmp:
        status = os.path.join(tmp, "status")
        n = minimal_status(status)
        print("minimal system: %d packages, plus make; Recommends %s" % (n, "installed" if recommends else "left out"))
        print("%-16s %9s %10s %10s" % ("target", "packages", "download", "installed"))
        for target, names in TARGETS:
            pkgs = ["make"] + [p for name in names for p in sets[name]]
            pairs = simulate(status, pkgs, recommends)
            table = sizes(pairs)
            dl = sum(table.get((p.split(":")[0], v), (0, 0))[0] for p, v in pairs)
            inst = sum(table.get((p.split(":")[0], v), (0, 0))[1] for p, v in pairs)
            print("%-16s %9d %7.0f MiB %7.0f MiB" % (target, len(pairs), dl / 2**20, inst / 2**10))


if __name__ == "__main__":
    main()
