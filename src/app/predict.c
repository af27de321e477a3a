/*
** predict.c: predict mode (predict.h). A guess is kept by head and by row
** of the whole weights matrix (a zoomed part knows where it sits), so that
** every head's panel has its own and a view built again keeps them.
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
    for (int h = 0; h <= LESSON_MAX_HEADS; h++)
        for (int i = 0; i < LESSON_MAX_TOKENS; i++) a->guesses[h][i] = -1;
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

/* A new stage or sub-step: the guesses were about the one before. */
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
    if (g) *g = col;
    return true;
}

/* The reveal: every weights panel of the view (each head's) counts its
** rows guessed right, and says so, a head at a time when there are
** several. */
static void reveal(AppState *a)
{
    char line[sizeof a->toast] = "";
    int panels = 0, total = 0, rows = 0, guessed = 0;
    for (int k = 0; k < a->view->npanels; k++) {
        if (!app_guess_panel(a, k)) continue;
        const Mat *m = a->view->panels[k].m;
        int right = 0, g = 0;
        for (int i = 0; i < m->rows; i++) {
            int best = 0, guess = app_guess(a, k, i);
            for (int j = 1; j < m->cols; j++) if (mat_get(m, i, j) > mat_get(m, i, best)) best = j;
            if (guess < 0 || guess >= m->cols) continue;
            g++;
            if (mat_get(m, i, guess) == mat_get(m, i, best)) right++;
        }
        if (panels++) strncat(line, "   \xc2\xb7   ", sizeof line - strlen(line) - 1);
        snprintf(line + strlen(line), sizeof line - strlen(line), _("head %d: %d of %d rows right"),
                 a->view->panels[k].ref.head, right, m->rows);
        total += right;
        rows = m->rows;
        guessed += g;
    }
    a->predict_right = total;
    a->predict = PREDICT_REVEALED;
    app_update_marks(a);                          /* and show again */
    if (panels == 1) app_toast(a, _("%d of %d rows right (%d guessed)"), total, rows, guessed);
    else app_toast(a, "%s", line);
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
        if (a->predict_panel < 0) app_toast(a, _("predict: go to a stage with weights"));
        else app_toast(a, _("predict: click the cell you expect to be largest in each row, then P"));
        return;
    }
    if (a->predict == PREDICT_GUESSING && a->predict_panel >= 0) {
        reveal(a);
        return;
    }
    a->predict = PREDICT_OFF;
    a->predict_panel = -1;
    app_update_marks(a);
}
