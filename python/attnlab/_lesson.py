"""attnlab.Lesson: a lesson built from arrays, its stages drawn by attnlab's core.

A Lesson is a list of setups (tokens, the input X, projections, heads,
masks, positions, the rest of a transformer block) and of stages, each
shown with the setup above it, exactly as a lesson file is
(docs/lesson-format.md). Its text is what .lesson_text() returns and what
the window opens; every picture and number comes from libattnlab given
that text and the arrays (in this process: _library.py), or, without the
library, from the attnlab program.
"""

import copy
import io
import json
import os
import re
import tempfile

import numpy as np

from . import _args, _interactive, _library, _program, _save, _text

# The matrix each keyword of Lesson.setup becomes, by keyword.
_MATRIX_NAMES = {
    "X": "X", "Y": "Y", "W_q": "W_q", "W_k": "W_k", "W_v": "W_v", "b_q": "b_q", "b_k": "b_k", "b_v": "b_v",
    "W_o": "W_o", "b_o": "b_o",
}
# The stage kinds, in the program's order (src/core/stage/stage_table.c): the
# names a [STAGE_ID] section may have. tests/check_python.py compares them
# with the list the program gives for an unknown section.
STAGES = ("embeddings", "raw_scores", "scaled_scores", "softmax", "weighted_sum", "qkv_projection", "multi_head",
          "causal_mask", "entropy", "cross_attention", "additive_scores", "per_token", "positional_encoding", "rope",
          "alibi", "grouped_query", "kv_cache", "online_softmax", "layer_norm", "mlp", "next_token", "compare",
          "model_view")
# Stage options a stage may set (docs/lesson-format.md, "Stages"), in the
# program's order (compared with its list by tests/check_python.py too).
_STAGE_OPTIONS = ("cmap", "decimals", "head", "query", "scale", "block", "indices", "top", "show", "a", "b")
# The formats a Lesson draws (inline, and a stage at a time).
_FORMATS = ("png", "svg")


def _norm(value, gamma, beta, key, setup):
    """A layer norm given as (γ, β) or (γ, β, ε): its two rows as matrices and its key."""
    if value is None:
        return
    g, b = value[0], value[1]
    eps = value[2] if len(value) > 2 else None
    setup["matrices"][gamma] = _text.as_array(g).reshape(1, -1)
    setup["matrices"][beta] = _text.as_array(b).reshape(1, -1)
    eps = "" if eps is None else " eps %s" % _text.number(eps, key + "'s ε")
    setup["settings"][key] = "%s %s%s" % (gamma, beta, eps)


def _affine(value, w, b, setup):
    """A weight and its optional bias, (W, b) or W: their names joined as the format writes them."""
    if isinstance(value, (tuple, list)) and len(value) == 2 and value[1] is not None:
        setup["matrices"][w] = _text.as_array(value[0])
        setup["matrices"][b] = _text.as_array(value[1]).reshape(1, -1)
        return "%s + %s" % (w, b)
    setup["matrices"][w] = _text.as_array(value[0] if isinstance(value, (tuple, list)) else value)
    return w


def _format(fmt):
    """A format a Lesson draws inline, png or svg; another is refused."""
    if fmt not in _FORMATS:
        raise _program.LessonError("attnlab: the format %s is not one a Lesson draws: png or svg (a PDF handout: "
                                   "Lesson.save('x.pdf'))" % _text.shown(str(fmt)))
    return fmt


def _stage_kind(kind):
    """Refuse a stage kind the program does not have (LessonError naming
    the closest), and "setup", which would start a setup."""
    if kind in STAGES:
        return
    if kind == "setup":
        raise _program.LessonError("attnlab: the stage kind 'setup' starts a setup, not a stage; add one with "
                                   "Lesson.setup()")
    shown = _text.shown(str(kind))
    near = _args.closest(kind, STAGES) if isinstance(kind, str) else None
    raise _program.LessonError("attnlab: unknown stage kind %s%s (the stages: %s)"
                               % (shown, "; did you mean %r?" % near if near else "", ", ".join(STAGES)))


