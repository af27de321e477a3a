/*
** trace.c: attn_run, the whole computation of a lesson, setup by setup.
**
** Each setup is computed from its own inputs: the projections Q, K and V
** first; then for every head its slice of Q, K and V, the scores (dot
** product or additive), the division by the divisor and the temperature,
** the mask, softmax and the weighted sum; then the joined heads, the output
** projection and the entropies. The divisor is decided once here (√d_k of
** the head width, the lesson's own number, or 1) and read by everything
** that shows or explains it. The order of operations and of each sum
** follows the seeds' numpy code, so the numbers agree with theirs to the
** last few bits.
*/
#include "trace_int.h"
#include "attn.h"
#include "core/stage/stage_table.h"
#include "core/util.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[TK_COUNT] = {
    "input", "Q", "K", "V", "mask", "raw_scores", "scaled_scores", "masked_scores",
    "weights", "output", "concat", "final", "entropy", "residual",
    "mask_causal", "mask_window", "mask_prefix", "mask_padding", "pe", "x_plus_pe", "rope_angles",
    "Q_rot", "K_rot", "alibi", "biased_scores", "kv_weights", "kv_output", "kv_groups", "kv_cache_size",
    "online_max", "online_sum", "online_rescale", "online_acc", "online_output", "online_diff",
    "ln_hat", "ln", "resid_mid", "mlp_ln", "mlp_pre", "mlp_act", "mlp_out", "resid_post", "final_ln", "logits", "probs",
    "top_logits", "top_probs", "top_ids", "ablated_output", "attn_sum", "mlp_sum", "heads_grid",
};
_Static_assert(sizeof kind_names / sizeof *kind_names == TK_COUNT, "a name for every trace kind");

/* Whether name is what a computed matrix is called, which no input may be
** (Q, K and V excepted: an input may be the queries themselves). */
bool trace_reserved_name(const char *name)
{
    for (int k = TK_MASK; k < TK_COUNT; k++)
        if (k != TK_RESIDUAL && !strcmp(kind_names[k], name)) return true;
    return false;
}

/* Kinds that exist once per head. */
bool trace_kind_per_head(TraceKind k)
{
    return (k >= TK_RAW && k <= TK_OUTPUT) || k == TK_QROT || k == TK_KROT || k == TK_ALIBI || k == TK_BIASED
        || k == TK_KV_WEIGHTS || k == TK_KV_OUTPUT || (k >= TK_OS_MAX && k <= TK_OS_DIFF) || k == TK_ABLATED;
}

/* The K/V head of query head h. */
int trace_kv_head(const TraceSetup *ts, int h)
{
    int G = ts->kv_heads > 0 ? ts->kv_heads : ts->heads;
    return (h - 1) * G / ts->heads + 1;
}

/* The first query head of h's group. */
int trace_kv_first(const TraceSetup *ts, int h)
{
    int g = trace_kv_head(ts, h);
    while (h > 1 && trace_kv_head(ts, h - 1) == g) h--;
    return h;
}

/* Queries and keys as the scores see them. */
TraceKind trace_score_q(const Setup *su) { return su->positions == POS_ROPE ? TK_QROT : TK_Q; }
/* The keys as the scores see them. */
TraceKind trace_score_k(const Setup *su) { return su->positions == POS_ROPE ? TK_KROT : TK_K; }
/* What the mask applies to. */
TraceKind trace_mask_input(const Setup *su) { return su->positions == POS_ALIBI ? TK_BIASED : TK_SCALED; }
/* What softmax reads. */
TraceKind trace_softmax_input(const Setup *su) { return su->mask != MASK_NONE ? TK_MASKED : trace_mask_input(su); }

/* The kind's name without a head. */
const char *trace_kind_name(TraceKind k)
{
    return (unsigned)k < TK_COUNT ? kind_names[k] : "?";
}

/* A reference to a computed matrix. */
TraceRef trace_ref(TraceKind kind, int head)
{
    TraceRef r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.head = head;
    return r;
}

/* A reference to an online-softmax matrix. */
TraceRef trace_block_ref(TraceKind kind, int head, int block)
{
    TraceRef r = trace_ref(kind, head);
    r.block = block;
    return r;
}

/* A reference to an input. */
TraceRef trace_input_ref(const char *name)
{
    TraceRef r = trace_ref(TK_INPUT, 0);
    snprintf(r.name, sizeof r.name, "%s", name ? name : "");
    return r;
}

/* Q, K and V have a whole (head 0) and per-head slices; with one head the
** slice is the whole. Other kinds are per head or whole by nature. */
static int norm_head(TraceKind k, int head, int heads)
{
    if (k == TK_Q || k == TK_K || k == TK_V) return heads <= 1 ? 0 : head;
    if (trace_kind_per_head(k)) return head < 1 ? 1 : head;
    return 0;
}

