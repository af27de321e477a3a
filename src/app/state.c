/*
** state.c: actions on the interactive state. Every action leaves the state
** consistent: when an input or a setting changes, the trace and the view are
** recomputed at once; when a computation fails (a value would overflow), the
** change is undone and a message says why.
*/
#define _POSIX_C_SOURCE 200809L
#include "state.h"
#include "edits.h"
#include "paths.h"
#include "prompt.h"
#include "save.h"
#include "lang.h"
#include "zoom.h"
#include "core/explain.h"
#include "core/fileio.h"
#include "core/i18n.h"
#include "core/util.h"
#include "view/cmap.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EDIT_LIMIT 1e6      /* inputs stay within ±1e6: large enough, always finite */

/* A new, empty state. */
AppState *app_create(void)
{
    AppState *a = xcalloc(1, sizeof *a);
    a->cmap = -1;
    a->text_scale = 1.0f;
    a->hover_panel = a->hover_row = a->hover_col = -1;
    a->predict_panel = -1;
    a->shots_dir = xstrdup(".");
    a->layout = layout_cache_create();
    return a;
}

/* Free the picker's lists. */
static void free_picker(AppState *a)
{
    for (int i = 0; i < a->picker_n; i++) {
        free(a->picker_items[i]);
        free(a->picker_titles[i]);
    }
    free(a->picker_items);
    free(a->picker_titles);
    a->picker_items = a->picker_titles = NULL;
    a->picker_n = 0;
}

/* Release everything. */
void app_free(AppState *a)
{
    if (!a) return;
    layout_cache_free(a->layout);
    stage_view_free(a->view);
    trace_free(a->T);
    lesson_free(a->L);
    free(a->path);
    free(a->source);
    free(a->disk);
    lesson_free(a->disk_L);
    free(a->ask_path);
    free(a->shots_dir);
    for (int i = 0; i < LESSON_MAX_SETUPS; i++) free(a->saved_mask_matrix[i]);
    free_picker(a);
    free(a);
}

/* A toast for two seconds. */
void app_toast(AppState *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->toast, sizeof a->toast, fmt, ap);
    va_end(ap);
    a->toast_until = a->now + 2.0;
}

/* Reset what belongs to one stage: hover, pin, predict guesses, zoom. */
static void reset_stage_state(AppState *a)
{
    a->zoom.on = false;
    a->hover_panel = a->hover_row = a->hover_col = -1;
    a->pinned = false;
    for (int i = 0; i < LESSON_MAX_TOKENS; i++) a->guesses[i] = -1;
    a->predict_panel = -1;
    if (a->predict == PREDICT_REVEALED) a->predict = PREDICT_GUESSING;
}

/* The first weights panel of the view, the one predict mode asks about. */
static int weights_panel(const View *v)
{
    for (int i = 0; v && i < v->npanels; i++)
        if (v->panels[i].kind == PANEL_HEATMAP && v->panels[i].ref.kind == TK_WEIGHTS) return i;
    return -1;
}

/* Build the view of the current stage from the trace, cut to the zoomed
** part (zoom.h). */
void app_rebuild_view(AppState *a)
{
    stage_view_free(a->view);
    a->view = NULL;
    if (!a->L || !a->T) return;
    StageOpts o = { a->head, a->step };
    a->view = stage_view_with(a->L, a->T, a->stage, &o);
    app_zoom_view(a);
    if (a->predict != PREDICT_OFF) a->predict_panel = weights_panel(a->view);
}

/* Rebuild the view of the current stage (the trace is up to date), after
** a change that may change the numbers shown (the zoom reads its colour
** range again). */
static void refresh_view(AppState *a)
{
    a->zoom.have_range = false;
    app_rebuild_view(a);
}

/* Panels predict mode hides while the class guesses: every one computed
** from the scores (they give the answer away), as a bit set. */
unsigned long long app_hidden_panels(const AppState *a)
{
    unsigned long long bits = 0;
    if (a->predict != PREDICT_GUESSING || !a->view) return 0;
    for (int i = 0; i < a->view->npanels && i < 64; i++) {
        TraceKind k = a->view->panels[i].ref.kind;
        if (k == TK_RAW || k == TK_SCALED || k == TK_MASKED || k == TK_WEIGHTS || k == TK_OUTPUT
            || k == TK_CONCAT || k == TK_FINAL || k == TK_ENTROPY || k == TK_BIASED || k == TK_KV_WEIGHTS
            || k == TK_KV_OUTPUT || (k >= TK_OS_MAX && k <= TK_OS_DIFF))
            bits |= 1ULL << i;
    }
    return bits;
}

