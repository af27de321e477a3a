/*
** test_highlight.c: what the window lights is what the arithmetic used.
**
** For every cell of every stage of every bundled lesson, and of lessons
** written here that nobody designed the stages for (eleven tokens and two
** heads under a causal mask, three heads of cross-attention with W_o,
** sixteen heads of width 2, two heads whose weights the lesson gives, four
** heads decoding from two K/V heads' caches), this suite hovers the cell and checks:
** - the operands explain_at reports are the right ones for the kind of
**   matrix (a score reads its query's row of Q and its key's row of K, in
**   the same head; a weight reads its row of the scores it was computed
**   from; an output reads its row of weights and its column of V; ...);
** - the outlines the frame draws are exactly the operands shown on the
**   slide: every outlined row, column or cell is an operand, and every
**   operand whose matrix is on the slide is outlined.
*/
#define _DEFAULT_SOURCE
#include "suites.h"
#include "app/frame.h"
#include "app/state.h"
#include "core/stage/explain.h"
#include "view/layout.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char ELEVEN[] =
    "title: Eleven tokens, two heads, causal\n"
    "[setup]\nseed: 7\ntokens: the animal did not cross the street because it was tired\n"
    "dims: entity animate pronoun verb state function\n"
    "X = randn 11x6 * 0.8\nW_q = randn 6x6 * 0.6\nW_k = randn 6x6 * 0.6\nW_v = randn 6x6 * 0.6\n"
    "W_o = randn 6x6 * 0.5\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\nheads: 2\nmask: causal\noutput: W_o\n"
    "[embeddings]\n[qkv_projection]\n[raw_scores]\n[scaled_scores]\n[softmax]\n[causal_mask]\n[weighted_sum]\n"
    "[multi_head]\n[entropy]\n[per_token]\nquery: 9\n"
    "[softmax]\nhead: 2\n[raw_scores]\nhead: 1\n[weighted_sum]\nhead: 2\n[multi_head]\nhead: 1\n[entropy]\nhead: 2\n"
    "[per_token]\nhead: 2\nquery: 4\n[causal_mask]\nhead: 1\n";

static const char CROSS[] =
    "title: Three heads across two sentences\n"
    "[setup]\nseed: 3\nquery_tokens: el gato se sentó\nkey_tokens: the cat sat down on it\n"
    "X = randn 4x6\nY = randn 6x6\nW_q = randn 6x9 * 0.5\nW_k = randn 6x9 * 0.5\nW_v = randn 6x6 * 0.5\n"
    "W_o = randn 6x4 * 0.5\nqueries: X @ W_q\nkeys: Y @ W_k\nvalues: Y @ W_v\nheads: 3\noutput: W_o\n"
    "[cross_attention]\n[multi_head]\n[qkv_projection]\n[scaled_scores]\n[entropy]\n[cross_attention]\nhead: 3\n";

static const char SIXTEEN[] =
    "title: Sixteen narrow heads\n"
    "[setup]\nseed: 11\ntokens: a b c d e f g h\nX = randn 8x32\nW_q = randn 32x32 * 0.3\nW_k = randn 32x32 * 0.3\n"
    "queries: X @ W_q\nkeys: X @ W_k\nvalues: X\nheads: 16\n"
    "[softmax]\n[scaled_scores]\n[multi_head]\n[weighted_sum]\nhead: 16\n[entropy]\n";

/* Weights given by the lesson (`attention: A`), two heads under a causal
** mask, with values and W_o. */
static const char GIVEN[] =
    "title: Two heads given by a model\n"
    "[setup]\nseed: 5\ntokens: one two three four five\n"
    "A = stack 2\n"
    "  1 0 0 0 0                   1 0 0 0 0\n"
    "  0.5 0.5 0 0 0               0.9 0.1 0 0 0\n"
    "  0.2 0.3 0.5 0 0             0 1 0 0 0\n"
    "  0.25 0.25 0.25 0.25 0       0 0 1 0 0\n"
    "  0.1 0.2 0.3 0.2 0.2         0 0 0 0.5 0.5\n"
    "attention: A\nmask: causal\nX = randn 5x4\nW_v = randn 4x4\nW_o = randn 4x3\nvalues: X @ W_v\noutput: W_o\n"
    "[softmax]\n[multi_head]\n[per_token]\nquery: 4\n[entropy]\n[causal_mask]\n[weighted_sum]\n[multi_head]\nhead: 2\n"
    "[softmax]\nhead: 1\n[per_token]\nhead: 2\nquery: 5\n";

