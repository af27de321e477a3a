/*
** trace_grid.c: every head of a model in one matrix, for a model_view
** stage (see trace_int.h).
**
** BertViz's model view draws each head of each layer as a small picture of
** its weights, the layers down and the heads across. Here that picture is
** one matrix: block (l, h), nq rows by nk columns, holds the weights of
** head h of the l-th setup lesson_grid_setups names (the setup of the
** stage and those above it with its tokens and heads). The stage draws it
** as one heatmap, its blocks apart; hovering a cell explains the weight it
** copies. Nothing is computed but the copy.
*/
#include "trace_int.h"
#include "core/stage/stage_table.h"

#include <assert.h>
#include <string.h>

/* Whether setup k has a model_view stage. */
static bool wants_grid(const Lesson *L, int k)
{
    for (int i = 0; i < L->nstages; i++)
        if (L->stages[i].setup == k && stage_kind(L->stages[i].id)->extra == EXTRA_GRID) return true;
    return false;
}

/* TK_GRID of setup k. */
bool tr_grid(Trace *T, const Lesson *L, int k)
{
    if (!wants_grid(L, k)) return true;
    int setups[LESSON_MAX_SETUPS], n = lesson_grid_setups(L, k, setups);
    TraceSetup *ts = &T->s[k];
    int H = ts->heads, nq = L->setups[k].nq, nk = L->setups[k].nk;
    Mat *g = mat_create(n * nq, H * nk);
    if (!g) return false;
    for (int l = 0; l < n; l++)
        for (int h = 1; h <= H; h++) {
            const Mat *w = trace_at(T, setups[l], trace_ref(TK_WEIGHTS, h));
            if (!w || w->rows != nq || w->cols != nk) {
                mat_free(g);
                return false;
            }
            for (int i = 0; i < nq; i++)
                memcpy(mat_row(g, l * nq + i) + (h - 1) * nk, mat_row(w, i), sizeof(double) * (size_t)nk);
        }
    return tr_put(ts, TK_GRID, 0, 0, g, true) != NULL;
}