/* Recompute the trace; on failure keep the old one and return -1. */
static int recompute(AppState *a)
{
    LessonError err;
    Trace *T = attn_run(a->L, &err);
    if (!T) {
        app_toast(a, "%s", err.msg);
        return -1;
    }
    stage_view_free(a->view);          /* it borrows the old trace's matrices */
    a->view = NULL;
    trace_free(a->T);
    a->T = T;
    refresh_view(a);
    return 0;
}

/* Recompute, for the other action modules. */
int app_recompute(AppState *a)
{
    return recompute(a);
}

/* Swap in a new lesson and trace, keeping stage and head if they exist. */
void app_adopt(AppState *a, Lesson *L, Trace *T)
{
    stage_view_free(a->view);
    a->view = NULL;
    trace_free(a->T);
    lesson_free(a->L);
    a->L = L;
    a->T = T;
    app_use_language(L->language);          /* the lesson's language, else the user's */
    if (a->stage >= L->nstages) a->stage = L->nstages - 1;
    if (a->stage < 0) a->stage = 0;
    if (a->head > L->setups[L->stages[a->stage].setup].heads) a->head = 0;
    reset_stage_state(a);
    refresh_view(a);
}

/* Open lesson text. */
int app_open_text(AppState *a, const char *path, const char *text, size_t len)
{
    LessonError err;
    Lesson *L = lesson_parse(text, len, path, &err);
    Trace *T = L ? attn_run(L, &err) : NULL;
    if (!T) {
        lesson_free(L);
        snprintf(a->error, sizeof a->error, "%s", err.msg);
        a->error_code = lesson_exit_code(&err);
        return -1;
    }
    a->stage = 0;
    a->step = 0;
    a->head = 0;
    app_adopt(a, L, T);
    free(a->path);
    free(a->source);
    a->path = xstrdup(path);
    a->source = xstrndup(text, len);
    a->nedits = a->nredo = 0;
    a->backed_up = false;
    a->error[0] = '\0';
    for (int i = 0; i < LESSON_MAX_SETUPS; i++) {
        free(a->saved_mask_matrix[i]);
        a->saved_mask_matrix[i] = NULL;
        a->saved_mask[i] = MASK_NONE;
    }
    app_disk_set(a, text, len);
    return 0;
}

/* Open a lesson file. */
int app_open(AppState *a, const char *path)
{
    LessonError err;
    size_t len;
    char *text = lesson_read(path, &len, &err);
    if (!text) {
        snprintf(a->error, sizeof a->error, "%s", err.msg);
        a->error_code = lesson_exit_code(&err);
        return -1;
    }
    int r = app_open_text(a, path, text, len);
    free(text);
    return r;
}

/* Go to stage k (clamped). */
static void go(AppState *a, int k)
{
    if (!a->L) return;
    if (k < 0) k = 0;
    if (k >= a->L->nstages) k = a->L->nstages - 1;
    if (k == a->stage && a->view) return;
    a->stage = k;
    a->head = 0;
    a->step = 0;
    reset_stage_state(a);
    refresh_view(a);
}

/* Move to sub-step a->step + dir of the current stage; false when the
** stage has no such sub-step. */
static bool substep(AppState *a, int dir)
{
    if (!a->view || a->step + dir < 0 || a->step + dir >= a->view->nsteps) return false;
    a->step += dir;
    reset_stage_state(a);
    refresh_view(a);
    return true;
}

/* Next sub-step, else next stage. */
void app_next(AppState *a)
{
    if (!substep(a, 1)) go(a, a->stage + 1);
}

/* Previous sub-step, else the last sub-step of the previous stage. */
void app_prev(AppState *a)
{
    if (substep(a, -1) || a->stage == 0) return;
    go(a, a->stage - 1);
    if (a->view && a->view->nsteps > 1) {
        a->step = a->view->nsteps - 1;
        refresh_view(a);
    }
}
/* First stage. */
void app_first(AppState *a) { go(a, 0); }
/* Last stage. */
void app_last(AppState *a) { if (a->L) go(a, a->L->nstages - 1); }

/* Stage n, 1-based. */
void app_goto(AppState *a, int n)
{
    if (a->L && n >= 1 && n <= a->L->nstages) go(a, n - 1);
}

/* Light/dark. */
void app_toggle_theme(AppState *a) { a->dark = !a->dark; }
/* Black screen. */
void app_toggle_black(AppState *a) { a->black = !a->black; }
/* Key overlay. */
void app_toggle_help(AppState *a) { a->help = !a->help; a->picker = false; }
/* Fullscreen flag (the window follows it). */
void app_toggle_fullscreen(AppState *a) { a->fullscreen = !a->fullscreen; }

