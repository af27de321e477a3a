/*
** doc.c: the document: a lesson file, its edits, saving and following it
** on disk (see doc.h).
*/
#define _POSIX_C_SOURCE 200809L
#include "doc.h"
#include "core/lesson/lesson_model.h"
#include "paths.h"
#include "core/io/fileio.h"
#include "core/text/i18n.h"
#include "core/lesson/lessonsave.h"
#include "core/util.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The message of an event (the last one said wins, as on screen). */
static void doc_say(DocEvent *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void doc_say(DocEvent *ev, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev->message, sizeof ev->message, fmt, ap);
    va_end(ap);
}

/* Put T in place of the trace. The first trace a call replaces is the one
** the caller's views read: it goes to the event; one made during the call
** is read by nobody and is freed. */
static void set_trace(Doc *d, Trace *T, DocEvent *ev)
{
    assert(T && T != d->T && T != ev->old_trace);
    if (!ev->old_trace) ev->old_trace = d->T;
    else trace_free(d->T);
    d->T = T;
    ev->changed |= DOC_TRACE;
}

/* Put L and its trace T in place of the lesson, the same way. */
static void set_lesson(Doc *d, Lesson *L, Trace *T, DocEvent *ev)
{
    assert(L && L != d->L && L != ev->old_lesson);
    set_trace(d, T, ev);
    if (!ev->old_lesson) ev->old_lesson = d->L;
    else lesson_free(d->L);
    d->L = L;
    ev->changed |= DOC_LESSON;
}

/* Put L and its trace T in place of the lesson, and return the lesson
** replaced instead of handing it over: a reset keeps it for its undo (the
** caller's views may read it until they go; it lives on in the stack). */
static Lesson *swap_lesson(Doc *d, Lesson *L, Trace *T, DocEvent *ev)
{
    assert(L && L != d->L);
    set_trace(d, T, ev);
    Lesson *old = d->L;
    d->L = L;
    ev->changed |= DOC_LESSON;
    return old;
}

/* Free what an event handed over. */
void doc_event_release(DocEvent *ev)
{
    trace_free(ev->old_trace);
    lesson_free(ev->old_lesson);
    ev->old_trace = NULL;
    ev->old_lesson = NULL;
}

/* Recompute the trace; on failure keep the old one and return -1. */
static int recompute(Doc *d, DocEvent *ev)
{
    Error err;
    Trace *T = attn_run(d->L, &err);
    if (!T) {
        char line[ERROR_LINE_MAX];
        error_format(&err, line, sizeof line);
        doc_say(ev, "%s", line);
        return -1;
    }
    set_trace(d, T, ev);
    return 0;
}

/* Recompute after a change of a setting. */
DocEvent doc_recompute(Doc *d)
{
    DocEvent ev = { 0 };
    ev.done = recompute(d, &ev) == 0;
    return ev;
}

/* Compare the lesson with the file on disk. */
static void update_dirty(Doc *d)
{
    if (!d->disk_L || d->L->from_model) {             /* a model's sentence is no edit of the text */
        d->dirty = d->nedits > doc_edits_from(d);
        return;
    }
    LsaveEdit *e;
    int n = lsave_diff(d->disk_L, d->L, &e);
    free(e);
    d->dirty = n != 0;
}

/* The file on disk does not load (err says why), or loads again (NULL). */
static void set_disk_error(Doc *d, const Error *err, DocEvent *ev)
{
    if (!err && !d->disk_bad) return;
    d->disk_bad = err != NULL;
    if (err) d->disk_error = *err;
    else error_clear(&d->disk_error);
    ev->changed |= DOC_ERROR;
}

/* Remember text as what the file holds: parsed for saving, and stat's
** signature for following it. */
static void disk_set(Doc *d, const char *text, size_t len, DocEvent *ev)
{
    Error err;
    free(d->disk);
    lesson_free(d->disk_L);
    d->disk = xstrndup(text, len);
    d->disk_len = len;
    d->disk_L = lesson_parse(text, len, d->path, &err);
    set_disk_error(d, NULL, ev);
    d->sig = doc_file_sig(d->path);
    update_dirty(d);
}