/* Do a and b name the same matrix? */
bool trace_ref_eq(TraceRef a, TraceRef b, int heads)
{
    if (a.kind != b.kind) return false;
    if (a.kind == TK_INPUT) return strcmp(a.name, b.name) == 0;
    if (a.block != b.block) return false;
    return norm_head(a.kind, a.head, heads) == norm_head(b.kind, b.head, heads);
}

/* Whether k is one of the scores a setup of many (scores_later) computes
** again when asked, and one this setup has (masked scores with a mask,
** ALiBi's with ALiBi). */
static bool score_kind(const TraceSetup *ts, TraceKind k)
{
    if (k == TK_MASKED) return ts->su->mask != MASK_NONE;
    if (k == TK_ALIBI || k == TK_BIASED) return ts->su->positions == POS_ALIBI;
    return k == TK_RAW || k == TK_SCALED;
}

static void rescore(const TraceSetup *cts, int head);

/* The matrix stored for (kind, head, block) as given, or NULL. */
static const Mat *stored(const TraceSetup *ts, TraceKind k, int head, int block)
{
    for (int i = 0; i < ts->n; i++)
        if (ts->mats[i].kind == k && ts->mats[i].head == head && ts->mats[i].block == block) return ts->mats[i].m;
    return NULL;
}

/* The stored matrix for (kind, head, block), or NULL; a head's scores
** computed again, once, when the setup did not keep them (rescore). */
const Mat *tr_find(const TraceSetup *ts, TraceKind k, int head, int block)
{
    head = norm_head(k, head, ts->heads);
    const Mat *m = stored(ts, k, head, block);
    if (!m && ts->scores_later && score_kind(ts, k) && block == 0 && head >= 1 && head <= ts->heads
        && !stored(ts, TK_RAW, head, 0) && stored(ts, TK_WEIGHTS, head, 0)) {
        rescore(ts, head);
        m = stored(ts, k, head, block);
    }
    if (!m && ts->unembed_later && (k == TK_LOGITS || k == TK_PROBS) && head == 0 && block == 0) {
        tr_unembed((TraceSetup *)ts);           /* it only gains matrices, as rescore */
        m = stored(ts, k, head, block);
    }
    if (!m && ts->su->unembed && k >= TK_TOP_LOGITS && k <= TK_TOP_IDS && head == 0 && block >= 1) {
        tr_top((TraceSetup *)ts, block);        /* a next_token's words, left with the logits for later */
        m = stored(ts, k, head, block);
    }
    return m;
}

/* The stored matrix for (kind, head) outside the online softmax. */
static const Mat *find(const TraceSetup *ts, TraceKind k, int head)
{
    return tr_find(ts, k, head, 0);
}

/* An input of the setup by name (the residual stream when it replaces
** it), or NULL. */
const Mat *tr_input(const TraceSetup *ts, const char *name)
{
    if (ts->resid && name && !strcmp(name, ts->resid_name)) return ts->resid;
    const LessonMatrix *lm = name ? lesson_matrix(ts->su, name) : NULL;
    return lm ? lm->m : NULL;
}

/* The matrix r names in one setup's results. */
static const Mat *trace_at_setup(const TraceSetup *ts, TraceRef r)
{
    if (r.kind == TK_INPUT) return tr_input(ts, r.name);
    if (r.head < 0 || r.head > ts->heads) return NULL;
    return tr_find(ts, r.kind, r.head, r.block);
}

/* The heads joined: the concatenation, or the one head's output. */
TraceRef trace_joined(const TraceSetup *ts)
{
    return find(ts, TK_CONCAT, 0) ? trace_ref(TK_CONCAT, 0) : trace_ref(TK_OUTPUT, 1);
}

/* What a setup hands on to the residual stream: its output after W_o, or
** the joined heads (or the one head's output) without one. */
static const Mat *stream_out(const TraceSetup *ts)
{
    const Mat *m = find(ts, TK_FINAL, 0);
    if (!m) {
        TraceRef r = trace_joined(ts);
        m = find(ts, r.kind, r.head);
    }
    return m;
}

/* What an operand reads. */
TraceRef trace_operand_input(const Setup *su, const Operand *o)
{
    if (su->norm.gamma && !su->post_norm && !strcmp(o->input, su->queries.input)) return trace_ref(TK_LN, 0);
    if (su->positions == POS_SINUSOIDAL) return trace_ref(TK_XPE, 0);
    return trace_input_ref(o->input);
}

/* Store a computed matrix (the trace owns it unless borrowed). NULL m is
** a failure passed through. */
const Mat *tr_put(TraceSetup *ts, TraceKind k, int head, int block, Mat *m, bool owned)
{
    if (!m) return NULL;
    if (ts->n == ts->cap) {
        ts->cap = ts->cap ? 2 * ts->cap : 16;
        ts->mats = xrealloc(ts->mats, sizeof *ts->mats * (size_t)ts->cap);
    }
    ts->mats[ts->n++] = (TraceMat){ k, head, block, m, owned };
    return m;
}

