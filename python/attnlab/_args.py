"""Keyword arguments checked before a call: an unknown one raises the
TypeError Python raises, naming the function the user called (show(),
Lesson(), from_torch(), not a helper it passes them on to) and the closest
name it takes, as "did you mean 'cmap'?".
"""

import difflib
import functools
import inspect

# Words people write for a parameter that has another name here.
_SYNONYMS = {"colour": "cmap", "color": "cmap", "colormap": "cmap", "colourmap": "cmap", "fmt": "format",
             "num_heads": "heads", "n_heads": "heads", "n_head": "heads"}


def names(fn, skip=()):
    """The parameters of fn that a keyword can give (self and skip aside)."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [p.name for p in inspect.signature(fn).parameters.values()
            if p.kind in kinds and p.name != "self" and p.name not in skip]


def closest(name, accepted):
    """The accepted name a mistyped one most likely meant, or None."""
    if _SYNONYMS.get(name.lower()) in accepted:
        return _SYNONYMS[name.lower()]
    folded = {a.lower(): a for a in accepted}
    if name.lower() in folded:
        return folded[name.lower()]
    near = difflib.get_close_matches(name, accepted, n=1, cutoff=0.6)
    return near[0] if near else None


def refuse_unknown(who, given, accepted, what=None):
    """Raise TypeError for the first name of given that accepted lacks:
    "WHO got an unexpected keyword argument 'x'; did you mean 'y'?", and
    the names accepted when none is close (always when what names them)."""
    for name in given:
        if name in accepted:
            continue
        message = "%s got an unexpected keyword argument %r" % (who, name)
        near = closest(name, accepted)
        if near:
            message += "; did you mean %r?" % near
        if what or not near:
            message += " (%s: %s)" % (what or "it takes", ", ".join(accepted))
        raise TypeError(message)


def called_as(fn):
    """The name a user calls fn by: show(), Lesson() for Lesson.__init__, Lesson.setup()."""
    name = fn.__qualname__
    return (name[:-len(".__init__")] if name.endswith(".__init__") else name) + "()"


def checked(*forwards):
    """A decorator: the function's keyword arguments are checked against
    its parameters and, when its **kwargs passes them on, those of each
    (function, parameters it fills itself) in forwards."""
    def wrap(fn):
        accepted = names(fn)
        for target, filled in forwards:
            accepted += [n for n in names(target, filled) if n not in accepted]
        who = called_as(fn)

        @functools.wraps(fn)
        def call(*args, **kwargs):
            refuse_unknown(who, kwargs, accepted)
            return fn(*args, **kwargs)
        return call
    return wrap