/* A document for text that parses and computes. */
Doc *doc_open_text(const char *path, const char *text, size_t len, Error *err)
{
    Lesson *L = lesson_parse(text, len, path, err);
    Trace *T = L ? attn_run(L, err) : NULL;
    if (!T) {
        lesson_free(L);
        return NULL;
    }
    Doc *d = xcalloc(1, sizeof *d);
    d->path = xstrdup(path);
    d->source = xstrndup(text, len);
    d->L = L;
    d->T = T;
    DocEvent ev = { 0 };
    disk_set(d, text, len, &ev);
    return d;
}

/* A document for a file. */
Doc *doc_open(const char *path, Error *err)
{
    size_t len;
    char *text = lesson_read(path, &len, err);
    if (!text) return NULL;
    Doc *d = doc_open_text(path, text, len, err);
    free(text);
    return d;
}

/* Release everything. */
void doc_free(Doc *d)
{
    if (!d) return;
    for (int i = 0; i < d->nedits + d->nredo; i++) lesson_free(d->edits[i].before);
    trace_free(d->T);
    lesson_free(d->L);
    lesson_free(d->disk_L);
    free(d->disk);
    free(d->source);
    free(d->sentence);
    free(d->path);
    free(d);
}

/* ---------------------------------------------------------------- edits */

/* Write v into the cell in every setup sharing its place in the text. */
static void put_cell(Doc *d, int setup, const char *matrix, int row, int col, double v)
{
    for (int s = 0; s < d->L->nsetups; s++) {
        if (!lsave_shared(d->L, setup, s, matrix, row, col)) continue;
        LessonMatrix *lm = lesson_matrix(&d->L->setups[s], matrix);
        assert(lm && row < lm->m->rows && col < lm->m->cols);     /* a shared cell exists in s */
        mat_set(lm->m, row, col, v);
    }
}

/* Set a cell and recompute, or leave everything as it was: 0, or -1 with
** the reason in the event (if there is one to give). *old receives the
** value the cell had. */
static int set_cell(Doc *d, int setup, const char *matrix, int row, int col, double v, double *old, DocEvent *ev)
{
    LsaveSource src;
    if (!lsave_source(d->L, setup, matrix, row, col, &src)) return -1;
    if (lsave_feeds_transpose(d->L, setup, matrix)) {
        doc_say(ev, _("%s is read by a transpose line: change it in the lesson's text"), matrix);
        return -1;
    }
    if (lsave_gives_attention(d->L, setup, matrix)) {
        doc_say(ev, _("%s holds given attention weights, whose rows must each sum to 1: change it in the lesson's text"),
                matrix);
        return -1;
    }
    char name[LESSON_MAX_NAME + 1];          /* matrix may point into the lesson */
    snprintf(name, sizeof name, "%s", matrix);
    *old = mat_get(lesson_matrix(&d->L->setups[setup], name)->m, row, col);
    put_cell(d, setup, name, row, col, v);
    if (recompute(d, ev) != 0) {              /* the trace is still the one of the old value */
        put_cell(d, setup, name, row, col, *old);
        return -1;
    }
    return 0;
}

/* True if e is an edit of the cell (setup, matrix, row, col) or of one
** sharing its text (a reset is none). */
static bool same_cell(const Doc *d, const DocEdit *e, int setup, const char *matrix, int row, int col)
{
    return !e->reset && e->row == row && e->col == col && !strcmp(e->matrix, matrix)
        && (e->setup == setup || lsave_shared(d->L, e->setup, setup, matrix, row, col));
}

/* The first n applied steps forgotten (the oldest), with the lessons
** their resets kept. */
static void forget_steps(Doc *d, int n)
{
    assert(n >= 0 && n <= d->nedits);
    for (int i = 0; i < n; i++) lesson_free(d->edits[i].before);
    memmove(d->edits, d->edits + n, sizeof *d->edits * (size_t)(d->nedits + d->nredo - n));
    d->nedits -= n;
}

/* A new, empty step on top of the applied ones, the steps to redo gone
** (they keep no lesson: an undone reset gave its back). */
static DocEdit *push_step(Doc *d)
{
    for (int i = d->nedits; i < d->nedits + d->nredo; i++) assert(!d->edits[i].before);
    d->nredo = 0;
    if (d->nedits == DOC_MAX_EDITS) forget_steps(d, 1);
    assert(d->nedits < DOC_MAX_EDITS);
    DocEdit *e = &d->edits[d->nedits++];
    memset(e, 0, sizeof *e);
    return e;
}

