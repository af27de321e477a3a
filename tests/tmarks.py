"""tmarks.py: the small coloured marks of a picture (emoji: any patch of
coloured pixels smaller than a heatmap cell, and of ten pixels or more)
found in the PNG export must be in the PDF page too, at the same place and
about the same size.

    /usr/bin/python3 tests/tmarks.py export.ppm page.ppm

Both pictures are binary PPMs of one size (`convert x.png x.ppm`; `pdftoppm
-r 96` draws a page at the export's pixels). Prints one line per mark that the
page lacks or moves and exits 1 then; prints the number of marks and exits 0
when every one is there (0 marks is a failure too: the export had emoji).
"""
import sys

import numpy as np

CHROMA = 60         # max - min channel: grey text and the background stay below
SMALL = 2500        # pixels: a heatmap cell or a colour bar is larger
SPECK = 10          # pixels: a fringe the two resamplings may see differently
SLACK = 2           # pixels a mark's box may move or grow


def read_ppm(path):
    """The pixels of a binary PPM (P6, maximum 255) as an h x w x 3 array."""
    data = open(path, "rb").read()
    fields, pos = [], 0
    while len(fields) < 4:
        while data[pos:pos + 1].isspace():
            pos += 1
        end = pos
        while not data[end:end + 1].isspace():
            end += 1
        fields.append(data[pos:end])
        pos = end
    assert fields[0] == b"P6" and fields[3] == b"255", path
    w, h = int(fields[1]), int(fields[2])
    return np.frombuffer(data[pos + 1:pos + 1 + w * h * 3], np.uint8).reshape(h, w, 3)


def coloured(img):
    """Where a pixel is coloured rather than grey."""
    c = img.astype(int)
    return c.max(axis=2) - c.min(axis=2) > CHROMA


def components(mask):
    """The 8-connected patches of mask, each as its list of (y, x)."""
    seen = np.zeros_like(mask)
    h, w = mask.shape
    out = []
    for y0, x0 in zip(*np.nonzero(mask)):
        if seen[y0, x0]:
            continue
        seen[y0, x0] = True
        todo, patch = [(y0, x0)], []
        while todo:
            y, x = todo.pop()
            patch.append((y, x))
            for ny in (y - 1, y, y + 1):
                for nx in (x - 1, x, x + 1):
                    if 0 <= ny < h and 0 <= nx < w and mask[ny, nx] and not seen[ny, nx]:
                        seen[ny, nx] = True
                        todo.append((ny, nx))
        out.append(patch)
    return out


def main():
    png, page = read_ppm(sys.argv[1]), read_ppm(sys.argv[2])
    if png.shape != page.shape:
        print(f"the page is {page.shape[1]}x{page.shape[0]}, the export {png.shape[1]}x{png.shape[0]}")
        return 1
    want, got = coloured(png), coloured(page)
    marks = [p for p in components(want) if SPECK <= len(p) < SMALL]
    wrong = 0
    for patch in marks:
        ys, xs = zip(*patch)
        y0, y1, x0, x1 = min(ys), max(ys), min(xs), max(xs)
        near = got[max(0, y0 - SLACK):y1 + SLACK + 1, max(0, x0 - SLACK):x1 + SLACK + 1]
        gy, gx = np.nonzero(near)
        box = f"{x1 - x0 + 1}x{y1 - y0 + 1} at ({x0}, {y0})"
        if len(gy) < len(patch) // 2:
            print(f"the mark {box} ({len(patch)} coloured pixels) has {len(gy)} on the page")
            wrong += 1
            continue
        # the page's box, back in picture coordinates
        py0, py1 = gy.min() + max(0, y0 - SLACK), gy.max() + max(0, y0 - SLACK)
        px0, px1 = gx.min() + max(0, x0 - SLACK), gx.max() + max(0, x0 - SLACK)
        if max(abs(py0 - y0), abs(py1 - y1), abs(px0 - x0), abs(px1 - x1)) > SLACK:
            print(f"the mark {box} is {px1 - px0 + 1}x{py1 - py0 + 1} at ({px0}, {py0}) on the page")
            wrong += 1
    if wrong or not marks:
        if not marks:
            print("the export has no small coloured marks")
        return 1
    print(len(marks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
