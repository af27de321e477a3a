/*
** predict.c: predict mode (predict.h). A guess is kept by head and by row
** of the whole weights matrix (a zoomed part knows where it sits), so that
** every head's panel has its own, wherever it is shown: head h's panel on
** the comparison page and on head h's own page hold the same guesses, a
** view built again keeps them, and so does a turn of the page. The reveal
** reads each guessed head's weights from the trace, not from the page
** shown, so that it counts the heads guessed on other pages too.
*/
#include "predict.h"
#include "state.h"
#include "zoom.h"
#include "core/text/i18n.h"
#include "core/stage/stage_table.h"

#include <stdio.h>
#include <string.h>

/* No guess yet, in any head. */
static void clear_guesses(AppState *a)
{
    for (int h = 0; h <= LESSON_MAX_HEADS; h++) {
        a->guess_kind[h] = TK_COUNT;
        for (int i = 0; i < LESSON_MAX_TOKENS; i++) a->guesses[h][i] = -1;
    }
}

/* True when panel p shows weights (any head's, or a decoding step's; not
** a compare stage's difference of two). */
static bool is_weights(const Panel *p)
{
    return p->kind == PANEL_HEATMAP && !p->difference && (p->ref.kind == TK_WEIGHTS || p->ref.kind == TK_KV_WEIGHTS);
}

/* The first weights panel of the view, or -1: predict mode asks about the
** weights panels of every head. */
static int weights_panel(const View *v)
{
    for (int i = 0; v && i < v->npanels; i++)
        if (is_weights(&v->panels[i])) return i;
    return -1;
}

/* Whether panel k takes guesses (predict.h). */
bool app_guess_panel(const AppState *a, int k)
{
    return a->predict != PREDICT_OFF && a->view && k >= 0 && k < a->view->npanels && is_weights(&a->view->panels[k]);
}

/* Where the guess for row r of panel k is kept, or NULL. */
static int *guess_slot(AppState *a, int k, int r)
{
    if (!app_guess_panel(a, k)) return NULL;
    const Panel *p = &a->view->panels[k];
    int h = p->ref.head, row = r + p->row_offset;
    if (h < 0 || h > LESSON_MAX_HEADS || row < 0 || row >= LESSON_MAX_TOKENS) return NULL;
    return &a->guesses[h][row];
}

/* The guess for row r of panel k (predict.h). */
int app_guess(const AppState *a, int k, int r)
{
    const int *g = guess_slot((AppState *)a, k, r);
    return g ? *g : -1;
}

/* Panels predict mode hides while the class guesses: those the stage's
** row of the stage table says give the answer away, as a bit set. */
unsigned long long app_hidden_panels(const AppState *a)
{
    unsigned long long bits = 0;
    if (a->predict != PREDICT_GUESSING || !a->view || weights_panel(a->view) < 0) return 0;
    for (int i = 0; i < a->view->npanels && i < 64; i++)
        if (stage_hides(a->view->id, a->view->panels[i].ref.kind)) bits |= 1ULL << i;
    return bits;
}

/* A new stage: the guesses were about the one before. */
void app_predict_new_stage(AppState *a)
{
    clear_guesses(a);
    a->predict_panel = -1;
    if (a->predict == PREDICT_REVEALED) a->predict = PREDICT_GUESSING;
}

/* A new view: the weights panel predict mode asks about, when it is on. */
void app_predict_new_view(AppState *a)
{
    if (a->predict != PREDICT_OFF) a->predict_panel = weights_panel(a->view);
}

/* A click: a guess for the row, while the class guesses. */
bool app_predict_click(AppState *a, int panel, int row, int col)
{
    if (a->predict != PREDICT_GUESSING || !app_guess_panel(a, panel)) return false;
    int *g = guess_slot(a, panel, row);
    if (g) {
        *g = col;
        a->guess_kind[a->view->panels[panel].ref.head] = a->view->panels[panel].ref.kind;
    }
    return true;
}

/* The column of row r's largest weight (predict.h). */
int app_row_best(const Mat *m, int r)
{
    int best = 0;
    for (int j = 1; j < m->cols; j++) if (mat_get(m, r, j) > mat_get(m, r, best)) best = j;
    return best;
}

/* Rows of W guessed for a head (kept in g) and how many of them right: a
** guess is right when its weight equals the row's largest. */
static int count_right(const Mat *W, const int *g, int *guessed)
{
    int right = 0;
    *guessed = 0;
    for (int i = 0; i < W->rows && i < LESSON_MAX_TOKENS; i++) {
        if (g[i] < 0 || g[i] >= W->cols) continue;
        ++*guessed;
        right += mat_get(W, i, g[i]) == mat_get(W, i, app_row_best(W, i));
    }
    return right;
}

/* The reveal: every head guessed, on this page or another of the stage,
** counts its rows guessed right from its weights in the trace, and the
** toast says so, a head at a time when the setup has several
** ("head 1: 3 of 4 rows right · head 3: 2 of 4 rows right"). */
static void reveal(AppState *a)
{
    char line[sizeof a->toast] = "";
    int total = 0, rows = 0, guessed = 0, heads = a->doc->T->s[a->view->setup].heads;
    for (int h = 0; h <= LESSON_MAX_HEADS; h++) {
        if (a->guess_kind[h] == TK_COUNT) continue;
        const Mat *W = trace_at(a->doc->T, a->view->setup, trace_ref(a->guess_kind[h], h));
        int g = 0, right = W ? count_right(W, a->guesses[h], &g) : 0;
        if (g == 0) continue;
        if (guessed) strncat(line, "   \xc2\xb7   ", sizeof line - strlen(line) - 1);
        snprintf(line + strlen(line), sizeof line - strlen(line), _("head %d: %d of %d rows right"), h, right, W->rows);
        total += right;
        rows = W->rows;
        guessed += g;
    }
    if (!guessed && a->predict_panel >= 0) rows = a->view->panels[a->predict_panel].m->rows;
    a->predict_right = total;
    a->predict = PREDICT_REVEALED;
    app_update_marks(a);                          /* and show again */
    if (heads < 2 || !guessed) app_toast(a, _("%d of %d rows right (%d guessed)"), total, rows, guessed);
    else app_toast(a, "%s", line);
}

/* Whether a guess was made on some page of the stage. */
static bool any_guess(const AppState *a)
{
    for (int h = 0; h <= LESSON_MAX_HEADS; h++)
        if (a->guess_kind[h] != TK_COUNT) return true;
    return false;
}

/* Predict mode cycle. */
void app_predict(AppState *a)
{
    if (a->predict == PREDICT_OFF) {
        app_zoom_reset(a);                  /* the guesses are about the whole stage */
        a->predict = PREDICT_GUESSING;
        clear_guesses(a);
        a->predict_panel = weights_panel(a->view);
        app_update_marks(a);                          /* the answers hide */
        if (a->predict_panel < 0 && a->view && a->view->nsteps > 1)     /* another page of the stage may have some */
            app_toast(a, _("predict: turn to a page with weights, click the cell you expect to be largest in each row, "
                           "then P"));
        else if (a->predict_panel < 0) app_toast(a, _("predict: go to a stage with weights"));
        else app_toast(a, _("predict: click the cell you expect to be largest in each row, then P"));
        return;
    }
    if (a->predict == PREDICT_GUESSING && (a->predict_panel >= 0 || any_guess(a))) {
        reveal(a);
        return;
    }
    a->predict = PREDICT_OFF;
    a->predict_panel = -1;
    app_update_marks(a);
}
