/*
** doc.h: the document: one lesson file and what the program does to it.
**
** A Doc holds a lesson's text as it was loaded, the Lesson parsed from it
** with the Trace computed from that, the edits of input cells (an undo
** stack), the file as it is on disk (a save edits that text in place,
** src/core/lesson/lessonsave.h) and what stat last said of the file, so that a
** change made in another editor is seen and taken.
**
** The document knows nothing of the window: no stage, no pointer, no
** message on screen. The interactive state (state.h) stands above it and
** calls it; the document never calls back. What the caller must learn
** from a call comes back in a DocEvent: what changed, one message for the
** user, and the trace and lesson the call replaced.
**
** Edits. An edit sets one cell of an input matrix in every setup that
** reads it from the same place of the text (lsave_shared), so an edit of an
** inherited matrix is one edit of the line that defines it, exactly as
** saving writes it. Editing the same cell again extends the edit on top of
** the stack, so one undo takes back one cell however many steps it took.
** An edit whose numbers would overflow is refused and changes nothing.
** doc_revert (the window's R) returns to the text as loaded, saved since or
** not, settings and all, as one step of the stack: it keeps the lesson it
** replaced, which one undo puts back (every edit and setting as it was),
** and the edits below it are then undone one by one. The edits in effect
** are those above the last reset applied (doc_edits_from).
**
** Saving. doc_save writes the file on disk back with only the edited
** numbers changed, atomically; the first save keeps the version it
** replaces beside it as FILE~. A file that cannot be written in place (a
** read-only file or directory, such as an installed bundled lesson) is
** saved as NAME-edited.lesson in the user's lesson directory
** (app_user_lesson_dir), and the message says where. If the file changed on
** disk since it was read, it is taken first (the edits applied again on
** top), so a save never undoes someone else's change.
**
** Following the file. doc_file_changed costs one stat(); when it says yes,
** doc_reload reads the file. New bytes that load replace the lesson,
** keeping the toggles (mask, scaling, temperature, heads switched off) where the new text
** still has them and the unsaved edits applied again on top; bytes that do
** not load leave the last good version with doc->disk_error saying why,
** until the file is fixed. A file the document wrote itself reads back as
** what it wrote, so a save never looks like a change.
**
** Lifetimes. Views borrow the trace's matrices and the lesson's inputs, so
** a call that replaces the trace or the lesson does not free the old one:
** it hands it over in the event (old_trace, old_lesson), and the caller
** frees it with doc_event_release once no view reads it any more.
**
** Usage:
**   Error err;
**   Doc *d = doc_open("lessons/01-tour.lesson", &err);    // NULL: err says why
**   DocEvent ev = doc_edit_cell(d, 0, "X", 0, 1, 0.5);
**   if (ev.changed) { free the views; doc_event_release(&ev); make them again }
**   if (ev.message[0]) show(ev.message);
**   ev = doc_undo(d); ...   ev = doc_save(d); ...
**   doc_free(d);
*/
#ifndef ATTNLAB_DOC_H
#define ATTNLAB_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include "core/lesson/lesson.h"
#include "core/compute/trace.h"

#define DOC_MAX_EDITS 4096
#define DOC_MESSAGE_MAX 512

/* One step of the undo stack: an edit of an input cell, or a reset (R). */
typedef struct DocEdit {
    int setup;
    char matrix[LESSON_MAX_NAME + 1];
    int row, col;
    double old, now;        /* the value before and after */
    bool reset;             /* R: the lesson set back to its text as loaded (the cell fields unused) */
    Lesson *before;         /* a reset's, while applied: the lesson it replaced (owned); NULL otherwise */
} DocEdit;

/* What identifies a version of a file on disk. */
typedef struct DocFileSig { long long dev, ino, size, mtime_ns; bool exists; } DocFileSig;

typedef struct Doc {
    char *path;             /* the lesson's file (a save as changes it) */
    char *source;           /* its text as loaded: what doc_revert returns to */
    char *sentence;         /* the sentence its model reads when one was typed (doc_read_sentence), else NULL */
    Lesson *L;              /* the lesson with the edits and toggles applied */
    Trace *T;               /* computed from L */

    /* the undo stack: edits[0 .. nedits) are applied, the nredo after them can be redone;
    ** an applied reset takes back every step below it (doc_edits_from) */
    DocEdit edits[DOC_MAX_EDITS];
    int nedits, nredo;
    bool dirty;             /* the numbers differ from the file on disk: unsaved edits */

    /* the file on disk */
    char *disk;             /* its text as last read or written (saves edit it) */
    size_t disk_len;
    Lesson *disk_L;         /* disk, parsed: where each number is in it */
    bool backed_up;         /* FILE~ was written for path */
    DocFileSig sig;         /* what stat said when the file was last read or written */
    bool disk_bad;          /* the file on disk does not load: disk_error says why */
    Error disk_error;       /* kind ERR_NONE while it loads */
} Doc;