/* Four query heads reading two K/V heads, decoded from their caches:
** every head at once, and head 2 alone. */
static const char GROUPED[] =
    "title: Four heads, two caches\n"
    "[setup]\nseed: 9\ntokens: we read the book\nX = randn 4x6\nW_q = randn 6x8 * 0.5\nW_k = randn 6x4 * 0.5\n"
    "W_v = randn 6x4 * 0.5\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\nheads: 4\nkv_heads: 2\nmask: causal\n"
    "[kv_cache]\n[kv_cache]\nhead: 2\n";

/* The head of a reference, as the trace normalises it. */
static int head_of(TraceRef r, int heads)
{
    if (r.kind == TK_Q || r.kind == TK_K || r.kind == TK_V) return heads <= 1 ? 1 : r.head;
    if (r.head >= 1) return r.head;
    return r.kind >= TK_RAW && r.kind <= TK_OUTPUT ? 1 : 0;
}

/* Find operand (kind, head, row, col) among ex's; -2 for "any head". */
static bool has_op(const Explain *ex, TraceKind k, int head, int row, int col, int heads)
{
    for (int i = 0; i < ex->nops; i++) {
        const ExplainOp *o = &ex->ops[i];
        if (o->ref.kind != k || o->row != row || o->col != col) continue;
        if (head == -2 || head_of(o->ref, heads) == head) return true;
    }
    return false;
}

/*
** The operands a cell must report, by kind. i, j are the trace cell; h its
** head (1 … H, or 0 for whole matrices).
*/
static void check_ops(const AppState *s, int setup, TraceRef ref, int i, int j, const Explain *ex, const char *where)
{
    const TraceSetup *ts = &s->doc->T->s[setup];
    const Setup *su = ts->su;
    int H = ts->heads, h = head_of(ref, H);
    TraceKind sm = su->mask != MASK_NONE ? TK_MASKED : TK_SCALED;
    switch (ref.kind) {
    case TK_INPUT: case TK_MASK:
        ck_assert_msg(ex->nops == 0, "%s: an input or mask cell has no operands", where);
        break;
    case TK_Q: case TK_K: case TK_V: {
        const Operand *o = ref.kind == TK_Q ? &su->queries : ref.kind == TK_K ? &su->keys : &su->values;
        /* with grouped-query heads, K and V of head h are those of its K/V head */
        int g = ref.kind == TK_Q ? h : h > 0 ? trace_kv_head(ts, h) : 0;
        int w = ref.kind == TK_V ? ts->d_v : ts->d_k, col = j + (H > 1 && g > 0 ? (g - 1) * w : 0);
        bool row = false, wcol = !o->weight;
        TraceRef in = trace_operand_input(su, o);        /* X, or its layer norm, or X + PE */
        for (int k = 0; k < ex->nops; k++) {
            const ExplainOp *op = &ex->ops[k];
            if (op->ref.kind == in.kind && (in.kind != TK_INPUT || !strcmp(op->ref.name, in.name)) && op->row == i)
                row = true;
            if (o->weight && op->ref.kind == TK_INPUT && !strcmp(op->ref.name, o->weight) && op->row == -1 && op->col == col)
                wcol = true;
        }
        ck_assert_msg(row && wcol, "%s: a projection reads its input's row %d and its weight's column %d", where, i, col);
        break;
    }
    case TK_RAW:
        ck_assert_msg(has_op(ex, trace_score_q(su), h, i, -1, H) && has_op(ex, trace_score_k(su), h, j, -1, H),
                      "%s: a score reads row %d of Q and row %d of K in head %d", where, i, j, h);
        break;
    case TK_SCALED:
        ck_assert_msg(has_op(ex, TK_RAW, h, i, j, H) && has_op(ex, trace_score_q(su), h, i, -1, H)
                      && has_op(ex, trace_score_k(su), h, j, -1, H),
                      "%s: a scaled score reads its raw score and the rows of Q and K", where);
        break;
    case TK_MASKED:
        ck_assert_msg(has_op(ex, TK_MASK, -2, i, j, H), "%s: a masked score reads the mask", where);
        break;
    case TK_WEIGHTS:
        if (su->attention) {        /* given: the cell of A it was read from */
            ck_assert_msg(ex->nops == 1 && ex->ops[0].ref.kind == TK_INPUT && !strcmp(ex->ops[0].ref.name, su->attention)
                          && ex->ops[0].row == i && ex->ops[0].col == (h - 1) * su->nk + j,
                          "%s: a given weight reads its own cell of %s", where, su->attention);
            break;
        }
        ck_assert_msg(has_op(ex, sm, h, i, -1, H), "%s: a weight reads its row of the scores of head %d", where, h);
        ck_assert_int_eq(ex->nops, 1);
        break;
    case TK_OUTPUT:
        ck_assert_msg(has_op(ex, TK_WEIGHTS, h, i, -1, H) && has_op(ex, TK_V, h, -1, j, H),
                      "%s: an output reads its row of weights and column %d of V in head %d", where, j, h);
        break;
    case TK_CONCAT: {
        int head = j / ts->d_v + 1;
        if (!lesson_head_ablated(su, head))
            ck_assert_msg(has_op(ex, TK_OUTPUT, head, i, j % ts->d_v, H), "%s: a joined cell is its head's output cell",
                          where);
        else if (su->ablate_mean & (1u << (head - 1)))      /* switched off: its output's mean over the tokens */
            ck_assert_msg(has_op(ex, TK_OUTPUT, head, -1, j % ts->d_v, H),
                          "%s: a mean-ablated cell reads its head's output column", where);
        else
            ck_assert_msg(ex->nops == 0, "%s: a zero-ablated cell reads nothing", where);
        break;
    }
    case TK_FINAL: {
        bool c = has_op(ex, H > 1 ? TK_CONCAT : TK_OUTPUT, -2, i, -1, H), w = false;
        for (int k = 0; k < ex->nops; k++)
            w |= ex->ops[k].ref.kind == TK_INPUT && !strcmp(ex->ops[k].ref.name, su->output_proj) && ex->ops[k].col == j;
        ck_assert_msg(c && w, "%s: W_o's output reads its row and W_o's column", where);
        break;
    }
    case TK_KV_WEIGHTS:     /* a decoded weight reads the cache of its K/V head, named by the group's first head */
        if (j <= i)
            ck_assert_msg(has_op(ex, trace_score_q(su), h, i, -1, H) && has_op(ex, trace_score_k(su), trace_kv_first(ts, h), j, -1, H),
                          "%s: a decoded weight reads row %d of q in head %d and row %d of its K/V head's cache", where, i, h, j);
        break;
    case TK_KV_OUTPUT:
        ck_assert_msg(has_op(ex, TK_KV_WEIGHTS, h, i, -1, H) && has_op(ex, TK_V, trace_kv_first(ts, h), -1, j, H),
                      "%s: a decoded output reads its row of weights and column %d of its K/V head's values", where, j);
        break;
    case TK_ENTROPY:
        ck_assert_msg(has_op(ex, TK_WEIGHTS, j + 1, i, -1, H), "%s: an entropy reads its row of weights", where);
        break;
    default:
        break;
    }
}

