/*
** lesson_check.c: what a lesson's parts need of each other, and its budgets
** (see lesson_int.h).
**
** When a [setup] ends, its defaults are filled in and everything in it is
** checked to fit together: where queries, keys and values come from and
** their widths, heads, masks, positions, K/V heads, a residual stream,
** weights given by the lesson. When the whole file is read, each stage is
** checked against its setup. Every error points at the line that can fix
** it: the setting when this setup wrote it, else the [setup] line.
**
** The budgets (lesson.h) keep a short file within every limit from costing
** more than about a second and a few hundred MB: the numbers all matrices
** hold, the multiply-adds of computing every setup, the pages the stages
** unfold into and the cells of those pages. They are counted here before
** anything is allocated or computed.
*/
#include "lesson_int.h"
#include "core/stage/stage_table.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- budgets */

/*
** Count n more numbers held by the lesson's matrices, before they are
** allocated. Every setup holds its own copy of what it inherits, and so
** does the trace, so the total, not one matrix, is what costs memory.
*/
bool lp_add_numbers(Parser *p, int line, int col, int64_t n)
{
    p->numbers += n;
    if (p->numbers - p->loaded <= LESSON_MAX_NUMBERS && p->numbers <= LESSON_MAX_LOADED_NUMBERS) return true;
    return lp_fail_line(p, line, col, "the matrices of this lesson would hold more than %d numbers in all "
                     "(each setup counts the matrices it inherits); use smaller matrices or fewer setups",
                     p->numbers - p->loaded > LESSON_MAX_NUMBERS ? LESSON_MAX_NUMBERS : LESSON_MAX_LOADED_NUMBERS);
}

/* Count n numbers read by `load`: against the budget of every number only. */
bool lp_add_loaded(Parser *p, int line, int col, int64_t n)
{
    p->loaded += n;
    return lp_add_numbers(p, line, col, n);
}

/* ----------------------------------------------------------------- setups */

/* The matrix called name in setup su, which must have one: every name a
** setting gives is checked when it is read (lp_known_matrix) or, for
** where queries, keys and values come from, by operand_check. */
static const Mat *named(const Setup *su, const char *name)
{
    const LessonMatrix *m = lesson_matrix(su, name);
    assert(m && m->m);
    return m->m;
}


/* What a setup's masks, positions and K/V heads need (after the widths
** are known: dq, dk, dv). */
static bool check_modern(Parser *p, const Setup *su, int dq, int dk, int dv)
{
    int H = su->heads, G = lesson_kv_heads(su);
    /* point at the setting when this setup wrote it, else at [setup] */
    int kv_at = su->kv_line > su->line ? su->kv_line : su->line;
    int mask_at = su->mask_line > su->line ? su->mask_line : su->line;
    int pos_at = su->positions_line > su->line ? su->positions_line : su->line;
    if (su->kv_heads) {
        if (H % G)
            return lp_fail_line(p, kv_at, 1, "kv_heads: %d does not divide heads: %d; every K/V head must serve "
                             "the same number of query heads", G, H);
        if (dk != dq / H * G)
            return lp_fail_line(p, kv_at, 1, "with heads: %d and kv_heads: %d the keys must be %d wide "
                             "(%d K/V heads of the query heads' width %d), found %d",
                             H, G, dq / H * G, G, dq / H, dk);
        if (dv % G)
            return lp_fail_line(p, kv_at, 1, "kv_heads: %d does not divide the width of the values (%d)", G, dv);
    }
    if (su->mask == MASK_PARTS && su->cross && (su->mask_parts & MASKP_CAUSAL))
        return lp_fail_line(p, mask_at, 1, "causal, sliding and prefix masks need one sequence, but this setup has "
                         "query_tokens and key_tokens; only 'mask: padding TOKEN' works across two");
    if (su->mask == MASK_PARTS && (su->mask_parts & MASKP_PREFIX) && su->prefix > su->nq)
        return lp_fail_line(p, mask_at, 1, "mask: prefix %d is longer than the %d tokens", su->prefix, su->nq);
    if (su->mask == MASK_PARTS && (su->mask_parts & MASKP_PADDING)) {
        bool any = false;
        for (int i = 0; i < su->nq; i++) any |= !strcmp(su->qtokens[i], su->pad_token);
        for (int i = 0; i < su->nk; i++) any |= !strcmp(su->ktokens[i], su->pad_token);
        if (!any)
            return lp_fail_line(p, mask_at, 1, "mask: padding %s names the pad token, but no token is %s", su->pad_token,
                             su->pad_token);
    }
    if (su->positions == POS_NONE) return true;
    static const char *const pos[] = { "none", "sinusoidal", "rope", "alibi" };
    if (su->cross)
        return lp_fail_line(p, pos_at, 1, "positions: %s needs one sequence, but this setup has query_tokens and key_tokens",
                         pos[su->positions]);
    if (su->positions == POS_SINUSOIDAL && (strcmp(su->queries.input, su->keys.input) || strcmp(su->queries.input, su->values.input)))
        return lp_fail_line(p, pos_at, 1, "positions: sinusoidal adds positions to the one input of queries, keys and "
                         "values, but they come from %s, %s and %s", su->queries.input, su->keys.input, su->values.input);
    if (su->positions == POS_ROPE && su->score == SCORE_ADDITIVE)
        return lp_fail_line(p, pos_at, 1, "positions: rope rotates queries and keys for dot products; it does not work with score: additive");
    if (su->positions == POS_ROPE && (dq / H) % 2)
        return lp_fail_line(p, pos_at, 1, "positions: rope turns pairs of dimensions, but one head's queries and keys are %d wide "
                         "(an odd number)", dq / H);
    (void)dv;
    return true;
}
/* `residual: yes` continues the stream of the setup above: it needs one,
** with the same tokens, and its output (after W_o) as wide as this
** setup's queries' input, which the stream replaces. */
static bool check_residual(Parser *p, const Setup *su, int dq)
{
    int line = su->residual_line > su->line ? su->residual_line : su->line;
    if (p->L->nsetups < 2)
        return lp_fail_line(p, line, 1, "residual: yes continues the setup above, but this is the first setup");
    const Setup *prev = &p->L->setups[p->L->nsetups - 2];
    if (prev->attention)
        return lp_fail_line(p, line, 1, "residual: yes continues the stream of the setup above, but that setup is given its "
                         "weights (attention: %s) and has no input X to continue", prev->attention);
    if (su->cross || prev->cross || su->nq != prev->nq)
        return lp_fail_line(p, line, 1, "residual: yes needs the same tokens as the setup above (self-attention on one sequence)");
    for (int i = 0; i < su->nq; i++)       /* the stream is the tokens' own: the same tokens, in the same order */
        if (strcmp(su->qtokens[i], prev->qtokens[i]))
            return lp_fail_line(p, line, 1, "residual: yes needs the same tokens as the setup above, but token %d is '%s' here "
                                "and '%s' there", i + 1, su->qtokens[i], prev->qtokens[i]);
    const LessonMatrix *px = lesson_matrix(prev, prev->queries.input), *x = lesson_matrix(su, su->queries.input);
    int out = prev->output_proj ? named(prev, prev->output_proj)->cols
                                : named(prev, prev->values.input)->cols;
    if (prev->values.weight) {
        const LessonMatrix *w = lesson_matrix(prev, prev->values.weight);
        if (!prev->output_proj) out = w->m->cols;
    }
    if (!px || !x || px->m->cols != out || x->m->cols != out || dq < 0)
        return lp_fail_line(p, line, 1, "residual: yes adds the output of the setup above (%d wide) to %s (%d wide): "
                         "they must be as wide as each other", out, su->queries.input, x ? x->m->cols : 0);
    return true;
}

