/*
** state.c: actions on the interactive state. Every action leaves the state
** consistent: when an input or a setting changes, the trace and the view are
** recomputed at once; when a computation fails (a value would overflow), the
** change is undone and a message says why. Whatever changes the document
** goes through it (doc.h), and the state then follows the event it reports
** (app_follow): that is the only way the document's news comes up. Predict
** mode (predict.c), live reload (watch.c) and the zoom (zoom.c) are rooms
** of their own, called from here where the stage or the view changes.
*/
#define _POSIX_C_SOURCE 200809L
#include "state.h"
#include "library.h"
#include "paths.h"
#include "lang.h"
#include "predict.h"
#include "sorter.h"
#include "zoom.h"
#include "core/text/i18n.h"
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
    a->text_base = 1.0f;
    a->page_aspect = 0;
    a->hover_panel = a->hover_row = a->hover_col = -1;
    app_predict_new_stage(a);               /* no guesses */
    a->shots_dir = xstrdup(".");
    a->layout = layout_cache_create();
    a->fitter = layout_fitter_create(NULL, NULL);
    a->pager = stage_pager_create(layout_fitter_fits, a->fitter);
    a->measure = layout_measure_fixed;
    a->thumbs = app_sorter_create();
    return a;
}

/* Pages as the platform's text measure lays them out. */
void app_set_measure(AppState *a, MeasureFn measure, void *ctx)
{
    stage_pager_free(a->pager);
    layout_fitter_free(a->fitter);
    a->fitter = layout_fitter_create(measure, ctx);
    layout_fitter_shape(a->fitter, a->page_aspect, a->text_base);
    a->pager = stage_pager_create(layout_fitter_fits, a->fitter);
    a->measure = measure ? measure : layout_measure_fixed;
    a->measure_ctx = ctx;
    if (a->doc) app_rebuild_view(a);
    app_sorter_refresh(a);
}

/* The pages cut for a taller screen with its text scaled (the browser's
** phone layout: aspect height / width, text_base), or for the projector
** slide (text_base 1); the views built again when that changes. */
void app_set_page_shape(AppState *a, float aspect, float text_base)
{
    float base = text_base >= 1 && text_base <= 4 ? text_base : 1;
    float shape = base > 1 ? aspect : 0;
    if (base == a->text_base && shape == a->page_aspect) return;
    a->text_base = base;
    a->page_aspect = shape;
    stage_pager_free(a->pager);
    layout_fitter_shape(a->fitter, shape, base);
    a->pager = stage_pager_create(layout_fitter_fits, a->fitter);
    if (a->doc) app_rebuild_view(a);
    app_sorter_refresh(a);
}

