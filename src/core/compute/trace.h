/*
** trace.h: every intermediate matrix of a lesson, computed once.
**
** attn_run takes a parsed Lesson and, for each setup, computes the queries,
** keys and values, then per head the raw and scaled scores, the masked
** scores, the weights and the output, then the joined heads, the output
** projection and the entropies. Views, explanations and the JSON dump all
** read the same numbers from here. A computed value that is not finite
** (other than a masked -∞) is an error, never something to draw.
**
** Two name spaces, kept apart:
** - inputs: the setup's own matrices (X, W_q, ...), borrowed from the Lesson
**   (which must outlive the trace) and looked up by their lesson name;
** - computed matrices, keyed by (kind, head). Kinds that belong to one head
**   (TK_RAW ... TK_OUTPUT, and TK_Q/TK_K/TK_V with head ≥ 1) exist for heads
**   1 … H; with one head, head 1 *is* the whole, so (TK_Q, 1) and (TK_Q, 0)
**   are the same matrix. No matrix is ever computed across heads that no
**   model computes: with H ≥ 2 there is no full-width softmax.
**
** Positions, masks made of parts, grouped-query heads, decoding and the
** online softmax add their own kinds (TK_PE … TK_OS_DIFF). With kv_heads G
** < H, (TK_K, h) and (TK_V, h) are the K/V head that query head h reads:
** heads of one group share one matrix (computed once, borrowed by the
** others). Decoding (TK_KV_*) is computed when a kv_cache stage uses the
** setup, the online softmax (TK_OS_*) once per block size its stages ask
** for; their references carry the block size (trace_block_ref), named
** "head1.online_max.b3".
**
** The rest of a transformer block (trace_block.c) adds its own kinds, all
** whole (head 0): the layer norm before attention (TK_LN_HAT, TK_LN), the
** residual stream after attention (TK_MID: X + the attention output), the
** MLP (TK_MLP_LN … TK_MLP_OUT), the stream after the setup (TK_STREAM: X +
** attention [+ MLP], what `residual: yes` continues and the unembedding
** reads) and the next token (TK_FINAL_LN, TK_LOGITS, TK_PROBS, and per k
** the union of each row's k likeliest words: TK_TOP_*, whose references
** carry k where the online softmax's carry the block size, named
** "top_probs.k5"). With heads switched off (`ablate:`) each head's
** weights and output are computed as usual, (TK_ABLATED, h) is what
** replaces its output, 0 (or every row the output's mean over the
** tokens), and the joined heads hold that in its columns: TK_CONCAT
** exists then even with one head.
**
** A setup given its weights (`attention: A`) computes none of the above:
** (TK_WEIGHTS, h) is A's block of columns for head h (borrowed with one
** head), TK_MASK is the setup's mask (a weight it blocks must be 0, else
** attn_run fails), and with values there are (TK_V, h), outputs, the
** joined heads and W_o's output; entropies always.
**
** One function names a matrix for people and for --dump (trace_name):
** with one head "Q", "raw_scores", "weights", ...; with several heads the
** per-head ones are "head2.Q", "head2.weights", ... and the whole ones keep
** plain names ("Q", "mask", "concat", "final", "entropy").
*/
#ifndef ATTNLAB_TRACE_H
#define ATTNLAB_TRACE_H

#include <stdint.h>
#include "core/lesson/lesson.h"
#include "mat.h"