/* Push an edit, or extend the one on top when it is the same cell. */
static void push_edit(Doc *d, int setup, const char *matrix, int row, int col, double old, double now)
{
    if (d->nedits > 0 && same_cell(d, &d->edits[d->nedits - 1], setup, matrix, row, col)) {
        d->nredo = 0;
        d->edits[d->nedits - 1].now = now;
        return;
    }
    DocEdit *e = push_step(d);
    e->setup = setup;
    snprintf(e->matrix, sizeof e->matrix, "%s", matrix);
    e->row = row;
    e->col = col;
    e->old = old;
    e->now = now;
}

/* Set a cell and record the edit. */
DocEvent doc_edit_cell(Doc *d, int setup, const char *matrix, int row, int col, double v)
{
    DocEvent ev = { 0 };
    char name[LESSON_MAX_NAME + 1];
    snprintf(name, sizeof name, "%s", matrix);
    double old;
    if (set_cell(d, setup, name, row, col, v, &old, &ev) != 0) return ev;
    push_edit(d, setup, name, row, col, old, v);
    update_dirty(d);
    ev.done = true;
    return ev;
}

static DocEvent step_reset(Doc *d, bool back);

/* Move the edit at the line between applied and undone edits across it:
** back to its old value (undo), or forward to its new one (redo). */
static DocEvent step_edit(Doc *d, bool back)
{
    DocEvent ev = { 0 };
    if (back ? d->nedits == 0 : d->nredo == 0) {
        doc_say(&ev, back ? _("nothing to undo") : _("nothing to redo"));
        return ev;
    }
    assert(d->nedits + d->nredo <= DOC_MAX_EDITS);
    if (d->edits[back ? d->nedits - 1 : d->nedits].reset) return step_reset(d, back);
    DocEdit e = d->edits[back ? d->nedits - 1 : d->nedits];
    double v = back ? e.old : e.now, was;
    if (set_cell(d, e.setup, e.matrix, e.row, e.col, v, &was, &ev) != 0) return ev;
    d->nedits += back ? -1 : 1;
    d->nredo += back ? 1 : -1;
    char shown[32];
    util_fmt_shortest(shown, sizeof shown, v);
    if (back) doc_say(&ev, _("undone: %s[%d,%d] is %s again"), e.matrix, e.row + 1, e.col + 1, shown);
    else doc_say(&ev, _("redone: %s[%d,%d] = %s"), e.matrix, e.row + 1, e.col + 1, shown);
    update_dirty(d);
    ev.done = true;
    return ev;
}

/* Ctrl+Z. */
DocEvent doc_undo(Doc *d)
{
    return step_edit(d, true);
}

/* Ctrl+Shift+Z, Ctrl+Y. */
DocEvent doc_redo(Doc *d)
{
    return step_edit(d, false);
}

/* The lesson of the text as loaded, and its trace; NULL with the message
** in ev when it does not compute (it loaded once, so this does not happen). */
static Lesson *parse_source(const Doc *d, Trace **T, DocEvent *ev)
{
    Error err;
    Lesson *L = lesson_parse(d->source, strlen(d->source), d->path, &err);
    *T = L ? attn_run(L, &err) : NULL;
    if (*T) return L;
    char line[ERROR_LINE_MAX];
    lesson_free(L);
    error_format(&err, line, sizeof line);
    doc_say(ev, "%s", line);
    return NULL;
}

static bool same_toggles(const Setup *a, const Setup *b);

/* How many numbers of the text the n differing cells e of L are: a cell
** that setups share (an inherited matrix) differs in each of them, and is
** counted in the first. */
static int text_places(const Lesson *L, const LsaveEdit *e, int n)
{
    int places = 0;
    for (int i = 0; i < n; i++) {
        bool first = true;
        for (int s = 0; s < e[i].setup && first; s++)
            first = !lsave_shared(L, s, e[i].setup, e[i].matrix, e[i].row, e[i].col);
        places += first;
    }
    return places;
}