/* Release everything. */
void app_free(AppState *a)
{
    if (!a) return;
    layout_cache_free(a->layout);
    app_sorter_free(a->thumbs);
    stage_view_free(a->view);
    stage_pager_free(a->pager);
    layout_fitter_free(a->fitter);
    marks_hover_clear(&a->explained);
    marks_edited_free(&a->edited);
    doc_free(a->doc);
    free(a->ask_path);
    free(a->shots_dir);
    for (int i = 0; i < LESSON_MAX_SETUPS; i++) free(a->saved_mask_matrix[i]);
    app_library_free(a);
    for (int i = 0; i < a->nfolders; i++) free(a->folders[i]);
    free(a->folders);
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

/* Reset what belongs to one page: hover, pin, zoom. The predict guesses
** belong to the stage and stay while its pages turn (predict.h). */
static void reset_page_state(AppState *a)
{
    a->zoom.on = false;
    a->hover_panel = a->hover_row = a->hover_col = -1;
    a->nav_point = 0;
    a->pinned = false;
    a->cells = false;
}

/* Reset what belongs to one stage: its page's state and the predict guesses. */
static void reset_stage_state(AppState *a)
{
    reset_page_state(a);
    app_predict_new_stage(a);
}

/* The focused cell's explanation and outlines, again (the pointer or the
** pin moved, or what they are over changed). */
static void update_explained(AppState *a)
{
    int p = -1, r = -1, c = -1;
    app_focus_cell(a, &p, &r, &c);
    marks_hover(&a->explained, a->doc, a->view, p, r, c, a->hidden);
}

/* Everything a frame draws over the cells, again. */
void app_update_marks(AppState *a)
{
    a->hidden = app_hidden_panels(a);
    marks_edited(&a->edited, a->doc, a->view);
    update_explained(a);
}

/* Build the view of the current stage from the trace, cut to the zoomed
** part (zoom.h). */
void app_rebuild_view(AppState *a)
{
    stage_view_free(a->view);
    a->view = NULL;
    if (a->doc) {
        StageOpts o = { a->head, a->step, false, a->pager };
        a->view = stage_view_with(a->doc->L, a->doc->T, a->stage, &o);
        app_zoom_view(a);
        app_predict_new_view(a);
    }
    app_update_marks(a);
}

/* Rebuild the view of the current stage (the trace is up to date), after
** a change that may change the numbers shown (the zoom reads its colour
** range again). */
static void refresh_view(AppState *a)
{
    a->zoom.have_range = false;
    app_rebuild_view(a);
}

/* A new lesson in place: its language (else the user's), the stage and
** head kept where they still exist, the stage's own state reset. */
static void adopt(AppState *a)
{
    const Lesson *L = a->doc->L;
    app_use_language(L->language);
    if (a->stage >= L->nstages) a->stage = L->nstages - 1;
    if (a->stage < 0) a->stage = 0;
    if (a->head > L->setups[L->stages[a->stage].setup].heads) a->head = 0;
    reset_stage_state(a);
    refresh_view(a);
}

/*
** Follow what a call of the document did: a new trace rebuilds the view
** (freed first: it reads the trace and lesson the event hands over), a new
** lesson is adopted, the file's error goes on screen or off, the message
** becomes a toast. Returns whether the call did what was asked.
*/
bool app_follow(AppState *a, DocEvent *ev)
{
    if (ev->changed & (DOC_TRACE | DOC_LESSON)) {
        stage_view_free(a->view);
        a->view = NULL;
        doc_event_release(ev);
        if (ev->changed & DOC_LESSON) adopt(a);
        else refresh_view(a);
        app_sorter_refresh(a);                      /* its pictures show the new numbers */
    }
    assert(!ev->old_trace && !ev->old_lesson);       /* nothing replaced without saying so */
    if (ev->changed & DOC_ERROR) app_set_error(a, a->doc->disk_bad ? &a->doc->disk_error : NULL);
    if (ev->message[0]) app_toast(a, "%s", ev->message);
    return ev->done;
}

/* Show d, a document just opened, from its first stage. */
static void use_doc(AppState *a, Doc *d)
{
    stage_view_free(a->view);                         /* it reads the old document */
    a->view = NULL;
    app_sorter_close(a);
    doc_free(a->doc);
    a->doc = d;
    a->stage = 0;
    a->step = 0;
    a->head = 0;
    app_set_error(a, NULL);
    for (int i = 0; i < LESSON_MAX_SETUPS; i++) {
        free(a->saved_mask_matrix[i]);
        a->saved_mask_matrix[i] = NULL;
        a->saved_mask[i] = MASK_NONE;
    }
    adopt(a);
}

/* The error on the screen, or none. */
void app_set_error(AppState *a, const Error *e)
{
    if (!e || e->kind == ERR_NONE) {
        a->error[0] = '\0';
        a->error_code = 0;
        return;
    }
    error_format(e, a->error, sizeof a->error);
    a->error_code = error_exit_code(e);
}

/* A lesson that did not open: the previous one stays, the error shows. */
static int open_failed(AppState *a, const Error *err)
{
    app_set_error(a, err);
    return -1;
}

/* Open lesson text. */
int app_open_text(AppState *a, const char *path, const char *text, size_t len)
{
    Error err;
    Doc *d = doc_open_text(path, text, len, &err);
    if (!d) return open_failed(a, &err);
    use_doc(a, d);
    return 0;
}

/* Open a lesson file. */
int app_open(AppState *a, const char *path)
{
    Error err;
    Doc *d = doc_open(path, &err);
    if (!d) return open_failed(a, &err);
    use_doc(a, d);
    return 0;
}

/* Go to stage k (clamped). */
static void go(AppState *a, int k)
{
    if (!a->doc) return;
    if (k < 0) k = 0;
    if (k >= a->doc->L->nstages) k = a->doc->L->nstages - 1;
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
    reset_page_state(a);
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
void app_last(AppState *a) { if (a->doc) go(a, a->doc->L->nstages - 1); }

/* Stage n, 1-based. */
void app_goto(AppState *a, int n)
{
    if (a->doc && n >= 1 && n <= a->doc->L->nstages) go(a, n - 1);
}

/* A typed digit, alone or after the ones before it. */
void app_type_digit(AppState *a, int d)
{
    if (!a->doc || d < 0 || d > 9) return;
    int n = a->digits * 10 + d;
    if (a->digits == 0 || a->now - a->digits_at > APP_DIGIT_SECONDS || n > a->doc->L->nstages) n = d;
    a->digits = n;
    a->digits_at = a->now;
    if (n >= 1) app_goto(a, n);
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
    return a->doc ? &a->doc->L->setups[a->doc->L->stages[a->stage].setup] : NULL;
}

/* Compute the trace again after a setting of the current setup changed:
** true, or false (a toast says why) with the trace as it was, for the
** caller to put its setting back. */
static bool recompute(AppState *a)
{
    DocEvent ev = doc_recompute(a->doc);
    return app_follow(a, &ev);
}

/*
** Next head: 0 (all) -> 1 -> ... -> heads -> 0. A stage in pages keeps
** its place where it can: kv_cache stays on the token (or the comparison)
** it showed, on that token's first page; any other stays on its page
** when the head has one as far on, else its last.
*/
void app_next_head(AppState *a)
{
    Setup *su = cur_setup(a);
    if (!su || su->heads < 2) {
        if (su) app_toast(a, _("this stage has one head"));
        return;
    }
    bool kv = a->view && a->view->id == STAGE_KV_CACHE;
    int token = kv ? a->view->token : -1;
    a->head = a->head >= su->heads ? 0 : a->head + 1;
    refresh_view(a);
    if (kv && a->view && a->view->token_pages > 0) {
        a->step = (token >= 0 ? token : su->nq) * a->view->token_pages;
        refresh_view(a);
    }
    if (a->view) a->step = a->view->step;       /* where the view is, so that ← and → move from there */
    if (a->head) app_toast(a, _("head %d of %d"), a->head, su->heads);
    else app_toast(a, _("all %d heads"), su->heads);
}

/* The innermost thing the state has open. */
void app_close_overlay(AppState *a)
{
    if (a->help) a->help = false;
    else if (a->picker) a->picker = false;
    else if (a->sorter) app_sorter_close(a);
    else if (a->black) a->black = false;
    else if (app_zoomed(a)) app_zoom_reset(a);
    else if (a->fullscreen) a->fullscreen = false;
    else if (a->pinned) {
        a->pinned = false;
        update_explained(a);
    }
}

/* Causal mask on/off for the current setup. */
void app_toggle_mask(AppState *a)
{
    Setup *su = cur_setup(a);
    if (!su) return;
    int s = a->doc->L->stages[a->stage].setup;
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
    if (!recompute(a)) {
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
    if (!recompute(a)) {
        su->score = old;
        return;
    }
    app_toast(a, _("scaling by \xe2\x88\x9a" "d_k: %s"), su->score == SCORE_SCALED_DOT ? _("on") : _("off"));
}

/*
** The head A switches off: the one the page is about (chosen with H or by
** the stage's head:, the only one, or the one whose own panels the page
** shows), else, on a page of several heads (the comparison page, every
** head on one slide, the joined heads), the head under the pointer: its
** panel, or its block of columns in the concatenation. 0: none, A asks
** for one.
*/
static int ablation_head(const AppState *a, const Setup *su)
{
    const View *v = a->view;
    if (v && v->head) return v->head;
    if (su->heads == 1) return 1;
    if (v && v->page_h0 > 0 && v->page_h0 == v->page_h1) return v->page_h0;
    if (!v || a->hover_panel < 0 || a->hover_panel >= v->npanels) return 0;
    const Panel *p = &v->panels[a->hover_panel];
    if (p->ref.kind == TK_CONCAT && a->hover_col >= 0) {
        int dv = a->doc->T->s[v->setup].d_v;
        return dv > 0 ? (a->hover_col + p->col_offset) / dv + 1 : 0;
    }
    return p->ref.head >= 1 && p->ref.head <= su->heads ? p->ref.head : 0;
}

/*
** A: a head (ablation_head) switched off, in three states: on, then zero
** ablation (its output replaced by 0 where the heads are joined), then
** mean ablation (by its mean over the tokens), then on again. Everything
** after it is computed again: W_o, the stream, the MLP, later setups that
** continue the stream, the next token.
*/
void app_cycle_ablation(AppState *a)
{
    Setup *su = cur_setup(a);
    if (!su) return;
    if (su->attention) {
        app_toast(a, _("this setup is given its weights: there is no head to switch off"));
        return;
    }
    int h = ablation_head(a, su);
    if (!h) {
        app_toast(a, _("A switches off the head under the pointer: point at a head's panel, then press A"));
        return;
    }
    unsigned bit = 1u << (h - 1), old = su->ablated, old_mean = su->ablate_mean;
    if (!(su->ablated & bit)) su->ablated |= bit;
    else if (!(su->ablate_mean & bit)) su->ablate_mean |= bit;
    else { su->ablated &= ~bit; su->ablate_mean &= ~bit; }
    if (!recompute(a)) {
        su->ablated = old;
        su->ablate_mean = old_mean;
        return;
    }
    if (!(su->ablated & bit)) app_toast(a, _("head %d: on"), h);
    else if (su->ablate_mean & bit) app_toast(a, _("head %d: switched off, its output replaced by its mean"), h);
    else app_toast(a, _("head %d: switched off, its output replaced by 0"), h);
}

/* Head h (1-based) of setup s (0-based) on (how 0), switched off (1) or
** replaced by its mean (2), everything after it computed again. */
bool app_set_ablation(AppState *a, int s, int h, int how)
{
    if (!a->doc || s < 0 || s >= a->doc->L->nsetups || h < 1 || h > 32) return false;
    Setup *su = &a->doc->L->setups[s];
    if (su->attention || h > su->heads) return false;
    unsigned bit = 1u << (h - 1), old = su->ablated, old_mean = su->ablate_mean;
    su->ablated = how ? old | bit : old & ~bit;
    su->ablate_mean = how == 2 ? old_mean | bit : old_mean & ~bit;
    if (su->ablated == old && su->ablate_mean == old_mean) return true;
    if (!recompute(a)) {
        su->ablated = old;
        su->ablate_mean = old_mean;
        return false;
    }
    return true;
}

/* Temperature down or up. */
void app_temperature(AppState *a, int dir)
{
    Setup *su = cur_setup(a);
    if (su) app_set_temperature(a, su->temperature * (dir > 0 ? 1.25 : 0.8));
}

/* A temperature, within 0.1 .. 10 (near 1: exactly 1). */
void app_set_temperature(AppState *a, double t)
{
    Setup *su = cur_setup(a);
    if (!su || !(t == t)) return;
    double old = su->temperature;
    if (t < 0.1) t = 0.1;
    if (t > 10) t = 10;
    if (fabs(t - 1.0) < 1e-9) t = 1.0;
    su->temperature = t;
    if (!recompute(a)) {
        su->temperature = old;
        return;
    }
    app_toast(a, _("temperature %.2f"), t);
}

/* The sub-step and head of the stage shown, clamped to what it has. */
void app_show(AppState *a, int step, int head)
{
    Setup *su = cur_setup(a);
    if (!su || !a->view) return;
    a->step = step < 0 ? 0 : step >= a->view->nsteps ? a->view->nsteps - 1 : step;
    a->head = head < 0 || head > su->heads || su->heads < 2 ? 0 : head;
    reset_page_state(a);
    refresh_view(a);
}

/* Hover. */
void app_hover(AppState *a, int panel, int row, int col)
{
    a->hover_panel = panel;
    a->hover_row = row;
    a->hover_col = col;
    if (!a->pinned) update_explained(a);
}

/* Click: a guess in predict mode, else pin/unpin. */
void app_click(AppState *a, int panel, int row, int col)
{
    a->cells = false;           /* a pin by pointer is not the keyboard's cursor */
    if (app_predict_click(a, panel, row, col)) return;
    if (panel < 0 || (a->pinned && a->pin_panel == panel && a->pin_row == row && a->pin_col == col)) {
        a->pinned = false;
    } else {
        a->pinned = true;
        a->pin_panel = panel;
        a->pin_row = row;
        a->pin_col = col;
    }
    update_explained(a);
}

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

/*
** Scroll-editing an input. The matrix lives in the document's Lesson; every
** setup that reads the cell from the same place of the text (a matrix
** inherited from the setup that defines it) gets the same change
** (doc_edit_cell), so "edit X" means the X every later stage uses, as a
** student expects, and exactly what saving writes.
*/
bool app_scroll_edit(AppState *a, int panel, int row, int col, int steps, bool fine)
{
    if (!a->view || panel < 0 || panel >= a->view->npanels || steps == 0) return false;
    const Panel *p = &a->view->panels[panel];
    if (!p->editable || row < 0 || col < 0 || row >= p->m->rows || col >= p->m->cols) return false;
    int s0 = a->view->setup;
    LessonMatrix *lm = lesson_matrix(&a->doc->L->setups[s0], p->matrix);
    if (!lm) return false;
    int r = row + p->row_offset;
    col += p->col_offset;                           /* a zoomed part sits inside the matrix */
    double v = app_edit_step(mat_get(lm->m, r, col), steps, fine);
    if (fabs(v) < 1e-12) v = 0.0;                   /* land on 0 exactly, not 1e-17 */
    if (v > EDIT_LIMIT) v = EDIT_LIMIT;
    if (v < -EDIT_LIMIT) v = -EDIT_LIMIT;
    char name[sizeof p->matrix];                    /* the view goes when the numbers change */
    snprintf(name, sizeof name, "%s", p->matrix);
    return app_edit_cell(a, s0, name, r, col, v);
}

/* An edit, through the document. */
bool app_edit_cell(AppState *a, int setup, const char *matrix, int row, int col, double v)
{
    if (!a->doc) return false;
    DocEvent ev = doc_edit_cell(a->doc, setup, matrix, row, col, v);
    return app_follow(a, &ev);
}

/* Ctrl+Z. */
bool app_undo(AppState *a)
{
    if (!a->doc) return false;
    DocEvent ev = doc_undo(a->doc);
    return app_follow(a, &ev);
}

/* Ctrl+Shift+Z, Ctrl+Y. */
bool app_redo(AppState *a)
{
    if (!a->doc) return false;
    DocEvent ev = doc_redo(a->doc);
    return app_follow(a, &ev);
}

/* R. */
void app_undo_all(AppState *a)
{
    if (!a->doc) return;
    DocEvent ev = doc_revert(a->doc);
    app_follow(a, &ev);
}

/* Ctrl+S. */
int app_save_lesson(AppState *a)
{
    if (!a->doc) return -1;
    DocEvent ev = doc_save(a->doc);
    return app_follow(a, &ev) ? 0 : -1;
}

/* Save as. */
int app_save_as(AppState *a, const char *path)
{
    if (!a->doc) return -1;
    DocEvent ev = doc_save_as(a->doc, path);
    return app_follow(a, &ev) ? 0 : -1;
}

/* A save the platform writes. */
char *app_save_text(AppState *a, size_t *len)
{
    if (!a->doc) return NULL;
    char *text;
    DocEvent ev = doc_save_text(a->doc, &text, len);
    app_follow(a, &ev);
    return text;
}

/* The pinned cell, else the hovered one. */
bool app_focus_cell(const AppState *a, int *panel, int *row, int *col)
{
    if (a->pinned) { *panel = a->pin_panel; *row = a->pin_row; *col = a->pin_col; return true; }
    if (a->hover_panel >= 0) { *panel = a->hover_panel; *row = a->hover_row; *col = a->hover_col; return true; }
    return false;
}

/* A copy of the explanation worked out for the focused cell. */
char *app_explain(const AppState *a)
{
    return a->explained.on ? xstrdup(a->explained.ex.text) : NULL;
}

/* Open or close the picker, listing the lessons (library.h). */
void app_toggle_picker(AppState *a)
{
    a->picker = !a->picker;
    a->help = false;
    if (a->picker) app_library_fill(a);
}

/* Move the picker selection. */
void app_picker_move(AppState *a, int dir)
{
    if (a->picker_n == 0) return;
    a->picker_sel = (a->picker_sel + dir + a->picker_n) % a->picker_n;
}
