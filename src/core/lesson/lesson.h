/*
** lesson.h: a lesson file parsed into plain data.
**
** A lesson has a title, a summary, one or more setups (tokens, input matrices,
** where queries, keys and values come from, attention settings) and an ordered
** list of stages, each belonging to the setup written above it. Random inputs
** are drawn at parse time, in the order the file declares them, from numpy's
** legacy generator or PyTorch's CPU generator, so the Lesson holds every
** input value (with the cell overrides `NAME[ROW,COL] = VALUE` applied).
** For saving edits in place, the Lesson also records where each
** definition, each written-out number and each override is in the text
** (LessonDef, LessonOverride; see lessonsave.h). The format is documented
** in docs/lesson-format.md.
**
** Usage:
**   Error err;
**   Lesson *L = lesson_load("lessons/01-tour.lesson", &err);
**   if (!L) error_print(&err, stderr);       // "FILE:LINE:COL: error: ..."
**   ...
**   lesson_free(L);
*/
#ifndef ATTNLAB_LESSON_H
#define ATTNLAB_LESSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/error.h"
#include "core/compute/mat.h"

/* Documented limits, enforced before anything is allocated. */
#define LESSON_MAX_BYTES     (1 << 20)   /* a lesson file */
#define LESSON_MAX_LINE      32768       /* bytes on one line (a 1024-wide row at full precision fits) */
#define LESSON_MAX_TOKENS    1024
#define LESSON_MAX_DIM       1024        /* columns of any matrix */
#define LESSON_MAX_HEADS     16
#define LESSON_MAX_SETUPS    48          /* a lesson that reads models (a setup a layer); arrays are this big */
#define LESSON_MAX_OWN_SETUPS 16         /* setups a lesson writes itself */
#define LESSON_MAX_STAGES    64
#define LESSON_MAX_MATRICES  32          /* named matrices in one setup */
#define LESSON_MAX_CELLS     (1 << 20)   /* rows x cols of one matrix */
#define LESSON_MAX_NAME      32          /* bytes in a matrix name */
#define LESSON_MAX_TOKEN     64          /* bytes in one token */
#define LESSON_MAX_OVERRIDES 4096        /* `NAME[ROW,COL] = VALUE` lines in a lesson */
/* What `load` reads (a NumPy file, or an array handed over in memory) may
** be as big as a real model: GPT-2 small's and BERT-base's MLP is 3072
** wide, GPT-2's unembedding 768 x 50257 (a column per word); the heads of
** given attention sit side by side in a stack. */
#define LESSON_MAX_LOAD_DIM   4096        /* rows or columns of a loaded matrix (but the unembedding's columns) */
#define LESSON_MAX_LOAD_STACK (LESSON_MAX_HEADS * LESSON_MAX_TOKENS) /* columns of a loaded stack, side by side */
#define LESSON_MAX_LOAD_CELLS (1 << 26)   /* rows x cols of a loaded matrix or stack */
#define LESSON_MAX_VOCAB     65536       /* words of `vocab:`, columns of the unembedding (GPT-2: 50257) */
#define LESSON_MAX_TOP       1024        /* `top:`: a next_token row's likeliest words */
#define LESSON_NORM_EPS      1e-5        /* layer norm's ε unless `eps` says (PyTorch's default) */
/* Budgets for the whole lesson, so that a short file within every limit
** above still loads in about a second and a few hundred MB: */
#define LESSON_MAX_NUMBERS   (1 << 22)   /* numbers in the matrices the lesson's text makes, all setups (inherited
                                        ** ones count again) */
#define LESSON_MAX_LOADED_NUMBERS (1 << 27) /* numbers in all matrices, loaded ones too (GPT-2 small: 1.24·10^8) */
#define LESSON_MAX_WORK      (INT64_C(6) << 30) /* multiply-adds and computed numbers, all setups together */
#define LESSON_MAX_LOADED_WORK (INT64_C(256) << 30) /* the same for a lesson that loads matrices (a model's
                                        ** layers: a GPT-2-small block at 1024 tokens takes 10.6·10^9, the whole
                                        ** model with its 50257 words about 1.8·10^11) */
