/*
** trace.c: attn_run, the whole computation of a lesson, setup by setup.
**
** Each setup is computed from its own inputs: projections first, then scores
** (dot product or additive), scaling, the mask, softmax, the weighted sum;
** then, with several heads, the same per head on column blocks, the
** concatenation and the output projection; then entropies. Every result is
** stored by name. The order of operations and of each sum follows the seeds'
** numpy code, so the numbers agree with theirs to the last few bits.
*/
#include "trace.h"
#include "attn.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Store m under name (the trace takes ownership). If the name is taken, the
** first one stays (an input called Q is the queries) and m is freed. */
static const Mat *put(TraceSetup *ts, const char *name, Mat *m, bool input)
{
    for (int i = 0; i < ts->n; i++)
        if (!strcmp(ts->e[i].name, name)) {
            mat_free(m);
            return ts->e[i].m;
        }
    if (ts->n >= TRACE_MAX_ENTRIES || !m) {
        mat_free(m);
        return NULL;
    }
    TraceEntry *e = &ts->e[ts->n++];
    snprintf(e->name, sizeof e->name, "%s", name);
    e->m = m;
    e->input = input;
    return m;
}

/* Store a computed Q, K or V under its name, replacing an input of the same
** name that a later setup inherited but no longer uses for this role. */
static const Mat *put_role(TraceSetup *ts, const char *name, Mat *m, const Operand *o)
{
    for (int i = 0; i < ts->n; i++)
        if (!strcmp(ts->e[i].name, name)) {
            if (!strcmp(o->input, name) && !o->weight) {   /* the input is this role */
                mat_free(m);
                return ts->e[i].m;
            }
            if (!m) return NULL;
            mat_free(ts->e[i].m);
            ts->e[i].m = m;
            ts->e[i].input = false;
            return m;
        }
    return put(ts, name, m, false);
}

/* Look up a name in one setup's results. */
static const Mat *get(const TraceSetup *ts, const char *name)
{
    for (int i = 0; i < ts->n; i++)
        if (!strcmp(ts->e[i].name, name)) return ts->e[i].m;
    return NULL;
}

/* An operand's matrix: the input, or input @ weight. */
static Mat *operand(const TraceSetup *ts, const Operand *o)
{
    const Mat *in = get(ts, o->input);
    if (!in) return NULL;
    if (!o->weight) return mat_copy(in);
    const Mat *w = get(ts, o->weight);
    return w ? attn_project(in, w) : NULL;
}

/* Scores -> scaled -> masked -> weights -> output for one head (or the whole). */
static bool attend(TraceSetup *ts, const Setup *su, const char *prefix,
                   const Mat *Q, const Mat *K, const Mat *V, const Mat *mask, double divisor)
{
    char name[48];
    Mat *raw;
    if (su->score == SCORE_ADDITIVE)
        raw = attn_additive_scores(Q, K, get(ts, su->add_w1), get(ts, su->add_w2), get(ts, su->add_v));
    else
        raw = attn_scores(Q, K);
    if (!raw) return false;
    Mat *scaled = attn_scale(raw, divisor);
    if (su->temperature != 1.0) {
        Mat *t = attn_scale(scaled, su->temperature);
        mat_free(scaled);
        scaled = t;
    }
    Mat *masked = mask ? attn_apply_mask(scaled, mask) : NULL;
    if (mask && !masked) {
        mat_free(raw);
        mat_free(scaled);
        return false;
    }
    Mat *W = attn_softmax(masked ? masked : scaled);
    Mat *O = attn_weighted_sum(W, V);
    if (!O) {
        mat_free(raw); mat_free(scaled); mat_free(masked); mat_free(W);
        return false;
    }
    snprintf(name, sizeof name, "%sraw_scores", prefix);
    put(ts, name, raw, false);
    snprintf(name, sizeof name, *prefix ? "%sscores" : "%sscaled_scores", prefix);
    put(ts, name, scaled, false);
    if (masked) {
        snprintf(name, sizeof name, "%smasked_scores", prefix);
        put(ts, name, masked, false);
    }
    snprintf(name, sizeof name, "%sweights", prefix);
    put(ts, name, W, false);
    snprintf(name, sizeof name, "%soutput", prefix);
    put(ts, name, O, false);
    return true;
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
    case MASK_ALLOW: return mat_copy(get(ts, su->mask_matrix));
    case MASK_BLOCK: return attn_mask_from_blocked(get(ts, su->mask_matrix));
    default: return NULL;
    }
}

