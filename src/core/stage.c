/*
** stage.c: what each stage shows.
**
** One function per stage id picks the matrices from the trace, labels their
** rows and columns with tokens or dimensions, chooses a colormap (viridis for
** weights, a diverging RdBu centred on 0 for signed matrices, Blues for the
** mask) and writes the formula. The lesson's paragraphs and display options
** are carried over. Nothing is computed here except the one-row slices of
** the per_token stage and the variance figures of scaled_scores.
*/
#include "stage.h"
#include "util.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const default_titles[STAGE_COUNT] = {
    "Token embeddings", "Raw attention scores", "Scaling the scores",
    "Softmax: scores become weights", "The weighted sum of values",
    "Projections: queries, keys and values", "Multi-head attention",
    "The causal mask", "How focused is each query?", "Cross-attention",
    "Additive (Bahdanau) scores", "One query at a time",
};

/* Everything stage builders need. */
typedef struct Ctx {
    const Lesson *L;
    const Trace *T;
    const Stage *st;
    const Setup *su;
    View *v;
    int s;
} Ctx;

/* The default title of a stage id. */
const char *stage_default_title(StageId id)
{
    return (unsigned)id < STAGE_COUNT ? default_titles[id] : "";
}

/* printf into a new string. */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    Buf b = {0};
    va_list ap;
    va_start(ap, f);
    buf_vprintf(&b, f, ap);
    va_end(ap);
    return buf_take(&b);
}

/* Labels "d1", "d2", ... */
static char **dim_labels(int n)
{
    char **l = xmalloc(sizeof *l * (size_t)n);
    for (int i = 0; i < n; i++) l[i] = fmt("d%d", i + 1);
    return l;
}

/* Copies of n tokens starting at first. */
static char **tok_labels(char *const *t, int first, int n)
{
    char **l = xmalloc(sizeof *l * (size_t)n);
    for (int i = 0; i < n; i++) l[i] = xstrdup(t[first + i]);
    return l;
}

/* True when every finite value is a whole number (shown without decimals). */
static bool all_integers(const Mat *m)
{
    for (long i = 0; i < (long)m->rows * m->cols; i++) {
        double x = m->data[i];
        if (isfinite(x) && (x != floor(x) || fabs(x) > 1e9)) return false;
    }
    return true;
}

/* Row labels for a trace matrix: query tokens, key tokens or dimensions. */
typedef enum { LAB_Q, LAB_K, LAB_DIM } LabelKind;

/* Append a heatmap panel of trace matrix `name`; returns it (or NULL if the
** trace has no such matrix or the view is full). */
static Panel *add_heat(Ctx *c, const char *name, const char *title, LabelKind rows, LabelKind cols,
                       const char *row_axis, const char *col_axis)
{
    const Mat *m = trace_get(c->T, c->s, name);
    View *v = c->v;
    if (!m || v->npanels >= VIEW_MAX_PANELS) return NULL;
    Panel *p = &v->panels[v->npanels++];
    memset(p, 0, sizeof *p);
    p->kind = PANEL_HEATMAP;
    p->m = m;
    snprintf(p->matrix, sizeof p->matrix, "%s", name);
    p->title = xstrdup(title);
    p->row_labels = rows == LAB_Q ? tok_labels(c->su->qtokens, 0, m->rows)
                  : rows == LAB_K ? tok_labels(c->su->ktokens, 0, m->rows) : dim_labels(m->rows);
    p->col_labels = cols == LAB_Q ? tok_labels(c->su->qtokens, 0, m->cols)
                  : cols == LAB_K ? tok_labels(c->su->ktokens, 0, m->cols) : dim_labels(m->cols);
    p->row_axis = xstrdup(row_axis);
    p->col_axis = xstrdup(col_axis);
    p->diverging = true;
    p->cmap = xstrdup(c->st->cmap ? c->st->cmap : "RdBu");
    p->decimals = c->st->decimals >= 0 ? c->st->decimals : all_integers(m) ? 0 : -1;
    p->editable = trace_is_input(c->T, c->s, name);
    p->bound = NAN;
    return p;
}