/* A row of width numbers, one per column of what: a bias added to every
** row of what's product, or γ and β of a layer norm of what. */
static bool check_row(Parser *p, const Setup *su, const char *name, int width, int line, int col, const char *what)
{
    const Mat *b = lesson_matrix(su, name)->m;
    if (b->rows == 1 && b->cols == width) return true;
    return lp_fail_line(p, line, col, "%s must be one row of %d numbers, one per column of %s, found %dx%d",
                        name, width, what, b->rows, b->cols);
}

/* Where to point at an operand: its line, or the [setup] line when it was
** inherited from an earlier setup (the problem is in this one: it changed
** the tokens or a matrix the operand uses). */
static void operand_at(const Setup *su, const Operand *o, int *line, int *col)
{
    bool here = o->line > su->line;
    *line = here ? o->line : su->line;
    *col = here ? o->col : 1;
}

/* Width of an operand's result, or -1 with an error. */
static int operand_check(Parser *p, const Setup *su, const Operand *o, const char *role, int want_rows, const char *tok_what)
{
    int line, col;
    operand_at(su, o, &line, &col);
    const LessonMatrix *in = lesson_matrix(su, o->input);
    if (!in) { lp_fail_line(p, line, col, "no matrix called %s is defined in this setup", o->input); return -1; }
    if (in->m->rows != want_rows) {
        lp_fail_line(p, line, col, "%s come from %s, which has %d rows, but there are %d %s",
                  role, o->input, in->m->rows, want_rows, tok_what);
        return -1;
    }
    if (!o->weight) return in->m->cols;
    const LessonMatrix *w = lesson_matrix(su, o->weight);
    if (!w) { lp_fail_line(p, line, col, "no matrix called %s is defined in this setup", o->weight); return -1; }
    if (w->m->rows != in->m->cols) {
        lp_fail_line(p, line, col, "cannot compute %s @ %s: %s has %d columns but %s has %d rows",
                  o->input, o->weight, o->input, in->m->cols, o->weight, w->m->rows);
        return -1;
    }
    if (o->bias && !check_row(p, su, o->bias, w->m->cols, line, col, o->weight)) return -1;
    return w->m->cols;
}

/* The most names setting_names gives. */
#define SETTING_NAMES 17

/* The matrices a setup's settings other than its queries, keys and values
** name (the mask, W_o, the norms, the MLP, given weights, additive
** scores), into out (SETTING_NAMES at most); how many. */
static int setting_names(const Setup *su, const char *out[SETTING_NAMES])
{
    const char *all[SETTING_NAMES] = { su->mask_matrix, su->output_proj, su->output_bias, su->norm.gamma, su->norm.beta,
                                       su->mlp_norm.gamma, su->mlp_norm.beta, su->final_norm.gamma, su->final_norm.beta,
                                       su->mlp.w_in, su->mlp.b_in, su->mlp.w_out, su->mlp.b_out, su->attention, su->add_w1,
                                       su->add_w2, su->add_v };
    int n = 0;
    for (int i = 0; i < SETTING_NAMES; i++)
        if (all[i]) out[n++] = all[i];
    return n;
}

/*
** Q, K and V also name the queries, keys and values a setup computes (see
** trace.h), and the trace keeps one matrix per name. So a matrix called Q
** may be used only when the queries are that very matrix (`queries: Q`);
** otherwise views and explanations would show the computed queries in its
** place, with the wrong number of rows.
*/
static bool check_role_names(Parser *p, const Setup *su)
{
    static const char *const role[3] = { "Q", "K", "V" }, *const key[3] = { "queries", "keys", "values" };
    const Operand *ops[3] = { &su->queries, &su->keys, &su->values };
    const char *other[SETTING_NAMES];
    int nother = setting_names(su, other);
    for (int r = 0; r < 3; r++) {
        const Operand *self = ops[r];
        if (!self->weight && !strcmp(self->input, role[r])) continue;
        int line = 0, col = 1;
        for (int i = 0; i < 3 && !line; i++)
            if (!strcmp(ops[i]->input, role[r]) || (ops[i]->weight && !strcmp(ops[i]->weight, role[r])))
                operand_at(su, ops[i], &line, &col);
        for (int i = 0; i < nother && !line; i++)
            if (!strcmp(other[i], role[r])) line = su->line;
        if (line)
            return lp_fail_line(p, line, col, "a matrix called %s can only be used as '%s: %s', since %s also names "
                             "the computed %s (here %s%s%s); call the matrix something else, e.g. %s_in",
                             role[r], key[r], role[r], role[r], key[r], self->input,
                             self->weight ? " @ " : "", self->weight ? self->weight : "", role[r]);
    }
    return true;
}

