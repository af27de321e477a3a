"""libattnlab through ctypes: the lesson parsed, computed and drawn in this
process, its arrays handed over in memory (no file, no program started).

The library is looked for as $ATTNLAB_LIB, the source tree's
build/lib/libattnlab.so.0, the installed one, then the system's; when
none loads (or ATTNLAB_NO_LIB is set), available() is False and the
module runs the attnlab program instead, which gives the same bytes.
"""

import ctypes
import ctypes.util
import os

import numpy as np

from . import _text

_HERE = os.path.dirname(os.path.abspath(__file__))

try:                                    # written by `make install`
    from . import _installed
except ImportError:                     # used from the source tree
    _installed = None

_ABI = 0


class _Error(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("line", ctypes.c_int), ("col", ctypes.c_int),
                ("file", ctypes.c_char * 1024), ("message", ctypes.c_char * 800), ("text", ctypes.c_char * 2048)]


class _Array(ctypes.Structure):
    _fields_ = [("file", ctypes.c_char_p), ("key", ctypes.c_char_p), ("dtype", ctypes.c_char_p),
                ("ndim", ctypes.c_int), ("shape", ctypes.POINTER(ctypes.c_int64)), ("data", ctypes.c_void_p),
                ("nbytes", ctypes.c_size_t)]


class _RenderOpts(ctypes.Structure):
    _fields_ = [("width", ctypes.c_int), ("height", ctypes.c_int), ("scale", ctypes.c_int), ("dark", ctypes.c_int),
                ("svg", ctypes.c_int), ("cmap", ctypes.c_char_p)]


def _candidates():
    """Where the library may be, in the order they are tried."""
    if os.environ.get("ATTNLAB_LIB"):
        yield os.path.abspath(os.environ["ATTNLAB_LIB"])
    yield os.path.join(_HERE, "..", "..", "build", "lib", "libattnlab.so.%d" % _ABI)   # the source tree
    if _installed is not None and getattr(_installed, "LIBDIR", None):
        yield os.path.join(_installed.LIBDIR, "libattnlab.so.%d" % _ABI)
    found = ctypes.util.find_library("attnlab")
    if found:
        yield found


def _declare(lib):
    """The functions' types (attnlab.h)."""
    P, I, S = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
    E = ctypes.POINTER(_Error)
    sig = {
        "attnlab_version": (ctypes.c_char_p, []),
        "attnlab_open": (P, [ctypes.c_char_p, S, ctypes.c_char_p, ctypes.POINTER(_Array), I, E]),
        "attnlab_open_lending": (P, [ctypes.c_char_p, S, ctypes.c_char_p, ctypes.POINTER(_Array), I, E]),
        "attnlab_close": (None, [P]),
        "attnlab_check": (I, [ctypes.c_char_p, S, ctypes.c_char_p, ctypes.POINTER(_Array), I, E]),
        "attnlab_stage_count": (I, [P]),
        "attnlab_stage_setup": (I, [P, I]),
        "attnlab_page_count": (I, [P, I, E]),
        "attnlab_page_name": (P, [P, I, I, E]),
        "attnlab_render": (I, [P, I, I, ctypes.POINTER(_RenderOpts), ctypes.POINTER(P), ctypes.POINTER(S), E]),
        "attnlab_dump": (I, [P, ctypes.c_char_p, ctypes.POINTER(P), ctypes.POINTER(S), E]),
        "attnlab_matrix": (I, [P, I, ctypes.c_char_p, ctypes.POINTER(I), ctypes.POINTER(I), ctypes.POINTER(P), E]),
        "attnlab_explain": (P, [P, I, ctypes.c_char_p, I, I, E]),
        "attnlab_free": (None, [P]),
    }
    for name, (res, args) in sig.items():
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args
    return lib


def _load():
    """The library, or None."""
    if os.environ.get("ATTNLAB_NO_LIB"):
        return None
    for path in _candidates():
        try:
            return _declare(ctypes.CDLL(os.path.normpath(path) if os.sep in path else path))
        except (OSError, AttributeError):
            continue
    return None


_lib = None
_tried = False


def library():
    """The loaded library (once per process), or None."""
    global _lib, _tried
    if not _tried:
        _lib, _tried = _load(), True
    return _lib


def available():
    """Whether the library is there to use."""
    return library() is not None


class Failed(Exception):
    """A call the library refused: its one line ("<stdin>:4:7: error: ...")."""

    def __init__(self, text):
        self.text = text
        super().__init__(text)


def _bytes(ptr, n):
    """n bytes at a pointer the library returned, copied; the pointer freed."""
    try:
        return ctypes.string_at(ptr, n) if n else b""
    finally:
        library().attnlab_free(ptr)


def _string(ptr):
    """The UTF-8 string at a pointer the library returned; the pointer freed."""
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        library().attnlab_free(ptr)