/* Make a panel show probabilities (weights): fixed [0, 1] scale, viridis. */
static void as_weights(Ctx *c, Panel *p)
{
    if (!p) return;
    p->probabilities = true;
    p->diverging = false;
    free(p->cmap);
    p->cmap = xstrdup(c->st->cmap ? c->st->cmap : "viridis");
}

/* "headN.name" when a head is chosen, else name. */
static const char *pick(const Ctx *c, int head, const char *name, char *buf, size_t n)
{
    if (head > 0 && c->su->heads > 1) {
        snprintf(buf, n, "head%d.%s", head, name);
        return buf;
    }
    return name;
}

/* The name of the matrix the queries (or keys, values) are computed from. */
static const char *query_input(const Ctx *c) { return c->su->queries.input; }

/* Axis titles used again and again. */
#define AX_QUERIES "queries"
#define AX_KEYS "keys (attended to)"
#define AX_DIMS "dimensions"

/* The scores the softmax reads: masked when there is a mask. */
static const char *softmax_input(const Ctx *c, int head, char *buf, size_t n)
{
    return pick(c, head, c->su->mask != MASK_NONE ? "masked_scores" : (head > 0 && c->su->heads > 1 ? "scores" : "scaled_scores"), buf, n);
}

/* The division the setup applies, for formulas: "√4", "2.5", "√4 · 0.5". */
static char *divisor_text(const Ctx *c)
{
    const TraceSetup *ts = &c->T->s[c->s];
    Buf b = {0};
    if (c->su->score == SCORE_SCALED_DOT && c->su->divisor > 0) buf_printf(&b, "%g", c->su->divisor);
    else if (c->su->score == SCORE_SCALED_DOT) buf_printf(&b, "\xe2\x88\x9a%d", c->st->head > 0 && c->su->heads > 1 ? ts->d_k : trace_get(c->T, c->s, "K")->cols);
    if (c->su->temperature != 1.0) buf_printf(&b, "%s%g (temperature)", b.len ? " \xc2\xb7 " : "", c->su->temperature);
    return buf_take(&b);
}

/* Population variance of the finite values of m. */
static double variance(const Mat *m)
{
    double sum = 0, sq = 0;
    long n = 0;
    for (long i = 0; i < (long)m->rows * m->cols; i++)
        if (isfinite(m->data[i])) { sum += m->data[i]; n++; }
    if (n == 0) return 0;
    double mean = sum / n;
    for (long i = 0; i < (long)m->rows * m->cols; i++)
        if (isfinite(m->data[i])) sq += (m->data[i] - mean) * (m->data[i] - mean);
    return sq / n;
}

/* Panels for the inputs of queries, keys and values (each once). */
static void stage_embeddings(Ctx *c)
{
    const Operand *o[3] = { &c->su->queries, &c->su->keys, &c->su->values };
    const char *seen[3];
    int nseen = 0;
    for (int i = 0; i < 3; i++) {
        bool dup = false;
        for (int k = 0; k < nseen; k++) dup |= !strcmp(seen[k], o[i]->input);
        if (dup) continue;
        seen[nseen++] = o[i]->input;
        char *t = fmt("%s%s", o[i]->input,
                      i == 0 ? (c->su->cross ? " (query sentence)" : "") : i == 1 ? (c->su->cross ? " (key sentence)" : " (keys)") : " (values)");
        add_heat(c, o[i]->input, nseen == 1 && !c->su->cross ? o[i]->input : t, i == 0 ? LAB_Q : LAB_K, LAB_DIM,
                 i == 0 ? "tokens" : "tokens", AX_DIMS);
        free(t);
    }
    c->v->formula = fmt("%s: one row per token, %d numbers per row", query_input(c),
                        trace_get(c->T, c->s, query_input(c))->cols);
}

