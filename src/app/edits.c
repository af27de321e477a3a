/*
** edits.c: the undo stack of cell edits, and R (see edits.h).
*/
#include "edits.h"
#include "save.h"
#include "core/lessonsave.h"
#include "core/i18n.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The step, rounded to the decimals of old or of the step, whichever has more. */
double app_edit_step(double old, int steps, bool fine)
{
    double v = old + steps * (fine ? 0.01 : 0.1);
    char t[32];
    util_fmt_shortest(t, sizeof t, old);
    if (strchr(t, 'e')) return v;
    const char *dot = strchr(t, '.');
    int dec = dot ? (int)strlen(dot + 1) : 0, want = fine ? 2 : 1;
    if (dec < want) dec = want;
    if (dec > 12 || fabs(v) > 1e6) return v;      /* no short grid: a drawn number */
    double scale = pow(10, dec);
    return nearbyint(v * scale) / scale;
}

/* Write v into the cell in every setup sharing its place in the text. */
static void put_cell(AppState *a, int setup, const char *matrix, int row, int col, double v)
{
    for (int s = 0; s < a->L->nsetups; s++) {
        if (!lsave_shared(a->L, setup, s, matrix, row, col)) continue;
        mat_set(lesson_matrix(&a->L->setups[s], matrix)->m, row, col, v);
    }
}

/* Set a cell and recompute, or put it back. */
int app_set_cell(AppState *a, int setup, const char *matrix, int row, int col, double v)
{
    LsaveSource src;
    if (!a->L || !lsave_source(a->L, setup, matrix, row, col, &src)) return -1;
    if (lsave_feeds_transpose(a->L, setup, matrix)) {
        app_toast(a, _("%s is read by a transpose line: change it in the lesson's text"), matrix);
        return -1;
    }
    if (lsave_gives_attention(a->L, setup, matrix)) {
        app_toast(a, _("%s holds given attention weights, whose rows must each sum to 1: change it in the lesson's text"),
                  matrix);
        return -1;
    }
    char name[LESSON_MAX_NAME + 1];          /* matrix may point into the lesson */
    snprintf(name, sizeof name, "%s", matrix);
    double old = mat_get(lesson_matrix(&a->L->setups[setup], name)->m, row, col);
    put_cell(a, setup, name, row, col, v);
    if (app_recompute(a) != 0) {
        put_cell(a, setup, name, row, col, old);
        app_recompute(a);
        return -1;
    }
    return 0;
}

/* True if e is the cell (setup, matrix, row, col) or one sharing its text. */
static bool same_cell(const AppState *a, const AppEdit *e, int setup, const char *matrix, int row, int col)
{
    return e->row == row && e->col == col && !strcmp(e->matrix, matrix)
        && (e->setup == setup || lsave_shared(a->L, e->setup, setup, matrix, row, col));
}

/* Push an edit, or extend the one on top when it is the same cell. */
void app_edit_push(AppState *a, int setup, const char *matrix, int row, int col, double old, double now)
{
    a->nredo = 0;
    if (a->nedits > 0 && same_cell(a, &a->edits[a->nedits - 1], setup, matrix, row, col)) {
        a->edits[a->nedits - 1].now = now;
    } else {
        if (a->nedits == APP_MAX_EDITS) {       /* forget the oldest */
            memmove(a->edits, a->edits + 1, sizeof *a->edits * (APP_MAX_EDITS - 1));
            a->nedits--;
        }
        AppEdit *e = &a->edits[a->nedits++];
        e->setup = setup;
        snprintf(e->matrix, sizeof e->matrix, "%s", matrix);
        e->row = row;
        e->col = col;
        e->old = old;
        e->now = now;
    }
    app_update_dirty(a);
}

/* Ctrl+Z. */
bool app_undo(AppState *a)
{
    if (a->nedits == 0) {
        app_toast(a, _("nothing to undo"));
        return false;
    }
    AppEdit *e = &a->edits[a->nedits - 1];
    if (app_set_cell(a, e->setup, e->matrix, e->row, e->col, e->old) != 0) return false;
    a->nedits--;
    a->nredo++;
    char v[32];
    util_fmt_shortest(v, sizeof v, e->old);
    app_toast(a, _("undone: %s[%d,%d] is %s again"), e->matrix, e->row + 1, e->col + 1, v);
    app_update_dirty(a);
    return true;
}