class Lesson:
    """A lesson built from arrays. Add setups and stages, then show a stage
    (it renders inline in Jupyter, as a PNG unless format="svg"), or take
    its text, its numbers (dump) or any slide.

        les = attnlab.Lesson("Self-attention on three words")
        les.setup(["the", "cat", "sat"], X, W_q=Wq, W_k=Wk, W_v=Wv, heads=1)
        les.stage("qkv_projection").stage("softmax", text="Each row sums to 1.")
        les                       # the first stage, drawn
        les.slide(2).save("softmax.png")

    size, theme ("light" or "dark"), cmap and scale are the export's
    options (attnlab --export); format "png" or "svg" the inline picture;
    shown is the stage a bare Lesson draws.
    """

    @_args.checked()
    def __init__(self, title="attnlab", summary=None, language=None, *, size=(1280, 720), theme="light", cmap=None,
                 scale=1, format="png", shown=1):
        self.title, self.summary, self.language = title, summary, language
        self.size, self.theme, self.cmap, self.scale, self.format, self.shown = size, theme, cmap, scale, format, shown
        self._top()                         # refused now, not when the lesson is drawn
        self._export_args(_format(format))
        self._sections = []                 # ("setup", dict) and ("stage", dict), in file order
        self._cache = {}

    # ------------------------------------------------------------ building

    @_args.checked()
    def setup(self, tokens=None, X=None, *, title=None, query_tokens=None, key_tokens=None, Y=None,
              W_q=None, W_k=None, W_v=None, b_q=None, b_k=None, b_v=None, W_o=None, b_o=None,
              queries=None, keys=None, values=None, heads=None, kv_heads=None, mask=None, positions=None,
              score=None, divisor=None, temperature=None, layer_norm=None, mlp=None, mlp_norm=None,
              unembed=None, final_norm=None, vocab=None, ablate=None, residual=None, attention=None,
              norm_order=None, seed=None, dims=None, matrices=None, settings=None):
        """Start a setup. Like a [setup] section, it starts from a copy of the
        one above and changes only what it is given.

        tokens (or query_tokens and key_tokens), X (and Y for the keys of
        cross-attention); W_q, W_k, W_v with biases b_q, b_k, b_v (rows)
        make queries, keys and values X @ W + b (or give queries=, keys=,
        values= as the format writes them); a weight may be a (heads,
        d_model, d_head) stack. W_o and b_o: the output projection. mask:
        "causal" (or any value of `mask:`), or a matrix of 1 (may attend)
        and 0 (blocked). layer_norm, mlp_norm, final_norm: (γ, β) or
        (γ, β, ε); norm_order: "pre" (before attention and the MLP, GPT-2's
        order) or "post" (after each residual add, BERT's). mlp: (W_in, b_in,
        activation, W_out, b_out), the
        activation "relu", "gelu" or "gelu_tanh". unembed: W_U or (W_U, b_U)
        with vocab the word of each column. ablate: heads to switch off
        (from 1), or (heads, "mean"). attention: given weights, (heads,
        queries, keys). matrices: more named matrices; settings: more
        `key: value` lines, as written.
        """
        # Every string is checked here, so that a lesson is refused when it is
        # made, not when it is drawn, and none can add a line to its text.
        if title is not None:
            title = _text.one_line(title, "setup's title", True)
        s = {"title": title, "settings": {}, "matrices": {}, "tokens": {}}
        for key, value in (("tokens", tokens), ("query_tokens", query_tokens), ("key_tokens", key_tokens),
                           ("vocab", vocab), ("dims", dims)):
            if value is not None:
                s["tokens"][key] = _text.token_list(value, key)
        given = {"X": X, "Y": Y, "W_q": W_q, "W_k": W_k, "W_v": W_v, "b_q": b_q, "b_k": b_k, "b_v": b_v,
                 "W_o": W_o, "b_o": b_o}
        for key, value in given.items():
            if value is not None:
                a = _text.as_array(value)
                s["matrices"][_MATRIX_NAMES[key]] = a.reshape(1, -1) if key.startswith("b_") else a
        for role, w, b, given_expr in (("queries", W_q, b_q, queries), ("keys", W_k, b_k, keys),
                                       ("values", W_v, b_v, values)):
            if given_expr is not None:
                s["settings"][role] = _text.setting(given_expr, role)
            elif w is not None:
                source = "Y" if role != "queries" and (Y is not None or key_tokens is not None) else "X"
                bias = {"queries": "b_q", "keys": "b_k", "values": "b_v"}[role]
                s["settings"][role] = "%s @ %s%s" % (source, "W_" + role[0], " + " + bias if b is not None else "")
        if W_o is not None:
            s["settings"]["output"] = "W_o + b_o" if b_o is not None else "W_o"
        if mask is not None:
            if isinstance(mask, str):
                s["settings"]["mask"] = _text.setting(mask, "mask")
            else:
                s["matrices"]["M"] = (_text.as_array(mask) != 0).astype(np.float64)
                s["settings"]["mask"] = "allow M"
        _norm(layer_norm, "ln1_g", "ln1_b", "layer_norm", s)
        _norm(mlp_norm, "ln2_g", "ln2_b", "mlp_norm", s)
        _norm(final_norm, "lnf_g", "lnf_b", "final_norm", s)
        if mlp is not None:
            w_in, b_in, act, w_out, b_out = mlp
            act = _text.name(act, "mlp activation", "word", "relu, gelu or gelu_tanh")
            first = _affine((w_in, b_in), "W_in", "b_in", s)
            second = _affine((w_out, b_out), "W_out", "b_out", s)
            s["settings"]["mlp"] = "%s %s %s" % (first, act, second)
        if unembed is not None:
            s["settings"]["unembed"] = _affine(unembed, "W_U", "b_U", s)
        if attention is not None:
            a = _text.as_array(attention)
            if a.ndim == 4 and a.shape[0] == 1:
                a = a[0]
            s["matrices"]["A"] = a
            s["settings"]["attention"] = "A"
        if ablate is not None:
            heads_off, how = (ablate, None) if not (isinstance(ablate, tuple) and isinstance(ablate[1], str)) \
                else ablate
            heads_off = [heads_off] if isinstance(heads_off, int) else list(heads_off)
            how = _text.name(how, "ablate mode", "word", "zero or mean") if how else None
            s["settings"]["ablate"] = " ".join(str(int(h)) for h in heads_off) + (" " + how if how else "") \
                if heads_off else "none"
        for key, value in (("heads", heads), ("kv_heads", kv_heads), ("positions", positions), ("score", score),
                           ("seed", seed)):
            if value is not None:
                s["settings"][key] = _text.setting(value, key)
        for key, value in (("divisor", divisor), ("temperature", temperature)):
            if value is not None:       # a number, or an expression as the format writes it ("sqrt(8)")
                s["settings"][key] = _text.setting(value, key) if isinstance(value, str) else _text.number(value, key)
        if residual is not None:
            s["settings"]["residual"] = "yes" if residual else "no"
        if norm_order is not None:
            s["settings"]["norm_order"] = _text.name(norm_order, "norm_order", "word", "pre or post")
        for name, value in (matrices or {}).items():
            s["matrices"][_text.name(name, "matrices", "matrix")] = _text.as_array(value)
        for key, value in (settings or {}).items():
            s["settings"][_text.name(key, "settings", "setting")] = _text.setting(value, "settings' %s" % key)
        self._sections.append(("setup", s))
        self._cache.clear()
        return self

    def stage(self, kind, title=None, text=None, **options):
        """Add a stage of the setup above: kind is its id ("softmax",
        "multi_head", "next_token", ...; STAGES lists them), text its
        explanation (paragraphs separated by blank lines), options its stage
        options (head=2, top=5, decimals=3, cmap="magma", indices=True, ...;
        None leaves one out)."""
        _args.refuse_unknown("Lesson.stage()", options, _STAGE_OPTIONS, "a stage's options")
        _stage_kind(kind)
        if not any(k == "setup" for k, _ in self._sections):
            raise ValueError("attnlab: add a setup before its stages (Lesson.setup)")
        text = _text.paragraphs(text) if text is not None else None     # refused now, not when drawn
        if title is not None:
            title = _text.one_line(title, "stage's title", True)
        written = {k: "yes" if v is True else "no" if v is False else _text.setting(v, k)
                   for k, v in options.items() if v is not None}
        self._sections.append(("stage", {"kind": kind, "title": title, "text": text, "options": written}))
        self._cache.clear()
        return self

    @property
    def stages(self):
        """The ids of the stages, in order."""
        return [s["kind"] for kind, s in self._sections if kind == "stage"]

    # ---------------------------------------------------------------- text

    def _numbers(self):
        """How many numbers the matrices of every setup hold."""
        return sum(a.size for kind, s in self._sections if kind == "setup" for a in s["matrices"].values())

    def _needs_npz(self, inline=_text.INLINE_NUMBERS):
        """Whether the arrays go to a .npz beside the lesson: more than inline
        numbers to write out, or a token list too long for a line."""
        if self._numbers() > inline:
            return True
        return any(len(_text.tokens(ts).encode("utf-8")) > _text.LINE_BYTES
                   for kind, s in self._sections if kind == "setup" for ts in s["tokens"].values())

    def _arrays(self):
        """The arrays of a .npz for the lesson: each setup's matrices and token lists, keyed s<N>_<name>."""
        out, n = {}, 0
        for kind, s in self._sections:
            if kind != "setup":
                continue
            n += 1
            for name, a in s["matrices"].items():
                out["s%d_%s" % (n, name)] = a
            for key, ts in s["tokens"].items():
                kept = np.array(ts)
                for i, (t, k) in enumerate(zip(ts, kept.tolist())):
                    if t != k:              # numpy's strings drop trailing NULs
                        raise _program.LessonError("attnlab: %s: token %d, %s, ends in U+0000, which a .npz of "
                                                   "strings cannot keep" % (key, i + 1, _text.shown(t)))
                out["s%d_%s" % (n, key)] = kept
        return out

    def _npz(self):
        """The bytes of the .npz that holds the lesson's arrays."""
        f = io.BytesIO()
        np.savez(f, **self._arrays())
        return f.getvalue()

    def _top(self):
        """The lines at the top of the lesson: title, summary and language, checked."""
        out = ["title: %s\n" % _text.one_line(self.title, "title")]
        if self.summary:
            out.append("summary: %s\n" % _text.one_line(self.summary, "summary", join=True))
        if self.language:
            out.append("language: %s\n" % _text.name(self.language, "language", "word", "ja or pt_BR"))
        return out

    def lesson_text(self, npz="arrays.npz", inline=_text.INLINE_NUMBERS):
        """The lesson as text, as the window opens it. When its arrays hold
        more than inline numbers, they are loaded from npz (save() writes
        both)."""
        use_npz = self._needs_npz(inline)
        if use_npz:
            npz = _text.file_name(npz, ".npz file name")
        out = self._top()
        n = 0
        for kind, s in self._sections:
            out.append("\n")
            if kind == "setup":
                n += 1
                out.append("[setup: %s]\n" % s["title"] if s["title"] else "[setup]\n")
                for key, ts in s["tokens"].items():
                    line = "%s: %s\n" % (key, _text.tokens(ts))
                    out.append('%s = load "%s" s%d_%s\n' % (key, npz, n, key) if use_npz else line)
                for name, a in s["matrices"].items():
                    if use_npz:
                        out.append('%s = load "%s" s%d_%s\n' % (name, npz, n, name))
                    else:
                        out.append(_text.matrix(name, a))
                for key, value in s["settings"].items():
                    out.append("%s: %s\n" % (key, value))
            else:
                out.append("[%s%s]\n" % (s["kind"], ": " + s["title"] if s["title"] else ""))
                for key, value in s["options"].items():
                    out.append("%s: %s\n" % (key, value))
                if s["text"]:
                    out.append("\n" + s["text"] + "\n")
        return "".join(out)

    def save(self, path):
        """Save by the name's extension: .lesson (with its .npz beside it
        when the arrays do not fit in the text), the shown stage as .png or
        .svg, the handout (every stage, a page each) as .pdf, or the
        interactive page as .html (which needs the browser edition). The
        file is written whole or not at all; another extension is refused."""
        path = os.fspath(path)
        ext = _save.extension(path, "Lesson.save()", _save.LESSON)
        if ext == ".lesson":
            files = []
            npz = os.path.splitext(os.path.basename(path))[0] + ".npz"
            text = self.lesson_text(npz)
            if self._needs_npz():
                files.append((os.path.join(os.path.dirname(path), npz), self._npz()))
            return _save.write(files + [(path, text.encode("utf-8"))])
        if ext == ".pdf":
            return _save.write([(path, self._handout())])
        return self.slide(self.shown)._write(path, ext, "Lesson.save()")

    # ------------------------------------------------------------- running

    def _arrays_into(self, d):
        """Write the lesson's arrays to d/arrays.npz when they go to a .npz."""
        if self._needs_npz():
            with open(os.path.join(d, "arrays.npz"), "wb") as f:
                f.write(self._npz())

    def _handle(self):
        """The lesson open in libattnlab, parsed and computed once and kept
        until the lesson changes; None where the library is not there (the
        program is run instead)."""
        if not _library.available():
            return None
        if "handle" not in self._cache:
            text = self.lesson_text("arrays.npz")
            try:
                self._cache["handle"] = _library.Handle(text, self._arrays() if self._needs_npz() else {})
            except _library.Failed as e:
                raise _refused(text, e) from None
        return self._cache["handle"]

    def check(self):
        """Refuse the lesson now where the program would (its shapes, its
        limits and budgets: a matrix wider than 4096, more work than the
        budget, ...): a LessonError with the program's line. Returns the
        lesson. With the library, the lesson is opened there (parsed once,
        its arrays read once, computed) and kept for every picture and
        number asked after; without it, the program checks it."""
        if _library.available():
            self._handle()
        else:
            self._run(["--check", "-"])
        return self

    def _library_options(self):
        """The export's options as the library takes them, refused with the
        program's own words where the program would refuse them."""
        def refuse(what, takes, value):
            raise _program.LessonError("attnlab: error: --%s takes %s, found '%s' (see attnlab --help)"
                                       % (what, takes, value))
        theme = _text.name(self.theme, "theme", "word", "light or dark")
        if theme not in ("light", "dark"):
            refuse("theme", "light or dark", theme)
        if str(self.scale) not in ("1", "2", "3", "4"):
            refuse("scale", "1, 2, 3 or 4", self.scale)
        try:
            w, h = (int(v) for v in self.size)
        except (TypeError, ValueError):
            w = h = 0
        if not (200 <= w <= 8192 and 150 <= h <= 8192):
            refuse("size", "WxH between 200x150 and 8192x8192", "x".join(str(v) for v in tuple(self.size)))
        cmap = _text.name(self.cmap, "cmap", "word", "magma") if self.cmap else None
        return w, h, int(self.scale), theme == "dark", cmap

    def _library_call(self, fn):
        """fn(handle), a refusal as a LessonError."""
        try:
            return fn(self._handle())
        except _library.Failed as e:
            raise _refused(self.lesson_text("arrays.npz"), e) from None

    def _run(self, args):
        """Run attnlab on the lesson (from standard input), with its arrays in
        a temporary directory when they go to a .npz; its output."""
        if not self._needs_npz():
            return _program.run(args, self.lesson_text())
        with tempfile.TemporaryDirectory(prefix="attnlab-") as d:
            self._arrays_into(d)
            return _program.run(args, self.lesson_text("arrays.npz"), cwd=d)

    def _handout(self):
        """The lesson as a PDF handout, a page per stage (attnlab --export
        DIR --format pdf), as bytes."""
        with tempfile.TemporaryDirectory(prefix="attnlab-") as d:
            self._arrays_into(d)
            out = os.path.join(d, "out")
            _program.run(["--export", out] + self._export_args("pdf") + ["-"], self.lesson_text("arrays.npz"), cwd=d)
            (name,) = os.listdir(out)
            with open(os.path.join(out, name), "rb") as f:
                return f.read()

    def _export_args(self, fmt):
        """The options of an export (each as --option=VALUE, so that no value
        reads as an option), its strings checked."""
        assert fmt in _FORMATS + ("pdf",)
        args = ["--format=" + fmt, "--size=%dx%d" % tuple(self.size),
                "--theme=" + _text.name(self.theme, "theme", "word", "light or dark"), "--scale=" + str(self.scale)]
        return args + (["--cmap=" + _text.name(self.cmap, "cmap", "word", "magma")] if self.cmap else [])

    def heads(self):
        """Every head of every layer on one picture, as a Slide: the
        lesson's model_view stage (the last setup and every one above it
        with its tokens and number of heads, a row of heads each; BertViz's
        model view), or, when it has none, the same lesson with one added
        after its last setup (this lesson is left as it is)."""
        for k, kind in enumerate(self.stages, 1):
            if kind == "model_view":
                return self.slide(k)
        les = copy.copy(self)
        les._sections = list(self._sections)
        les._cache = {}
        les.stage("model_view")
        return les.slide(len(les.stages))

    def pages(self, stage=None):
        """The pages stage `stage` (from 1; the shown one by default) takes on
        the slide, by the names --export gives their files: "heads" (every
        head side by side), "h2-1" (head 2, part 1), "t3" (token 3), ...;
        [""] for a stage of one page. slide(stage, step=NAME) draws one."""
        stage = self._stage_number(self.shown if stage is None else stage)
        if self._handle() is not None:
            n = self._library_call(lambda l: l.pages(stage))
            return [self._library_call(lambda l: l.page_name(stage, p)) for p in range(1, n + 1)]
        with tempfile.TemporaryDirectory(prefix="attnlab-") as d:
            out = os.path.join(d, "out")
            self._arrays_into(d)
            _program.run(["--export", out, "--stage", str(stage)] + self._export_args("svg") + ["-"],
                         self.lesson_text("arrays.npz"), cwd=d)
            files = sorted(os.listdir(out))
        # <lesson>-NN-<stage>-SS-<page>.svg
        return [""] if len(files) == 1 else [re.match(r"^.*-\d\d+-[a-z_]+-\d\d+-(.*)\.svg$", f).group(1) for f in files]

    def _page_number(self, stage, step):
        """A page given by its number (from 1) or its name (pages())."""
        if not isinstance(step, str):
            return step
        names = self.pages(stage)
        if step not in names or not step:
            raise KeyError("attnlab: stage %d has no page %r; its pages are %s" % (stage, step, ", ".join(
                repr(n) for n in names) if names != [""] else "one, without a name"))
        return names.index(step) + 1

    def picture(self, stage=None, fmt=None, step=None):
        """Stage stage (from 1; the shown one by default) as PNG bytes or SVG
        text. A stage of several pages (its heads, parts, tokens or blocks)
        draws page step (from 1, or by its name in pages(); the first by
        default: for a stage of several heads, every head side by side)."""
        stage = self._stage_number(self.shown if stage is None else stage)
        step = self._page_number(stage, step)
        fmt = _format(fmt or self.format)
        key = ("picture", stage, fmt, step, tuple(self.size), self.theme, self.cmap, self.scale)
        if key not in self._cache and self._handle() is not None:
            w, h, scale, dark, cmap = self._library_options()
            pages = self._library_call(lambda l: l.pages(stage))
            page = 1 if step is None else step
            if not 1 <= page <= pages:
                raise IndexError("attnlab: stage %d has no step %r: its %d sub-step%s count from 1"
                                 % (stage, step, pages, "" if pages == 1 else "s"))
            data = self._library_call(lambda l: l.render(stage, page, w, h, scale, dark, fmt == "svg", cmap))
            self._cache[key] = data.decode("utf-8") if fmt == "svg" else data
        if key not in self._cache:
            if step is None:
                try:
                    data = self._run(["--export", "-", "--stage", str(stage)] + self._export_args(fmt) + ["-"])
                except _program.LessonError as e:
                    if "sub-step" not in e.message:
                        raise
                    data = self._step_picture(stage, fmt, 1)
            else:
                data = self._step_picture(stage, fmt, step)
            self._cache[key] = data.decode("utf-8") if fmt == "svg" else data
        return self._cache[key]

    def _step_picture(self, stage, fmt, step):
        """One sub-step's picture, exported to a directory with the others."""
        with tempfile.TemporaryDirectory(prefix="attnlab-") as d:
            out = os.path.join(d, "out")
            self._arrays_into(d)
            _program.run(["--export", out, "--stage", str(stage)] + self._export_args(fmt) + ["-"],
                         self.lesson_text("arrays.npz"), cwd=d)
            files = sorted(os.listdir(out))
            if not 1 <= step <= len(files):
                raise IndexError("attnlab: stage %d has no step %r: its %d sub-step%s count from 1"
                                 % (stage, step, len(files), "" if len(files) == 1 else "s"))
            with open(os.path.join(out, files[step - 1]), "rb") as f:
                return f.read()

    def dump(self, stage=None):
        """What `attnlab --dump` prints, as Python objects (every stage, or
        stage `stage` from 1): the stages' matrices with their labels."""
        if stage is not None:
            stage = self._stage_number(stage)
        key = ("dump", stage)
        if key not in self._cache and self._handle() is not None:
            self._cache[key] = json.loads(self._library_call(lambda l: l.dump(stage)))
        if key not in self._cache:
            args = ["--dump"] + (["--stage", str(stage)] if stage is not None else []) + ["-"]
            self._cache[key] = json.loads(self._run(args).decode("utf-8"))
        return self._cache[key]

    def matrices(self, stage):
        """The matrices stage `stage` (from 1) shows, as numpy arrays by their
        --dump names ("head2.weights", "logits", ...); −∞ stays −∞."""
        stage = self._stage_number(stage)
        d = self.dump(stage)
        for st in d["stages"]:
            if st["index"] == stage:
                return {m["name"]: _matrix_of(d, st, m, self) for m in st["matrices"]}
        raise IndexError("attnlab: the lesson has no stage %d" % stage)

    def matrix(self, name, stage=None, setup=None):
        """The matrix called name (a --dump name, such as "head2.weights",
        "final" or "mlp_out") as the first stage that shows it shows it: of
        stage `stage`, or of the stages of setup `setup` (both from 1)."""
        stage = None if stage is None else self._stage_number(stage)
        setup = None if setup is None else self._setup_number(setup)
        d = self.dump()
        for st in d["stages"]:
            if (stage is not None and st["index"] != stage) or (setup is not None and st["setup"] != setup):
                continue
            for m in st["matrices"]:
                if m["name"] == name:
                    return _matrix_of(d, st, m, self)
        where = " %d" % stage if stage is not None else " of setup %d" % setup if setup is not None else ""
        raise KeyError("attnlab: no stage%s shows %s" % (where, name))

    def _setups(self):
        """How many setups the lesson has."""
        return sum(1 for kind, _ in self._sections if kind == "setup")

    def _stage_number(self, stage):
        """A stage's number, from 1, checked against the lesson's stages."""
        return _number(stage, len(self.stages), "stage")

    def _setup_number(self, setup):
        """A setup's number, from 1, checked against the lesson's setups."""
        return _number(setup, self._setups(), "setup")

    def weights(self, setup=None):
        """Every head's attention weights in setup `setup` (from 1; the last
        by default), as an array (heads, queries, keys), from a stage that
        shows them all (softmax with one head, multi_head with several)."""
        setup = self._setups() if setup is None else self._setup_number(setup)
        h = self._handle()
        if h is not None:               # straight from the library: no dump of every stage
            shown = [k for k in range(1, h.stages() + 1) if h.stage_setup(k) == setup]

            def get(name):
                try:
                    return self._library_call(lambda l: l.matrix(shown[0], name)) if shown else None
                except _program.LessonError:
                    return None
        else:
            def get(name):
                try:
                    return self.matrix(name, setup=setup)
                except KeyError:
                    return None
        one = get("weights")
        if one is not None:
            return one[None]
        heads = []
        while (m := get("head%d.weights" % (len(heads) + 1))) is not None:
            heads.append(m)
        if not heads:
            raise KeyError("attnlab: no stage of setup %d shows the weights (add a softmax or multi_head stage)" % setup)
        return np.stack(heads)

    def next_token(self, setup=None):
        """The next_token stage's probabilities (a row per token, a column per
        word it shows: every word among some row's top k) and those words,
        of setup `setup` (from 1) or the first that has one."""
        setup = None if setup is None else self._setup_number(setup)
        for k, kind in enumerate(self.stages, 1):
            if kind != "next_token":
                continue
            d = self.dump(k)                    # that stage alone: not every weight of the lesson
            st = d["stages"][0]
            if setup is None or st["setup"] == setup:
                for m in st["matrices"]:
                    if m["name"].startswith("top_probs."):
                        return _matrix_of(d, st, m), list(m["col_labels"])
        raise KeyError("attnlab: the lesson has no next_token stage%s" % ("" if setup is None else " in setup %d" % setup))

    # ------------------------------------------------------------- showing

    def slide(self, stage=None, step=None):
        """Stage `stage` (from 1) as a Slide, which draws itself inline."""
        return Slide(self, self.shown if stage is None else stage, step)

    def __getitem__(self, stage):
        return self.slide(stage)

    def _repr_png_(self):
        return self.slide()._repr_png_()

    def _repr_svg_(self):
        return self.slide()._repr_svg_()

    def interactive(self, stage=None, height=640, dtype="float32", carry=None):
        """The lesson in the browser edition, inside the notebook: hover,
        step, switch heads off (A), all offline (the page and the lesson
        in the notebook's output; the page once per kernel). dtype: how
        the arrays travel ("float32", or "float16" for half the bytes);
        carry: whether this output carries the page (None: the kernel's
        first one). See attnlab.Interactive."""
        return _interactive.Interactive(self, self.shown if stage is None else stage, height, dtype, carry)

    def __repr__(self):
        return "<attnlab.Lesson %r: %d stage%s>" % (self.title, len(self.stages), "" if len(self.stages) == 1 else "s")


