"""attnlab.Interactive: the browser edition (attnlab.html, one offline file)
with a lesson inside, in a notebook's output or saved as a page.

In a notebook the page travels once: the first interactive output of a
kernel carries it (deflated, in base64, about 0.8 MB), every output carries
only its lesson, and a small script in each output builds a sandboxed frame
from the page and the lesson. The frame needs only `allow-scripts` (it is
drawn the same inside Jupyter's and VS Code's own sandboxed frames); where
scripts do not run (an untrusted notebook, a static viewer) the output
shows the stage's PNG. The arrays travel as float32 (float16 when asked).
"""

import base64
import hashlib
import html
import io
import json
import os
import sys
import zlib

import numpy as np

from . import _program, _save

# The pages carried into this kernel's outputs so far, by key: a later
# output of the same page relies on the one that carried it.
_carried = set()
# The browser edition's text, its deflated base64 and its key, by (path, size, mtime).
_pages = {}
# Past this many numbers a page's arrays travel in a .npz (4 or 2 bytes a
# number) rather than written out in the lesson (about 20).
INLINE = 2048
# The dtypes the arrays may travel in, and the largest number each holds.
DTYPES = {"float32": float(np.finfo(np.float32).max), "float16": float(np.finfo(np.float16).max)}

# The script each output runs: find the page (in this document, carried by
# this output or an earlier one, or already read by one), and draw the
# lesson in a sandboxed frame; until the page is there, say where it is.
_LOADER = r"""(function () {
  var box = document.currentScript.parentNode, key = %(key)s, height = %(height)d;
  var pages = window.attnlabPages || (window.attnlabPages = {});
  function say(text) {
    var n = box.querySelector('.attnlab-note');
    n.textContent = text;
    n.style.display = text ? '' : 'none';
  }
  function bytes(s) {
    var b = atob(s.trim()), out = new Uint8Array(b.length);
    for (var i = 0; i < b.length; i++) out[i] = b.charCodeAt(i);
    return out;
  }
  function page() {
    if (pages[key]) return pages[key];
    var el = document.querySelector('script[type="application/x-attnlab-page"][data-key="' + key + '"]');
    if (!el) return null;
    if (typeof DecompressionStream === 'undefined')
      return (pages[key] = Promise.reject(new Error('this browser has no DecompressionStream to unpack it')));
    var s = new Blob([bytes(el.textContent)]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
    return (pages[key] = new Response(s).text());
  }
  function draw(text) {
    var files = '';
    box.querySelectorAll('script[type="application/x-attnlab-file"]').forEach(function (s) { files += s.outerHTML + '\n'; });
    var at = text.indexOf('<body');
    at = at < 0 ? 0 : text.indexOf('>', at) + 1;
    var frame = document.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts allow-downloads');
    frame.setAttribute('title', box.getAttribute('data-title'));
    frame.style.cssText = 'display: block; width: 100%%; height: ' + height + 'px; border: 0';
    frame.srcdoc = text.slice(0, at) + '\n' + files + text.slice(at);
    var still = box.querySelector('.attnlab-still');
    if (still) still.remove();
    say('');
    box.appendChild(frame);
  }
  function failed(e) { say('attnlab: the interactive page could not be unpacked: ' + e.message); }
  var p = page();
  if (p) { p.then(draw, failed); return; }
  say(%(waiting)s);
  var watch = new MutationObserver(function () {
    var p = page();
    if (p) { watch.disconnect(); p.then(draw, failed); }
  });
  watch.observe(document.documentElement, { childList: true, subtree: true });
})();"""

_WAITING = ("The interactive page travels once per notebook, in the first output of .interactive() since the "
            "kernel started, and that output is not on this page (cleared, or not drawn yet). Run "
            ".interactive(carry=True) to carry it in this output.")


def _in_colab():
    """Whether this kernel runs in Colab, which draws each output in a frame of its own."""
    return "google.colab" in sys.modules


def edition():
    """The browser edition's text, its deflated bytes in base64 and a key
    naming that very page (its version and a digest): read once."""
    path = _program.browser_edition()
    st = os.stat(path)
    known = _pages.get((path, st.st_size, st.st_mtime_ns))
    if known is None:
        with open(path, "rb") as f:
            raw = f.read()
        z = zlib.compressobj(9, zlib.DEFLATED, -15)
        packed = base64.b64encode(z.compress(raw) + z.flush()).decode("ascii")
        known = (raw.decode("utf-8"), packed, "attnlab-" + hashlib.sha256(raw).hexdigest()[:16])
        _pages.clear()
        _pages[(path, st.st_size, st.st_mtime_ns)] = known
    return known


