"""Writing lesson text: tokens as the quoting rule wants them, numbers that
read back as the same doubles, matrices written out or kept in a .npz, and
every other string from Python checked before it is spliced in.

The format is docs/lesson-format.md. Numbers are written with repr(),
the shortest text that reads back as the same double, so the program
computes with exactly the values the notebook holds (a float32 tensor's
values are doubles exactly).

No string from Python can add a line, a section or a comment to a lesson:
tokens are quoted with the format's escapes; titles, settings, names and
file names are refused (LessonError, naming the parameter) when they hold
what their place in the lesson would read otherwise: a line break, a
']' that ends a section's header, a '#' that starts a comment, a '"' that
ends a quoted file name; and everywhere what is not text at all (a lone
surrogate, a control character, a noncharacter), which the program refuses
in any lesson.
"""

import math
import numbers
import re
import unicodedata
import weakref

import numpy as np

from ._program import LessonError

# Matrices hold at most this many numbers written out in the lesson's text
# (a lesson is at most 1 MiB); beyond it the arrays go to a .npz beside it.
INLINE_NUMBERS = 35000
# A token list written on one line stays well under the 32768-byte line limit.
LINE_BYTES = 30000

_BARE = re.compile(r'[^\s"#\\]\S*\Z')
# What Python's str.splitlines() breaks a line at: a line break wherever it is written.
_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"
# Names, by kind: a matrix's (docs/lesson-format.md, "Matrices"), a setting's key, one word of a setting.
_NAMES = {
    "matrix": (re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}\Z"),
               "a matrix's name (letters, digits and '_', starting with a letter, at most 32 characters)"),
    "setting": (re.compile(r"[a-z][a-z0-9_]*\Z"), "a setting's name (lowercase letters, digits and '_', starting "
                                                    "with a letter)"),
    "word": (re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z"), "one word of letters, digits and '_'"),
}


def shown(value, limit=60):
    """A string as a message shows it: repr() (escapes, one line), its start when it is long."""
    return repr(value) if len(value) <= limit else repr(value[:limit]) + "..."


def _not_text(ch):
    """Why character ch cannot be in a lesson at all, or None: a lone
    surrogate, a control character (tab aside) or a noncharacter."""
    cp = ord(ch)
    if 0xD800 <= cp <= 0xDFFF:
        return "U+%04X, a lone surrogate (half of a UTF-16 pair, not text; it has no UTF-8 form)" % cp
    if unicodedata.category(ch) == "Cc" and ch != "\t" and ch not in _LINE_BREAKS:
        return "U+%04X, a control character" % cp
    if 0xFDD0 <= cp <= 0xFDEF or (cp & 0xFFFE) == 0xFFFE:
        return "U+%04X, a noncharacter" % cp
    return None


def text(value, what, lines=False):
    """value as a string, refused when it holds what no lesson can (see
    _not_text), or a line break unless lines (prose) allows them."""
    s = str(value)
    for i, ch in enumerate(s):
        why, then = _not_text(ch), ""
        if why is None and not lines and ch in _LINE_BREAKS:
            why, then = "a line break (U+%04X)" % ord(ch), "; it must be one line"
        if why:
            raise LessonError("attnlab: the %s %s holds %s at character %d%s" % (what, shown(s), why, i + 1, then))
    return s


def _comment_at(s):
    """Where a '#' starts a comment in a setting line's value (at its start
    or after a space or tab, outside "quotes", as the program strips it), or -1."""
    i = 0
    while i < len(s):
        if s[i] == '"':
            i += 1
            while i < len(s) and s[i] != '"':
                i += 2 if s[i] == "\\" else 1
            if i >= len(s):
                return -1               # an unclosed quote: the program reads no comment after it
        elif s[i] == "#" and (i == 0 or s[i - 1] in " \t"):
            return i
        i += 1
    return -1


def setting(value, what):
    """The value of a `key: value` line, written as given: one line of text
    with no '#' that would start a comment."""
    s = text(value, what)
    at = _comment_at(s)
    if at >= 0:
        raise LessonError("attnlab: the %s %s holds '#' at character %d, where a lesson reads the start of a "
                          "comment" % (what, shown(s), at + 1))
    return s


def name(value, what, kind, example=None):
    """value when it is a name of kind: "matrix" (a matrix's name),
    "setting" (a setting's key) or "word" (one word of a setting, such as
    gelu_tanh, mean, magma or pt_BR); else a LessonError naming what."""
    s = text(value, what)
    pattern, described = _NAMES[kind]
    if not pattern.match(s):
        raise LessonError("attnlab: %s: %s is not %s%s" % (what, shown(s), described,
                                                          " (such as %s)" % example if example else ""))
    return s


def file_name(value, what):
    """A .npz file's name as `load "NAME"` writes it: the format has no
    escapes there, so a '"' or a line break cannot be written."""
    s = text(value, what)
    if '"' in s or not s.endswith(".npz") or len(s.encode("utf-8")) > 1000:
        raise LessonError('attnlab: the %s %s cannot be written in a lesson\'s load "..." (a file name there holds '
                          'no \'"\', ends in .npz and is at most 1000 bytes); save under another name'
                          % (what, shown(s)))
    return s