/* Store a matrix that has no block size. */
static const Mat *put(TraceSetup *ts, TraceKind k, int head, Mat *m, bool owned)
{
    return tr_put(ts, k, head, 0, m, owned);
}

/* input @ weight [+ bias] (new), or NULL. */
static Mat *project(const TraceSetup *ts, const Mat *in, const char *weight, const char *bias)
{
    const Mat *w = tr_input(ts, weight), *b = bias ? tr_input(ts, bias) : NULL;
    Mat *m = w ? attn_project(in, w) : NULL;
    if (m && b) {
        Mat *t = attn_add_row(m, b);
        mat_free(m);
        m = t;
    }
    return m;
}

/* An operand: the input itself (borrowed), or input @ weight [+ bias]. */
static const Mat *operand(TraceSetup *ts, TraceKind k, const Operand *o)
{
    const Mat *in = trace_at_setup(ts, trace_operand_input(ts->su, o));
    if (!in) return NULL;
    if (!o->weight) return put(ts, k, 0, (Mat *)in, false);
    return put(ts, k, 0, project(ts, in, o->weight, o->bias), true);
}

/* The divisor for keys of width d: √d, or the lesson's own number in its
** place, for scaled dot products; none (1) for plain dot and additive
** scores, so turning scaling off really turns it off. */
static double divisor_for(const Setup *su, int d)
{
    if (su->score != SCORE_SCALED_DOT) return 1.0;
    return su->divisor > 0 ? su->divisor : attn_sqrt_dk(d);
}

/*
** A mask made of parts: each part is kept in the trace so the mask stage
** can show it, and the mask is (causal or prefix) and window and padding.
** Sliding and prefix always come with the causal part (the parser adds it).
*/
static Mat *mask_parts(TraceSetup *ts, const Setup *su)
{
    unsigned parts = su->mask_parts;
    int nq = su->nq, nk = su->nk;
    Mat *M = NULL;
    assert(!(parts & (MASKP_SLIDING | MASKP_PREFIX)) || (parts & MASKP_CAUSAL));
    if (parts & MASKP_CAUSAL) M = mat_copy(put(ts, TK_MASK_CAUSAL, 0, attn_causal_mask(nq, nk), true));
    if (M && (parts & MASKP_PREFIX)) {
        Mat *t = attn_mask_or(M, put(ts, TK_MASK_PREFIX, 0, attn_prefix_mask(nq, su->prefix), true));
        mat_free(M);
        M = t;
    }
    if (M && (parts & MASKP_SLIDING)) {
        Mat *t = attn_mask_and(M, put(ts, TK_MASK_WINDOW, 0, attn_window_mask(nq, su->window), true));
        mat_free(M);
        M = t;
    }
    if (parts & MASKP_PADDING) {
        bool *qp = xcalloc((size_t)nq, sizeof *qp), *kp = xcalloc((size_t)nk, sizeof *kp);
        for (int i = 0; i < nq; i++) qp[i] = !strcmp(su->qtokens[i], su->pad_token);
        for (int j = 0; j < nk; j++) kp[j] = !strcmp(su->ktokens[j], su->pad_token);
        const Mat *P = put(ts, TK_MASK_PAD, 0, attn_padding_mask(qp, nq, kp, nk), true);
        free(qp);
        free(kp);
        Mat *t = M ? attn_mask_and(M, P) : mat_copy(P);
        mat_free(M);
        M = t;
    }
    return M;
}

/* The mask matrix of a setup (new), or NULL for none. */
static Mat *make_mask(TraceSetup *ts, const Setup *su)
{
    switch (su->mask) {
    case MASK_CAUSAL: return attn_causal_mask(su->nq, su->nk);
    case MASK_ALLOW: return mat_copy(tr_input(ts, su->mask_matrix));
    case MASK_BLOCK: return attn_mask_from_blocked(tr_input(ts, su->mask_matrix));
    case MASK_PARTS: return mask_parts(ts, su);
    default: return NULL;
    }
}

/* The setup's own scores of queries Q against keys K (new): additive
** (Bahdanau) or the dot products. The whole computation and decoding
** with a K/V cache both score through here, so they cannot differ. */
static Mat *raw_scores(const TraceSetup *ts, const Setup *su, const Mat *Q, const Mat *K)
{
    if (su->score == SCORE_ADDITIVE)
        return attn_additive_scores(Q, K, tr_input(ts, su->add_w1), tr_input(ts, su->add_w2), tr_input(ts, su->add_v));
    return attn_scores(Q, K);
}

/* Raw scores divided by the divisor, then by the temperature (new). */
static Mat *scaled_scores(const TraceSetup *ts, const Mat *raw)
{
    Mat *scaled = attn_scale(raw, ts->divisor);
    if (ts->temperature != 1.0) {
        Mat *t = attn_scale(scaled, ts->temperature);
        mat_free(scaled);
        scaled = t;
    }
    return scaled;
}