/* Q·Kᵀ, with Q and K beside it when they are narrow enough to read. */
static void stage_raw_scores(Ctx *c)
{
    char b1[48], b2[48], b3[48];
    int h = c->st->head;
    const Mat *K = trace_get(c->T, c->s, pick(c, h, "K", b1, sizeof b1));
    if (K && K->cols <= 16) {
        add_heat(c, pick(c, h, "Q", b1, sizeof b1), "Q (queries)", LAB_Q, LAB_DIM, AX_QUERIES, AX_DIMS);
        add_heat(c, pick(c, h, "K", b2, sizeof b2), "K (keys)", LAB_K, LAB_DIM, "keys", AX_DIMS);
    }
    add_heat(c, pick(c, h, "raw_scores", b3, sizeof b3), "Q\xc2\xb7K\xe1\xb5\x80", LAB_Q, LAB_K, AX_QUERIES, AX_KEYS);
    bool self = !c->su->queries.weight && !c->su->keys.weight && !strcmp(c->su->queries.input, c->su->keys.input);
    c->v->formula = self ? fmt("scores = %s\xc2\xb7%s\xe1\xb5\x80: the dot product of every token with every token",
                               c->su->queries.input, c->su->keys.input)
                         : xstrdup("scores = Q\xc2\xb7K\xe1\xb5\x80: the dot product of every query with every key");
}

/* Raw and scaled scores side by side, with their variances. */
static void stage_scaled_scores(Ctx *c)
{
    char b1[48], b2[48];
    int h = c->st->head;
    const char *raw = pick(c, h, "raw_scores", b1, sizeof b1);
    const char *sc = pick(c, h, h > 0 && c->su->heads > 1 ? "scores" : "scaled_scores", b2, sizeof b2);
    const Mat *mr = trace_get(c->T, c->s, raw), *ms = trace_get(c->T, c->s, sc);
    char *dv = divisor_text(c);
    char *t1 = fmt("Q\xc2\xb7K\xe1\xb5\x80 (variance %.3g)", variance(mr));
    char *t2 = fmt("\xc3\xb7 %s (variance %.3g)", dv, variance(ms));
    add_heat(c, raw, t1, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS);
    add_heat(c, sc, t2, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS);
    c->v->formula = fmt("scaled = Q\xc2\xb7K\xe1\xb5\x80 \xc3\xb7 %s", dv[0] ? dv : "1 (no scaling)");
    free(t1); free(t2); free(dv);
}

