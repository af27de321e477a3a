/*
** lesson_int.h: what the parts of the lesson parser share, inside src/core only.
**
** The parser is split the way Lua splits its front end (llex, lparser,
** lcode), one job per file, behind this header:
**
**   lesson.c         the file as a whole: bytes, lines, sections, prose;
**                    lesson_parse, lesson_load, lesson_free
**   lesson_scan.c    numbers, expressions, identifiers and token lists, and
**                    the "FILE:LINE:COL: error: ..." every failure ends in
**   lesson_gen.c     matrices that are drawn or loaded: numpy's and
**                    PyTorch's generators, transpose, .npy and .npz files
**   lesson_matrix.c  `NAME = ...` and `NAME[ROW,COL] = VALUE`: shapes,
**                    written-out rows, overrides, and where every number
**                    sits in the text (for saving in place)
**   lesson_keys.c    `key: value` settings, one table of every key
**                    (section, parser, where it was set), masks, positions
**   lesson_check.c   what a setup and a stage need, and the budgets
**                    (numbers held, work, pages, sub-step cells)
**
** Functions shared between these files start with lp_. Each returns false
** (or NULL) after recording the one error of the parse in p->err; the
** caller returns at once. Nothing outside these files includes this header.
*/
#ifndef ATTNLAB_LESSON_INT_H
#define ATTNLAB_LESSON_INT_H

#include "lesson.h"
#include "core/compute/rng.h"
#include "core/compute/trng.h"
#include "core/util.h"

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The sections of a lesson: the head (before the first section), a setup
** or a stage. */
typedef enum Section { SEC_HEAD, SEC_SETUP, SEC_STAGE } Section;

/* Where each setting was written in the current section (its line; 0 when
** the section has not set it). A section sets each key at most once. The
** key table in lesson_keys.c names the field of each key. */
typedef struct KeyLines {
    int title, summary, language;                               /* the head */
    int seed, tokens, query_tokens, key_tokens, queries, keys, values, score, divisor, temperature,
        heads, mask, output, additive, dims, key_dims, value_dims, torch_seed, residual, positions, kv_heads,
        attention, layer_norm, mlp, mlp_norm, norm_order, unembed, final_norm, vocab, ablate;   /* [setup] */
    int cmap, decimals, head, query, scale, block, indices, top, show, a, b; /* a stage */
} KeyLines;

/* The parser's state. */
typedef struct Parser {
    const char *file;
    int max_setups;             /* LESSON_MAX_OWN_SETUPS, or LESSON_MAX_SETUPS for a lesson that reads models */
    Error *err;
    Lesson *L;
    Rng rng;
    bool seeded;
    uint32_t seed;
    Trng trng;                  /* PyTorch's generator, seeded by torch_seed: */
    bool torch_seeded;
    int linear_rows, linear_cols;   /* the last torch draw was `linear RxC` (else 0) */
    int lineno;
    const char *line;           /* current line (NUL-terminated copy) */
    Section sec;                /* what the current section is */
    bool stage_prose;           /* a stage's options are over */
    Buf para;                   /* the paragraph being collected */
    unsigned para_tie;          /* and the pages it is tied to (Stage.para_ties) */
    KeyLines set;               /* where each setting of this section was set */
    int64_t numbers;            /* numbers held by the matrices of every setup so far */
    int64_t loaded;             /* of them, those read by `load` (LessonMatrix.loaded) */
    int64_t work;               /* estimated cost of computing the setups so far */
    int64_t npy_bytes;          /* data read from NumPy files so far */
    const LessonArray *arrays;  /* arrays in memory that `load` finds first (lesson_parse_with), or NULL */
    int narrays;
    int64_t pages;              /* pages of the stages so far (LESSON_MAX_PAGES) */
    int64_t step_cells;         /* cells their sub-step pages show (LESSON_MAX_STEP_CELLS) */
    /* a matrix whose rows follow on indented lines */
    LessonMatrix *rows_target;
    int rows_stack;
    double *rows; int nrows, rows_cols, rows_cap;
    /* a text key whose value continues on indented lines */
    char **cont_target;
    /* where the current line is in the text (for saving edits in place) */
    unsigned line_off, line_end;    /* its first byte; just after its line end */
    bool line_crlf;
    LessonSpan *spans; int spans_cap;   /* the numbers of the rows being read */
    size_t cont_len, cont_cap;  /* its length and allocation: joining grows it by doubling */
} Parser;

/* Skip spaces and tabs. */
static inline const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

/* An identifier (letters, digits, _) at s; its length, 0 if none. */
static inline size_t ident_len(const char *s)
{
    size_t n = 0;
    if (!isalpha((unsigned char)s[0]) && s[0] != '_') return 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
    return n;
}

/* True when s starts with the word w as a whole identifier ("none", not "nonesuch"). */
static inline bool is_word(const char *s, const char *w)
{
    size_t n = ident_len(s);
    for (size_t i = 0; i < n; i++)
        if (s[i] != w[i]) return false;
    return n > 0 && w[n] == '\0';
}

/* ---- lesson_scan.c: scanning, and the error of the parse */