/* Ctrl+Shift+Z, Ctrl+Y. */
bool app_redo(AppState *a)
{
    if (a->nredo == 0) {
        app_toast(a, _("nothing to redo"));
        return false;
    }
    AppEdit *e = &a->edits[a->nedits];
    if (app_set_cell(a, e->setup, e->matrix, e->row, e->col, e->now) != 0) return false;
    a->nedits++;
    a->nredo--;
    char v[32];
    util_fmt_shortest(v, sizeof v, e->now);
    app_toast(a, _("redone: %s[%d,%d] = %s"), e->matrix, e->row + 1, e->col + 1, v);
    app_update_dirty(a);
    return true;
}

/*
** R. The text as loaded is parsed again and replaces the lesson; the file
** on disk is not touched, so after a save R leaves unsaved edits (the
** difference from the saved file), which Ctrl+S would write back.
*/
void app_undo_all(AppState *a)
{
    if (!a->source) return;
    Error err;
    Lesson *L = lesson_parse(a->source, strlen(a->source), a->path, &err);
    Trace *T = L ? attn_run(L, &err) : NULL;
    if (!T) {                                  /* it loaded once, so this does not happen */
        char line[ERROR_LINE_MAX];
        lesson_free(L);
        error_format(&err, line, sizeof line);
        app_toast(a, "%s", line);
        return;
    }
    app_adopt(a, L, T);
    a->nedits = a->nredo = 0;
    app_update_dirty(a);
    app_toast(a, a->dirty ? _("back to the file as loaded (not saved)") : _("back to the file as loaded"));
}

/* Is this cell edited? */
bool app_is_edited(const AppState *a, int setup, const char *matrix, int row, int col)
{
    for (int i = 0; i < a->nedits; i++)
        if (same_cell(a, &a->edits[i], setup, matrix, row, col)) return true;
    return false;
}

/* The value a cell had before its first applied edit; false if unedited. */
bool app_edit_origin(const AppState *a, int setup, const char *matrix, int row, int col, double *was)
{
    for (int i = 0; i < a->nedits; i++)
        if (same_cell(a, &a->edits[i], setup, matrix, row, col)) {
            *was = a->edits[i].old;
            return true;
        }
    return false;
}

/* Compare the lesson with the file on disk. */
void app_update_dirty(AppState *a)
{
    if (!a->L || !a->disk_L) {
        a->dirty = a->nedits > 0;
        return;
    }
    LsaveEdit *e;
    int n = lsave_diff(a->disk_L, a->L, &e);
    free(e);
    a->dirty = n != 0;
}

/* Edits again on a reloaded lesson: all set, then one recomputation; if
** that overflows, one at a time, keeping those that compute. */
void app_edits_replay(AppState *a)
{
    int kept = 0;
    for (int i = 0; i < a->nedits; i++) {
        AppEdit e = a->edits[i];
        LsaveSource src;
        if (!lsave_source(a->L, e.setup, e.matrix, e.row, e.col, &src)) continue;
        a->edits[kept++] = e;
    }
    a->nedits = kept;
    a->nredo = 0;
    if (kept == 0) { app_update_dirty(a); return; }
    double *was = xmalloc(sizeof *was * (size_t)kept);
    for (int i = 0; i < kept; i++) {
        const AppEdit *e = &a->edits[i];
        was[i] = mat_get(lesson_matrix(&a->L->setups[e->setup], e->matrix)->m, e->row, e->col);
        put_cell(a, e->setup, e->matrix, e->row, e->col, e->now);
    }
    if (app_recompute(a) != 0) {
        for (int i = kept - 1; i >= 0; i--) {
            const AppEdit *e = &a->edits[i];
            put_cell(a, e->setup, e->matrix, e->row, e->col, was[i]);
        }
        int n = 0;
        for (int i = 0; i < kept; i++)
            if (app_set_cell(a, a->edits[i].setup, a->edits[i].matrix, a->edits[i].row, a->edits[i].col, a->edits[i].now) == 0)
                a->edits[n++] = a->edits[i];
        a->nedits = n;
        app_recompute(a);
    }
    free(was);
    app_update_dirty(a);
}