/* ... and in what its stages unfold into: kv_cache shows a page per token,
** online_softmax one per block (and each one more), so that --dump and the
** exports of any lesson stay within seconds and their documented sizes: */
#define LESSON_MAX_PAGES     1024        /* pages of all stages (a stage without sub-steps is one) */
#define LESSON_MAX_STEP_CELLS (1 << 22)  /* cells of the panels of every sub-step page of the lesson */
#define LESSON_MAX_ONLINE_WIDTH 4096     /* online_softmax: its blocks x one head's value width (the running
                                        ** output it keeps after every block, for each query) */

/* The stage ids, in the order of docs/lesson-format.md. */
typedef enum StageId {
    STAGE_EMBEDDINGS,
    STAGE_RAW_SCORES,
    STAGE_SCALED_SCORES,
    STAGE_SOFTMAX,
    STAGE_WEIGHTED_SUM,
    STAGE_QKV_PROJECTION,
    STAGE_MULTI_HEAD,
    STAGE_CAUSAL_MASK,
    STAGE_ENTROPY,
    STAGE_CROSS_ATTENTION,
    STAGE_ADDITIVE_SCORES,
    STAGE_PER_TOKEN,
    STAGE_POSITIONAL_ENCODING,
    STAGE_ROPE,
    STAGE_ALIBI,
    STAGE_GROUPED_QUERY,
    STAGE_KV_CACHE,
    STAGE_ONLINE_SOFTMAX,
    STAGE_LAYER_NORM,
    STAGE_MLP,
    STAGE_NEXT_TOKEN,
    STAGE_COMPARE,
    STAGE_MODEL_VIEW,
    STAGE_COUNT
} StageId;

typedef enum ScoreKind { SCORE_SCALED_DOT, SCORE_DOT, SCORE_ADDITIVE } ScoreKind;
/* MASK_PARTS: built from the parts in Setup.mask_parts (causal, sliding
** window, prefix, padding), combined as (causal or prefix) and window and
** not padding. A lone `mask: causal` stays MASK_CAUSAL. */
typedef enum MaskKind { MASK_NONE, MASK_CAUSAL, MASK_ALLOW, MASK_BLOCK, MASK_PARTS } MaskKind;
enum { MASKP_CAUSAL = 1, MASKP_SLIDING = 2, MASKP_PREFIX = 4, MASKP_PADDING = 8 };
/* How positions enter: none, sinusoidal (added to X), RoPE (rotates Q and
** K), ALiBi (a distance bias on the scores). */
typedef enum PositionKind { POS_NONE, POS_SINUSOIDAL, POS_ROPE, POS_ALIBI } PositionKind;
/* The MLP's activation: max(0, x), GELU with erf (PyTorch's nn.GELU()) or
** with tanh (GPT-2's, nn.GELU(approximate='tanh')). */
typedef enum Activation { MLP_RELU, MLP_GELU, MLP_GELU_TANH } Activation;

/* A named input matrix. Stacks of per-head matrices, drawn as a numpy array
** of shape (stack, rows, cols), are kept side by side: m is rows x stack·cols
** and column block h is matrix h of the stack. A setup inherits the matrices
** of the one above it without copying them (borrowed: the same Mat) until a
** cell override in the later setup changes one, which then gets its own
** copy; a cell changed in a borrowed matrix (doc_edit_cell) changes every
** setup that has it from the same text, which is what the text says. */
typedef struct LessonMatrix {
    char *name;
    Mat *m;
    int stack;          /* 1, or the number of matrices in the stack */
    int line;           /* where it is defined */
    int end_line;       /* its last line (rows written out) */
    char *how;          /* the definition as written, e.g. "randn 4x4 * 0.5" */
    bool generated;     /* drawn or built rather than written out */
    int def;            /* index into Lesson.defs of the line that defines it (inherited copies share it) */
    bool borrowed;      /* m belongs to an earlier setup that has it from the same text (see above) */
    bool loaded;        /* read by `load` (or the transpose of such a matrix): counted against
                        ** LESSON_MAX_LOADED_NUMBERS only, not LESSON_MAX_NUMBERS */
    bool mapped;        /* a view of a model's mapped file: counted once, however many setups have it */
} LessonMatrix;

/* Bytes [off, off + len) of the text a lesson was parsed from (a BOM counted). */
typedef struct LessonSpan { unsigned off, len; } LessonSpan;