def token_list(values, what):
    """A list of tokens as strings; a lone surrogate (which has no UTF-8
    form, so no lesson or .npz can hold it) is refused naming the token."""
    out = [str(t) for t in values]
    for i, t in enumerate(out):
        for ch in t:
            if 0xD800 <= ord(ch) <= 0xDFFF:
                raise LessonError("attnlab: %s: token %d, %s, holds U+%04X, a lone surrogate (half of a UTF-16 "
                                  "pair), which is not text; decode the tokenizer's bytes with errors='replace', "
                                  "or give them as bytes escaped \\xHH" % (what, i + 1, shown(t), ord(ch)))
    return out


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


_OWN = {}       # id -> weak reference: the module's own copies, which nothing outside it holds


def own(a):
    """Mark a, a copy only the module holds, as its own: read-only, and lent
    to the library as it is (is_own)."""
    a.flags.writeable = False
    key = id(a)
    _OWN[key] = weakref.ref(a, lambda _ref, key=key: _OWN.pop(key, None))
    return a


def is_own(a):
    """Whether a is one of the module's own copies (own), or a view of one:
    nothing can change its numbers."""
    while isinstance(a, np.ndarray):
        ref = _OWN.get(id(a))
        if ref is not None and ref() is a:
            return True
        a = a.base
    return False


def as_array(a, name=None):
    """A numpy array of numbers from an array, a tensor or nested lists:
    float32 stays float32 (each of its numbers is a double exactly, and
    the library reads a float32 matrix where it lies: no copy into
    doubles), any other kind becomes doubles. A tensor is copied, so that
    training the model later does not change the lesson; the copy is the
    module's own (read-only: own). One holding NaN or an infinity is refused,
    naming it (name: the parameter or the module's tensor,
    "attn.c_attn.weight") and the first such number's place."""
    if hasattr(a, "detach"):                      # a torch tensor, without importing torch
        a = a.detach().cpu()
        a = own((a.clone() if str(a.dtype) in ("torch.float32", "torch.float64") else a.double()).numpy())
    a = np.asarray(a)
    if a.dtype not in (np.float32, np.float64):
        a = a.astype(np.float64)
    if not np.all(np.isfinite(a)):
        at = tuple(int(i) for i in np.argwhere(~np.isfinite(a))[0])
        bad = a[at] if at else a
        raise ValueError("attnlab: %s holds %s%s, which a lesson cannot hold"
                         % (name or "a matrix", "NaN" if np.isnan(bad) else "an infinity",
                            " at %s" % list(at) if at else ""))
    return a


def batch_index(batch, count, what):
    """The sequence `batch` picks of count (numpy's index: 0 the first, -1
    the last), as an index from 0; past them, an IndexError that says so.
    None (not given) picks the only one, and is refused for a batch of
    several, saying how to pick one."""
    if batch is None:
        if count == 1:
            return 0
        raise ValueError("attnlab: %s holds a batch of %d sequences, and a lesson shows one: pick it with batch=0 "
                         "(the first) to batch=%d (the last)" % (what, count, count - 1))
    if not isinstance(batch, numbers.Integral) or not -count <= batch < count:
        raise IndexError("attnlab: batch=%r, but %s holds %d sequence%s: batch picks one as numpy indexes them, "
                         "batch=0 the first%s" % (batch, what, count, "" if count == 1 else "s",
                                                  "" if count == 1 else " to batch=%d the last" % (count - 1)))
    return int(batch) % count


def number(v, what="number"):
    """A double as the shortest text that reads back as it."""
    try:
        f = float(v)
    except (TypeError, ValueError):
        raise LessonError("attnlab: the %s %s is not a number" % (what, shown(str(v)))) from None
    if not math.isfinite(f):
        raise LessonError("attnlab: the %s is %r; a lesson holds finite numbers" % (what, f))
    s = repr(f)
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


def one_line(value, what, section=False, join=False):
    """A title or summary on one line, its spaces collapsed. Refused when it
    holds a line break (a summary's lines are joined instead, as the format
    joins them) or what the format would read otherwise: " #" starts a
    comment on a setting line, "]" ends a section's title."""
    s = text(value, what, lines=join)
    s = " ".join(s.split())
    if s.startswith("#") or " #" in s or (section and ("]" in s or "#" in s)):
        raise LessonError("attnlab: the %s %s cannot hold %s (a lesson would read it as %s)"
                          % (what, shown(s), "']' or '#'" if section else "' #'", "the end of the section's title or "
                             "a comment" if section else "the start of a comment"))
    return s


def paragraphs(value, what="text"):
    """Prose for a stage: each paragraph on one line, a blank line between,
    as the format reads prose (its lines joined, a blank line between
    paragraphs). A paragraph may not start with '[' or '#'."""
    out = []
    for para in re.split(r"\n\s*\n", text(value, what, lines=True).strip()):
        words = " ".join(para.split())
        if words[:1] in ("[", "#"):
            raise LessonError("attnlab: the %s's paragraph %d cannot start with %r (a lesson reads it as %s): %s"
                              % (what, len(out) + 1, words[0], "a section" if words[0] == "[" else "a comment",
                                 shown(words, 40)))
        if words:
            out.append(words)
    return "\n\n".join(out)