/* Cycle: lesson colormaps, then each named map in turn. */
void app_cycle_cmap(AppState *a)
{
    const char *const *names = cmap_names();
    int n = 0;
    while (names[n]) n++;
    a->cmap = a->cmap + 1 >= n ? -1 : a->cmap + 1;
    app_toast(a, _("colormap: %s"), a->cmap < 0 ? _("as the lesson says") : names[a->cmap]);
}

/* Bigger or smaller text. */
void app_text_size(AppState *a, int dir)
{
    float s = a->text_scale * (dir > 0 ? 1.15f : 1.0f / 1.15f);
    if (s < 0.6f) s = 0.6f;
    if (s > 2.5f) s = 2.5f;
    a->text_scale = s;
}

/* The setup of the current stage. */
static Setup *cur_setup(AppState *a)
{
    return a->L ? &a->L->setups[a->L->stages[a->stage].setup] : NULL;
}

/* Next head: 0 (all) -> 1 -> ... -> heads -> 0. */
void app_next_head(AppState *a)
{
    Setup *su = cur_setup(a);
    if (!su || su->heads < 2) {
        if (su) app_toast(a, _("this stage has one head"));
        return;
    }
    a->head = a->head >= su->heads ? 0 : a->head + 1;
    refresh_view(a);
    if (a->head) app_toast(a, _("head %d of %d"), a->head, su->heads);
    else app_toast(a, _("all %d heads"), su->heads);
}

/* Escape closes the innermost thing. */
void app_escape(AppState *a)
{
    if (a->ask) app_ask_cancel(a);
    else if (a->help) a->help = false;
    else if (a->picker) a->picker = false;
    else if (a->black) a->black = false;
    else if (a->fullscreen) a->fullscreen = false;
    else if (a->pinned) a->pinned = false;
}

/* Causal mask on/off for the current setup. */
void app_toggle_mask(AppState *a)
{
    Setup *su = cur_setup(a);
    if (!su) return;
    int s = a->L->stages[a->stage].setup;
    /* what a failed recompute puts back, as scaling and temperature do */
    MaskKind old_mask = su->mask;
    char *old_matrix = su->mask_matrix;
    int old_saved = a->saved_mask[s];
    char *old_saved_matrix = a->saved_mask_matrix[s];
    assert(su->mask != MASK_NONE || !su->mask_matrix);      /* no mask, no mask matrix */
    if (su->mask != MASK_NONE) {
        a->saved_mask[s] = su->mask;
        a->saved_mask_matrix[s] = su->mask_matrix;
        su->mask_matrix = NULL;
        su->mask = MASK_NONE;
    } else {
        su->mask = a->saved_mask[s] != MASK_NONE ? (MaskKind)a->saved_mask[s] : MASK_CAUSAL;
        su->mask_matrix = a->saved_mask_matrix[s];
        a->saved_mask_matrix[s] = NULL;
    }
    if (recompute(a) != 0) {
        su->mask = old_mask;
        su->mask_matrix = old_matrix;
        a->saved_mask[s] = old_saved;
        a->saved_mask_matrix[s] = old_saved_matrix;
        return;
    }
    if (old_mask != MASK_NONE) free(old_saved_matrix);        /* the mask just turned off is kept instead */
    app_toast(a, _("mask: %s"), su->mask == MASK_NONE ? _("off") : su->mask == MASK_CAUSAL ? _("causal") : _("the lesson's"));
}

/* √d_k scaling on/off (additive scores have none to toggle). */
void app_toggle_scaling(AppState *a)
{
    Setup *su = cur_setup(a);
    if (!su) return;
    if (su->score == SCORE_ADDITIVE) {
        app_toast(a, _("additive scores are not scaled"));
        return;
    }
    ScoreKind old = su->score;
    su->score = su->score == SCORE_SCALED_DOT ? SCORE_DOT : SCORE_SCALED_DOT;
    if (recompute(a) != 0) {
        su->score = old;
        return;
    }
    app_toast(a, _("scaling by \xe2\x88\x9a" "d_k: %s"), su->score == SCORE_SCALED_DOT ? _("on") : _("off"));
}

/* Temperature down or up. */
void app_temperature(AppState *a, int dir)
{
    Setup *su = cur_setup(a);
    if (!su) return;
    double old = su->temperature;
    double t = old * (dir > 0 ? 1.25 : 0.8);
    if (t < 0.1) t = 0.1;
    if (t > 10) t = 10;
    if (fabs(t - 1.0) < 1e-9) t = 1.0;
    su->temperature = t;
    if (recompute(a) != 0) {
        su->temperature = old;
        return;
    }
    app_toast(a, _("temperature %.2f"), t);
}