/* The stack depth of an operand's weight (1 if none). */
static int operand_stack(const Setup *su, const Operand *o)
{
    const LessonMatrix *w = o->weight ? lesson_matrix(su, o->weight) : NULL;
    return w ? w->stack : 1;
}

/*
** What computing a checked setup costs (see LESSON_MAX_WORK): the
** multiply-adds of its products plus the numbers of the matrices the trace
** stores. With several heads attention is computed whole and again head by
** head; a tanh of additive scoring costs about 32 multiply-adds (measured).
*/
static int64_t setup_work(const Setup *su, int64_t dq, int64_t dk, int64_t dv)
{
    int64_t nq = su->nq, nk = su->nk, w = 0, passes = su->heads > 1 ? 2 : 1;
    const Operand *o[3] = { &su->queries, &su->keys, &su->values };
    for (int i = 0; i < 3; i++) {
        const Mat *in = named(su, o[i]->input);
        const Mat *wt = o[i]->weight ? named(su, o[i]->weight) : NULL;
        w += wt ? (int64_t)in->rows * in->cols * wt->cols : 0;
        w += passes * (int64_t)in->rows * (wt ? wt->cols : in->cols);       /* Q, K or V, and its head slices */
    }
    if (su->score == SCORE_ADDITIVE) {
        const Mat *v = named(su, su->add_v);
        int64_t u = (int64_t)v->rows * v->cols;
        w += nq * dq * u + nk * dk * u + 32 * nq * nk * u;
    } else {
        w += passes * nq * nk * dq;
    }
    w += passes * (nq * nk * dv + 5 * nq * nk + nq * dv);   /* weights·V; scores to weights; output */
    if (su->output_proj) {
        const Mat *wo = named(su, su->output_proj);
        w += nq * dv * wo->cols + nq * wo->cols;
    }
    return w;
}

/* A causal mask needs one sequence; `mask: allow NAME` or `block NAME`:
** NAME is queries x keys and holds only 0 and 1. */
static bool check_mask(Parser *p, const Setup *su)
{
    if (su->mask == MASK_CAUSAL && su->cross)
        return lp_fail_line(p, su->line, 1, "a causal mask needs one sequence, but this setup has query_tokens and key_tokens "
                         "(cross-attention sees the whole source sentence); use 'mask: allow NAME' to block keys");
    if (su->mask != MASK_ALLOW && su->mask != MASK_BLOCK) return true;
    const Mat *m = named(su, su->mask_matrix);
    if (m->rows != su->nq || m->cols != su->nk)
        return lp_fail_line(p, su->line, 1, "mask %s is %dx%d but the scores are %dx%d (queries x keys)",
                         su->mask_matrix, m->rows, m->cols, su->nq, su->nk);
    for (int64_t i = 0; i < (int64_t)m->rows * m->cols; i++)
        if (mat_data(m)[i] != 0.0 && mat_data(m)[i] != 1.0)
            return lp_fail_line(p, lesson_matrix(su, su->mask_matrix)->line, 1,
                             "mask %s may hold only 0 and 1, found %g", su->mask_matrix, mat_data(m)[i]);
    return true;
}

/* A stack of weights (one per head) has as many matrices as the heads that
** use it: want, query heads or (kv) K/V heads. */
static bool check_operand_stack(Parser *p, const Setup *su, const Operand *o, int want, bool kv)
{
    int st = operand_stack(su, o), line, col;
    if (st <= 1 || st == want) return true;
    operand_at(su, o, &line, &col);
    return lp_fail_line(p, line, col, "%s is a stack of %d matrices but the setup has %d %shead%s",
                     o->weight, st, want, kv ? "K/V " : "", want == 1 ? "" : "s");
}

/* W_o (when set) has a row per number of the attention output it
** multiplies, and its bias one number per column. */
static bool check_output_rows(Parser *p, const Setup *su, int width)
{
    const Mat *wo = su->output_proj ? named(su, su->output_proj) : NULL;
    if (wo && wo->rows != width)
        return lp_fail_line(p, su->line, 1, "output projection %s has %d rows but the attention output it multiplies is %d wide",
                            su->output_proj, wo->rows, width);
    int line = p->set.output ? p->set.output : su->line;
    return !su->output_bias || check_row(p, su, su->output_bias, wo->cols, line, 1, su->output_proj);
}

/* The work a lesson may take: more when it loads a model's weights than
** when its text makes every matrix. */
static int64_t work_limit(const Parser *p)
{
    return p->loaded > 0 ? LESSON_MAX_LOADED_WORK : LESSON_MAX_WORK;
}

/* Count a setup's work against its budget (work_limit). */
static bool add_work(Parser *p, const Setup *su, int64_t work)
{
    p->work += work;
    if (p->work > work_limit(p))
        return lp_fail_line(p, su->line, 1, "computing the lesson up to this setup takes about %" PRId64 " million multiplications, "
                         "over the limit of %" PRId64 " million; use fewer tokens, smaller matrices or fewer setups",
                         p->work / 1000000, work_limit(p) / 1000000);
    return true;
}