/*
** R. The text as loaded is parsed again and replaces the lesson, which the
** reset keeps on the stack for its undo; the file on disk is not touched,
** so after a save R leaves unsaved edits (the difference from the saved
** file), which a save would write back. The message counts the numbers
** of the text it sets back; the settings the window changes (keep_toggles)
** are set back too.
*/
DocEvent doc_revert(Doc *d)
{
    DocEvent ev = { 0 };
    Trace *T;
    Lesson *L = parse_source(d, &T, &ev);
    if (!L) return ev;
    LsaveEdit *e;
    int n = lsave_diff(L, d->L, &e);
    if (n > 0) n = text_places(L, e, n);
    free(e);
    bool toggles = n >= 0 && L->nsetups == d->L->nsetups;
    for (int s = 0; toggles && s < L->nsetups; s++) toggles = same_toggles(&L->setups[s], &d->L->setups[s]);
    if (n == 0 && toggles) {
        trace_free(T);
        lesson_free(L);
        doc_say(&ev, "%s", _("nothing to reset: the lesson is as it was loaded"));
        return ev;
    }
    Lesson *before = swap_lesson(d, L, T, &ev);
    free(d->sentence);                         /* the model reads the lesson's own sentence again */
    d->sentence = NULL;
    DocEdit *step = push_step(d);
    step->reset = true;
    step->before = before;
    update_dirty(d);
    if (n > 1) doc_say(&ev, _("lesson reset: %d edits undone. Ctrl+Z brings them back"), n);
    else if (n == 1) doc_say(&ev, "%s", _("lesson reset: 1 edit undone. Ctrl+Z brings it back"));
    else doc_say(&ev, "%s", _("lesson reset to its file. Ctrl+Z undoes the reset"));
    ev.done = true;
    return ev;
}

/* Undo a reset (back): the lesson it kept in place again; or redo it: the
** text as loaded again, the lesson it replaces kept. */
static DocEvent step_reset(Doc *d, bool back)
{
    DocEvent ev = { 0 };
    DocEdit *e = &d->edits[back ? d->nedits - 1 : d->nedits];
    assert(e->reset && (e->before != NULL) == back);
    Trace *T;
    if (back) {
        Error err;
        T = attn_run(e->before, &err);
        if (!T) {                              /* it computed before the reset */
            char line[ERROR_LINE_MAX];
            error_format(&err, line, sizeof line);
            doc_say(&ev, "%s", line);
            return ev;
        }
        set_lesson(d, e->before, T, &ev);       /* the file's lesson goes to the caller */
        e->before = NULL;
        doc_say(&ev, "%s", _("reset undone: the lesson is as it was before R"));
    } else {
        Lesson *L = parse_source(d, &T, &ev);
        if (!L) return ev;
        e->before = swap_lesson(d, L, T, &ev);
        doc_say(&ev, "%s", _("redone: lesson reset to its file"));
    }
    d->nedits += back ? -1 : 1;
    d->nredo += back ? 1 : -1;
    update_dirty(d);
    ev.done = true;
    return ev;
}

/* The first applied edit in effect: after the last reset applied. */
int doc_edits_from(const Doc *d)
{
    for (int i = d->nedits - 1; i >= 0; i--)
        if (d->edits[i].reset) return i + 1;
    return 0;
}

/* Is this cell edited? */
bool doc_is_edited(const Doc *d, int setup, const char *matrix, int row, int col)
{
    double was;
    return doc_edit_origin(d, setup, matrix, row, col, &was);
}

/* The value a cell had before its first applied edit; false if unedited. */
bool doc_edit_origin(const Doc *d, int setup, const char *matrix, int row, int col, double *was)
{
    for (int i = doc_edits_from(d); i < d->nedits; i++)
        if (same_cell(d, &d->edits[i], setup, matrix, row, col)) {
            *was = d->edits[i].old;
            return true;
        }
    return false;
}

/* The edits again on a reloaded lesson: all set, then one recomputation;
** if that overflows, one at a time, keeping those that compute. */
static void replay_edits(Doc *d, DocEvent *ev)
{
    forget_steps(d, doc_edits_from(d));       /* a reset's lesson was the old text's: only the edits after it */
    int kept = 0;
    for (int i = 0; i < d->nedits; i++) {
        DocEdit e = d->edits[i];
        LsaveSource src;
        if (!lsave_source(d->L, e.setup, e.matrix, e.row, e.col, &src)) continue;
        d->edits[kept++] = e;
    }
    d->nedits = kept;
    d->nredo = 0;
    if (kept == 0) {
        update_dirty(d);
        return;
    }
    double *was = xmalloc(sizeof *was * (size_t)kept);
    for (int i = 0; i < kept; i++) {
        const DocEdit *e = &d->edits[i];
        was[i] = mat_get(lesson_matrix(&d->L->setups[e->setup], e->matrix)->m, e->row, e->col);
        put_cell(d, e->setup, e->matrix, e->row, e->col, e->now);
    }
    if (recompute(d, ev) != 0) {
        for (int i = kept - 1; i >= 0; i--) {
            const DocEdit *e = &d->edits[i];
            put_cell(d, e->setup, e->matrix, e->row, e->col, was[i]);
        }
        int n = 0;
        for (int i = 0; i < kept; i++) {
            DocEdit e = d->edits[i];
            double old;
            if (set_cell(d, e.setup, e.matrix, e.row, e.col, e.now, &old, ev) == 0) d->edits[n++] = e;
        }
        d->nedits = n;
    }
    free(was);
    update_dirty(d);
}