/* Head h's scores up to what its softmax reads, each stored: raw, scaled,
** ALiBi's bias and the biased scores, masked. The softmax's input, or NULL. */
static const Mat *score_chain(TraceSetup *ts, const Setup *su, int h, const Mat *Q, const Mat *K, const Mat *mask)
{
    const Mat *raw = put(ts, TK_RAW, h, raw_scores(ts, su, Q, K), true);
    if (!raw) return NULL;
    const Mat *S = put(ts, TK_SCALED, h, scaled_scores(ts, raw), true);
    if (su->positions == POS_ALIBI) {
        const Mat *B = put(ts, TK_ALIBI, h, attn_alibi_bias(su->nq, su->nk, attn_alibi_slope(h, ts->heads)), true);
        S = B ? put(ts, TK_BIASED, h, mat_add(S, B), true) : NULL;
    }
    if (S && mask) S = put(ts, TK_MASKED, h, attn_apply_mask(S, mask), true);
    return S;
}

/* Whether every number of m is finite, or a masked −∞ where masked. */
static bool all_finite(const Mat *m, bool masked)
{
    for (int64_t i = 0; i < (int64_t)m->rows * m->cols; i++)
        if (!isfinite(mat_data(m)[i]) && !(masked && mat_data(m)[i] == -INFINITY)) return false;
    return true;
}

/* Free the matrices stored from entry `from` on, but the last (the
** weights), when all are finite; a matrix that is not stays, for
** check_finite to name. */
static void drop_scores(TraceSetup *ts, int from)
{
    int last = ts->n - 1;
    for (int i = from; i < last; i++)
        if (!all_finite(ts->mats[i].m, ts->mats[i].kind == TK_MASKED)) return;
    for (int i = from; i < last; i++)
        if (ts->mats[i].owned) mat_free(ts->mats[i].m);
    ts->mats[from] = ts->mats[last];
    ts->n = from + 1;
}

/*
** Head h's scores again, when a setup too large to keep them (scores_later)
** is asked for one: the same functions on the same Q, K and mask, so the
** numbers are those the weights were computed from; all of the head's
** kinds at once, and only once (a kind the setup has not, as masked
** scores without a mask, does not compute them again). The trace is
** changed through a const pointer: it only gains matrices, and none it
** holds changes (the Trace itself is never const).
*/
static void rescore(const TraceSetup *cts, int head)
{
    TraceSetup *ts = (TraceSetup *)cts;
    const Setup *su = ts->su;
    const Mat *Q = tr_find(ts, trace_score_q(su), head, 0), *K = tr_find(ts, trace_score_k(su), head, 0);
    if (Q && K) score_chain(ts, su, head, Q, K, tr_find(ts, TK_MASK, 0, 0));
}

/* Scores -> scaled -> masked -> weights -> output for head h. A setup of
** many scores keeps only each head's weights: the rest is computed again
** when asked for (rescore). */
static bool attend(TraceSetup *ts, const Setup *su, int h, const Mat *Q, const Mat *K, const Mat *V,
                   const Mat *mask)
{
    int from = ts->n;
    const Mat *S = score_chain(ts, su, h, Q, K, mask);
    if (!S) return false;
    const Mat *W = put(ts, TK_WEIGHTS, h, attn_softmax(S), true);
    if (!W) return false;
    if (ts->scores_later) drop_scores(ts, from);
    return put(ts, TK_OUTPUT, h, attn_weighted_sum(W, V), true) != NULL;
}

/* Fail if a computed matrix holds NaN or ±∞ (masked -∞ excepted). */
static bool check_finite(const TraceSetup *ts, const Setup *su, const char *file, Error *err)
{
    for (int i = 0; i < ts->n; i++) {
        const TraceMat *e = &ts->mats[i];
        if (!e->owned) continue;
        const Mat *m = e->m;
        for (int r = 0; r < m->rows; r++)
            for (int c = 0; c < m->cols; c++) {
                double v = mat_get(m, r, c);
                if (isfinite(v) || ((e->kind == TK_MASKED || e->kind == TK_OS_MAX) && v == -INFINITY)) continue;
                char name[64];
                trace_name(trace_ref(e->kind, e->head), ts->heads, name, sizeof name);
                return error_set(err, ERR_INVALID, file, su->line, 1, "%s[%d][%d] is %s, not a finite number: the inputs "
                                 "of this setup are too large", name, r + 1, c + 1, isnan(v) ? "NaN" : "infinite");
            }
    }
    return true;
}

/* Head h's slice of M (of `heads`), or M itself with one head. */
static Mat *slice(const Mat *M, int heads, int h, bool *owned)
{
    *owned = heads > 1;
    return heads > 1 ? attn_head_slice(M, heads, h - 1) : (Mat *)M;
}

