/*
** stage_grid.c: every head of every layer on one picture, the stage
** model_view (see stage_int.h): BertViz's model view.
**
** The trace lays the weights out as one matrix (TK_GRID, trace_grid.c):
** a block of queries × keys per head, the layers (the setups above with
** the stage's tokens and heads) down and the heads across. This draws it
** as one heatmap on the weights' scale, its blocks apart and labelled by
** layer and head, each row and column still named by its token for the
** hover and --dump.
*/
#include "stage_int.h"
#include "core/util.h"

#include <inttypes.h>
#include <stdlib.h>

/* The most cells the grid may have (it is a copy of every weight it shows),
** and the most rows or columns (those of 16 heads of 1024 keys side by side). */
#define GRID_MAX_CELLS (INT64_C(1) << 24)
#define GRID_MAX_SIDE  16384

/* The grid fits: at most GRID_MAX_SIDE rows and columns, GRID_MAX_CELLS cells. */
bool stage_model_view_check(const Lesson *L, const Stage *st, const StageSize *z, Error *err)
{
    int setups[LESSON_MAX_SETUPS], n = lesson_grid_setups(L, st->setup, setups);
    const Setup *su = &L->setups[st->setup];            /* every head, whatever head: says */
    int64_t heads = su->heads > 0 ? su->heads : 1, rows = n * z->nq, cols = heads * z->nk;
    if (rows <= GRID_MAX_SIDE && cols <= GRID_MAX_SIDE && rows * cols <= GRID_MAX_CELLS) return true;
    return error_set(err, ERR_INVALID, NULL, 0, 0, "stage model_view: %d layers of %" PRId64 " heads over %" PRId64 "x%"
                     PRId64 " tokens make a grid of %" PRId64 "x%" PRId64 " weights, over the limit of %" PRId64
                     " cells; use fewer tokens", n, heads, z->nq, z->nk, rows, cols, GRID_MAX_CELLS);
}

/* Labels for n blocks: the setups' titles (or "setup N"), or "head N". */
static char **block_labels(const Ctx *c, const int *setups, int n, bool heads)
{
    char **out = xcalloc((size_t)n, sizeof *out);
    for (int i = 0; i < n; i++) {
        const Setup *su = heads ? NULL : &c->L->setups[setups[i]];
        out[i] = heads ? stage_fmt(_("head %d"), i + 1)
               : su->title ? xstrdup(su->title) : stage_fmt(_("setup %d"), setups[i] + 1);
    }
    return out;
}

/* Every head of every layer: one heatmap of blocks. */
void stage_model_view(Ctx *c)
{
    int setups[LESSON_MAX_SETUPS], n = lesson_grid_setups(c->L, c->s, setups);
    int nq = c->su->nq, nk = c->su->nk;
    char *title = stage_fmt(_("the weights of %d heads in each of %d layers"), c->H, n);
    Panel *p = stage_heat(c, trace_ref(TK_GRID, 0), title, LAB_DIM, LAB_DIM, _("layers, each of the query tokens"),
                          _("heads, each of the key tokens"));
    free(title);
    if (!p) return;
    stage_as_weights(c, p);
    for (int r = 0; r < p->m->rows; r++) {
        free(p->row_labels[r]);
        p->row_labels[r] = xstrdup(c->su->qtokens[r % nq]);
    }
    for (int j = 0; j < p->m->cols; j++) {
        free(p->col_labels[j]);
        p->col_labels[j] = xstrdup(c->su->ktokens[j % nk]);
    }
    p->block_rows = nq;
    p->block_cols = nk;
    p->row_blocks = block_labels(c, setups, n, false);
    p->col_blocks = block_labels(c, setups, c->H, true);
    p->nrow_blocks = n;
    p->ncol_blocks = c->H;
    c->v->formula = stage_fmt(_("row l, column h: the weights of head h in layer l (its queries down, its keys across)"));
}