/* ---------------------------------------------------------------- saving */

/* The name Save as proposes: dir/name.lesson -> dir/name-edited.lesson. */
void doc_save_as_default(const Doc *d, char *out, size_t n)
{
    const char *p = d && d->path ? d->path : "lesson.lesson";
    size_t len = strlen(p);
    if (len > 7 && !strcmp(p + len - 7, ".lesson")) len -= 7;
    snprintf(out, n, "%.*s-edited.lesson", (int)len, p);
}

/* The disk text with the edits made in place; NULL with the message set. */
static char *saved_text(Doc *d, size_t *len, DocEvent *ev)
{
    if (!d->disk_L) {
        doc_say(ev, _("not saved: the file as read does not load"));
        return NULL;
    }
    LsaveEdit *e;
    int n = lsave_diff(d->disk_L, d->L, &e);
    if (n < 0) {
        doc_say(ev, _("not saved: the lesson no longer matches its file"));
        return NULL;
    }
    Error err;
    char *text = lsave_apply(d->disk, d->disk_len, d->disk_L, e, n, len, &err);
    free(e);
    if (!text) {
        char why[ERROR_LINE_MAX];
        error_brief(&err, why, sizeof why);
        doc_say(ev, _("not saved: %s"), why);
    }
    return text;
}

/* Write text to path, keeping what was there as path~ the first time. */
static int write_with_backup(const char *path, const char *text, size_t len, bool *backed_up, DocEvent *ev)
{
    Error err;
    char why[ERROR_LINE_MAX];
    size_t old_len;
    char *old = *backed_up ? NULL : lesson_read(path, &old_len, &err);
    if (old) {
        char bak[PATH_MAX + 2];
        snprintf(bak, sizeof bak, "%s~", path);
        int r = fileio_write_atomic(bak, old, old_len, true, &err);
        free(old);
        if (r != 0) {
            error_brief(&err, why, sizeof why);
            doc_say(ev, _("not saved: cannot keep the previous version: %s"), why);
            return -1;
        }
        *backed_up = true;
    }
    if (fileio_write_atomic(path, text, len, true, &err) != 0) {
        error_brief(&err, why, sizeof why);
        doc_say(ev, "%s", why);
        return -1;
    }
    return 0;
}

/* Can path be replaced where it is? Not when the file is read-only, or
** when its directory does not take a new file (the atomic write needs one):
** that is tried, since access() says yes to root even on a read-only mount.
** Standard input ("-") cannot be written back either. */
static bool read_only(const char *path)
{
    if (!strcmp(path, FILEIO_STDIN)) return true;
    if (access(path, F_OK) == 0 && access(path, W_OK) != 0) return true;
    char probe[PATH_MAX];
    const char *slash = strrchr(path, '/');
    int w = slash ? snprintf(probe, sizeof probe, "%.*s/.attnlab-probe-%ld", (int)(slash - path), path, (long)getpid())
                  : snprintf(probe, sizeof probe, ".attnlab-probe-%ld", (long)getpid());
    if (w < 0 || (size_t)w >= sizeof probe) return false;
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd >= 0) {
        close(fd);
        unlink(probe);
        return false;
    }
    return errno == EACCES || errno == EROFS || errno == EPERM;
}

/* A free NAME-edited[-N].lesson in the user's lesson directory. */
static int user_copy_path(const Doc *d, char *out, size_t n)
{
    char dir[PATH_MAX];
    if (app_user_lesson_dir(dir, sizeof dir) != 0) return -1;
    const char *name = d->L->name ? d->L->name : "lesson";
    for (int k = 1; k < 1000; k++) {
        int w = k == 1 ? snprintf(out, n, "%s/%s-edited.lesson", dir, name)
                       : snprintf(out, n, "%s/%s-edited-%d.lesson", dir, name, k);
        if (w < 0 || (size_t)w >= n) return -1;
        if (access(out, F_OK) != 0) return 0;
    }
    return -1;
}

