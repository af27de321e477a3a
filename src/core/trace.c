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
#include "trace.h"
#include "attn.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const kind_names[TK_COUNT] = {
    "input", "Q", "K", "V", "mask", "raw_scores", "scaled_scores", "masked_scores",
    "weights", "output", "concat", "final", "entropy", "residual",
};

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
    if (k >= TK_RAW && k <= TK_OUTPUT) return head < 1 ? 1 : head;
    return 0;
}

/* Do a and b name the same matrix? */
bool trace_ref_eq(TraceRef a, TraceRef b, int heads)
{
    if (a.kind != b.kind) return false;
    if (a.kind == TK_INPUT) return strcmp(a.name, b.name) == 0;
    return norm_head(a.kind, a.head, heads) == norm_head(b.kind, b.head, heads);
}

/* The stored matrix for (kind, head), or NULL. */
static const Mat *find(const TraceSetup *ts, TraceKind k, int head)
{
    head = norm_head(k, head, ts->heads);
    for (int i = 0; i < ts->n; i++)
        if (ts->mats[i].kind == k && ts->mats[i].head == head) return ts->mats[i].m;
    return NULL;
}

/* An input of the setup by name (the residual stream when it replaces
** it), or NULL. */
static const Mat *input(const TraceSetup *ts, const char *name)
{
    if (ts->resid && name && !strcmp(name, ts->resid_name)) return ts->resid;
    const LessonMatrix *lm = name ? lesson_matrix(ts->su, name) : NULL;
    return lm ? lm->m : NULL;
}

/* What a setup hands on to the residual stream: its output after W_o, or
** the joined heads (or the one head's output) without one. */
static const Mat *stream_out(const TraceSetup *ts)
{
    const Mat *m = find(ts, TK_FINAL, 0);
    if (!m) m = find(ts, ts->heads > 1 ? TK_CONCAT : TK_OUTPUT, ts->heads > 1 ? 0 : 1);
    return m;
}

/* Store a computed matrix (the trace owns it unless borrowed). NULL m is
** a failure passed through. */
static const Mat *put(TraceSetup *ts, TraceKind k, int head, Mat *m, bool owned)
{
    if (!m) return NULL;
    if (ts->n == ts->cap) {
        ts->cap = ts->cap ? 2 * ts->cap : 16;
        ts->mats = xrealloc(ts->mats, sizeof *ts->mats * (size_t)ts->cap);
    }
    ts->mats[ts->n++] = (TraceMat){ k, head, m, owned };
    return m;
}

/* An operand: the input itself (borrowed), or input @ weight. */
static const Mat *operand(TraceSetup *ts, TraceKind k, const Operand *o)
{
    const Mat *in = input(ts, o->input);
    if (!in) return NULL;
    if (!o->weight) return put(ts, k, 0, (Mat *)in, false);
    const Mat *w = input(ts, o->weight);
    return w ? put(ts, k, 0, attn_project(in, w), true) : NULL;
}

/* The divisor for keys of width d: √d, or the lesson's own number in its
** place, for scaled dot products; none (1) for plain dot and additive
** scores, so turning scaling off really turns it off. */
static double divisor_for(const Setup *su, int d)
{
    if (su->score != SCORE_SCALED_DOT) return 1.0;
    return su->divisor > 0 ? su->divisor : attn_sqrt_dk(d);
}

/* The mask matrix of a setup (new), or NULL for none. */
static Mat *make_mask(const TraceSetup *ts, const Setup *su)
{
    switch (su->mask) {
    case MASK_CAUSAL: return attn_causal_mask(su->nq, su->nk);
    case MASK_ALLOW: return mat_copy(input(ts, su->mask_matrix));
    case MASK_BLOCK: return attn_mask_from_blocked(input(ts, su->mask_matrix));
    default: return NULL;
    }
}

/* Scores -> scaled -> masked -> weights -> output for head h. */
static bool attend(TraceSetup *ts, const Setup *su, int h, const Mat *Q, const Mat *K, const Mat *V,
                   const Mat *mask)
{
    const Mat *raw = su->score == SCORE_ADDITIVE
        ? put(ts, TK_RAW, h, attn_additive_scores(Q, K, input(ts, su->add_w1), input(ts, su->add_w2),
                                                  input(ts, su->add_v)), true)
        : put(ts, TK_RAW, h, attn_scores(Q, K), true);
    if (!raw) return false;
    Mat *scaled = attn_scale(raw, ts->divisor);
    if (ts->temperature != 1.0) {
        Mat *t = attn_scale(scaled, ts->temperature);
        mat_free(scaled);
        scaled = t;
    }
    const Mat *S = put(ts, TK_SCALED, h, scaled, true);
    if (mask) {
        S = put(ts, TK_MASKED, h, attn_apply_mask(S, mask), true);
        if (!S) return false;
    }
    const Mat *W = put(ts, TK_WEIGHTS, h, attn_softmax(S), true);
    return put(ts, TK_OUTPUT, h, attn_weighted_sum(W, V), true) != NULL;
}