typedef enum TraceKind {
    TK_INPUT,           /* a lesson matrix, named */
    TK_Q, TK_K, TK_V,   /* head 0: the whole projection; head h: its columns for head h */
    TK_MASK,            /* 1 = may attend (head 0 only) */
    TK_RAW,             /* Q_h·K_hᵀ (or additive scores) */
    TK_SCALED,          /* raw ÷ divisor ÷ temperature */
    TK_MASKED,          /* scaled with −∞ where the mask blocks */
    TK_WEIGHTS,         /* softmax of the masked (or scaled) scores */
    TK_OUTPUT,          /* weights·V_h */
    TK_CONCAT,          /* the heads' outputs side by side (H ≥ 2) */
    TK_FINAL,           /* concat (or output)·W_o */
    TK_ENTROPY,         /* one column per head */
    TK_RESIDUAL,        /* `residual: yes`: the queries' input, computed (the stream above plus its output) */
    /* masks made of parts (head 0): each part, TK_MASK is their combination */
    TK_MASK_CAUSAL, TK_MASK_WINDOW, TK_MASK_PREFIX, TK_MASK_PAD,
    TK_PE,              /* sinusoidal positional encoding (head 0) */
    TK_XPE,             /* the input plus PE: what the projections read (head 0) */
    TK_ROPE_ANGLES,     /* position·θ_i, one column per pair of a head (head 0) */
    TK_QROT, TK_KROT,   /* per head: Q_h and K_h rotated by RoPE */
    TK_ALIBI,           /* per head: −m_h·|i − j| */
    TK_BIASED,          /* per head: scaled scores + ALiBi's bias */
    TK_KV_WEIGHTS,      /* per head: row t = the weights decoding token t computes from the cache */
    TK_KV_OUTPUT,       /* per head: row t = its output */
    TK_KV_GROUPS,       /* H x G: 1 where query head h reads K/V head g (head 0) */
    TK_KV_SIZE,         /* 2 x 3: numbers a K/V cache holds, multi-head vs grouped (head 0) */
    /* per head and block size: FlashAttention's online softmax (attn_online_softmax) */
    TK_OS_MAX, TK_OS_SUM, TK_OS_RESCALE, TK_OS_ACC, TK_OS_OUT,
    TK_OS_DIFF,         /* (online output − weights·V) ÷ DBL_EPSILON, rounding made readable */
    /* the rest of a transformer block (head 0) */
    TK_LN_HAT,          /* layer_norm: the input standardised, (x − mean)/√(var + ε) */
    TK_LN,              /* x̂·γ + β: what the projections read */
    TK_MID,             /* the stream after attention: X + its output (with an MLP) */
    TK_MLP_LN,          /* mlp_norm of TK_MID: the MLP's input */
    TK_MLP_PRE,         /* input·W_in + b_in */
    TK_MLP_ACT,         /* the activation of it */
    TK_MLP_OUT,         /* act·W_out + b_out */
    TK_STREAM,          /* the stream after the setup: X + attention [+ MLP] */
    TK_FINAL_LN,        /* final_norm of the stream */
    TK_LOGITS,          /* (normed) stream·W_U + b_U: a row per token, a column per word */
    TK_PROBS,           /* softmax of each row of logits: the next token's probabilities */
    TK_TOP_LOGITS, TK_TOP_PROBS,    /* per k: the columns of the words among some row's k likeliest */
    TK_TOP_IDS,         /* per k: 1 x those words' columns (0-based) */
    TK_ABLATED,         /* per head switched off (`ablate:`): what the joined heads hold in its place, 0 or
                        ** every row its output's mean over the tokens */
    /* `norm_order: post` (head 0): the residual sums its norms read; TK_LN is then the norm of TK_ATTN_SUM and
    ** the stream after attention (TK_MID), TK_STREAM the norm of TK_MLP_SUM (no TK_MLP_LN) */
    TK_ATTN_SUM,        /* X + attention's output */
    TK_MLP_SUM,         /* the stream after attention + the MLP's output */
    TK_GRID,            /* model_view (head 0): every head's weights of lesson_grid_setups, a block each, the setups
                        ** down and the heads across */
    TK_COUNT
} TraceKind;

/* A setup whose heads hold more scores than this (heads × queries × keys)
** keeps only their weights: the raw, scaled, biased and masked scores (32
** MiB a kind at this size) are computed again, head by head, when a stage,
** a hover or a dump asks for them (GPT-2 small at 1,024 tokens would keep
** 3.6 GB of them). */
#define TRACE_KEEP_SCORES (INT64_C(1) << 22)
/* A vocabulary of this many words or more has its logits and probabilities
** computed when first asked for (a stage, a hover, a dump), not with the
** rest: a model's first slide does not wait for 50,257 words a token. */
#define TRACE_UNEMBED_LATER 4096

/* A kind as a bit, for sets of kinds (stage_table.h). */
#define TK_BIT(k) (UINT64_C(1) << (k))
_Static_assert(TK_COUNT <= 64, "a set of trace kinds is a 64-bit mask");

/* A reference to one matrix of a setup: (kind, head), or an input by name. */
typedef struct TraceRef {
    TraceKind kind;
    int head;                           /* 0: not per head; 1 … H */
    int block;                          /* TK_OS_*: the block size; TK_TOP_*: k; else 0 */
    char name[LESSON_MAX_NAME + 1];     /* TK_INPUT only */
} TraceRef;

/* One computed matrix. */
typedef struct TraceMat {
    TraceKind kind;
    int head;
    int block;
    Mat *m;
    bool owned;         /* false when m is an input used as it is (Q = X) */
} TraceMat;

/* One setup's results. */
typedef struct TraceSetup {
    const Setup *su;            /* the setup it was computed from */
    TraceMat *mats;             /* computed matrices, in the order computed */
    int n, cap;
    int heads;
    int d_k;                    /* width of one head's queries and keys */
    int d_v;                    /* width of one head's values */
    int kv_heads;               /* K/V heads G (= heads unless grouped-query) */
    double divisor;             /* what each head's scores are divided by (√d_k, custom or 1) */
    double temperature;         /* and then by this */
    bool scores_later;          /* more than TRACE_KEEP_SCORES scores: each head's raw, scaled, biased and masked
                                ** scores are dropped once its weights are made, and made again when asked for */
    bool unembed_later;         /* the logits and probabilities are computed when first asked for (tr_unembed) */
    const Mat *resid;           /* `residual: yes`: the input it replaces, computed */
    const char *resid_name;     /* the name of that input (the queries' input) */
} TraceSetup;

