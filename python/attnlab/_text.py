"""Writing lesson text: tokens as the quoting rule wants them, numbers that
read back as the same doubles, matrices written out or kept in a .npz.

The format is docs/lesson-format.md. Numbers are written with repr(),
the shortest text that reads back as the same double, so the program
computes with exactly the values the notebook holds (a float32 tensor's
values are doubles exactly).
"""

import re

import numpy as np

# Matrices hold at most this many numbers written out in the lesson's text
# (a lesson is at most 1 MiB); beyond it the arrays go to a .npz beside it.
INLINE_NUMBERS = 35000
# A token list written on one line stays well under the 32768-byte line limit.
LINE_BYTES = 30000

_BARE = re.compile(r'[^\s"#\\]\S*\Z')


def token(t):
    """One token as a lesson writes it: bare when it can be, else quoted with
    \\" \\\\ and \\xHH for a quote, a backslash and a byte that is not text."""
    t = str(t)
    if t and _BARE.match(t) and t.isprintable():
        return t
    out = []
    for ch in t:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif not ch.isprintable() and ch != " ":
            out.extend("\\x%02X" % b for b in ch.encode("utf-8"))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def tokens(ts):
    """A token list: tokens separated by spaces."""
    return " ".join(token(t) for t in ts)


def as_array(a):
    """A numpy array of doubles from an array, a tensor or nested lists."""
    if hasattr(a, "detach"):                      # a torch tensor, without importing torch
        a = a.detach().cpu().double().numpy()
    a = np.asarray(a, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise ValueError("attnlab: a matrix holds NaN or infinity, which a lesson cannot")
    return a


def number(v):
    """A double as the shortest text that reads back as it."""
    s = repr(float(v))
    return "0" if s == "-0.0" else s


def rows(a):
    """The indented rows of a matrix written out: a 1-D array is one row, a
    3-D array (heads, rows, cols) a stack side by side."""
    if a.ndim == 1:
        a = a[None, :]
    if a.ndim == 3:
        a = np.concatenate(list(a), axis=1)
    return "".join("  " + " ".join(number(v) for v in row) + "\n" for row in a)


def matrix(name, a, npz=None):
    """`NAME = ...` for array a: written out, or loaded from npz (its file
    name) when it is given."""
    if npz is not None:
        return '%s = load "%s" %s\n' % (name, npz, name)
    head = "%s = stack %d\n" % (name, a.shape[0]) if a.ndim == 3 else "%s =\n" % name
    return head + rows(a)


def one_line(value, what, section=False):
    """A title or summary on one line, its spaces collapsed. Refused when the
    format would read part of it otherwise: " #" starts a comment on a
    setting line, "]" ends a section's title."""
    s = " ".join(str(value).split())
    if s.startswith("#") or " #" in s or (section and ("]" in s or "#" in s)):
        raise ValueError("attnlab: the %s %r cannot hold %s (a lesson would read it as %s)"
                         % (what, s, "']' or '#'" if section else "' #'", "the end of the section's title or a comment"
                            if section else "the start of a comment"))
    return s


def paragraphs(text):
    """Prose for a stage: each paragraph on one line, a blank line between."""
    out = []
    for para in str(text).strip().split("\n\n"):
        words = " ".join(para.split())
        if words[:1] in ("[", "#"):
            raise ValueError("attnlab: a paragraph cannot start with %r (a lesson reads it as a section or a "
                             "comment): %s" % (words[0], words[:40]))
        if words:
            out.append(words)
    return "\n\n".join(out)