class Interactive:
    """The browser edition with a lesson inside: shown in a notebook's
    output as a sandboxed frame (no network, no server), saved with
    save("x.html") as one page that opens on its own.

    dtype: "float32" (the default) or "float16", how the lesson's arrays
    travel (half the bytes; numbers past 65504 are refused). carry: None
    (the page travels in the kernel's first interactive output only; in
    every output in Colab), True (in this output) or False (never)."""

    def __init__(self, lesson, stage, height=640, dtype="float32", carry=None):
        if dtype not in DTYPES:
            raise ValueError("attnlab: interactive(dtype=%r): the arrays travel as %s" % (dtype, " or ".join(DTYPES)))
        if carry not in (None, True, False):
            raise ValueError("attnlab: interactive(carry=%r): carry is None, True or False" % (carry,))
        self.lesson, self.stage, self.height, self.dtype, self.carry = lesson, stage, int(height), dtype, carry

    def files(self):
        """The files the page carries: [(name, bytes, opened first)]: the
        lesson, and its arrays in a .npz when it needs one."""
        out = [("lesson.lesson", self.lesson.lesson_text("arrays.npz", INLINE).encode("utf-8"), True)]
        if self.lesson._needs_npz(INLINE):
            out.append(("arrays.npz", self._npz(), False))
        return out

    def _npz(self):
        """The lesson's arrays as a .npz, the floating ones as self.dtype."""
        arrays, top = {}, DTYPES[self.dtype]
        for key, a in self.lesson._arrays().items():
            if a.dtype.kind == "f" and a.dtype.itemsize > np.dtype(self.dtype).itemsize:
                finite = a[np.isfinite(a)]
                if finite.size and float(np.abs(finite).max()) > top:
                    raise ValueError("attnlab: interactive(dtype=%r): %s holds %g, past what %s holds (%g); use "
                                     "dtype=\"float32\"" % (self.dtype, key.split("_", 1)[1],
                                                           float(np.abs(finite).max()), self.dtype, top))
                a = a.astype(self.dtype)
            arrays[key] = a
        f = io.BytesIO()
        np.savez(f, **arrays)
        return f.getvalue()

    def _carried(self):
        """The files as the page's <script> elements, the lesson marked to open at this stage."""
        return "".join('<script type="application/x-attnlab-file" data-name="%s"%s>%s</script>\n'
                       % (name, ' data-open data-link="stage=%d"' % self.stage if first else "",
                          base64.b64encode(data).decode("ascii"))
                       for name, data, first in self.files())

    def page(self):
        """The page: attnlab.html with the lesson (and its arrays) inside."""
        text = edition()[0]
        at = text.find("<body")
        at = text.find(">", at) + 1 if at >= 0 else 0
        return text[:at] + "\n" + self._carried() + text[at:]

    def _repr_html_(self):
        """The notebook's output: the stage's PNG, the page when this output
        carries it, the lesson, and the script that draws them in a frame."""
        _, packed, key = edition()
        carry = self.carry if self.carry is not None else (key not in _carried or _in_colab())
        title = "%s, stage %d (attnlab)" % (self.lesson.title, self.stage)
        files = self._carried()
        still = base64.b64encode(self.lesson.slide(self.stage).png()).decode("ascii")
        out = ['<div class="attnlab-interactive" data-title="%s" style="min-height: %dpx">\n'
               % (html.escape(title, quote=True), min(self.height, 120)),
               '<img class="attnlab-still" alt="%s" style="max-width: 100%%" src="data:image/png;base64,%s">\n'
               % (html.escape(title, quote=True), still),
               '<p class="attnlab-note" style="display: none; font: 14px sans-serif"></p>\n']
        if carry:
            out.append('<script type="application/x-attnlab-page" data-key="%s">%s</script>\n' % (key, packed))
        out.append(files)
        out.append("<script>%s</script>\n</div>\n" % (_LOADER % {"key": json.dumps(key), "height": self.height,
                                                                  "waiting": json.dumps(_WAITING)}))
        if carry:
            _carried.add(key)
        return "".join(out)

    def save(self, path):
        """Write the page, lesson inside, as one .html file (written whole or
        not at all; another extension is refused)."""
        path = os.fspath(path)
        _save.extension(path, "Interactive.save()", _save.PAGE)
        return _save.write([(path, _save.page(self, "Interactive.save()"))])

    def lesson_text(self):
        return self.lesson.lesson_text()

    def dump(self):
        return self.lesson.dump()

    def __repr__(self):
        return "<attnlab.Interactive stage %d of %r>" % (self.stage, self.lesson.title)