/* Where a `NAME = ...` definition sits in the text, for saving edits in place
** (src/core/lesson/lessonsave.c). */
typedef struct LessonDef {
    int setup, line;    /* the setup it is written in, its first line */
    bool generated;
    int rows, cols;     /* of the matrix (a stack side by side) */
    LessonSpan *cells;  /* written out: every number's text, row by row; NULL if generated */
    unsigned end;       /* just after the definition's last line and its line end */
    bool crlf;          /* its first line ends with CR LF */
} LessonDef;

/* `NAME[ROW,COL] = VALUE`: a cell set after the matrix was defined. */
typedef struct LessonOverride {
    int setup, line;
    int def;            /* the definition of the matrix it changes */
    int row, col;       /* 0-based */
    LessonSpan num;     /* the value's text */
    unsigned end;       /* just after the line and its line end */
    double under;       /* the cell's value before this line set it */
} LessonOverride;

/* `queries: X @ W_q + b_q`, `queries: X @ W_q` or `queries: X`: a matrix,
** optionally times a weight, plus a bias row. */
typedef struct Operand {
    char *input;        /* the matrix a row per token comes from */
    char *weight;       /* the projection, or NULL */
    char *bias;         /* a row added to every row of input @ weight, or NULL */
    int line, col;
} Operand;

/* `layer_norm: G B [eps E]` (and mlp_norm:, final_norm:): each row
** standardised, (x − mean)/√(var + ε), then times γ and plus β, as
** nn.LayerNorm computes it. gamma NULL: no norm there. */
typedef struct LayerNorm {
    char *gamma, *beta;         /* 1 x d rows */
    double eps;
    int line;                   /* where it was last set */
} LayerNorm;

/* `mlp: W_in + b_in ACT W_out + b_out`: the feed-forward part of a
** transformer block, act(x @ W_in + b_in) @ W_out + b_out. w_in NULL: none. */
typedef struct Mlp {
    char *w_in, *b_in;          /* b_in, b_out: NULL when the layer has no bias */
    char *w_out, *b_out;
    Activation act;
    int line;
} Mlp;

typedef struct Setup {
    char *title;                /* from `[setup: Title]`, or NULL */
    int line;
    bool cross;                 /* query tokens differ from key tokens */
    char **qtokens; int nq;     /* rows of queries (and of keys, unless cross) */
    char **ktokens; int nk;     /* rows of keys and values */
    LessonMatrix *mats; int nmats;
    Operand queries, keys, values;
    ScoreKind score;
    double divisor;             /* custom divisor; 0 means √d_k */
    double temperature;         /* 1 unless set */
    int heads;
    MaskKind mask;
    char *mask_matrix;          /* for MASK_ALLOW / MASK_BLOCK */
    unsigned mask_parts;        /* MASK_PARTS: MASKP_* bits */
    int window;                 /* MASKP_SLIDING: keys a query sees, itself included */
    int prefix;                 /* MASKP_PREFIX: tokens that see each other both ways */
    char *pad_token;            /* MASKP_PADDING: the token that marks padding */
    PositionKind positions;
    double rope_base;           /* POS_ROPE: θ_i = base^(−2i/d_k); 10000 unless set */
    int kv_heads;               /* K/V heads (grouped-query); 0 = as many as heads */
    int mask_line, positions_line, kv_line;   /* where mask:, positions: and kv_heads: were last set */
    char *output_proj;          /* W_o, or NULL */
    char *output_bias;          /* `output: W_o + b_o`: the row added after W_o, or NULL */
    LayerNorm norm;             /* `layer_norm:`: X normalised before the projections read it (after
                                ** attention's residual add under `norm_order: post`) */
    Mlp mlp;                    /* `mlp:`: the block's MLP, reading the stream after attention */
    LayerNorm mlp_norm;         /* `mlp_norm:`: the MLP's input normalised first (its residual sum, post) */
    bool post_norm;             /* `norm_order: post`: the norms follow the residual adds (BERT's order) */
    int post_norm_line;         /* where norm_order: was set */
    char *unembed, *unembed_bias;   /* `unembed: W_U [+ b_U]`: next_token's logits, or NULL */
    LayerNorm final_norm;       /* `final_norm:`: the stream normalised before the unembedding */
    char **vocab; int nvocab;   /* `vocab:`: the word of each column of the unembedding */
    unsigned ablated;           /* `ablate:`: bit h−1 set = head h switched off (this setup only) */
    unsigned ablate_mean;       /* those of them replaced by their mean over the tokens (else by 0) */
    int ablate_line;            /* where ablate: was set (0: not in this setup) */
    char *add_w1, *add_w2, *add_v;  /* additive scoring */
    char **dims; int ndims;     /* names of the queries' input columns (`dims:`), or NULL */
    char **key_dims; int nkey_dims; /* names of the keys' input columns (`key_dims:`), cross-attention */
    char **value_dims; int nvalue_dims; /* names of the values' columns (`value_dims:`), or NULL */
    int dims_line;              /* where dims were last set (for messages) */
    int value_dims_line;        /* where value_dims were last set */
    bool residual;              /* `residual: yes`: the queries' input is the stream above plus its output */
    int residual_line;
    char *attention;            /* `attention: A`: the weights are given (A, one block of nk columns per head), not
                                ** computed; the setup has no queries, keys or scores. NULL otherwise */
    int attention_line;         /* where attention: was last set */
    uint32_t seed;              /* the seed in force when the setup began */
    bool seeded;
} Setup;