/* `value_dims:` names as many columns as the values have (dv; none without
** values). */
static bool check_value_dims(Parser *p, const Setup *su, int dv)
{
    if (!su->nvalue_dims || su->nvalue_dims == dv) return true;
    int line = su->value_dims_line > su->line ? su->value_dims_line : su->line;
    if (!su->values.input)
        return lp_fail_line(p, line, 1, "value_dims names the columns of the values, but this setup has none: add 'values: ...'");
    return lp_fail_line(p, line, 1, "value_dims names %d columns but the values (%s%s%s) have %d", su->nvalue_dims,
                        su->values.input, su->values.weight ? " @ " : "", su->values.weight ? su->values.weight : "", dv);
}

/* Free an operand's names (a setup given its weights has no queries or keys). */
static void clear_operand(Operand *o)
{
    free(o->input);
    free(o->weight);
    free(o->bias);
    memset(o, 0, sizeof *o);
}

/* Whether the mask of a setup blocks every key of query row r: a padded
** query under `mask: padding TOKEN`, or a row of zeros in `mask: allow M`
** (of ones in `block M`). Such a row of given weights is all 0, as a model
** returns it; the trace checks that every blocked weight is 0. */
static bool row_blocked(const Setup *su, int r)
{
    if (su->mask == MASK_PARTS)
        return (su->mask_parts & MASKP_PADDING) && !strcmp(su->qtokens[r], su->pad_token);
    if (su->mask != MASK_ALLOW && su->mask != MASK_BLOCK) return false;
    const LessonMatrix *m = lesson_matrix(su, su->mask_matrix);
    if (!m || m->m->rows != su->nq || m->m->cols != su->nk) return false;       /* check_mask says so */
    for (int j = 0; j < su->nk; j++)
        if ((mat_get(m->m, r, j) != 0.0) == (su->mask == MASK_ALLOW)) return false;
    return true;
}

/*
** A setup given its attention weights (`attention: A`): A holds one block
** of nk columns per head (a stack of heads, or heads: H side by side), and
** every row of every head is a distribution: numbers in [0, 1] that sum to
** 1, or all 0 where the mask blocks every key (row_blocked). Nothing
** about queries, keys or scores applies, so settings for them
** written in this setup are errors and inherited ones are dropped; values
** (and W_o after them) are optional.
*/
static bool check_given(Parser *p, Setup *su)
{
    int set_at;
    const char *no = lp_key_not_given(p, &set_at);
    if (no)
        return lp_fail_line(p, set_at, 1, "'%s' does not apply to a setup with 'attention: %s' (line %d): its weights are given, "
                            "not computed from queries and keys", no, su->attention, su->attention_line);
    clear_operand(&su->queries);
    clear_operand(&su->keys);
    if (!p->set.values) clear_operand(&su->values);
    if (!su->values.input && !p->set.output) {
        free(su->output_proj);          /* inherited, with the values it multiplied */
        free(su->output_bias);
        su->output_proj = su->output_bias = NULL;
    }
    lp_clear_block(su);                 /* norms, MLP and unembedding: nothing before the weights exists */
    su->score = SCORE_SCALED_DOT;
    su->divisor = 0;
    su->temperature = 1.0;
    su->positions = POS_NONE;
    su->kv_heads = 0;
    su->residual = false;
    free(su->add_w1); free(su->add_w2); free(su->add_v);
    su->add_w1 = su->add_w2 = su->add_v = NULL;
    const LessonMatrix *A = lesson_matrix(su, su->attention);
    int line = su->attention_line > su->line ? su->attention_line : A->line;
    int heads_line = p->set.heads;
    if (A->stack > 1) {
        if (heads_line && su->heads != A->stack)
            return lp_fail_line(p, heads_line, 1, "heads: %d, but attention %s is a stack of %d heads", su->heads, su->attention, A->stack);
        su->heads = A->stack;
    } else if (!heads_line) {
        su->heads = 1;
    }
    int H = su->heads;
    if (A->m->rows != su->nq || A->m->cols != H * su->nk) {
        char has[64];
        if (A->stack > 1) snprintf(has, sizeof has, "%d heads of %dx%d", A->stack, A->m->rows, A->m->cols / A->stack);
        else snprintf(has, sizeof has, "%dx%d", A->m->rows, A->m->cols);
        return lp_fail_line(p, line, 1, "attention %s is %s, but %d queries attending to %d keys need %dx%d%s", su->attention,
                         has, su->nq, su->nk, su->nq, su->nk,
                         H > 1 ? " in each head" : " (a (heads, queries, keys) array loads as a stack of heads)");
    }
    for (int h = 0; h < H; h++)
        for (int r = 0; r < su->nq; r++) {
            const double *row = mat_row(A->m, r) + (int64_t)h * su->nk;
            char who[32] = "";
            if (H > 1) snprintf(who, sizeof who, " in head %d", h + 1);
            double sum = 0;
            for (int j = 0; j < su->nk; j++) {
                if (!(row[j] >= -1e-6 && row[j] <= 1 + 1e-6))
                    return lp_fail_line(p, line, 1, "attention %s holds %g at row %d, key %d%s: attention weights lie between 0 and 1",
                                     su->attention, row[j], r + 1, j + 1, who);
                sum += row[j];
            }
            if (fabs(sum - 1) > 0.01 && !(sum == 0 && row_blocked(su, r)))
                return lp_fail_line(p, line, 1, "row %d of attention %s%s sums to %.4g, not 1: each row of attention "
                                 "weights is a softmax over the keys%s", r + 1, su->attention, who, sum,
                                 sum == 0 ? " (a row of zeros is a padded query's, under 'mask: padding TOKEN')" : "");
        }
    int dv = 0;
    if (su->values.input) {
        dv = operand_check(p, su, &su->values, "values", su->nk, su->cross ? "key tokens" : "tokens");
        if (dv < 0) return false;
        if (dv % H) return lp_fail_line(p, su->line, 1, "%d heads do not divide the width of the values (%d)", H, dv);
        if (!check_operand_stack(p, su, &su->values, H, false)) return false;
    }
    if (su->output_proj && !dv)
        return lp_fail_line(p, su->line, 1, "output: %s multiplies the heads' outputs, but this setup has no values: "
                         "add 'values: ...'", su->output_proj);
    if (!check_output_rows(p, su, dv) || !check_mask(p, su) || !check_value_dims(p, su, dv)) return false;
    int64_t out = su->output_proj ? named(su, su->output_proj)->cols : 0;
    return add_work(p, su, (int64_t)su->nq * su->nk * H * (3 + dv) + (int64_t)su->nq * dv * (out + 1));
}