/* Where operand o shows on panel pn (a part of a matrix shows its rows and
** columns from row_offset and col_offset on); false if it does not. */
static bool on_panel(const Panel *pn, const ExplainOp *o, int H, int *r, int *c)
{
    if (!trace_ref_eq(pn->ref, o->ref, H)) return false;
    *r = o->row;
    *c = o->col;
    if (pn->owned && pn->kind == PANEL_HEATMAP) {
        if (*r >= 0 && (*r < pn->row_offset || *r >= pn->row_offset + pn->m->rows)) return false;
        if (*c >= 0 && (*c < pn->col_offset || *c >= pn->col_offset + pn->m->cols)) return false;
        *r = *r >= 0 ? *r - pn->row_offset : -1;
        *c = *c >= 0 ? *c - pn->col_offset : -1;
    }
    if (pn->kind == PANEL_PLOT && *c >= 0) {
        *c -= pn->col_offset;
        if (*c < 0 || *c >= pn->m->cols) return false;
    }
    return true;
}

/* Is mark m one of the operands (mapped onto the slide's panels)? */
static bool mark_is_op(const AppState *s, const LayoutMark *m, const Explain *ex)
{
    const Panel *pn = &s->view->panels[m->panel];
    int H = s->doc->T->s[s->view->setup].heads;
    for (int k = 0; k < ex->nops; k++) {
        const ExplainOp *o = &ex->ops[k];
        int r, c;
        if (on_panel(pn, o, H, &r, &c) && r == m->row && c == m->col) return true;
    }
    return false;
}