/* What a call changed, as bits of DocEvent.changed. */
enum {
    DOC_TRACE = 1 << 0,     /* the numbers: a new trace (views of the old one must go) */
    DOC_LESSON = 1 << 1,    /* the whole lesson was replaced (open file changed, R): stages may differ */
    DOC_ERROR = 1 << 2,     /* disk_error was set or cleared (a new version that loads clears it) */
};

/* What a call did, for the caller to bring itself up to date. */
typedef struct DocEvent {
    bool done;              /* the call did what was asked (an edit made, a file saved, ...) */
    unsigned changed;       /* DOC_* bits */
    char message[DOC_MESSAGE_MAX];   /* for the user ("saved x.lesson"), or "" */
    Trace *old_trace;       /* the trace the call replaced, or NULL: the caller's to free */
    Lesson *old_lesson;     /* the lesson it replaced, or NULL: likewise */
} DocEvent;

/* Read and compute a lesson file: a new document, or NULL with err set. */
Doc *doc_open(const char *path, Error *err);
/* The same for text already in memory (path names it in messages and is
** where it is saved). */
Doc *doc_open_text(const char *path, const char *text, size_t len, Error *err);
/* Release a document (NULL is fine). */
void doc_free(Doc *d);
/* Free what an event handed over (old_trace, then old_lesson). */
void doc_event_release(DocEvent *ev);

/* Compute the trace again after the caller changed a setting of d->L (a
** mask, the scoring, the temperature). When the numbers would overflow the
** trace stays as it was, done is false, the message says why, and the
** caller puts its setting back. */
DocEvent doc_recompute(Doc *d);

/* Set a cell of an input matrix (0-based, as setup names it) to v,
** recompute, and record the edit. Refused (done false; a message says why
** when there is a reason to give) for a cell that is not in the text, a
** matrix read by a transpose line or given as attention weights, or a
** value whose numbers would overflow. */
DocEvent doc_edit_cell(Doc *d, int setup, const char *matrix, int row, int col, double v);
/* Step back through the edits (done false: there was none). */
DocEvent doc_undo(Doc *d);
/* Step forward again (done false: nothing to redo). */
DocEvent doc_redo(Doc *d);
/* Back to the text as loaded, every edit and setting gone, as one step to
** undo; the file is not touched. done false (nothing pushed) when the
** lesson already is as loaded. The message says how many edits it took
** back and that Ctrl+Z brings them back. */
DocEvent doc_revert(Doc *d);
/* A lesson that reads a model (lesson_model.h) reading sentence instead:
** every layer computed again, the edits that still apply kept; the text
** as loaded and the file are not touched (R returns to the lesson's own
** sentence). done false, with the message, when it does not compute (a
** sentence longer than the model's positions). */
DocEvent doc_read_sentence(Doc *d, const char *sentence);
/* The sentence the model of the lesson on screen reads (caller frees), or
** NULL when it reads none. */
char *doc_sentence(const Doc *d);
/* The first of the applied edits in effect: the one after the last reset
** applied (0 when none is). edits[doc_edits_from(d) .. nedits) are edits
** of cells, never resets. */
int doc_edits_from(const Doc *d);
/* Whether (setup, matrix, row, col) holds an applied edit. */
bool doc_is_edited(const Doc *d, int setup, const char *matrix, int row, int col);
/* The value the cell had before its first applied edit; false when it
** holds none. */
bool doc_edit_origin(const Doc *d, int setup, const char *matrix, int row, int col, double *was);

/* Save over the file (or into the user's directory when it is read-only). */
DocEvent doc_save(Doc *d);
/* Save to another file, which becomes the document's file. */
DocEvent doc_save_as(Doc *d, const char *path);
/* A save whose bytes the caller writes itself (the browser edition hands
** them to a download): the file's text with the edits made in place, into
** *text (caller frees; its length in *len), which from then on is what the
** file holds. *text is NULL when done is false (the message says why). */
DocEvent doc_save_text(Doc *d, char **text, size_t *len);
/* The name Save as proposes: the file's name with "-edited" before .lesson. */
void doc_save_as_default(const Doc *d, char *out, size_t n);

/* What stat says of path (exists false if it cannot be stat'ed). */
DocFileSig doc_file_sig(const char *path);
/* Whether stat shows the file other than when it was last read or written. */
bool doc_file_changed(const Doc *d);
/* Read the file now and take it if its bytes changed: changed says what
** happened (a new version, or disk_error set or cleared); nothing when the
** bytes are the ones on screen or the file is gone for a moment (an editor
** renaming it). */
DocEvent doc_reload(Doc *d);

#endif
