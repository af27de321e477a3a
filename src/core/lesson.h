/*
** lesson.h: a lesson file parsed into plain data.
**
** A lesson has a title, a summary, one or more setups (tokens, input matrices,
** where queries, keys and values come from, attention settings) and an ordered
** list of stages, each belonging to the setup written above it. Random inputs
** are drawn at parse time, in the order the file declares them, from numpy's
** legacy generator or PyTorch's CPU generator, so the Lesson holds every
** input value. The format is
** documented in docs/lesson-format.md.
**
** Usage:
**   LessonError err;
**   Lesson *L = lesson_load("lessons/01-tour.lesson", &err);
**   if (!L) fprintf(stderr, "%s\n", err.msg);   // "FILE:LINE:COL: error: ..."
**   ...
**   lesson_free(L);
*/
#ifndef ATTNLAB_LESSON_H
#define ATTNLAB_LESSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "mat.h"

/* Documented limits, enforced before anything is allocated. */
#define LESSON_MAX_BYTES     (1 << 20)   /* a lesson file */
#define LESSON_MAX_LINE      32768       /* bytes on one line (a 1024-wide row at full precision fits) */
#define LESSON_MAX_TOKENS    256
#define LESSON_MAX_DIM       1024        /* columns of any matrix */
#define LESSON_MAX_HEADS     16
#define LESSON_MAX_SETUPS    16
#define LESSON_MAX_STAGES    64
#define LESSON_MAX_MATRICES  32          /* named matrices in one setup */
#define LESSON_MAX_CELLS     (1 << 20)   /* rows x cols of one matrix */
#define LESSON_MAX_NAME      32          /* bytes in a matrix name */
#define LESSON_MAX_TOKEN     64          /* bytes in one token */
/* Budgets for the whole lesson, so that a short file within every limit
** above still loads in about a second and a few hundred MB: */
#define LESSON_MAX_NUMBERS   (1 << 22)   /* numbers in the matrices of all setups (inherited ones count again) */
#define LESSON_MAX_WORK      (INT64_C(1) << 29) /* multiply-adds and computed numbers, all setups together */

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
    STAGE_COUNT
} StageId;

typedef enum ScoreKind { SCORE_SCALED_DOT, SCORE_DOT, SCORE_ADDITIVE } ScoreKind;
typedef enum MaskKind { MASK_NONE, MASK_CAUSAL, MASK_ALLOW, MASK_BLOCK } MaskKind;

/* A named input matrix. Stacks of per-head matrices, drawn as a numpy array
** of shape (stack, rows, cols), are kept side by side: m is rows x stack·cols
** and column block h is matrix h of the stack. */
typedef struct LessonMatrix {
    char *name;
    Mat *m;
    int stack;          /* 1, or the number of matrices in the stack */
    int line;           /* where it is defined */
    int end_line;       /* its last line (rows written out) */
    char *how;          /* the definition as written, e.g. "randn 4x4 * 0.5" */
    bool generated;     /* drawn or built rather than written out */
} LessonMatrix;

/* `queries: X @ W_q` or `queries: X`: a matrix, optionally times a weight. */
typedef struct Operand {
    char *input;        /* the matrix a row per token comes from */
    char *weight;       /* the projection, or NULL */
    int line, col;
} Operand;

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
    char *output_proj;          /* W_o, or NULL */
    char *add_w1, *add_w2, *add_v;  /* additive scoring */
    char **dims; int ndims;     /* names of the queries' input columns (`dims:`), or NULL */
    char **key_dims; int nkey_dims; /* names of the keys' input columns (`key_dims:`), cross-attention */
    int dims_line;              /* where dims were last set (for messages) */
    uint32_t seed;              /* the seed in force when the setup began */
    bool seeded;
} Setup;

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
    char **paras; int npara;    /* explanation paragraphs */
} Stage;

typedef struct Lesson {
    char *path;                 /* as given to lesson_load, or the name passed to lesson_parse */
    char *name;                 /* file name without directory and .lesson */
    char *title;
    char *summary;
    char *language;             /* `language: ja`: the interface's language, or NULL */
    Setup *setups; int nsetups;
    Stage *stages; int nstages;
} Lesson;

/* What went wrong, for the exit status (lesson_exit_code). */
typedef enum LessonErrorKind {
    LESSON_ERR_NONE,            /* no error */
    LESSON_ERR_IO,              /* the file is missing, unreadable or not a regular file */
    LESSON_ERR_INVALID,         /* the text is not a valid lesson */
    LESSON_ERR_LIMIT            /* the file or the lesson is over a documented limit */
} LessonErrorKind;

typedef struct LessonError {
    char msg[600];              /* "FILE:LINE:COL: error: ..." */
    int line, col;
    LessonErrorKind kind;
} LessonError;

/* Parse len bytes of text; filename is used in messages. NULL on error. */
Lesson *lesson_parse(const char *text, size_t len, const char *filename, LessonError *err);
/* The text of a lesson file (NUL-terminated, caller frees; *len its length),
** or NULL with err filled: I/O errors (kind LESSON_ERR_IO: missing, or not a
** regular file) have line 0, a file over LESSON_MAX_BYTES is a
** LESSON_ERR_LIMIT at 1:1. Read through fileio_read, so it never blocks. */
char *lesson_read(const char *path, size_t *len, LessonError *err);
/* Read and parse a file. NULL on error (I/O errors have line 0). */
Lesson *lesson_load(const char *path, LessonError *err);
/* Release a lesson. */
void lesson_free(Lesson *L);
/* The exit status for an error: 0 none, 1 I/O, 2 invalid input or over a
** limit. An error with a message but no kind (attn_run's) is invalid input. */
int lesson_exit_code(const LessonError *err);
/* A matrix of a setup by name, or NULL. */
LessonMatrix *lesson_matrix(const Setup *s, const char *name);
/* "softmax", "raw_scores", ... */
const char *lesson_stage_name(StageId id);
/* The id for a name; returns false if there is none. */
bool lesson_stage_from_name(const char *name, StageId *id);
/* Write the lesson back as text with every matrix written out as rows of
** numbers (17 significant digits), so edited values load back exactly. */
char *lesson_serialize(const Lesson *L);

#endif