/* Start using path as the document's file, holding text. */
static void switch_file(Doc *d, const char *path, const char *text, size_t len, DocEvent *ev)
{
    if (strcmp(d->path, path)) {
        free(d->path);
        d->path = xstrdup(path);
    }
    disk_set(d, text, len, ev);
}

static void reload_into(Doc *d, DocEvent *ev);

/* Ctrl+S. */
DocEvent doc_save(Doc *d)
{
    DocEvent ev = { 0 };
    reload_into(d, &ev);                       /* changed on disk? take that first */
    if (d->disk_bad) {
        doc_say(&ev, _("not saved: the file on disk does not load (see above); fix it, or save under another name with Ctrl+Shift+S"));
        return ev;
    }
    if (!d->dirty) {
        doc_say(&ev, _("nothing to save: %s already holds these numbers"), d->path);
        ev.done = true;
        return ev;
    }
    size_t len;
    char *text = saved_text(d, &len, &ev);
    if (!text) return ev;
    if (read_only(d->path)) {
        char dest[PATH_MAX];
        if (user_copy_path(d, dest, sizeof dest) != 0) {
            doc_say(&ev, _("not saved: %s is read-only and there is no user lesson directory"), d->path);
            free(text);
            return ev;
        }
        bool none = true;                      /* a new file: nothing to keep */
        if (write_with_backup(dest, text, len, &none, &ev) == 0) {
            doc_say(&ev, _("%s is read-only: saved as %s"), d->path, dest);
            switch_file(d, dest, text, len, &ev);
            d->backed_up = true;
            ev.done = true;
        }
    } else {
        bool first = !d->backed_up;
        if (write_with_backup(d->path, text, len, &d->backed_up, &ev) == 0) {
            if (first && d->backed_up) doc_say(&ev, _("saved %s (the previous version is %s~)"), d->path, d->path);
            else doc_say(&ev, _("saved %s"), d->path);
            switch_file(d, d->path, text, len, &ev);
            ev.done = true;
        }
    }
    free(text);
    return ev;
}

/* A save the caller writes. */
DocEvent doc_save_text(Doc *d, char **text, size_t *len)
{
    DocEvent ev = { 0 };
    if (!d->dirty) {
        *text = xstrndup(d->disk, d->disk_len);
        *len = d->disk_len;
    } else if ((*text = saved_text(d, len, &ev))) {
        disk_set(d, *text, *len, &ev);
    }
    ev.done = *text != NULL;
    return ev;
}

/* Save as. */
DocEvent doc_save_as(Doc *d, const char *path)
{
    DocEvent ev = { 0 };
    if (!d->disk_bad) reload_into(d, &ev);
    size_t len;
    char *text = saved_text(d, &len, &ev);
    if (!text) return ev;
    bool backed = !strcmp(path, d->path) ? d->backed_up : false;
    char *dest = xstrdup(path);                /* path may be the document's own */
    if (write_with_backup(dest, text, len, &backed, &ev) == 0) {
        switch_file(d, dest, text, len, &ev);
        d->backed_up = true;
        doc_say(&ev, _("saved as %s"), dest);
        ev.done = true;
    }
    free(dest);
    free(text);
    return ev;
}

/* ---------------------------------------------------------------- following the file */

/* stat's view of the file. */
DocFileSig doc_file_sig(const char *path)
{
    DocFileSig s;
    memset(&s, 0, sizeof s);
    struct stat st;
    if (!path || stat(path, &st) != 0) return s;
    s.exists = true;
    s.dev = (long long)st.st_dev;
    s.ino = (long long)st.st_ino;
    s.size = (long long)st.st_size;
    s.mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    return s;
}

/* One stat. */
bool doc_file_changed(const Doc *d)
{
    DocFileSig s = doc_file_sig(d->path);
    return memcmp(&s, &d->sig, sizeof s) != 0;
}

