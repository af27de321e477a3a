"""Saving what a lesson gives by the file name's extension, whole or not at
all.

Lesson.save writes .lesson (its .npz beside it when the arrays go to one),
.png and .svg (the shown stage), .pdf (the handout: every stage, a page
each) and .html (the browser edition with the lesson inside); Slide.save a
stage as .png, .svg or .html; Interactive.save its page as .html. Any other
name is refused with the extensions accepted. The bytes are made first,
then written to a temporary file beside the target and renamed over it, as
the program writes its files: a failure (the program refusing the lesson,
a full disk) leaves no half-written file, and a file already there as it was.
"""

import os
import secrets

from ._program import LessonError

# The extensions each save() writes.
LESSON = (".lesson", ".png", ".svg", ".pdf", ".html")
SLIDE = (".png", ".svg", ".html")
PAGE = (".html",)

# Why a slide does not write the other extensions a lesson does.
_LESSON_ONLY = {
    ".pdf": "a PDF is the handout of the whole lesson, a page for every stage: save it with Lesson.save('x.pdf')",
    ".lesson": "a .lesson is the whole lesson: save it with Lesson.save('x.lesson')",
}


def _listed(exts):
    """Extensions as a message lists them: '.png, .svg or .html'."""
    return exts[0] if len(exts) == 1 else "%s or %s" % (", ".join(exts[:-1]), exts[-1])


def extension(path, who, accepted):
    """The extension of path (lowercase) when who writes it; otherwise a
    LessonError naming the extension and the ones accepted."""
    ext = os.path.splitext(path)[1].lower()
    if ext in accepted:
        return ext
    name = os.path.basename(path)
    if ext in _LESSON_ONLY and accepted == SLIDE:
        raise LessonError("attnlab: %s: %s; this stage saves as %s" % (who, _LESSON_ONLY[ext], _listed(accepted)))
    if not ext:
        raise LessonError("attnlab: %s: %r has no extension; it writes %s" % (who, name, _listed(accepted)))
    raise LessonError("attnlab: %s: cannot write %r files (%r); it writes %s" % (who, ext, name, _listed(accepted)))


def page(interactive, who):
    """The interactive page's text, as bytes; without the browser edition,
    a FileNotFoundError that says why and what else to save."""
    try:
        return interactive.page().encode("utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(
            "attnlab: %s: a .html file is the browser edition (attnlab.html) with the lesson inside, and the browser "
            "edition is not built: run `make web` in the source tree, or set ATTNLAB_HTML to an attnlab.html; or save "
            "as .lesson, .png, .svg or .pdf, which need only the program" % who) from None


def _temporary(path):
    """A new file beside path, .NAME.attnlab-XXXXXX, open for writing with
    the mode open() gives (0666 less the umask): its descriptor and name."""
    folder, name = os.path.split(os.path.abspath(path))
    while True:
        temp = os.path.join(folder, ".%s.attnlab-%s" % (name, secrets.token_hex(3)))
        try:
            return os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), temp
        except FileExistsError:
            continue


def write(files):
    """Write each (path, bytes) whole: all to temporaries beside their
    targets, then each renamed over its target. Returns the last path."""
    temps = []
    try:
        for path, data in files:
            fd, temp = _temporary(path)
            temps.append(temp)
            with os.fdopen(fd, "wb") as f:
                f.write(data)
        for (path, _), temp in zip(files, temps):
            os.replace(temp, path)
    finally:
        for temp in temps:
            if os.path.exists(temp):
                os.remove(temp)
    return files[-1][0]