typedef struct Trace {
    TraceSetup *s;
    int nsetups;
    uint64_t serial;        /* no other trace has it: what is read from its matrices,
                            ** which never change while it lives, can be kept (layout) */
} Trace;

/* Compute every setup of L (which must outlive the trace). NULL on failure
** with err filled in ("FILE:LINE:COL: error: ..." at the setup concerned). */
Trace *attn_run(const Lesson *L, Error *err);
/* Release a trace. */
void trace_free(Trace *T);

/* A reference to a computed matrix. */
TraceRef trace_ref(TraceKind kind, int head);
/* A reference to an online-softmax matrix of block size b (or a TK_TOP_*
** matrix of k words a row). */
TraceRef trace_block_ref(TraceKind kind, int head, int block);
/* A reference to an input by name. */
TraceRef trace_input_ref(const char *name);
/* True when two references name the same matrix of a setup with H heads. */
bool trace_ref_eq(TraceRef a, TraceRef b, int heads);
/* The matrix a reference names in setup s, or NULL. */
const Mat *trace_at(const Trace *T, int s, TraceRef r);
/* The name of a reference for people and --dump, into out (size n). */
void trace_name(TraceRef r, int heads, char *out, size_t n);
/* Parse a name made by trace_name (or an input's name) back into a
** reference; false when it names nothing in setup s. */
bool trace_parse_name(const Trace *T, int s, const char *name, TraceRef *out);
/* The matrix called name in setup s (trace_parse_name + trace_at), or NULL. */
const Mat *trace_get(const Trace *T, int s, const char *name);
/* True if name is one of setup s's inputs. */
bool trace_is_input(const Trace *T, int s, const char *name);
/* What setup s hands on to the residual stream: its output after W_o, or
** the joined heads without one (NULL if s is out of range). */
const Mat *trace_stream_out(const Trace *T, int s);
/* True if input name of setup s is computed (the residual stream of
** `residual: yes`) rather than the lesson's own numbers. */
bool trace_input_computed(const Trace *T, int s, const char *name);
/* Whether name is what the trace calls a computed matrix ("weights",
** "logits", ...), which a lesson's input may not be called; Q, K and V
** are not (an input may be the queries themselves). */
bool trace_reserved_name(const char *name);
/* The kind's name without a head: "raw_scores", "weights", ... */
const char *trace_kind_name(TraceKind k);
/* True for kinds that exist once per head (scores, weights, RoPE'd Q, ...). */
bool trace_kind_per_head(TraceKind k);
/* The 1-based K/V head that query head h reads: ⌊(h−1)·G/H⌋ + 1. */
int trace_kv_head(const TraceSetup *ts, int h);
/* The first query head that reads the K/V head of query head h: the head
** whose K and V the others of its group borrow (head_inputs). */
int trace_kv_first(const TraceSetup *ts, int h);
/* What the scores are made from: TK_QROT/TK_KROT with RoPE, else TK_Q/TK_K. */
TraceKind trace_score_q(const Setup *su);
TraceKind trace_score_k(const Setup *su);
/* What an operand of su reads: the layer norm of X (TK_LN) when it reads
** X under `layer_norm:`, else X + PE with sinusoidal positions, else its
** input by name. */
TraceRef trace_operand_input(const Setup *su, const Operand *o);
/* The heads joined, as W_o reads them: TK_CONCAT when there is one, else
** the one head's output. */
TraceRef trace_joined(const TraceSetup *ts);
/* What the MLP reads: TK_MLP_LN under `mlp_norm:` before it, else TK_MID. What the
** unembedding reads: TK_FINAL_LN under `final_norm:`, else TK_STREAM. */
TraceKind trace_mlp_input(const Setup *su);
TraceKind trace_unembed_input(const Setup *su);
/* The columns of the k largest numbers of a row of n (ties: the first),
** into top (k of them, largest first): a next_token stage's likeliest
** words. */
void trace_row_top(const double *row, int n, int k, int *top);
/* The activation of x. */
double trace_activate(Activation a, double x);
/* What the mask is applied to (TK_BIASED with ALiBi, else TK_SCALED), and
** what softmax reads (TK_MASKED with a mask, else the former). */
TraceKind trace_mask_input(const Setup *su);
TraceKind trace_softmax_input(const Setup *su);

#endif