def _refused(text, e):
    """The library's refusal e (_library.Failed) as a LessonError that points
    at its line of the lesson text."""
    line, at = _program._lesson_line(text, e.text)
    return _program.LessonError(e.text, line, at)


def _number(n, count, what):
    """n as the number of one of count stages or setups, counted from 1; an IndexError that says how they count."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= count:
        raise IndexError("attnlab: there is no %s %r: %ss count from 1, and the lesson has %d %s%s"
                         % (what, n, what, count, what, "" if count == 1 else "s"))
    return int(n)


def _matrix_of(d, st, m, lesson=None):
    """A --dump matrix as a numpy array (null, a masked −∞, as −∞); a big one
    from the shared table, or, with the library, straight from it (past what
    one dump writes too)."""
    data = m.get("data")
    if (m.get("shared") or data is None) and lesson is not None and lesson._handle() is not None \
            and "setup" not in m:
        return lesson._library_call(lambda l: l.matrix(st["index"], m["name"]))
    if m.get("shared"):
        data = d["matrices"][str(st["setup"])][m["name"]]
    if data is None:
        raise ValueError("attnlab: %s is past what one dump writes" % m["name"])
    return np.array([[-np.inf if v is None else v for v in row] for row in data], dtype=np.float64)


class Slide:
    """One stage of a lesson, drawn by the program: inline in Jupyter (PNG,
    or SVG when its lesson's format is "svg"), saved with save(path)."""

    def __init__(self, lesson, stage, step=None):
        self.lesson, self.stage, self.step = lesson, stage, step

    def png(self):
        """The PNG's bytes."""
        return self.lesson.picture(self.stage, "png", self.step)

    def svg(self):
        """The SVG's text."""
        return self.lesson.picture(self.stage, "svg", self.step)

    def _repr_png_(self):
        return self.png() if self.lesson.format == "png" else None

    def _repr_svg_(self):
        return self.svg() if self.lesson.format == "svg" else None

    def save(self, path):
        """Write the stage by the name's extension: .png, .svg, or .html
        (the interactive page, opened at this stage). The file is written
        whole or not at all; another extension is refused."""
        path = os.fspath(path)
        return self._write(path, _save.extension(path, "Slide.save()", _save.SLIDE), "Slide.save()")

    def _write(self, path, ext, who):
        """Write the stage as ext (.png, .svg or .html) for who (the save() called)."""
        if ext == ".html":
            data = _save.page(self.lesson.interactive(self.stage), who)
        else:
            data = self.svg().encode("utf-8") if ext == ".svg" else self.png()
        return _save.write([(path, data)])

    def lesson_text(self):
        """The text of the lesson this stage belongs to."""
        return self.lesson.lesson_text()

    def dump(self):
        """What `attnlab --dump --stage N` prints for this stage, as Python objects."""
        return self.lesson.dump(self.stage)

    def matrices(self):
        """This stage's matrices as numpy arrays, by --dump name."""
        return self.lesson.matrices(self.stage)

    def interactive(self, height=640, dtype="float32", carry=None):
        """This stage in the browser edition, inside the notebook (Lesson.interactive)."""
        return self.lesson.interactive(self.stage, height, dtype, carry)

    def __repr__(self):
        return "<attnlab.Slide %d of %r>" % (self.stage, self.lesson.title)