/*
** Q_h, K_h and V_h for query head h. With grouped-query attention (G K/V
** heads), query heads that share a K/V head are given the same matrices:
** the first head of a group computes them, the others borrow them, so
** (TK_K, h) is always the keys head h really reads. RoPE rotates them
** once per head (keys once per group) by the angles of their positions.
*/
static bool head_inputs(TraceSetup *ts, const Setup *su, int h, const Mat *Q, const Mat *K, const Mat *V,
                        const Mat **q, const Mat **k, const Mat **v)
{
    int H = ts->heads, G = ts->kv_heads, g = trace_kv_head(ts, h), first = trace_kv_first(ts, h);
    bool own;
    Mat *m = slice(Q, H, h, &own);
    *q = H > 1 ? put(ts, TK_Q, h, m, own) : m;
    if (first == h) {
        bool multi = H > 1;
        m = multi ? attn_head_slice(K, G, g - 1) : (Mat *)K;
        *k = multi ? put(ts, TK_K, h, m, true) : m;
        m = multi ? attn_head_slice(V, G, g - 1) : (Mat *)V;
        *v = multi ? put(ts, TK_V, h, m, true) : m;
    } else {
        *k = put(ts, TK_K, h, (Mat *)find(ts, TK_K, first), false);
        *v = put(ts, TK_V, h, (Mat *)find(ts, TK_V, first), false);
    }
    if (!*q || !*k || !*v) return false;
    if (su->positions != POS_ROPE) return true;
    const Mat *A = find(ts, TK_ROPE_ANGLES, 0);
    *q = put(ts, TK_QROT, h, attn_rope(*q, A), true);
    *k = first == h ? put(ts, TK_KROT, h, attn_rope(*k, A), true)
                    : put(ts, TK_KROT, h, (Mat *)find(ts, TK_KROT, first), false);
    return *q && *k;
}

/* Which query heads read which K/V head, and what a K/V cache holds. */
static void kv_tables(TraceSetup *ts, const Setup *su)
{
    int H = ts->heads, G = ts->kv_heads;
    Mat *map = mat_create(H, G);
    for (int h = 1; h <= H; h++) mat_set(map, h - 1, trace_kv_head(ts, h) - 1, 1.0);
    put(ts, TK_KV_GROUPS, 0, map, true);
    Mat *size = mat_create(2, 3);
    double n = su->nk, heads[2] = { H, G };
    for (int r = 0; r < 2; r++) {
        mat_set(size, r, 0, n * ts->d_k * heads[r]);
        mat_set(size, r, 1, n * ts->d_v * heads[r]);
        mat_set(size, r, 2, n * (ts->d_k + ts->d_v) * heads[r]);
    }
    put(ts, TK_KV_SIZE, 0, size, true);
}

/*
** Decoding with a K/V cache, head h: token t brings its query, key and
** value; the key and value join the cache, and the query attends to the
** t + 1 cached rows only, through the same steps as the whole computation
** (the setup's own scores, divisor and temperature, ALiBi, mask row,
** softmax, weighted sum). Row t of the results holds step t's weights
** (zeros past t) and output.
*/
static bool kv_decode(TraceSetup *ts, const Setup *su, int h, const Mat *mask)
{
    const Mat *Q = find(ts, trace_score_q(su), h), *K = find(ts, trace_score_k(su), h), *V = find(ts, TK_V, h);
    const Mat *B = find(ts, TK_ALIBI, h);
    int n = su->nq;
    assert(K->rows >= n && V->rows >= n);       /* a causal stage: a key per query (the parser checked) */
    Mat *W = mat_create(n, su->nk), *O = mat_create(n, V->cols);
    for (int t = 0; t < n; t++) {
        Mat *q = mat_from(1, Q->cols, mat_row(Q, t)), *kc = mat_from(t + 1, K->cols, mat_data(K));
        Mat *vc = mat_from(t + 1, V->cols, mat_data(V)), *s = raw_scores(ts, su, q, kc);
        Mat *x = s ? scaled_scores(ts, s) : NULL;
        mat_free(s);
        if (!x) {
            mat_free(q); mat_free(kc); mat_free(vc); mat_free(W); mat_free(O);
            return false;
        }
        for (int j = 0; j <= t; j++) {
            if (B) mat_data(x)[j] += mat_get(B, t, j);
            if (mask && mat_get(mask, t, j) == 0.0) mat_data(x)[j] = -INFINITY;
        }
        Mat *w = attn_softmax(x), *o = attn_weighted_sum(w, vc);
        memcpy(mat_row(W, t), mat_data(w), sizeof(double) * (size_t)(t + 1));
        memcpy(mat_row(O, t), mat_data(o), sizeof(double) * (size_t)V->cols);
        mat_free(q); mat_free(kc); mat_free(vc); mat_free(x); mat_free(w); mat_free(o);
    }
    put(ts, TK_KV_WEIGHTS, h, W, true);
    return put(ts, TK_KV_OUTPUT, h, O, true) != NULL;
}