/* Where to point at a setting: its line when this setup wrote it, else the [setup] line. */
static int at_line(const Setup *su, int line)
{
    return line > su->line ? line : su->line;
}

/* A layer norm's γ and β are rows as wide as what it normalises (what). */
static bool check_norm(Parser *p, const Setup *su, const LayerNorm *n, const char *what, int width)
{
    if (!n->gamma) return true;
    int line = at_line(su, n->line);
    return check_row(p, su, n->gamma, width, line, 1, what) && check_row(p, su, n->beta, width, line, 1, what);
}

/* A matrix of a setting with rows numbers per column (the width of what it multiplies). */
static bool check_rows(Parser *p, const Setup *su, const char *name, int rows, int line, const char *what)
{
    const Mat *m = named(su, name);
    if (m->rows == rows) return true;
    return lp_fail_line(p, line, 1, "%s has %d rows but %s is %d wide", name, m->rows, what, rows);
}

/*
** The rest of a transformer block: the layer norm before attention (after
** its residual add under `norm_order: post`), the MLP after it, the
** unembedding, the heads switched off. The MLP, the unembedding and a
** post-norm read the residual stream after attention, X + its output,
** which needs one sequence and an attention output as wide as X.
*/
static bool check_block(Parser *p, const Setup *su)
{
    const LessonMatrix *x = lesson_matrix(su, su->queries.input);
    int d = x->m->cols, out = lesson_attention_width(su);
    if (!check_norm(p, su, &su->norm, su->queries.input, d)) return false;
    if (su->mlp_norm.gamma && !su->mlp.w_in)
        return lp_fail_line(p, at_line(su, su->mlp_norm.line), 1, "mlp_norm: normalises the input of the MLP, but this "
                            "setup has no 'mlp:'");
    if (su->post_norm && !su->norm.gamma)
        return lp_fail_line(p, at_line(su, su->post_norm_line), 1, "norm_order: post normalises the stream after "
                            "attention's residual add with layer_norm:, but this setup has no 'layer_norm:'");
    const char *reader = su->mlp.w_in ? "mlp:" : su->unembed ? "unembed:" : su->post_norm ? "norm_order: post" : NULL;
    int reader_line = at_line(su, su->mlp.w_in ? su->mlp.line : su->unembed ? p->set.unembed : su->post_norm_line);
    if (reader && (su->cross || out != d))
        return lp_fail_line(p, reader_line, 1, su->cross ? "%s reads the residual stream X + attention output, which "
                            "needs one sequence, but this setup has query_tokens and key_tokens"
                            : "%s reads the residual stream X + attention output, but the attention output is %d wide and "
                            "%s is %d wide; they must be as wide as each other (add 'output: W_o')", reader, out,
                            su->queries.input, d);
    if (su->mlp.w_in) {
        int line = at_line(su, su->mlp.line);
        const Mat *wi = named(su, su->mlp.w_in), *wo = named(su, su->mlp.w_out);
        if (!check_norm(p, su, &su->mlp_norm, "the stream", d) || !check_rows(p, su, su->mlp.w_in, d, line, "the stream")
            || (su->mlp.b_in && !check_row(p, su, su->mlp.b_in, wi->cols, line, 1, su->mlp.w_in))
            || !check_rows(p, su, su->mlp.w_out, wi->cols, line, su->mlp.w_in))
            return false;
        if (wo->cols != d)
            return lp_fail_line(p, line, 1, "%s gives %d numbers a row, but the MLP's output is added to the stream, "
                                "which is %d wide", su->mlp.w_out, wo->cols, d);
        if (su->mlp.b_out && !check_row(p, su, su->mlp.b_out, d, line, 1, su->mlp.w_out)) return false;
    }
    if (su->unembed) {
        int line = at_line(su, p->set.unembed);
        const Mat *wu = named(su, su->unembed);
        if (!check_norm(p, su, &su->final_norm, "the stream", d) || !check_rows(p, su, su->unembed, d, line, "the stream")
            || (su->unembed_bias && !check_row(p, su, su->unembed_bias, wu->cols, line, 1, su->unembed)))
            return false;
        if (su->vocab && su->nvocab != wu->cols)
            return lp_fail_line(p, at_line(su, p->set.vocab ? p->set.vocab : p->set.unembed), 1, "vocab has %d words but "
                                "%s gives %d logits a row, one per word", su->nvocab, su->unembed, wu->cols);
    } else if (su->final_norm.gamma) {
        return lp_fail_line(p, at_line(su, su->final_norm.line), 1, "final_norm: normalises the stream before the "
                            "unembedding, but this setup has no 'unembed:'");
    }
    for (int h = su->heads + 1; h <= LESSON_MAX_HEADS; h++)
        if (lesson_head_ablated(su, h))
            return lp_fail_line(p, su->ablate_line, 1, "ablate: switches off head %d, but the setup has %d head%s", h,
                                su->heads, su->heads == 1 ? "" : "s");
    return true;
}

/* What the rest of a block costs: the norms, the MLP's two products and
** its activation, the unembedding and its softmax. */
static int64_t block_work(const Setup *su)
{
    int64_t n = su->nq, d = named(su, su->queries.input)->cols, w = 0;
    if (su->norm.gamma) w += 8 * n * d;
    if (su->mlp.w_in) {
        int64_t hid = named(su, su->mlp.w_in)->cols;
        w += 2 * n * d * hid + 40 * n * hid + 12 * n * d;
    }
    if (su->unembed) w += n * d * named(su, su->unembed)->cols + 8 * n * d + 20 * n * named(su, su->unembed)->cols;
    return w;
}

