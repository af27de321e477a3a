/*
** trace_int.h: what the two halves of the computation share, inside
** src/core only: trace.c computes attention (projections, heads, masks,
** positions, decoding, the online softmax) and trace_block.c the rest of
** a transformer block (the layer norms, the residual stream, the MLP, the
** next token), trace_grid.c every head of a model in one grid. They store
** what they compute in the setup's TraceSetup through tr_put and read it
** back with tr_find.
*/
#ifndef ATTNLAB_TRACE_INT_H
#define ATTNLAB_TRACE_INT_H

#include "trace.h"

/* Store a computed matrix (the trace owns it unless borrowed); a NULL m is
** a failure passed through and returned. */
const Mat *tr_put(TraceSetup *ts, TraceKind k, int head, int block, Mat *m, bool owned);
/* The stored matrix for (kind, head, block), or NULL. */
const Mat *tr_find(const TraceSetup *ts, TraceKind k, int head, int block);
/* An input of the setup by name (the residual stream when it replaces it), or NULL. */
const Mat *tr_input(const TraceSetup *ts, const char *name);

/* ---- trace_block.c ---- */

/* Whether setup k computes the stream after it (TK_STREAM): for its MLP,
** its unembedding, or the setup after it (`residual: yes`). */
bool tr_needs_stream(const Lesson *L, int k);
/* `layer_norm:` of the setup's X (x, already with positions): TK_LN_HAT
** and TK_LN; false when it does not compute. */
bool tr_layer_norm(TraceSetup *ts, const Mat *x);
/* After attention: the stream, the MLP and the next token's logits and
** probabilities, as the setup has them. x is its X, before any norm. */
bool tr_block(TraceSetup *ts, const Lesson *L, int k, const Mat *x);
/* The words among each row's k likeliest, for a next_token stage
** (TK_TOP_*, block k): made by tr_find the first time they are asked for. */
bool tr_top(TraceSetup *ts, int k);
/* The next token's logits and probabilities (TK_LOGITS, TK_PROBS), from
** the stream after the last block: computed when a setup's tr_block left
** them for later (unembed_later), the first time they are asked for. */
bool tr_unembed(TraceSetup *ts);

/* ---- trace_grid.c ---- */

/* TK_GRID of setup k, when a stage of it is a model_view, from the setups
** above it already computed in T; false when it cannot be made. */
bool tr_grid(Trace *T, const Lesson *L, int k);

#endif