/* What a compare stage sets side by side (`show:`): one head's weights, an
** output (one head's, or the attention's as it goes on), the next token's
** probabilities. */
typedef enum CompareShow { SHOW_WEIGHTS, SHOW_OUTPUT, SHOW_NEXT_TOKEN, SHOW_COUNT } CompareShow;

typedef struct Stage {
    StageId id;
    int setup;                  /* index into Lesson.setups */
    int line;
    char *title;                /* NULL: the default title for the id */
    char *cmap;                 /* NULL: the default colormap */
    int decimals;               /* -1: automatic */
    int head;                   /* 1-based head to show first; 0: all */
    int query;                  /* per_token: 1-based query row; 0: the first */
    bool own_scale;             /* `scale: own`: panels meant to be compared keep their own colour scales */
    bool indices;               /* `indices: yes`: token and feature labels carry their number, from 1 */
    int block;                  /* online_softmax: keys per block; 0: ⌈keys/4⌉ (lesson_stage_block) */
    int top;                    /* next_token: words per row; 0: lesson_stage_top */
    CompareShow show;           /* compare: what it shows of each setup (`show:`) */
    int cmp_a, cmp_b;           /* compare: the setups (0-based) of `a:` and `b:`; -1: the defaults
                                ** (lesson_compare_setups) */
    int cmp_line;               /* compare: the line of `a:` (else `b:`, else 0), where a mismatch points */
    char **paras; int npara;    /* explanation paragraphs */
    unsigned *para_ties;        /* for each: the pages it is tied to (LESSON_TIE_*, a head h by bit h), or 0:
                                ** every page (a paragraph that starts with "(head 1, 3)" or "(side by side)") */
} Stage;

/* A paragraph tied to the page of every head side by side (Stage.para_ties);
** head h's pages are bit h (1 … LESSON_MAX_HEADS). */
#define LESSON_TIE_SIDE_BY_SIDE 1u

typedef struct Lesson {
    char *path;                 /* as given to lesson_load, or the name passed to lesson_parse */
    char *shown;                /* path as messages print it: control characters escaped (util_shown) */
    char *name;                 /* file name without directory and .lesson */
    bool from_model;            /* made from a model folder (lesson_model.h): its edits are not saved into the text */
    struct ModelLesson *model;  /* and what its matrices are views of (the mapped file), freed with it */
    char *title;
    char *summary;
    char *language;             /* `language: ja`: the interface's language, or NULL */
    Setup *setups; int nsetups;
    Stage *stages; int nstages;
    LessonDef *defs; int ndefs;             /* every matrix definition, in file order */
    LessonOverride *ovrs; int novrs;        /* every cell override, in file order */
} Lesson;

/* How messages name a lesson read from standard input (path "-"). */
#define LESSON_STDIN_SHOWN FILEIO_STDIN_SHOWN