/* The online softmax of head h in blocks of b keys, and its difference
** from the ordinary output. */
static bool online(TraceSetup *ts, const Setup *su, int h, int b)
{
    if (tr_find(ts, TK_OS_OUT, h, b)) return true;          /* two stages with one block size */
    OnlineSoftmax os;
    if (!attn_online_softmax(find(ts, trace_softmax_input(su), h), find(ts, TK_V, h), b, &os)) return false;
    tr_put(ts, TK_OS_MAX, h, b, os.max, true);
    tr_put(ts, TK_OS_SUM, h, b, os.sum, true);
    tr_put(ts, TK_OS_RESCALE, h, b, os.rescale, true);
    tr_put(ts, TK_OS_ACC, h, b, os.acc, true);
    tr_put(ts, TK_OS_OUT, h, b, os.out, true);
    /* the difference in units of DBL_EPSILON (2⁻⁵²), so that rounding reads as small numbers */
    Mat *d = mat_scale(find(ts, TK_OUTPUT, h), -1.0), *diff = mat_add(os.out, d);
    Mat *units = mat_scale(diff, 1.0 / DBL_EPSILON);
    mat_free(d);
    mat_free(diff);
    return tr_put(ts, TK_OS_DIFF, h, b, units, true) != NULL;
}

/* The computations only some stages show (StageKind.extra): decoding and
** the online softmax. */
static bool stage_extras(TraceSetup *ts, const Lesson *L, int k, const Mat *mask)
{
    const Setup *su = ts->su;
    for (int i = 0; i < L->nstages; i++) {
        const Stage *st = &L->stages[i];
        if (st->setup != k) continue;
        StageExtra extra = stage_kind(st->id)->extra;
        for (int h = 1; h <= ts->heads; h++) {
            if (extra == EXTRA_DECODE && !find(ts, TK_KV_WEIGHTS, h) && !kv_decode(ts, su, h, mask)) return false;
            if (extra == EXTRA_ONLINE && !online(ts, su, h, lesson_stage_block(L, st))) return false;
        }
        /* the words a next_token shows: now, or with the logits when they are asked for */
        if (extra == EXTRA_TOP && !ts->unembed_later && !tr_find(ts, TK_TOP_IDS, 0, lesson_stage_top(L, st)))
            return false;
    }
    return true;
}

/* What a head switched off hands on in place of its output O: zeros, or
** (mean ablation) every row the mean of O's rows (new). */
static Mat *ablated_output(const Setup *su, int h, const Mat *O)
{
    Mat *r = mat_create(O->rows, O->cols);
    if (!(su->ablate_mean & (1u << (h - 1)))) return r;
    for (int j = 0; j < O->cols; j++) {
        double sum = 0;
        for (int i = 0; i < O->rows; i++) sum += mat_get(O, i, j);
        for (int i = 0; i < O->rows; i++) mat_set(r, i, j, sum / O->rows);
    }
    return r;
}

/* After every head: the entropies; with outputs, the joined heads (a head
** switched off in them as `ablate:` says, what replaces its output kept as
** TK_ABLATED) and W_o. */
static bool join_heads(TraceSetup *ts, const Setup *su)
{
    int H = ts->heads;
    Mat *outs[LESSON_MAX_HEADS], *ents[LESSON_MAX_HEADS];
    bool have_out = true, any_off = false;
    for (int h = 1; h <= H; h++) {
        outs[h - 1] = (Mat *)find(ts, TK_OUTPUT, h);
        have_out &= outs[h - 1] != NULL;
        if (outs[h - 1] && lesson_head_ablated(su, h)) {
            outs[h - 1] = (Mat *)put(ts, TK_ABLATED, h, ablated_output(su, h, outs[h - 1]), true);
            any_off = true;
        }
        ents[h - 1] = attn_entropy(find(ts, TK_WEIGHTS, h));
    }
    put(ts, TK_ENTROPY, 0, H > 1 ? mat_hconcat(ents, H) : mat_copy(ents[0]), true);
    for (int h = 0; h < H; h++) mat_free(ents[h]);
    const Mat *joined = !have_out ? NULL                  /* weights given without values */
                      : H > 1 || any_off ? put(ts, TK_CONCAT, 0, attn_concat_heads(outs, H), true) : outs[0];
    if (!have_out) return true;
    if (!joined) return false;
    return !su->output_proj || put(ts, TK_FINAL, 0, project(ts, joined, su->output_proj, su->output_bias), true);
}