/* The toggles of the lesson on screen (what the window changed from the
** file: mask, scaling, temperature, heads switched off) on a new parse L,
** setup by setup, where they still make sense. */
static void keep_toggles(const Doc *d, Lesson *L)
{
    if (!d->disk_L || d->disk_L->nsetups != d->L->nsetups) return;
    for (int s = 0; s < L->nsetups && s < d->L->nsetups; s++) {
        const Setup *now = &d->L->setups[s], *file = &d->disk_L->setups[s];
        Setup *to = &L->setups[s];
        if (now->temperature != file->temperature) to->temperature = now->temperature;
        if (now->score != file->score && to->score != SCORE_ADDITIVE && now->score != SCORE_ADDITIVE) to->score = now->score;
        if ((now->ablated != file->ablated || now->ablate_mean != file->ablate_mean) && to->heads == now->heads
            && !to->attention) {
            to->ablated = now->ablated;
            to->ablate_mean = now->ablate_mean;
        }
        if (now->mask != file->mask && (now->mask == MASK_NONE || now->mask == MASK_CAUSAL)) {
            free(to->mask_matrix);
            to->mask_matrix = NULL;
            to->mask = now->mask;
        }
    }
}

/* Whether two setups agree on every setting keep_toggles carries over (the
** ones the window changes): R has something to set back when they do not. */
static bool same_toggles(const Setup *a, const Setup *b)
{
    return a->temperature == b->temperature && a->score == b->score && a->ablated == b->ablated
        && a->ablate_mean == b->ablate_mean && a->mask == b->mask
        && !strcmp(a->mask_matrix ? a->mask_matrix : "", b->mask_matrix ? b->mask_matrix : "");
}

/* Parse and take new text from the file; false if it does not load. */
static bool take_new_text(Doc *d, const char *text, size_t len, DocEvent *ev)
{
    Error err;
    Lesson *L = lesson_parse(text, len, d->path, &err);
    Trace *T = L ? attn_run(L, &err) : NULL;
    if (!T) {
        lesson_free(L);
        set_disk_error(d, &err, ev);
        return false;
    }
    trace_free(T);                             /* it loads; now with the toggles */
    keep_toggles(d, L);
    T = attn_run(L, &err);
    if (!T) {                                  /* the toggles do not compute here: the file's settings */
        lesson_free(L);
        L = lesson_parse(text, len, d->path, &err);
        T = L ? attn_run(L, &err) : NULL;
        if (!T) {                              /* it computed a moment ago */
            lesson_free(L);
            set_disk_error(d, &err, ev);
            return false;
        }
    }
    set_lesson(d, L, T, ev);
    free(d->source);
    d->source = xstrndup(text, len);           /* R now returns to this version */
    free(d->sentence);                         /* and its model reads its own sentence */
    d->sentence = NULL;
    disk_set(d, text, len, ev);
    ev->changed |= DOC_ERROR;                  /* a version that loads clears any error on screen */
    replay_edits(d, ev);
    return true;
}

/* The model reads another sentence. */
DocEvent doc_read_sentence(Doc *d, const char *sentence)
{
    DocEvent ev = { 0 };
    size_t len;
    char *text = lml_with_text(d->source, strlen(d->source), sentence, &len);
    Error err;
    Lesson *L = text ? lesson_parse(text, len, d->path, &err) : NULL;
    Trace *T = L ? attn_run(L, &err) : NULL;
    free(text);
    if (!T) {
        lesson_free(L);
        if (text) {
            char line[ERROR_LINE_MAX];
            error_format(&err, line, sizeof line);
            doc_say(&ev, "%s", line);
        }
        return ev;
    }
    free(d->sentence);
    d->sentence = xstrdup(sentence);
    set_lesson(d, L, T, &ev);
    replay_edits(d, &ev);
    ev.done = true;
    return ev;
}

/* The sentence read now. */
char *doc_sentence(const Doc *d)
{
    if (!d->L->from_model) return NULL;
    return d->sentence ? xstrdup(d->sentence) : lml_sentence(d->source, strlen(d->source));
}

/* Read the file and compare; the event gathers what changed. */
static void reload_into(Doc *d, DocEvent *ev)
{
    Error err;
    size_t len;
    d->sig = doc_file_sig(d->path);
    char *text = lesson_read(d->path, &len, &err);
    if (!text) {
        if (err.kind != ERR_IO) set_disk_error(d, &err, ev);    /* too large; I/O: gone for a moment, look again later */
        return;
    }
    if (d->disk && len == d->disk_len && !memcmp(text, d->disk, len)) set_disk_error(d, NULL, ev);   /* the version on screen */
    else if (take_new_text(d, text, len, ev)) doc_say(ev, _("reloaded %s"), d->path);
    free(text);
}

/* Read and compare. */
DocEvent doc_reload(Doc *d)
{
    DocEvent ev = { 0 };
    reload_into(d, &ev);
    ev.done = ev.changed != 0;
    return ev;
}