/* Fail if a computed matrix holds NaN or ±∞ (masked -∞ excepted). */
static bool check_finite(const TraceSetup *ts, const Setup *su, const char *file, LessonError *err)
{
    for (int i = 0; i < ts->n; i++) {
        const TraceEntry *e = &ts->e[i];
        if (e->input) continue;
        bool masked = strstr(e->name, "masked_scores") != NULL;
        const Mat *m = e->m;
        for (int r = 0; r < m->rows; r++)
            for (int c = 0; c < m->cols; c++) {
                double v = mat_get(m, r, c);
                if (isfinite(v) || (masked && v == -INFINITY)) continue;
                err->line = su->line;
                err->col = 1;
                snprintf(err->msg, sizeof err->msg,
                         "%s:%d:1: error: %s[%d][%d] is %s, not a finite number: the inputs of this setup are too large",
                         file, su->line, e->name, r + 1, c + 1, isnan(v) ? "NaN" : "infinite");
                return false;
            }
    }
    return true;
}

/* Compute one setup into ts. */
static bool run_setup(TraceSetup *ts, const Setup *su)
{
    for (int i = 0; i < su->nmats; i++) put(ts, su->mats[i].name, mat_copy(su->mats[i].m), true);
    /* all three from the inputs before any of them takes its name */
    Mat *q = operand(ts, &su->queries), *k = operand(ts, &su->keys), *v = operand(ts, &su->values);
    const Mat *Q = put_role(ts, "Q", q, &su->queries);
    const Mat *K = put_role(ts, "K", k, &su->keys);
    const Mat *V = put_role(ts, "V", v, &su->values);
    if (!Q || !K || !V) return false;
    ts->heads = su->heads;
    ts->temperature = su->temperature;
    ts->d_k = K->cols / su->heads;
    ts->divisor = divisor_for(su, su->heads > 1 ? ts->d_k : K->cols);
    Mat *mask = make_mask(ts, su);
    const Mat *M = mask ? put(ts, "mask", mask, false) : NULL;
    if (!attend(ts, su, "", Q, K, V, M, divisor_for(su, K->cols))) return false;
    Mat *E;
    if (su->heads > 1) {
        Mat *outs[LESSON_MAX_HEADS];
        Mat *ents[LESSON_MAX_HEADS];
        char prefix[24], name[64];
        bool ok = true;
        for (int h = 0; h < su->heads && ok; h++) {
            snprintf(prefix, sizeof prefix, "head%d.", h + 1);
            Mat *qh = attn_head_slice(Q, su->heads, h);
            Mat *kh = attn_head_slice(K, su->heads, h);
            Mat *vh = attn_head_slice(V, su->heads, h);
            ok = qh && kh && vh && attend(ts, su, prefix, qh, kh, vh, M, ts->divisor);
            snprintf(name, sizeof name, "%sQ", prefix);
            put(ts, name, qh, false);
            snprintf(name, sizeof name, "%sK", prefix);
            put(ts, name, kh, false);
            snprintf(name, sizeof name, "%sV", prefix);
            put(ts, name, vh, false);
            if (!ok) return false;
            snprintf(name, sizeof name, "%soutput", prefix);
            outs[h] = (Mat *)get(ts, name);
            snprintf(name, sizeof name, "%sweights", prefix);
            ents[h] = attn_entropy(get(ts, name));
        }
        const Mat *C = put(ts, "concat", attn_concat_heads(outs, su->heads), false);
        E = mat_hconcat(ents, su->heads);
        for (int h = 0; h < su->heads; h++) mat_free(ents[h]);
        if (!C) { mat_free(E); return false; }
        if (su->output_proj) put(ts, "final", attn_project(C, get(ts, su->output_proj)), false);
    } else {
        E = attn_entropy(get(ts, "weights"));
        if (su->output_proj) put(ts, "final", attn_project(get(ts, "output"), get(ts, su->output_proj)), false);
    }
    put(ts, "entropy", E, false);
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
        if (!run_setup(&T->s[k], su)) {
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
    for (int k = 0; k < T->nsetups; k++)
        for (int i = 0; i < T->s[k].n; i++) mat_free(T->s[k].e[i].m);
    free(T->s);
    free(T);
}

/* A named matrix of setup s. */
const Mat *trace_get(const Trace *T, int s, const char *name)
{
    if (!T || s < 0 || s >= T->nsetups) return NULL;
    return get(&T->s[s], name);
}

/* Is name an input of setup s? */
bool trace_is_input(const Trace *T, int s, const char *name)
{
    if (!T || s < 0 || s >= T->nsetups) return false;
    for (int i = 0; i < T->s[s].n; i++)
        if (!strcmp(T->s[s].e[i].name, name)) return T->s[s].e[i].input;
    return false;
}