/* An array handed to the parser in memory (lesson_parse_with), which a
** `load` line of the lesson finds before any file: `load "FILE" KEY`
** where file is FILE and key KEY, `load "FILE.npy"` where key is NULL.
** Read while the lesson is parsed, not kept. */
typedef struct LessonArray {
    const char *file;           /* as the lesson's `load` names it: "arrays.npz", "x.npy" */
    const char *key;            /* the member's key in a .npz, or NULL */
    const char *dtype;          /* numpy's: "<f4", "<f8", "<U12", ... */
    int ndim;
    const long *shape;
    const void *data;           /* C order */
    size_t len;                 /* bytes of data */
    /* or, for "<f4" matrices that outlive the lesson (a mapped model's
    ** weights): the lesson keeps a view (mat_view_f32) instead of a copy;
    ** element (i, j) at data[i*ld + j], or data[j*ld + i] when transposed */
    bool borrow, transposed;
    long ld;
    /* borrowed because the caller lent it (attnlab_open_lending), not a
    ** model's: it loads as a copy would, with the same rules and budgets */
    bool lent;
} LessonArray;

/* Parse len bytes of text; filename is used in messages ("-", standard
** input, as LESSON_STDIN_SHOWN, its pictures as "stdin"). NULL on error,
** with err filled: ERR_INVALID, or ERR_LIMIT for a file or a line over its
** limit, at a line and column of filename. */
Lesson *lesson_parse(const char *text, size_t len, const char *filename, Error *err);
/* The same, its `load` lines finding the n arrays given before any file. */
Lesson *lesson_parse_with(const char *text, size_t len, const char *filename, const LessonArray *arrays, int n,
                          Error *err);
/* The text of a lesson file (NUL-terminated, caller frees; *len its length),
** or NULL with err filled: I/O errors (ERR_IO: missing, or not a regular
** file) have line 0, a file over LESSON_MAX_BYTES is an ERR_LIMIT at 1:1.
** Read through fileio_read, so it never blocks. */
char *lesson_read(const char *path, size_t *len, Error *err);
/* Read and parse a file. NULL on error (I/O errors have line 0). */
Lesson *lesson_load(const char *path, Error *err);
/* Release a lesson. */
void lesson_free(Lesson *L);
/* A matrix of a setup by name, or NULL. */
LessonMatrix *lesson_matrix(const Setup *s, const char *name);
/* "softmax", "raw_scores", ... */
const char *lesson_stage_name(StageId id);
/* Where a `key: value` line belongs: the top of the file, a setup, a stage. */
typedef enum LessonPlace { LESSON_TOP, LESSON_SETUP, LESSON_STAGE } LessonPlace;
/* Setting key i of the format, from 0 in the order of the key table, and
** where it belongs (*place, when not NULL); NULL past the last. Every list
** of the keys outside C (the fuzzing dictionary, the docs) is made or
** checked from this. */
const char *lesson_key_name(int i, LessonPlace *place);
/* The id for a name; returns false if there is none. */
bool lesson_stage_from_name(const char *name, StageId *id);
/* The block size online_softmax uses for stage st: its `block:`, else
** ⌈keys/4⌉ (at least 1). */
int lesson_stage_block(const Lesson *L, const Stage *st);
/* The K/V heads of a setup: kv_heads, or heads when not set. */
int lesson_kv_heads(const Setup *su);
/* The words next_token lists for each row: its `top:`, else 5 (at most
** the vocabulary). */
int lesson_stage_top(const Lesson *L, const Stage *st);
/* The setups a compare stage compares: `a:` and `b:` as written, else b
** the stage's own and a the one above b (-1 when b is the first). */
void lesson_compare_setups(const Lesson *L, const Stage *st, int *a, int *b);
/* The setups a model_view stage of setup k shows, one row of heads each:
** k and every setup above it with its tokens and its number of heads, in
** order, into out (LESSON_MAX_SETUPS of them); how many. */
int lesson_grid_setups(const Lesson *L, int k, int *out);
/* The name of what a compare stage shows ("weights"), and the show of a
** name (n bytes). */
const char *lesson_show_name(CompareShow s);
bool lesson_show_from_name(const char *name, size_t n, CompareShow *s);
/* In a checked setup: the width of an operand's result (0 when there is
** none, as in a setup given its weights), and of what its attention hands
** on (W_o's output, or the joined heads: heads x one value head's width). */
int lesson_operand_width(const Setup *su, const Operand *o);
int lesson_attention_width(const Setup *su);
/* Whether head h (1-based) of a setup is switched off (`ablate:`). */
bool lesson_head_ablated(const Setup *su, int h);
/* The name of an activation ("gelu_tanh"), and the activation of a name. */
const char *lesson_activation_name(Activation a);
bool lesson_activation_from_name(const char *name, size_t n, Activation *a);

#endif