/* Every cell of every stage of the open lesson: operands and outlines. */
static int walk_lesson(AppState *s, const char *name)
{
    int cells = 0;
    DrawList *d = draw_create(1280, 720);
    for (int k = 0; k < s->doc->L->nstages; k++) {
        app_goto(s, k + 1);
        for (int t = 0, nsteps = s->view->nsteps; t < nsteps; t++) {   /* every sub-step */
            app_show(s, t, 0);
            for (int p = 0; p < s->view->npanels; p++) {
                const Panel *pn = &s->view->panels[p];
                for (int r = 0; r < pn->m->rows; r++)
                    for (int c = 0; c < pn->m->cols; c++) {
                        char where[200];
                        snprintf(where, sizeof where, "%s stage %d panel %d (%s) cell %d,%d", name, k + 1, p, pn->matrix, r, c);
                        app_hover(s, p, r, c);                 /* works out the explanation and its outlines */
                        ck_assert_msg(s->explained.on, "%s: no explanation", where);
                        const Explain *ex = &s->explained.ex;
                        const LayoutMark *marks = s->explained.marks;
                        int n = s->explained.nmarks;
                        if (pn->difference) {           /* a compare stage's B − A: the two cells it subtracts */
                            ck_assert_msg(!strncmp(ex->text, "B \xe2\x88\x92 A = ", strlen("B \xe2\x88\x92 A = ")) && n == 2 && marks[0].panel == p - 2
                                          && marks[1].panel == p - 1 && marks[0].row == r && marks[0].col == c
                                          && marks[1].row == r && marks[1].col == c,
                                          "%s: B - A outlines its cell of A and of B: %s", where, ex->text);
                            cells++;
                            continue;
                        }
                        check_ops(s, stage_panel_setup(s->view, pn), pn->ref, r + pn->row_offset, c + pn->col_offset, ex,
                                  where);
                        for (int m = 0; m < n; m++)
                            ck_assert_msg(mark_is_op(s, &marks[m], ex), "%s: mark %d (panel %d) is not an operand", where, m,
                                          marks[m].panel);
                        /* each operand shown on the slide is outlined */
                        int H = s->doc->T->s[s->view->setup].heads;
                        for (int o = 0; o < ex->nops; o++)
                            for (int q = 0; q < s->view->npanels; q++) {
                                int rr, cc;
                                if (!on_panel(&s->view->panels[q], &ex->ops[o], H, &rr, &cc)) continue;
                                bool lit = false;
                                for (int m = 0; m < n; m++) lit |= marks[m].panel == q;
                                ck_assert_msg(lit, "%s: operand %d is on panel %d but not outlined", where, o, q);
                            }
                        /* and the frame draws those outlines (spot check: the
                        ** first cell of each panel) */
                        if (r == 0 && c == 0 && n > 0) {
                            app_frame(s, 1280, 720, layout_measure_fixed, NULL, d);
                            Theme th = layout_theme(s->dark);
                            int frames = 0;
                            for (int i = 0; i < d->n; i++) {
                                const DrawCmd *cmd = &d->cmds[i];
                                if (cmd->kind == DRAW_RECT && cmd->width > 0 && cmd->color.r == th.highlight.r &&
                                    cmd->color.g == th.highlight.g && cmd->color.b == th.highlight.b && cmd->panel != p)
                                    frames++;
                            }
                            int other = 0;
                            for (int m = 0; m < n; m++) other += marks[m].panel != p;
                            ck_assert_msg(frames == other, "%s: %d outlines drawn on other panels, %d operands there", where,
                                          frames, other);
                        }
                        cells++;
                    }
            }
        }
    }
    draw_free(d);
    return cells;
}

/* Open text under a name, or fail. */
static AppState *open_text(const char *name, const char *text)
{
    AppState *s = app_create();
    ck_assert_msg(app_open_text(s, name, text, strlen(text)) == 0, "%s", s->error);
    return s;
}

START_TEST(test_generated_lessons)
{
    const char *texts[5] = { ELEVEN, CROSS, SIXTEEN, GIVEN, GROUPED };
    const char *names[5] = { "eleven.lesson", "cross.lesson", "sixteen.lesson", "given.lesson", "grouped.lesson" };
    for (int i = 0; i < 5; i++) {
        AppState *s = open_text(names[i], texts[i]);
        int cells = walk_lesson(s, names[i]);
        ck_assert_int_gt(cells, i == 3 ? 200 : 500);
        app_free(s);
    }
}
END_TEST

START_TEST(test_bundled_lessons)
{
    DIR *dir = opendir("../lessons");
    ck_assert_ptr_nonnull(dir);
    struct dirent *e;
    int lessons = 0;
    while ((e = readdir(dir))) {
        if (!strstr(e->d_name, ".lesson")) continue;
        char path[512];
        snprintf(path, sizeof path, "../lessons/%s", e->d_name);
        AppState *s = app_create();
        ck_assert_msg(app_open(s, path) == 0, "%s", s->error);
        walk_lesson(s, e->d_name);
        app_free(s);
        lessons++;
    }
    closedir(dir);
    ck_assert_int_ge(lessons, 6);
}
END_TEST

Suite *highlight_suite(void)
{
    Suite *s = suite_create("highlight");
    TCase *core = tcase_create("core");
    tcase_set_timeout(core, 120);
    tcase_add_test(core, test_generated_lessons);
    tcase_add_test(core, test_bundled_lessons);
    suite_add_tcase(s, core);
    return s;
}