/* Hover. */
void app_hover(AppState *a, int panel, int row, int col)
{
    a->hover_panel = panel;
    a->hover_row = row;
    a->hover_col = col;
}

/* Click: a guess in predict mode, else pin/unpin. */
void app_click(AppState *a, int panel, int row, int col)
{
    if (a->predict == PREDICT_GUESSING && panel >= 0 && panel == a->predict_panel) {
        if (row >= 0 && row < LESSON_MAX_TOKENS) a->guesses[row] = col;
        return;
    }
    if (panel < 0) {
        a->pinned = false;
        return;
    }
    if (a->pinned && a->pin_panel == panel && a->pin_row == row && a->pin_col == col) {
        a->pinned = false;
        return;
    }
    a->pinned = true;
    a->pin_panel = panel;
    a->pin_row = row;
    a->pin_col = col;
}

/*
** Scroll-editing an input. The matrix lives in the Lesson; every setup that
** reads the cell from the same place of the text (a matrix inherited from
** the setup that defines it) gets the same change (app_set_cell), so "edit
** X" means the X every later stage uses, as a student expects, and exactly
** what saving writes.
*/
bool app_scroll_edit(AppState *a, int panel, int row, int col, int steps, bool fine)
{
    if (!a->view || panel < 0 || panel >= a->view->npanels || steps == 0) return false;
    const Panel *p = &a->view->panels[panel];
    if (!p->editable || row < 0 || col < 0 || row >= p->m->rows || col >= p->m->cols) return false;
    int s0 = a->view->setup;
    LessonMatrix *lm = lesson_matrix(&a->L->setups[s0], p->matrix);
    if (!lm) return false;
    int r = row + p->row_offset;
    col += p->col_offset;                           /* a zoomed part sits inside the matrix */
    double old = mat_get(lm->m, r, col);
    double v = app_edit_step(old, steps, fine);
    if (fabs(v) < 1e-12) v = 0.0;                   /* land on 0 exactly, not 1e-17 */
    if (v > EDIT_LIMIT) v = EDIT_LIMIT;
    if (v < -EDIT_LIMIT) v = -EDIT_LIMIT;
    char name[LESSON_MAX_NAME + 1];
    snprintf(name, sizeof name, "%s", p->matrix);
    if (app_set_cell(a, s0, name, r, col, v) != 0) return false;   /* would overflow: left as it was */
    app_edit_push(a, s0, name, r, col, old, v);
    return true;
}

/* Predict mode cycle. */
void app_predict(AppState *a)
{
    if (a->predict == PREDICT_OFF) {
        app_zoom_reset(a);                  /* the guesses are about the whole stage */
        a->predict = PREDICT_GUESSING;
        for (int i = 0; i < LESSON_MAX_TOKENS; i++) a->guesses[i] = -1;
        a->predict_panel = weights_panel(a->view);
        if (a->predict_panel < 0) app_toast(a, _("predict: go to a stage with weights"));
        else app_toast(a, _("predict: click the cell you expect to be largest in each row, then P"));
        return;
    }
    if (a->predict == PREDICT_GUESSING && a->predict_panel >= 0) {
        const Mat *m = a->view->panels[a->predict_panel].m;
        int right = 0, guessed = 0;
        for (int i = 0; i < m->rows && i < LESSON_MAX_TOKENS; i++) {
            int best = 0;
            for (int j = 1; j < m->cols; j++) if (mat_get(m, i, j) > mat_get(m, i, best)) best = j;
            if (a->guesses[i] >= 0) guessed++;
            if (a->guesses[i] >= 0 && mat_get(m, i, a->guesses[i]) == mat_get(m, i, best)) right++;
        }
        a->predict_right = right;
        a->predict = PREDICT_REVEALED;
        app_toast(a, _("%d of %d rows right (%d guessed)"), right, m->rows, guessed);
        return;
    }
    a->predict = PREDICT_OFF;
    a->predict_panel = -1;
}

/* The pinned cell, else the hovered one. */
bool app_focus_cell(const AppState *a, int *panel, int *row, int *col)
{
    if (a->pinned) { *panel = a->pin_panel; *row = a->pin_row; *col = a->pin_col; return true; }
    if (a->hover_panel >= 0) { *panel = a->hover_panel; *row = a->hover_row; *col = a->hover_col; return true; }
    return false;
}

