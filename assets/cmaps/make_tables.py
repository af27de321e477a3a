#!/usr/bin/python3
"""make_tables.py: write assets/cmaps/NAME.txt, 256 lines "R G B" (0-255) per map.

Run once, by hand, with Debian's python3-matplotlib installed:

    /usr/bin/python3 assets/cmaps/make_tables.py

The build embeds the resulting text files (see the cmap_tables.h rule in the
Makefile), so neither Python nor matplotlib is needed to build attnlab.
"""
import os
import re
import sys

import matplotlib

N = 256


def names(root):
    """The colormaps' names, from their one list (src/core/colormaps.h)."""
    with open(os.path.join(root, "src", "core", "colormaps.h"), encoding="utf-8") as f:
        return re.findall(r"^\s*X\((\w+), (?:true|false)\)", f.read(), re.M)


def table(name):
    """The N colours of a matplotlib colormap as (r, g, b) bytes."""
    cmap = matplotlib.colormaps[name].resampled(N)
    rows = []
    for i in range(N):
        r, g, b, _ = cmap(i)
        rows.append(tuple(int(round(c * 255)) for c in (r, g, b)))
    return rows


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for name in names(os.path.join(here, "..", "..")):
        path = os.path.join(here, name + ".txt")
        with open(path, "w", encoding="ascii") as f:
            for r, g, b in table(name):
                f.write("%d %d %d\n" % (r, g, b))
        sys.stdout.write("wrote %s\n" % path)


if __name__ == "__main__":
    main()