def _table(arrays, archive):
    """The arrays as the library takes them, and what must stay alive while
    it reads them. The library reads a float32 matrix where it lies for as
    long as the lesson is open: one the caller could still change (any
    array of theirs, given as it is) is copied first, so the lesson keeps
    the numbers it was given; the module's own copies (a tensor's,
    _text.own) and arrays made here are lent as they are."""
    kept, table = [], (_Array * max(len(arrays), 1))()
    for i, (key, given) in enumerate(arrays.items()):
        a = np.ascontiguousarray(given)
        if a is given and a.dtype == np.float32 and a.ndim == 2 and not _text.is_own(a):
            a = a.copy()
        shape = (ctypes.c_int64 * max(a.ndim, 1))(*a.shape)
        kept.append((a, shape))
        table[i] = _Array(archive.encode(), key.encode(), a.dtype.str.encode(), a.ndim, shape,
                          a.ctypes.data if a.size else None, a.nbytes)
    return table, kept


class Handle:
    """An open lesson in the library: parsed and computed once, then asked
    for pages, pictures, --dump's JSON and matrices."""

    def __init__(self, text, arrays, archive="arrays.npz"):
        lib = library()
        self._lib = lib
        table, kept = _table(arrays, archive)
        err = _Error()
        raw = text.encode("utf-8")
        # float32 matrices (a model's weights) are read where they lie while
        # the lesson is open, not copied into doubles: kept alive with it
        self._h = lib.attnlab_open_lending(raw, len(raw), b"-", table, len(arrays), ctypes.byref(err))
        self._lent = kept if self._h else None
        if not self._h:
            raise Failed(err.text.decode("utf-8", "replace"))

    def close(self):
        """Close the lesson (again is fine)."""
        if getattr(self, "_h", None):
            self._lib.attnlab_close(self._h)
            self._h = None
            self._lent = None

    __del__ = close

    def _check(self, ok, err):
        if not ok:
            raise Failed(err.text.decode("utf-8", "replace"))

    def stages(self):
        """How many stages the lesson has."""
        return self._lib.attnlab_stage_count(self._h)

    def stage_setup(self, stage):
        """The setup (from 1) stage `stage` shows."""
        return self._lib.attnlab_stage_setup(self._h, stage)

    def pages(self, stage):
        """The pages stage (from 1) takes on the slide."""
        err = _Error()
        n = self._lib.attnlab_page_count(self._h, stage, ctypes.byref(err))
        self._check(n >= 0, err)
        return n

    def page_name(self, stage, page):
        """The name --export gives a page ("heads", "h2-1"; "" for a stage of one page)."""
        err = _Error()
        p = self._lib.attnlab_page_name(self._h, stage, page, ctypes.byref(err))
        self._check(p, err)
        return _string(p)

    def render(self, stage, page, width, height, scale, dark, svg, cmap):
        """Page page of stage stage as PNG bytes or SVG bytes."""
        err, out, n = _Error(), ctypes.c_void_p(), ctypes.c_size_t()
        opts = _RenderOpts(width, height, scale, int(dark), int(svg), cmap.encode() if cmap else None)
        rc = self._lib.attnlab_render(self._h, stage, page, ctypes.byref(opts), ctypes.byref(out), ctypes.byref(n),
                                      ctypes.byref(err))
        self._check(rc == 0, err)
        return _bytes(out, n.value)

    def dump(self, stage=None):
        """--dump's JSON (every stage, or stage `stage`) as text."""
        err, out, n = _Error(), ctypes.c_void_p(), ctypes.c_size_t()
        chosen = str(stage).encode() if stage is not None else None
        rc = self._lib.attnlab_dump(self._h, chosen, ctypes.byref(out), ctypes.byref(n), ctypes.byref(err))
        self._check(rc == 0, err)
        return _bytes(out, n.value).decode("utf-8")

    def matrix(self, stage, name):
        """The matrix called name in stage's setup, as a float64 array."""
        err, rows, cols, out = _Error(), ctypes.c_int(), ctypes.c_int(), ctypes.c_void_p()
        rc = self._lib.attnlab_matrix(self._h, stage, name.encode("utf-8"), ctypes.byref(rows), ctypes.byref(cols),
                                      ctypes.byref(out), ctypes.byref(err))
        self._check(rc == 0, err)
        data = _bytes(out, 8 * rows.value * cols.value)
        return np.frombuffer(data, dtype=np.float64).reshape(rows.value, cols.value).copy()

    def explain(self, stage, name, row, col):
        """The arithmetic behind a cell (from 1), as lines of text."""
        err = _Error()
        p = self._lib.attnlab_explain(self._h, stage, name.encode("utf-8"), row, col, ctypes.byref(err))
        self._check(p, err)
        return _string(p)