/* Whether a setting of su other than the unembedding names matrix name. */
static bool named_elsewhere(const Setup *su, const char *name)
{
    const Operand *ops[3] = { &su->queries, &su->keys, &su->values };
    for (int i = 0; i < 3; i++)
        if ((ops[i]->input && !strcmp(ops[i]->input, name)) || (ops[i]->weight && !strcmp(ops[i]->weight, name))
            || (ops[i]->bias && !strcmp(ops[i]->bias, name)))
            return true;
    const char *other[SETTING_NAMES];
    int n = setting_names(su, other);
    for (int i = 0; i < n; i++)
        if (!strcmp(other[i], name)) return true;
    return false;
}

/* Only the unembedding (and its bias) may be wider than LESSON_MAX_LOAD_DIM,
** a column per word, and only as that: no stage draws it whole, and
** nothing else multiplies by a matrix that wide (a stack of heads side by
** side has its own limit). No matrix is taller. */
static bool check_wide(Parser *p, const Setup *su)
{
    for (int i = 0; i < su->nmats; i++) {
        const LessonMatrix *lm = &su->mats[i];
        if (lm->m->rows > LESSON_MAX_LOAD_DIM)
            return lp_fail_line(p, at_line(su, lm->line), 1, "%s has %d rows, over the limit of %d rows or columns",
                                lm->name, lm->m->rows, LESSON_MAX_LOAD_DIM);
        bool unembedding = (su->unembed && !strcmp(lm->name, su->unembed))
                        || (su->unembed_bias && !strcmp(lm->name, su->unembed_bias));
        /* a model's unembedding, as the setups of a model after it inherit it (unembed: none): named by nothing */
        bool idle = lm->borrowed && lm->mapped && !unembedding && !named_elsewhere(su, lm->name);
        if (lm->m->cols <= LESSON_MAX_LOAD_DIM || lm->stack > 1 || idle || (unembedding && !named_elsewhere(su, lm->name)))
            continue;
        return lp_fail_line(p, at_line(su, lm->line), 1, "%s has %d columns, over the limit of %d rows or columns; only "
                            "the unembedding of this setup (unembed:) may have more, one per word, up to %d, and "
                            "only as the unembedding", lm->name, lm->m->cols, LESSON_MAX_LOAD_DIM, LESSON_MAX_VOCAB);
    }
    return true;
}

/* Fill in defaults and check that everything in a setup fits together. */
bool lp_check_setup(Parser *p, Setup *su)
{
    if (!check_wide(p, su)) return false;
    if (su->attention && su->qtokens && su->ktokens) return check_given(p, su);
    if (!su->qtokens || !su->ktokens) {
        if (su->qtokens || su->ktokens)
            return lp_fail_line(p, su->line, 1, "this setup has %s but no %s", su->qtokens ? "query_tokens" : "key_tokens",
                             su->qtokens ? "key_tokens" : "query_tokens");
        return lp_fail_line(p, su->line, 1, "this setup has no tokens: add 'tokens: ...' (or query_tokens and key_tokens)");
    }
    /* Defaults: X for everything, or Y for keys and values when cross. */
    Operand *ops[3] = { &su->queries, &su->keys, &su->values };
    const char *names[3] = { "queries", "keys", "values" };
    for (int i = 0; i < 3; i++) {
        if (ops[i]->input) continue;
        const char *def = (i > 0 && su->cross) ? "Y" : "X", *role = i == 0 ? "Q" : i == 1 ? "K" : "V";
        if (!lesson_matrix(su, def) && lesson_matrix(su, role))    /* the role written out, and not named */
            return lp_fail_line(p, su->line, 1, "this setup does not say where %s come from: add '%s: %s' to use "
                             "the matrix %s as the %s", names[i], names[i], role, role, names[i]);
        if (!lesson_matrix(su, def))
            return lp_fail_line(p, su->line, 1, "this setup does not say where %s come from: add '%s: %s' "
                             "(or define a matrix %s)", names[i], names[i], def, def);
        ops[i]->input = xstrdup(def);
        ops[i]->line = su->line;
        ops[i]->col = 1;
    }
    if (!check_role_names(p, su)) return false;
    int dq = operand_check(p, su, &su->queries, "queries", su->nq, su->cross ? "query tokens" : "tokens");
    if (dq < 0) return false;
    int dk = operand_check(p, su, &su->keys, "keys", su->nk, su->cross ? "key tokens" : "tokens");
    if (dk < 0) return false;
    int dv = operand_check(p, su, &su->values, "values", su->nk, su->cross ? "key tokens" : "tokens");
    if (dv < 0) return false;
    if (su->heads < 1) su->heads = 1;
    if (su->temperature <= 0) su->temperature = 1.0;
    if (su->score == SCORE_ADDITIVE) {
        if (!su->add_w1)
            return lp_fail_line(p, su->line, 1, "score: additive needs 'additive: W1 W2 v' naming its two weights and its vector");
        const Mat *w1 = named(su, su->add_w1), *w2 = named(su, su->add_w2), *v = named(su, su->add_v);
        int u = v->rows * v->cols;
        if (v->rows != 1 && v->cols != 1)
            return lp_fail_line(p, su->line, 1, "%s must be a vector (one row or one column), found %dx%d", su->add_v, v->rows, v->cols);
        if (w1->rows != dq || w1->cols != u)
            return lp_fail_line(p, su->line, 1, "%s must be %dx%d (query width x length of %s), found %dx%d", su->add_w1, dq, u, su->add_v, w1->rows, w1->cols);
        if (w2->rows != dk || w2->cols != u)
            return lp_fail_line(p, su->line, 1, "%s must be %dx%d (key width x length of %s), found %dx%d", su->add_w2, dk, u, su->add_v, w2->rows, w2->cols);
        if (su->heads != 1)
            return lp_fail_line(p, su->line, 1, "additive scoring works with one head, found heads: %d", su->heads);
    } else if (dq != dk && !su->kv_heads) {
        /* a line the author wrote in this setup: keys, else queries, else [setup] */
        int line, col;
        operand_at(su, su->keys.line > su->line ? &su->keys : &su->queries, &line, &col);
        return lp_fail_line(p, line, col, "queries are %d wide but keys are %d wide: "
                         "they must match to take dot products", dq, dk);
    }
    if (su->heads > 1) {
        if (dq % su->heads || (dv % su->heads && !su->kv_heads))
            return lp_fail_line(p, su->line, 1, "%d heads do not divide the width of the queries (%d) and values (%d)",
                             su->heads, dq, dv);
    }
    Operand *all[3] = { &su->queries, &su->keys, &su->values };
    for (int i = 0; i < 3; i++)
        if (!check_operand_stack(p, su, all[i], i > 0 ? lesson_kv_heads(su) : su->heads, i > 0 && su->kv_heads))
            return false;
    if (su->residual && !check_residual(p, su, dq)) return false;
    const Operand *src[2] = { &su->queries, &su->keys };
    int nd[2] = { su->ndims, su->nkey_dims };
    for (int i = 0; i < 2; i++) {
        const LessonMatrix *in = lesson_matrix(su, src[i]->input);
        if (nd[i] && in && nd[i] != in->m->cols / in->stack)
            return lp_fail_line(p, su->dims_line > su->line ? su->dims_line : su->line, 1,
                             "%s names %d columns but %s has %d", i ? "key_dims" : "dims", nd[i], src[i]->input,
                             in->m->cols / in->stack);
    }
    if (!check_value_dims(p, su, dv)) return false;
    if (su->nkey_dims && !su->cross)
        return lp_fail_line(p, su->dims_line > su->line ? su->dims_line : su->line, 1,
                         "key_dims names the columns of the key sentence's input, but this setup has no key_tokens; use dims");
    if (!check_mask(p, su) || !check_modern(p, su, dq, dk, dv)) return false;
    if (!check_output_rows(p, su, dv / lesson_kv_heads(su) * su->heads) || !check_block(p, su)) return false;
    return add_work(p, su, setup_work(su, dq, dk, dv) + block_work(su));
}