/* The explanation of the focused cell with its operands; false if none. */
bool app_explain_full(const AppState *a, Explain *ex)
{
    int p, r, c;
    if (!a->view || !app_focus_cell(a, &p, &r, &c) || p < 0 || p >= a->view->npanels) return false;
    if (p < 64 && (app_hidden_panels(a) >> p) & 1) return false;       /* no spoilers */
    const Panel *pn = &a->view->panels[p];
    int row = r + pn->row_offset, col = c + pn->col_offset;
    if (!explain_at(a->L, a->T, a->view->setup, pn->ref, row, col, ex)) return false;
    double was;
    if (pn->ref.kind == TK_INPUT && app_edit_origin(a, a->view->setup, pn->ref.name, row, col, &was)) {
        /* an edited input: what it was and what it is, not where the file had it */
        char before[48], now[48];
        util_fmt_shortest(before, sizeof before, was);
        util_fmt_shortest(now, sizeof now, mat_get(pn->m, r, c));
        Buf b = { 0 };
        buf_printf(&b, "%s[%d][%d] = %s\nedited: was %s, now %s\nCtrl+Z takes the edit back, R returns to the file",
                   pn->ref.name, row + 1, col + 1, now, before, now);
        free(ex->text);
        ex->text = buf_take(&b);
    }
    return true;
}

/* Explanation of the focused cell. */
char *app_explain(const AppState *a)
{
    Explain ex;
    return app_explain_full(a, &ex) ? ex.text : NULL;
}

/* Where one operand shows on the current view: a mark per panel showing
** its matrix (a one-row panel only when it holds the operand's row). */
static int op_marks(const AppState *a, const ExplainOp *op, LayoutMark *out, int max)
{
    int n = 0, heads = a->T->s[a->view->setup].heads;
    for (int i = 0; i < a->view->npanels && n < max; i++) {
        const Panel *pn = &a->view->panels[i];
        if (!trace_ref_eq(pn->ref, op->ref, heads)) continue;
        int r = op->row, c = op->col;
        if (pn->owned && pn->kind == PANEL_HEATMAP) {               /* a part of the matrix */
            if (r >= 0 && (r < pn->row_offset || r >= pn->row_offset + pn->m->rows)) continue;
            if (c >= 0 && (c < pn->col_offset || c >= pn->col_offset + pn->m->cols)) continue;
            r = r >= 0 ? r - pn->row_offset : -1;
            c = c >= 0 ? c - pn->col_offset : -1;
        }
        if (pn->kind == PANEL_PLOT && c >= 0) {
            c -= pn->col_offset;
            if (c < 0 || c >= pn->m->cols) continue;
        }
        out[n++] = (LayoutMark){ i, r, c };
    }
    return n;
}

/* The cells to outline for the focused cell: exactly its operands. */
int app_marks(const AppState *a, LayoutMark *out, int max)
{
    Explain ex;
    if (!app_explain_full(a, &ex)) return 0;
    int n = 0;
    for (int k = 0; k < ex.nops && n < max; k++) n += op_marks(a, &ex.ops[k], out + n, max - n);
    explain_free(&ex);
    return n;
}

/* Open or close the picker, listing the bundled lessons. */
void app_toggle_picker(AppState *a)
{
    a->picker = !a->picker;
    a->help = false;
    if (!a->picker) return;
    free_picker(a);
    char dir[PATH_MAX];
    if (app_data_dir("lessons", dir, sizeof dir) != 0) return;
    char **list = app_list_lessons(dir);
    if (!list) return;
    for (char **p = list; *p; p++) a->picker_n++;
    a->picker_items = xcalloc((size_t)a->picker_n + 1, sizeof *a->picker_items);
    a->picker_titles = xcalloc((size_t)a->picker_n + 1, sizeof *a->picker_titles);
    for (int i = 0; i < a->picker_n; i++) {
        LessonError err;
        Lesson *L = lesson_load(list[i], &err);
        a->picker_items[i] = xstrdup(list[i]);
        a->picker_titles[i] = xstrdup(L ? L->title : _("(cannot be read)"));
        if (a->path && !strcmp(a->path, list[i])) a->picker_sel = i;
        lesson_free(L);
    }
    app_free_list(list);
    if (a->picker_sel >= a->picker_n) a->picker_sel = 0;
}

/* Move the picker selection. */
void app_picker_move(AppState *a, int dir)
{
    if (a->picker_n == 0) return;
    a->picker_sel = (a->picker_sel + dir + a->picker_n) % a->picker_n;
}

/* Open the picked lesson. */
void app_picker_open(AppState *a)
{
    if (!a->picker || a->picker_n == 0) return;
    app_request_open(a, a->picker_items[a->picker_sel]);   /* asks first if there are unsaved edits */
}