/* Scores in, weights out. */
static void stage_softmax(Ctx *c)
{
    char b1[48], b2[48];
    int h = c->st->head;
    add_heat(c, softmax_input(c, h, b1, sizeof b1), c->su->mask != MASK_NONE ? "masked scores" : "scaled scores",
             LAB_Q, LAB_K, AX_QUERIES, AX_KEYS);
    as_weights(c, add_heat(c, pick(c, h, "weights", b2, sizeof b2), "attention weights", LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
    char *dv = divisor_text(c);
    c->v->formula = dv[0] ? fmt("weights = softmax(Q\xc2\xb7K\xe1\xb5\x80 \xc3\xb7 %s), each row sums to 1", dv)
                          : xstrdup("weights = softmax(scores), each row sums to 1");
    free(dv);
}

/* Weights times values. */
static void stage_weighted_sum(Ctx *c)
{
    char b1[48], b2[48], b3[48];
    int h = c->st->head;
    as_weights(c, add_heat(c, pick(c, h, "weights", b1, sizeof b1), "weights", LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
    add_heat(c, pick(c, h, "V", b2, sizeof b2), "V (values)", LAB_K, LAB_DIM, "keys", AX_DIMS);
    add_heat(c, pick(c, h, "output", b3, sizeof b3), "output = weights\xc2\xb7V", LAB_Q, LAB_DIM, AX_QUERIES, AX_DIMS);
    c->v->formula = xstrdup("output = weights\xc2\xb7V: each query's output is a blend of the value rows");
}

/* Inputs, weights and projections. */
static void stage_qkv(Ctx *c)
{
    const Operand *o[3] = { &c->su->queries, &c->su->keys, &c->su->values };
    const char *out[3] = { "Q", "K", "V" };
    add_heat(c, o[0]->input, o[0]->input, LAB_Q, LAB_DIM, "tokens", AX_DIMS);
    if (c->su->cross && strcmp(o[1]->input, o[0]->input))
        add_heat(c, o[1]->input, o[1]->input, LAB_K, LAB_DIM, "tokens", AX_DIMS);
    for (int i = 0; i < 3; i++)
        if (o[i]->weight) add_heat(c, o[i]->weight, o[i]->weight, LAB_DIM, LAB_DIM, "input dimensions", "output dimensions");
    for (int i = 0; i < 3; i++) {
        char *t = o[i]->weight ? fmt("%s = %s\xc2\xb7%s", out[i], o[i]->input, o[i]->weight) : fmt("%s = %s", out[i], o[i]->input);
        add_heat(c, out[i], t, i == 0 ? LAB_Q : LAB_K, LAB_DIM, i == 0 ? AX_QUERIES : "keys", AX_DIMS);
        free(t);
    }
    c->v->formula = fmt("Q = %s\xc2\xb7%s    K = %s\xc2\xb7%s    V = %s\xc2\xb7%s",
                        o[0]->input, o[0]->weight ? o[0]->weight : "I", o[1]->input, o[1]->weight ? o[1]->weight : "I",
                        o[2]->input, o[2]->weight ? o[2]->weight : "I");
}

/* Every head's weights, then the concatenation and the output projection. */
static void stage_multi_head(Ctx *c)
{
    char name[48], title[48];
    int H = c->su->heads;
    if (c->st->head > 0) {
        int h = c->st->head;
        const char *parts[4] = { "Q", "K", "weights", "output" };
        for (int i = 0; i < 4; i++) {
            snprintf(name, sizeof name, "head%d.%s", h, parts[i]);
            snprintf(title, sizeof title, "head %d: %s", h, parts[i]);
            Panel *p = add_heat(c, name, title, i == 1 ? LAB_K : LAB_Q, i == 2 ? LAB_K : LAB_DIM,
                                i == 1 ? "keys" : AX_QUERIES, i == 2 ? AX_KEYS : AX_DIMS);
            if (i == 2) as_weights(c, p);
        }
    } else {
        for (int h = 1; h <= H; h++) {
            snprintf(name, sizeof name, "head%d.weights", h);
            snprintf(title, sizeof title, "head %d", h);
            as_weights(c, add_heat(c, name, title, LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
        }
    }
    add_heat(c, "concat", "concatenated heads", LAB_Q, LAB_DIM, AX_QUERIES, AX_DIMS);
    if (c->su->output_proj) add_heat(c, "final", "output = concat\xc2\xb7W_o", LAB_Q, LAB_DIM, AX_QUERIES, AX_DIMS);
    c->v->formula = fmt("head_i = softmax(Q_i\xc2\xb7K_i\xe1\xb5\x80 \xc3\xb7 \xe2\x88\x9a%d)\xc2\xb7V_i    "
                        "MultiHead = Concat(head_1 \xe2\x80\xa6 head_%d)%s", c->T->s[c->s].d_k, H,
                        c->su->output_proj ? "\xc2\xb7W_o" : "");
}

/* Mask, masked scores, masked weights. */
static void stage_causal_mask(Ctx *c)
{
    char b1[48], b2[48];
    int h = c->st->head;
    Panel *m = add_heat(c, "mask", c->su->mask == MASK_CAUSAL ? "causal mask (1 = may attend)" : "mask (1 = may attend)",
                        LAB_Q, LAB_K, AX_QUERIES, AX_KEYS);
    if (m) {
        m->diverging = false;
        m->probabilities = true;
        free(m->cmap);
        m->cmap = xstrdup("Blues");
        m->decimals = 0;
    }
    add_heat(c, pick(c, h, "masked_scores", b1, sizeof b1), "masked scores", LAB_Q, LAB_K, AX_QUERIES, AX_KEYS);
    as_weights(c, add_heat(c, pick(c, h, "weights", b2, sizeof b2), "weights", LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
    c->v->formula = xstrdup(c->su->mask == MASK_BLOCK
        ? "masked = scores where the lesson's mask is 0, \xe2\x88\x92\xe2\x88\x9e where it is 1 (blocked); weights = softmax(masked)"
        : "masked = scores where mask = 1, \xe2\x88\x92\xe2\x88\x9e where mask = 0; weights = softmax(masked)");
}

/* The entropy plot with its ln(n) bound. */
static void stage_entropy(Ctx *c)
{
    const Mat *E = trace_get(c->T, c->s, "entropy");
    View *v = c->v;
    if (!E || v->npanels >= VIEW_MAX_PANELS) return;
    Panel *p = &v->panels[v->npanels++];
    memset(p, 0, sizeof *p);
    p->kind = PANEL_PLOT;
    p->m = E;
    snprintf(p->matrix, sizeof p->matrix, "entropy");
    p->title = xstrdup("entropy of each query's weights");
    p->row_labels = tok_labels(c->su->qtokens, 0, E->rows);
    p->col_labels = xmalloc(sizeof *p->col_labels * (size_t)E->cols);
    p->series = xmalloc(sizeof *p->series * (size_t)E->cols);
    for (int k = 0; k < E->cols; k++) {
        p->series[k] = E->cols == 1 ? xstrdup("single head") : fmt("head %d", k + 1);
        p->col_labels[k] = xstrdup(p->series[k]);
    }
    p->row_axis = xstrdup("query");
    p->col_axis = xstrdup("head");
    p->y_axis = xstrdup("entropy (nats)");
    p->cmap = xstrdup("viridis");
    p->decimals = c->st->decimals >= 0 ? c->st->decimals : 2;
    p->bound = log((double)c->su->nk);
    p->bound_label = fmt("ln %d = %.2f (uniform)", c->su->nk, p->bound);
    v->formula = fmt("H(row) = \xe2\x88\x92\xce\xa3 w\xc2\xb7ln w: 0 when one key takes all, ln %d = %.2f when all %d" " share equally",
                     c->su->nk, p->bound, c->su->nk);
}

/* Weights and output across two sentences. */
static void stage_cross(Ctx *c)
{
    char b1[48], b2[48];
    int h = c->st->head;
    as_weights(c, add_heat(c, pick(c, h, "weights", b1, sizeof b1), "attention weights", LAB_Q, LAB_K,
                           "queries (target sentence)", "keys (source sentence)"));
    add_heat(c, pick(c, h, "output", b2, sizeof b2), "output = weights\xc2\xb7V", LAB_Q, LAB_DIM, AX_QUERIES, AX_DIMS);
    c->v->formula = fmt("queries from %s, keys and values from %s: weights = softmax(Q\xc2\xb7K\xe1\xb5\x80 \xc3\xb7 \xe2\x88\x9a" "d_k)",
                        c->su->queries.input, c->su->keys.input);
}

/* Bahdanau scores and the weights they give. */
static void stage_additive(Ctx *c)
{
    add_heat(c, c->su->add_w1, c->su->add_w1, LAB_DIM, LAB_DIM, "query dimensions", "hidden units");
    add_heat(c, c->su->add_w2, c->su->add_w2, LAB_DIM, LAB_DIM, "key dimensions", "hidden units");
    add_heat(c, "raw_scores", "additive scores", LAB_Q, LAB_K, AX_QUERIES, AX_KEYS);
    as_weights(c, add_heat(c, "weights", "attention weights", LAB_Q, LAB_K, AX_QUERIES, AX_KEYS));
    c->v->formula = fmt("score(q, k) = %s\xe1\xb5\x80\xc2\xb7tanh(q\xc2\xb7%s + k\xc2\xb7%s)", c->su->add_v, c->su->add_w1, c->su->add_w2);
}

/* A one-row panel: row r of a trace matrix. */
static Panel *add_row(Ctx *c, const char *name, int r, const char *title, LabelKind cols, const char *col_axis)
{
    Panel *p = add_heat(c, name, title, LAB_Q, cols, AX_QUERIES, col_axis);
    if (!p) return NULL;
    Mat *row = mat_create(1, p->m->cols);
    memcpy(row->data, mat_row(p->m, r), sizeof(double) * (size_t)p->m->cols);
    p->owned = row;
    p->m = row;
    p->row_offset = r;
    free(p->row_labels[0]);
    for (int i = 1; i < c->su->nq; i++) free(p->row_labels[i]);
    p->row_labels[0] = xstrdup(c->su->qtokens[r]);
    return p;
}

/* Seed 004's walk-through: one query's scores, weights and output. */
static void stage_per_token(Ctx *c)
{
    char b1[48], b2[48], b3[48];
    int h = c->st->head, r = c->st->query > 0 ? c->st->query - 1 : 0;
    /* compare with what pick returned: it fills b1 only for a head (valgrind
    ** caught strcmp reading b1 uninitialised) */
    const char *raw = pick(c, h, "raw_scores", b1, sizeof b1);
    add_row(c, raw, r, "scores q\xc2\xb7k", LAB_K, AX_KEYS);
    const char *sm = softmax_input(c, h, b2, sizeof b2);
    if (strcmp(sm, raw)) add_row(c, sm, r, c->su->mask != MASK_NONE ? "masked and scaled" : "scaled", LAB_K, AX_KEYS);
    as_weights(c, add_row(c, pick(c, h, "weights", b3, sizeof b3), r, "weights", LAB_K, AX_KEYS));
    add_row(c, pick(c, h, "output", b1, sizeof b1), r, "output", LAB_DIM, AX_DIMS);
    c->v->formula = fmt("for the query \xe2\x80\x9c%s\xe2\x80\x9d: a score per key, softmax, then the weighted sum of the values",
                        c->su->qtokens[r]);
}

/* Build the view of stage k. */
View *stage_view(const Lesson *L, const Trace *T, int k)
{
    if (!L || !T || k < 0 || k >= L->nstages) return NULL;
    View *v = xcalloc(1, sizeof *v);
    Ctx c = { L, T, &L->stages[k], &L->setups[L->stages[k].setup], v, L->stages[k].setup };
    v->stage = k;
    v->nstages = L->nstages;
    v->setup = c.s;
    v->id = c.st->id;
    v->lesson_title = xstrdup(L->title);
    v->title = xstrdup(c.st->title ? c.st->title : stage_default_title(c.st->id));
    switch (c.st->id) {
    case STAGE_EMBEDDINGS: stage_embeddings(&c); break;
    case STAGE_RAW_SCORES: stage_raw_scores(&c); break;
    case STAGE_SCALED_SCORES: stage_scaled_scores(&c); break;
    case STAGE_SOFTMAX: stage_softmax(&c); break;
    case STAGE_WEIGHTED_SUM: stage_weighted_sum(&c); break;
    case STAGE_QKV_PROJECTION: stage_qkv(&c); break;
    case STAGE_MULTI_HEAD: stage_multi_head(&c); break;
    case STAGE_CAUSAL_MASK: stage_causal_mask(&c); break;
    case STAGE_ENTROPY: stage_entropy(&c); break;
    case STAGE_CROSS_ATTENTION: stage_cross(&c); break;
    case STAGE_ADDITIVE_SCORES: stage_additive(&c); break;
    case STAGE_PER_TOKEN: stage_per_token(&c); break;
    default: break;
    }
    if (!v->formula) v->formula = xstrdup("");
    v->npara = c.st->npara;
    v->paras = xmalloc(sizeof *v->paras * (size_t)(v->npara ? v->npara : 1));
    for (int i = 0; i < v->npara; i++) v->paras[i] = xstrdup(c.st->paras[i]);
    return v;
}

/* Free a list of n strings. */
static void free_strs(char **s, int n)
{
    if (!s) return;
    for (int i = 0; i < n; i++) free(s[i]);
    free(s);
}

/* Release a view. */
void stage_view_free(View *v)
{
    if (!v) return;
    for (int i = 0; i < v->npanels; i++) {
        Panel *p = &v->panels[i];
        int rows = p->m->rows, cols = p->m->cols;
        free(p->title);
        free_strs(p->row_labels, rows);
        free_strs(p->col_labels, cols);
        free(p->row_axis);
        free(p->col_axis);
        free(p->cmap);
        free(p->y_axis);
        free_strs(p->series, p->series ? cols : 0);
        free(p->bound_label);
        mat_free(p->owned);
    }
    free(v->lesson_title);
    free(v->title);
    free(v->formula);
    free_strs(v->paras, v->npara);
    free(v);
}