/* ----------------------------------------------------------------- stages */

/* The sizes a stage's sub-steps are counted from. */
static StageSize stage_size(const Lesson *L, const Stage *st)
{
    const Setup *su = &L->setups[st->setup];
    int64_t H = su->heads, G = lesson_kv_heads(su);
    assert(H >= 1 && G >= 1);           /* lp_check_setup made sure */
    StageSize z = { su->nq, su->nk, lesson_operand_width(su, &su->queries) / H, lesson_operand_width(su, &su->keys) / G,
                    lesson_operand_width(su, &su->values) / G, lesson_stage_block(L, st), su->nvocab, st->head ? 1 : H,
                    st->head ? 1 : G };
    return z;
}

/*
** The budgets of what stages unfold into (lesson.h), checked before
** anything is computed: every stage is a page, a stage with sub-steps one
** per sub-step (stage_table.h), and the panels of those sub-step pages hold
** cells that --dump writes and the exports draw. Each message says which
** stage goes past which limit and what makes it fit.
*/
static bool check_pages(Parser *p, const Stage *st, const StageKind *k, const StageSize *z)
{
    int64_t pages = k->steps ? k->steps(p->L, st) : 1, cells = k->cells ? k->cells(z) : 0;
    p->pages += pages;
    if (p->pages > LESSON_MAX_PAGES)
        return lp_fail_line(p, st->line, 2, "stage %s brings the lesson to %" PRId64 " pages (this stage %" PRId64 "), over the "
                         "limit of %d; %s", k->name, p->pages, pages, LESSON_MAX_PAGES,
                         pages > 1 ? "kv_cache shows a page per token and online_softmax one per block: use fewer tokens, "
                                     "larger blocks or fewer such stages" : "use fewer stages");
    p->step_cells += cells;
    if (p->step_cells <= LESSON_MAX_STEP_CELLS) return true;
    int64_t before = p->step_cells - cells, fit = 0;
    StageSize larger = *z;
    for (larger.block = z->block + 1; k->blocks && larger.block <= z->nk && !fit; larger.block++)
        if (before + k->cells(&larger) <= LESSON_MAX_STEP_CELLS) fit = larger.block;
    char with[80] = "", hint[64];
    if (before) snprintf(with, sizeof with, ", %" PRId64 " with the sub-steps above it", p->step_cells);
    if (fit) snprintf(hint, sizeof hint, "use block: %" PRId64 " or more", fit);
    else snprintf(hint, sizeof hint, "%s", k->smaller ? k->smaller : "use fewer tokens");
    return lp_fail_line(p, st->line, 2, "stage %s unfolds into %" PRId64 " pages that show %" PRId64 " numbers%s, over the "
                     "limit of %d for the sub-steps of a lesson; %s", k->name, pages, cells, with, LESSON_MAX_STEP_CELLS, hint);
}

/* Whether a setup's mask hides later tokens, as decoding needs: causal,
** alone or with a window or padding, but no prefix. */
static bool hides_later(const Setup *su)
{
    return su->mask == MASK_CAUSAL
        || (su->mask == MASK_PARTS && (su->mask_parts & MASKP_CAUSAL) && !(su->mask_parts & MASKP_PREFIX));
}