/* Fail if a computed matrix holds NaN or ±∞ (masked -∞ excepted). */
static bool check_finite(const TraceSetup *ts, const Setup *su, const char *file, LessonError *err)
{
    for (int i = 0; i < ts->n; i++) {
        const TraceMat *e = &ts->mats[i];
        if (!e->owned) continue;
        const Mat *m = e->m;
        for (int r = 0; r < m->rows; r++)
            for (int c = 0; c < m->cols; c++) {
                double v = mat_get(m, r, c);
                if (isfinite(v) || (e->kind == TK_MASKED && v == -INFINITY)) continue;
                char name[64];
                trace_name(trace_ref(e->kind, e->head), ts->heads, name, sizeof name);
                err->kind = LESSON_ERR_INVALID;
                err->line = su->line;
                err->col = 1;
                snprintf(err->msg, sizeof err->msg,
                         "%s:%d:1: error: %s[%d][%d] is %s, not a finite number: the inputs of this setup are too large",
                         file, su->line, name, r + 1, c + 1, isnan(v) ? "NaN" : "infinite");
                return false;
            }
    }
    return true;
}

/* Compute one setup into ts; prev is the setup above (NULL for the first). */
static bool run_setup(TraceSetup *ts, const Setup *su, const TraceSetup *prev)
{
    ts->su = su;
    ts->heads = su->heads > 0 ? su->heads : 1;
    ts->temperature = su->temperature;
    if (su->residual && prev) {
        /* this setup's X is the stream above: its X plus its output */
        Mat *r = mat_add(input(prev, prev->su->queries.input), stream_out(prev));
        if (!r) return false;
        ts->resid = put(ts, TK_RESIDUAL, 0, r, true);
        ts->resid_name = su->queries.input;
    }
    /* all three from the inputs (an input called Q is the queries) */
    const Mat *Q = operand(ts, TK_Q, &su->queries);
    const Mat *K = operand(ts, TK_K, &su->keys);
    const Mat *V = operand(ts, TK_V, &su->values);
    if (!Q || !K || !V) return false;
    int H = ts->heads;
    ts->d_k = K->cols / H;
    ts->d_v = V->cols / H;
    ts->divisor = divisor_for(su, ts->d_k);
    const Mat *M = put(ts, TK_MASK, 0, make_mask(ts, su), true);
    if (su->mask != MASK_NONE && !M) return false;
    Mat *outs[LESSON_MAX_HEADS], *ents[LESSON_MAX_HEADS];
    for (int h = 1; h <= H; h++) {
        const Mat *qh = Q, *kh = K, *vh = V;
        if (H > 1) {
            qh = put(ts, TK_Q, h, attn_head_slice(Q, H, h - 1), true);
            kh = put(ts, TK_K, h, attn_head_slice(K, H, h - 1), true);
            vh = put(ts, TK_V, h, attn_head_slice(V, H, h - 1), true);
        }
        if (!qh || !kh || !vh || !attend(ts, su, h, qh, kh, vh, M)) {
            for (int k = 1; k < h; k++) mat_free(ents[k - 1]);
            return false;
        }
        outs[h - 1] = (Mat *)find(ts, TK_OUTPUT, h);
        ents[h - 1] = attn_entropy(find(ts, TK_WEIGHTS, h));
    }
    const Mat *joined = outs[0];
    if (H > 1) joined = put(ts, TK_CONCAT, 0, attn_concat_heads(outs, H), true);
    put(ts, TK_ENTROPY, 0, H > 1 ? mat_hconcat(ents, H) : mat_copy(ents[0]), true);
    for (int h = 0; h < H; h++) mat_free(ents[h]);
    if (!joined) return false;
    if (su->output_proj && !put(ts, TK_FINAL, 0, attn_project(joined, input(ts, su->output_proj)), true))
        return false;
    return true;
}

/* Run every setup. */
Trace *attn_run(const Lesson *L, LessonError *err)
{
    memset(err, 0, sizeof *err);
    Trace *T = xcalloc(1, sizeof *T);
    T->nsetups = L->nsetups;
    T->s = xcalloc((size_t)(L->nsetups ? L->nsetups : 1), sizeof *T->s);
    for (int k = 0; k < L->nsetups; k++) {
        const Setup *su = &L->setups[k];
        if (!run_setup(&T->s[k], su, k > 0 ? &T->s[k - 1] : NULL)) {
            err->kind = LESSON_ERR_INVALID;
            err->line = su->line;
            err->col = 1;
            snprintf(err->msg, sizeof err->msg, "%s:%d:1: error: cannot compute this setup: %s",
                     L->path, su->line, mat_error());
            trace_free(T);
            return NULL;
        }
        if (!check_finite(&T->s[k], su, L->path, err)) {
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
    const TraceSetup *ts = &T->s[s];
    if (r.kind == TK_INPUT) return input(ts, r.name);
    if (r.head < 0 || r.head > ts->heads) return NULL;
    return find(ts, r.kind, r.head);
}

/* "weights" with one head, "head2.weights" with several. */
void trace_name(TraceRef r, int heads, char *out, size_t n)
{
    if (r.kind == TK_INPUT) { snprintf(out, n, "%s", r.name); return; }
    int h = norm_head(r.kind, r.head, heads);
    if (heads > 1 && h > 0) snprintf(out, n, "head%d.%s", h, trace_kind_name(r.kind));
    else snprintf(out, n, "%s", trace_kind_name(r.kind));
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
    if (head == 0 && input(ts, name)) {
        *out = trace_input_ref(name);
        return true;
    }
    for (int k = TK_Q; k < TK_COUNT; k++)
        if (!strcmp(base, kind_names[k])) {
            TraceRef r = trace_ref((TraceKind)k, head);
            if (k >= TK_RAW && k <= TK_OUTPUT && head == 0 && ts->heads > 1) return false;
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