/*
** A setup given its weights (`attention: A`, checked by the parser): head
** h's weights are A's h-th block of columns, used as they are; with values,
** each head's output is its weights times its slice of V. A weight the
** mask blocks must be 0, else the pattern and the mask disagree.
*/
static bool run_given(TraceSetup *ts, const Setup *su, Error *err, const char *file)
{
    int H = ts->heads;
    const Mat *A = tr_input(ts, su->attention);
    const Mat *M = put(ts, TK_MASK, 0, make_mask(ts, su), true);
    if (!A || (su->mask != MASK_NONE && !M)) return false;
    const Mat *V = su->values.input ? operand(ts, TK_V, &su->values) : NULL;
    if (su->values.input && !V) return false;
    ts->divisor = 1.0;
    ts->d_v = V ? V->cols / H : 0;
    for (int h = 1; h <= H; h++) {
        const Mat *W = put(ts, TK_WEIGHTS, h, H > 1 ? attn_head_slice(A, H, h - 1) : (Mat *)A, H > 1);
        if (!W) return false;
        assert(!M || mat_same_shape(M, W));     /* nq x nk a head: the parser checked A */
        for (int i = 0; M && i < W->rows; i++)
            for (int j = 0; j < W->cols; j++)
                if (mat_get(M, i, j) == 0.0 && mat_get(W, i, j) != 0.0) {
                    char head[32] = "";
                    if (H > 1) snprintf(head, sizeof head, " in head %d", h);
                    return error_set(err, ERR_INVALID, file, su->attention_line > su->line ? su->attention_line : su->line,
                                     1, "attention %s gives %g to key %d of row %d%s, which the mask blocks; a blocked "
                                     "weight must be 0 (is this the mask the model used?)",
                                     su->attention, mat_get(W, i, j), j + 1, i + 1, head);
                }
        if (!V) continue;
        const Mat *vh = H > 1 ? put(ts, TK_V, h, attn_head_slice(V, H, h - 1), true) : V;
        if (!vh || !put(ts, TK_OUTPUT, h, attn_weighted_sum(W, vh), true)) return false;
    }
    return join_heads(ts, su);
}

/* Compute setup k of L into ts; prev is the setup above (NULL for the first). */
static bool run_setup(TraceSetup *ts, const Lesson *L, int k, const TraceSetup *prev, Error *err)
{
    const Setup *su = &L->setups[k];
    ts->su = su;
    ts->heads = su->heads > 0 ? su->heads : 1;
    ts->kv_heads = lesson_kv_heads(su);
    ts->temperature = su->temperature;
    if (su->attention) return run_given(ts, su, err, L->shown);
    if (su->residual && prev) {
        /* this setup's X is the stream above: its X plus its output (and its MLP's) */
        ts->resid = put(ts, TK_RESIDUAL, 0, (Mat *)find(prev, TK_STREAM, 0), false);
        if (!ts->resid) return false;
        ts->resid_name = su->queries.input;
    }
    const Mat *X = tr_input(ts, su->queries.input);
    if (su->positions == POS_SINUSOIDAL) {
        const Mat *P = X ? put(ts, TK_PE, 0, attn_sinusoidal(X->rows, X->cols), true) : NULL;
        if (!P || !put(ts, TK_XPE, 0, mat_add(X, P), true)) return false;
    }
    if (su->norm.gamma && !su->post_norm
        && !tr_layer_norm(ts, su->positions == POS_SINUSOIDAL ? find(ts, TK_XPE, 0) : X))
        return false;
    /* all three from the inputs (an input called Q is the queries) */
    const Mat *Q = operand(ts, TK_Q, &su->queries);
    const Mat *K = operand(ts, TK_K, &su->keys);
    const Mat *V = operand(ts, TK_V, &su->values);
    if (!Q || !K || !V) return false;
    int H = ts->heads;
    ts->d_k = K->cols / ts->kv_heads;
    ts->d_v = V->cols / ts->kv_heads;
    ts->divisor = divisor_for(su, ts->d_k);
    if (su->kv_heads) kv_tables(ts, su);
    if (su->positions == POS_ROPE && !put(ts, TK_ROPE_ANGLES, 0, attn_rope_angles(su->nq, ts->d_k, su->rope_base), true))
        return false;
    const Mat *M = put(ts, TK_MASK, 0, make_mask(ts, su), true);
    if (su->mask != MASK_NONE && !M) return false;
    ts->scores_later = (int64_t)H * su->nq * su->nk > TRACE_KEEP_SCORES;
    for (int h = 1; h <= H; h++) {
        const Mat *qh, *kh, *vh;
        if (!head_inputs(ts, su, h, Q, K, V, &qh, &kh, &vh) || !attend(ts, su, h, qh, kh, vh, M)) return false;
    }
    return join_heads(ts, su) && tr_block(ts, L, k, X) && stage_extras(ts, L, k, M);
}

/* Run every setup. */
Trace *attn_run(const Lesson *L, Error *err)
{
    static uint64_t traces;
    error_clear(err);
    Trace *T = xcalloc(1, sizeof *T);
    T->serial = ++traces;
    T->nsetups = L->nsetups;
    T->s = xcalloc((size_t)(L->nsetups ? L->nsetups : 1), sizeof *T->s);
    for (int k = 0; k < L->nsetups; k++) {
        const Setup *su = &L->setups[k];
        if (!run_setup(&T->s[k], L, k, k > 0 ? &T->s[k - 1] : NULL, err)) {
            /* The parser checks every shape, so an operation that does not
            ** fit (and says nothing) is a bug; still an error, not a crash. */
            if (err->kind == ERR_NONE)
                error_set(err, ERR_INVALID, L->shown, su->line, 1, "cannot compute this setup: the shapes of its "
                          "matrices do not fit (please report this lesson)");
            trace_free(T);
            return NULL;
        }
        if (!check_finite(&T->s[k], su, L->shown, err)) {
            trace_free(T);
            return NULL;
        }
        if (!tr_grid(T, L, k)) {
            error_set(err, ERR_INVALID, L->shown, su->line, 1, "cannot lay out every head of the setups in one grid "
                      "(please report this lesson)");
            trace_free(T);
            return NULL;
        }
    }
    return T;
}