/* What a stage of kind k needs of its setup (StageKind.needs), each in words. */
static bool check_needs(Parser *p, const Stage *st, const StageKind *k, const Setup *su)
{
    unsigned n = k->needs;
    const char *id = k->name;
    if ((n & STAGE_NEEDS_HEADS) && su->heads < 2)
        return lp_fail_line(p, st->line, 2, "stage %s needs 'heads:' of 2 or more in its setup, found %d", id, su->heads);
    if ((n & STAGE_NEEDS_MASK) && su->mask == MASK_NONE)
        return lp_fail_line(p, st->line, 2, "stage %s needs a mask in its setup: add 'mask: causal' (or allow/block NAME)", id);
    if ((n & STAGE_NEEDS_PROJECTION) && !su->queries.weight && !su->keys.weight && !su->values.weight)
        return lp_fail_line(p, st->line, 2, "stage %s needs projections: write 'queries: X @ W_q' (and keys, values)", id);
    if ((n & STAGE_NEEDS_ADDITIVE) && su->score != SCORE_ADDITIVE)
        return lp_fail_line(p, st->line, 2, "stage %s needs 'score: additive' in its setup", id);
    if ((n & STAGE_NEEDS_CROSS) && !su->cross)
        return lp_fail_line(p, st->line, 2, "stage %s needs query_tokens and key_tokens in its setup", id);
    if ((n & STAGE_NEEDS_DOT) && su->score == SCORE_ADDITIVE)
        return lp_fail_line(p, st->line, 2, "stage %s needs dot-product scores, but the setup says score: additive", id);
    static const struct { unsigned need; PositionKind pos; const char *what; } positions[] = {
        { STAGE_NEEDS_SINUSOIDAL, POS_SINUSOIDAL, "positions: sinusoidal" },
        { STAGE_NEEDS_ROPE, POS_ROPE, "positions: rope" }, { STAGE_NEEDS_ALIBI, POS_ALIBI, "positions: alibi" },
    };
    for (size_t i = 0; i < sizeof positions / sizeof *positions; i++)
        if ((n & positions[i].need) && su->positions != positions[i].pos)
            return lp_fail_line(p, st->line, 2, "stage %s needs '%s' in its setup", id, positions[i].what);
    if ((n & STAGE_NEEDS_KV_HEADS) && !su->kv_heads)
        return lp_fail_line(p, st->line, 2, "stage %s needs 'kv_heads: G' in its setup (G K/V heads shared by the query heads)", id);
    if ((n & STAGE_NEEDS_NORM) && !su->norm.gamma)
        return lp_fail_line(p, st->line, 2, "stage %s needs 'layer_norm: G B' in its setup (a row of gains and a row "
                            "of biases)", id);
    if ((n & STAGE_NEEDS_MLP) && !su->mlp.w_in)
        return lp_fail_line(p, st->line, 2, "stage %s needs 'mlp: W_in + b_in gelu W_out + b_out' in its setup", id);
    if ((n & STAGE_NEEDS_UNEMBED) && (!su->unembed || !su->vocab))
        return lp_fail_line(p, st->line, 2, "stage %s needs %s in its setup", id,
                            su->unembed ? "'vocab: ...' (the word of each column of the unembedding)"
                                        : "'unembed: W_U' (the unembedding) and 'vocab: ...'");
    if ((n & STAGE_NEEDS_CAUSAL) && !hides_later(su))
        return lp_fail_line(p, st->line, 2, "stage %s decodes one token at a time, so its setup needs a mask that hides "
                         "later tokens: 'mask: causal' (sliding and padding may join it; prefix may not)", id);
    return true;
}

/* The stages a setup given its weights can show: those that start from
** the weights (values where the stage needs them). */
static bool check_given_stage(Parser *p, const Stage *st, const StageKind *k, const Setup *su)
{
    if (k->given == GIVEN_YES || (k->given == GIVEN_WITH_VALUES && su->values.input)) return true;
    if (k->given == GIVEN_WITH_VALUES)
        return lp_fail_line(p, st->line, 2, "stage %s needs values, but this setup is given only its weights "
                            "(attention: %s); add 'values: ...'", k->name, su->attention);
    Buf can = {0};                              /* the stages the table lets it show, in its order */
    for (int i = 0; i < STAGE_COUNT; i++)
        if (stage_kind((StageId)i)->given == GIVEN_YES) buf_printf(&can, "%s%s", can.len ? ", " : "", stage_kind((StageId)i)->name);
    buf_puts(&can, " and, with values,");
    for (int i = 0, n = 0; i < STAGE_COUNT; i++)
        if (stage_kind((StageId)i)->given == GIVEN_WITH_VALUES) buf_printf(&can, "%s %s", n++ ? "," : "", stage_kind((StageId)i)->name);
    bool ok = lp_fail_line(p, st->line, 2, "stage %s computes what comes before the weights, but this setup is given its "
                           "weights (attention: %s, line %d); it can show %s", k->name, su->attention, su->attention_line,
                           buf_str(&can));
    buf_free(&can);
    return ok;
}

/* Check that a stage can be shown with its setup, within the budgets. */
bool lp_check_stage(Parser *p, const Stage *st)
{
    const Setup *su = &p->L->setups[st->setup];
    const StageKind *k = stage_kind(st->id);
    StageSize z = stage_size(p->L, st);
    Error why;
    if (su->attention && !check_given_stage(p, st, k, su)) return false;
    if (!check_needs(p, st, k, su)) return false;
    if (k->check && !k->check(p->L, st, &z, &why))
        return lp_fail_line(p, why.line ? why.line : st->line, why.line ? why.col : 2, "%s", why.msg);
    if (k->work) {
        p->work += k->work(su);
        if (p->work > work_limit(p))
            return lp_fail_line(p, st->line, 2, "computing the lesson up to this stage takes about %" PRId64 " million "
                                "multiplications, over the limit of %" PRId64 " million", p->work / 1000000,
                                work_limit(p) / 1000000);
    }
    if (st->head > su->heads) return lp_fail_line(p, st->line, 2, "stage %s asks for head %d but the setup has %d", k->name, st->head, su->heads);
    if (st->query > su->nq) return lp_fail_line(p, st->line, 2, "stage %s asks for query %d but there are %d", k->name, st->query, su->nq);
    return check_pages(p, st, k, &z);
}