/* Record an error at a column of the current line (1-based, in characters). */
bool lp_fail_at(Parser *p, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Record an error at a given line (for checks made when a section ends). */
bool lp_fail_line(Parser *p, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The 1-based character column of pointer s within the current line. */
int lp_col(const Parser *p, const char *s);
/* Record an error pointing at s in the current line. */
#define FAIL(p, s, ...) lp_fail_at((p), lp_col((p), (s)), __VA_ARGS__)
/* What was found at s, for "found ..." in messages, into out (size n). */
void lp_found(const char *s, char *out, size_t n);
/* A finite number at *sp (advancing it). */
bool lp_number(Parser *p, const char **sp, double *out);
/* A whole number in [lo, hi] at *sp (advancing it); what names it in messages. */
bool lp_int(Parser *p, const char **sp, int64_t lo, int64_t hi, const char *what, int64_t *out);
/* An expression (+ - * /, parentheses, sqrt) at *sp, advancing it. */
bool lp_expr(Parser *p, const char **sp, double *out, int depth);
/* An expression that must end the line. */
bool lp_expr_line(Parser *p, const char *s, double *out);
/* Nothing but spaces may follow s. */
bool lp_end(Parser *p, const char *s);
/* An identifier at *sp as a new string (advancing *sp); what names it in messages. */
char *lp_ident(Parser *p, const char **sp, const char *what);
/* One token at *sp: a bare word, or "quoted" with the escapes \" \\ \xHH
** (a new string in *out, advancing *sp). */
bool lp_token(Parser *p, const char **sp, char **out);
/* A token list: tokens separated by spaces, at most max of them. */
bool lp_tokens(Parser *p, const char *s, int max, char ***out, int *n);
/* n bytes as a token that can be drawn: a byte that is not text (broken
** UTF-8, a control character, a noncharacter) written \xHH (new string). */
char *lp_token_text(const char *b, size_t n);
/* Just past the closing quote of the quoted text at s, or NULL. */
const char *lp_quoted_end(const char *s);
/* Free a token list. */
void lp_tokens_free(char **t, int n);
/* Copy a token list (NULL stays NULL). */
char **lp_tokens_copy(char *const *t, int n);

/* ---- lesson_gen.c: drawn and loaded matrices */

/* The right-hand side of `NAME = ...`: rows to follow, or a generator. */
bool lp_generator(Parser *p, LessonMatrix *lm, const char *s);
/* The path of a file a lesson names: relative to the lesson's folder (caller frees). */
char *lesson_relative(const char *lesson_file, const char *path);
/* `torch_seed: S`. */
bool lp_torch_seed(Parser *p, const char *s);
/* `load "FILE.npy"` or `load "FILE.npz" KEY` after the word load (s just
** past it): a 1-D NumPy array of strings (dtype '<U…' or '|S…'), at most
** max of them, each a token (lp_token_text), into a new list *out of *n. */
bool lp_load_strings(Parser *p, const char *s, int max, char ***out, int *n);

/* ---- lesson.c: sections */

/* The setup being read (inside a [setup], or the one above a stage). */
Setup *lp_setup(Parser *p);
/* The stage being read (inside a stage section). */
Stage *lp_stage(Parser *p);
/* Forget a setup's norms, MLP, unembedding and biases (a setup given its weights). */
void lp_clear_block(Setup *su);

/* ---- lesson_matrix.c: definitions, rows, overrides */
/* Release one matrix definition's contents (the matrix only if it is its own). */
void lp_matrix_free(LessonMatrix *m);
/* A shape RxC, or SxRxC when allow_stack, within the lesson's limits. */
bool lp_shape(Parser *p, const char **sp, int64_t *stack, int64_t *rows, int64_t *cols, bool allow_stack);
/* A matrix name at *sp that the current setup defines (a new string). */
char *lp_known_matrix(Parser *p, const char **sp);
/* `NAME = ...` in a setup. */
bool lp_matrix_def(Parser *p, const char *s);
/* `NAME[ROW,COL] = VALUE` in a setup. */
bool lp_override(Parser *p, const char *s);
/* One indented row of the matrix being written out. */
bool lp_row(Parser *p, const char *s);
/* The rows of a written-out matrix are complete: build it. */
bool lp_finish_rows(Parser *p);

/* ---- lesson_keys.c: settings */

/* A `key: value` line of the current section; v is just after the ':'. */
bool lp_key(Parser *p, const char *key, const char *key_at, const char *v);
/* Whether `name = ...` in a setup sets a token list (`tokens = load
** "tokens.npy"`) rather than defining a matrix. */
bool lp_is_token_key(const char *name, size_t n);
/* `tokens = load "FILE.npy"` (or a .npz KEY): key's list read from a
** NumPy array of strings; s is just after the '='. */
bool lp_key_load(Parser *p, const char *key, const char *key_at, const char *s);
/* The first setting this [setup] wrote that does not apply to a setup given
** its weights (attention: A), or NULL; *line is where it is. */
const char *lp_key_not_given(const Parser *p, int *line);

/* ---- lesson_check.c: what fits together, and the budgets */

/* Count n more numbers held by the lesson's matrices (LESSON_MAX_NUMBERS). */
bool lp_add_numbers(Parser *p, int line, int col, int64_t n);
/* The same for n numbers read by `load` (LessonMatrix.loaded). */
bool lp_add_loaded(Parser *p, int line, int col, int64_t n);
/* Fill in a setup's defaults and check that everything in it fits together. */
bool lp_check_setup(Parser *p, Setup *su);
/* Check that a stage can be shown with its setup, within the budgets. */
bool lp_check_stage(Parser *p, const Stage *st);

#endif