/* Release a trace. */
void trace_free(Trace *T)
{
    if (!T) return;
    for (int k = 0; k < T->nsetups; k++) {
        for (int i = 0; i < T->s[k].n; i++)
            if (T->s[k].mats[i].owned) mat_free(T->s[k].mats[i].m);
        free(T->s[k].mats);
    }
    free(T->s);
    free(T);
}

/* The matrix a reference names. */
const Mat *trace_at(const Trace *T, int s, TraceRef r)
{
    if (!T || s < 0 || s >= T->nsetups) return NULL;
    return trace_at_setup(&T->s[s], r);
}

/* The letter before a reference's block number in its name: b for the
** online softmax's block size, k for the next token's words a row. */
static char block_letter(TraceKind k)
{
    return k >= TK_TOP_LOGITS && k <= TK_TOP_IDS ? 'k' : 'b';
}

/* "weights" with one head, "head2.weights" with several. */
void trace_name(TraceRef r, int heads, char *out, size_t n)
{
    if (r.kind == TK_INPUT) { snprintf(out, n, "%s", r.name); return; }
    int h = norm_head(r.kind, r.head, heads);
    char blk[16] = "";
    if (r.block > 0) snprintf(blk, sizeof blk, ".%c%d", block_letter(r.kind), r.block);
    if (heads > 1 && h > 0) snprintf(out, n, "head%d.%s%s", h, trace_kind_name(r.kind), blk);
    else snprintf(out, n, "%s%s", trace_kind_name(r.kind), blk);
}

/* A name back into a reference (inputs win over computed names: an input
** called Q is the queries, and lessons cannot name an input "weights"). */
bool trace_parse_name(const Trace *T, int s, const char *name, TraceRef *out)
{
    if (!T || s < 0 || s >= T->nsetups || !name) return false;
    const TraceSetup *ts = &T->s[s];
    int head = 0;
    const char *base = name;
    if (!strncmp(name, "head", 4) && name[4] >= '1' && name[4] <= '9') {
        char *end;
        long h = strtol(name + 4, &end, 10);
        if (*end == '.' && h >= 1 && h <= ts->heads && ts->heads > 1) {
            head = (int)h;
            base = end + 1;
        }
    }
    if (head == 0 && tr_input(ts, name)) {
        *out = trace_input_ref(name);
        return true;
    }
    int block = 0;
    size_t blen = strlen(base);
    const char *dot = strrchr(base, '.');
    if (dot && (dot[1] == 'b' || dot[1] == 'k') && dot[2] >= '1' && dot[2] <= '9') {   /* online_max.b3, top_probs.k5 */
        char *end;
        long b = strtol(dot + 2, &end, 10);
        if (*end || b > LESSON_MAX_VOCAB) return false;
        block = (int)b;
        blen = (size_t)(dot - base);
    }
    for (int k = TK_Q; k < TK_COUNT; k++)
        if (strlen(kind_names[k]) == blen && !strncmp(base, kind_names[k], blen)) {
            if (block && dot[1] != block_letter((TraceKind)k)) return false;
            TraceRef r = trace_block_ref((TraceKind)k, head, block);
            if (trace_kind_per_head((TraceKind)k) && head == 0 && ts->heads > 1) return false;
            if (!trace_at(T, s, r)) return false;
            *out = r;
            return true;
        }
    return false;
}

/* A named matrix of setup s. */
const Mat *trace_get(const Trace *T, int s, const char *name)
{
    TraceRef r;
    return trace_parse_name(T, s, name, &r) ? trace_at(T, s, r) : NULL;
}

/* What setup s hands on to the stream. */
const Mat *trace_stream_out(const Trace *T, int s)
{
    return T && s >= 0 && s < T->nsetups ? stream_out(&T->s[s]) : NULL;
}

/* Is input name of setup s the computed residual stream? */
bool trace_input_computed(const Trace *T, int s, const char *name)
{
    if (!T || s < 0 || s >= T->nsetups || !name) return false;
    return T->s[s].resid && !strcmp(name, T->s[s].resid_name);
}

/* Is name an input of setup s? */
bool trace_is_input(const Trace *T, int s, const char *name)
{
    TraceRef r;
    return trace_parse_name(T, s, name, &r) && r.kind == TK_INPUT;
}
