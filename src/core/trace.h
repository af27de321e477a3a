/*
** trace.h: every intermediate matrix of a lesson, computed once.
**
** attn_run takes a parsed Lesson and, for each setup, computes the queries,
** keys and values, the raw and scaled scores, the mask and masked scores, the
** weights, the output, each head's slices and weights, the concatenation and
** output projection, and the entropies. Each matrix is stored under a name
** (see trace_get) so that views, explanations and the JSON dump refer to the
** same numbers. A computed value that is not finite (other than a masked -∞)
** is an error, never something to draw.
**
** Names: X, Y, W_q, W_k, W_v, W_o, Q, K, V, raw_scores, scaled_scores, mask,
** masked_scores, weights, output, headN.Q, headN.K, headN.V, headN.scores,
** headN.weights, headN.output (N from 1), concat, final, entropy (one column
** per head; the single head when heads = 1), plus every input matrix of the
** setup under its own name.
*/
#ifndef ATTNLAB_TRACE_H
#define ATTNLAB_TRACE_H

#include "lesson.h"
#include "mat.h"

/* Room for every name one setup can hold: its inputs; Q, K, V and the mask;
** raw_scores, scaled_scores, masked_scores, weights and output; per head
** Q, K, V, raw_scores, scores, masked_scores, weights and output; concat,
** final and entropy. (It was 160: 32 inputs, 16 heads and a mask need 172,
** and a full table made attn_run dereference NULL.) */
#define TRACE_MAX_ENTRIES (LESSON_MAX_MATRICES + 4 + 5 + 8 * LESSON_MAX_HEADS + 3)

typedef struct TraceEntry {
    char name[48];
    Mat *m;             /* owned by the trace */
    bool input;         /* an input of the lesson (editable) */
} TraceEntry;

/* One setup's results. */
typedef struct TraceSetup {
    TraceEntry e[TRACE_MAX_ENTRIES];
    int n;
    int d_k;            /* width of one head's keys */
    int heads;
    double divisor;     /* what the scores were divided by (√d_k, custom, 1) */
    double temperature;
} TraceSetup;

typedef struct Trace {
    TraceSetup *s;
    int nsetups;
} Trace;

/* Compute every setup of L. NULL on failure with err filled in
** ("FILE:LINE:COL: error: ..." at the setup or stage concerned). */
Trace *attn_run(const Lesson *L, LessonError *err);
/* Release a trace. */
void trace_free(Trace *T);
/* The matrix called name in setup s, or NULL. */
const Mat *trace_get(const Trace *T, int s, const char *name);
/* True if name is one of setup s's inputs. */
bool trace_is_input(const Trace *T, int s, const char *name);

#endif
