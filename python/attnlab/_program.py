"""Finding and running the attnlab program.

Every number the module shows comes from the attnlab program itself (its
command line), so a notebook shows exactly what the window shows. This
file finds the program and the browser edition, and runs one command
with a lesson on standard input.
"""

import os
import shutil
import subprocess

_HERE = os.path.dirname(os.path.abspath(__file__))

try:                                    # written by `make install`
    from . import _installed
except ImportError:                     # used from the source tree
    _installed = None


class LessonError(ValueError):
    """A lesson or a command refused: by the program, with its one-line
    message, or by the module before the program saw it (a string the lesson
    cannot hold where it goes, a file name it cannot save as), naming the
    parameter.

    ``line`` is the lesson line the program points at (or None) and
    ``text`` that line of the lesson, so the message can be read against
    what was written.
    """

    def __init__(self, message, line=None, text=None):
        self.message, self.line, self.text = message, line, text
        super().__init__(message if text is None else "%s\n    %d | %s" % (message, line, text))


def _candidates():
    """Where the program may be, in the order they are tried."""
    if os.environ.get("ATTNLAB"):
        yield os.path.abspath(os.environ["ATTNLAB"])
    yield os.path.join(_HERE, "..", "..", "build", "attnlab")          # the source tree
    if _installed is not None:
        yield _installed.PROGRAM
    found = shutil.which("attnlab")
    if found:
        yield found


def program():
    """The path of the attnlab program: $ATTNLAB, the tree's build/attnlab,
    the installed one, or the one on PATH."""
    for p in _candidates():
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return os.path.normpath(p)
    raise FileNotFoundError("attnlab: the program is not built or installed; run `make` in the source tree, "
                            "or set ATTNLAB to its path")


def browser_edition():
    """The browser edition (attnlab.html, one offline file): $ATTNLAB_HTML,
    the tree's build/web/attnlab.html, or the installed one."""
    places = [os.environ.get("ATTNLAB_HTML"), os.path.join(_HERE, "..", "..", "build", "web", "attnlab.html")]
    if _installed is not None:
        places.append(os.path.join(_installed.DATADIR, "attnlab.html"))
    for p in places:
        if p and os.path.isfile(p):
            return os.path.normpath(p)
    raise FileNotFoundError("attnlab: the browser edition is not built; run `make web` in the source tree "
                            "(or set ATTNLAB_HTML to an attnlab.html)")


def _lesson_line(text, message):
    """The line number a message points at in the lesson on standard input, and that line."""
    if not message.startswith("<stdin>:"):
        return None, None
    parts = message.split(":")
    try:
        line = int(parts[1])
    except (IndexError, ValueError):
        return None, None
    lines = text.splitlines()
    return (line, lines[line - 1]) if 1 <= line <= len(lines) else (line, None)


def run(args, lesson_text, cwd=None):
    """Run attnlab with args and the lesson on standard input ("-" among
    args); its standard output as bytes. A refusal raises LessonError."""
    env = dict(os.environ, LC_ALL="C.UTF-8", LANGUAGE="")
    done = subprocess.run([program()] + list(args), input=lesson_text.encode("utf-8"), cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if done.returncode != 0:
        lines = [l for l in done.stderr.decode("utf-8", "replace").splitlines() if ": error: " in l]
        message = lines[0] if lines else done.stderr.decode("utf-8", "replace").strip() or "attnlab failed"
        line, text = _lesson_line(lesson_text, message)
        raise LessonError(message, line, text)
    return done.stdout
