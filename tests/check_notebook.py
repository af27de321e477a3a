#!/usr/bin/python3
"""check_notebook.py: the example notebook, run cell by cell by a Jupyter
kernel (Debian's python3-nbclient and python3-ipykernel), and its outputs.

Run: PYTHONPATH=python check_notebook.py NOTEBOOK  (ATTNLAB: the program)

The notebook asserts its own numbers (attnlab's weights against torch's,
the GPT-2-style model's attention, MLP output and next-token probabilities
against its forward pass); a failed assert stops the run here with the
cell's traceback. This script then checks what the notebook shows: every
cell tagged for a picture (show, lesson, mha, predict, ablate, heads,
postnorm) has a PNG output of the export's size that is not blank, the
interactive views carry the page once, and the printed lines say what the
asserts checked.
"""
import base64
import struct
import sys
import zlib

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

from tcheck import check, finish

PICTURES = ("show", "lesson", "mha", "predict", "ablate", "heads", "postnorm")
# A cell that hangs is a fault; a correct cell takes seconds on a busy machine.
CELL_LIMIT = 900


def png_pixels(data):
    """The width, height and the distinct bytes of the image data of a PNG (8-bit RGB or RGBA)."""
    check(data[:8] == b"\x89PNG\r\n\x1a\n", "the output is a PNG")
    at, idat = 8, b""
    w = h = 0
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        if kind == b"IHDR":
            w, h = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        at += 12 + n
    return w, h, len(set(zlib.decompress(idat)))


nb = nbformat.read(sys.argv[1], as_version=4)
try:
    NotebookClient(nb, timeout=CELL_LIMIT, kernel_name="python3").execute()
except CellExecutionError as e:
    check(False, "the notebook runs to the end:\n%s" % e)
    finish("notebook")

text, pictures, pages = "", {}, []
for cell in nb.cells:
    if cell.cell_type != "code":
        continue
    for out in cell.outputs:
        if out.output_type == "stream":
            text += out.text
        elif "data" in out and "image/png" in out.data:
            for tag in cell.metadata.get("tags", []):
                pictures[tag] = base64.b64decode(out.data["image/png"])
        if "data" in out and "text/html" in out.data and "interactive" in cell.metadata.get("tags", []):
            pages.append(out.data["text/html"])
# the interactive views: the page in the first only, each with its lesson and its PNG
check(len(pages) == 2, "the two cells tagged interactive show HTML: %d" % len(pages))
check([p.count('<script type="application/x-attnlab-page"') for p in pages] == [1, 0],
      "the page travels in the first interactive output only")
check(all('data-name="lesson.lesson" data-open' in p and "data:image/png;base64,iVBOR" in p for p in pages),
      "each interactive output carries its lesson and its stage's PNG")

for tag in PICTURES:
    if check(tag in pictures, "the cell tagged %s shows a PNG" % tag):
        w, h, distinct = png_pixels(pictures[tag])
        check((w, h) == (1280, 720), "%s: the PNG is 1280x720, found %dx%d" % (tag, w, h))
        check(distinct > 20, "%s: the PNG is not blank (%d distinct bytes)" % (tag, distinct))

for line in ("heads: 3  largest difference from torch:", "block 1: attention", "block 2: attention",
             "next-token probabilities:", "block 2 alone: attention", "block 1 without head 4:",
             "every head of every block in the model view:", "post-norm layer: output within"):
    check(line in text, "the notebook prints %r" % line)
finish("notebook")
