/*
** lesson.c: the lesson parser.
**
** A lesson is read line by line. The file is first checked as a whole (size,
** NUL bytes, UTF-8, line lengths) so the line parser only ever sees sane text.
** Sections start with `[setup]` or `[STAGE_ID]`; inside a setup, `key: value`
** lines are settings and `NAME = ...` lines define matrices (written out as
** indented rows, or generated); inside a stage, option lines come first and
** everything after is prose. Every error stops the parse with one message,
** "FILE:LINE:COL: error: what was expected, what was found".
**
** Random matrices are drawn as soon as their line is read, from one generator
** for the whole file, so the draw order is the order of the file. PyTorch's
** generators (torch_seed:, torch_rand, linear, ...) draw from a second one,
** PyTorch's own, in the same way.
*/
#include "lesson.h"
#include "colormaps.h"
#include "i18n.h"
#include "fileio.h"
#include "npy.h"
#include "rng.h"
#include "trng.h"
#include "utf8.h"
#include "util.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const stage_names[STAGE_COUNT] = {
    "embeddings", "raw_scores", "scaled_scores", "softmax", "weighted_sum",
    "qkv_projection", "multi_head", "causal_mask", "entropy",
    "cross_attention", "additive_scores", "per_token",
    "positional_encoding", "rope", "alibi", "grouped_query", "kv_cache", "online_softmax",
};

/* The parser's state. */
typedef struct Parser {
    const char *file;
    LessonError *err;
    Lesson *L;
    Rng rng;
    bool seeded;
    uint32_t seed;
    Trng trng;                  /* PyTorch's generator, seeded by torch_seed: */
    bool torch_seeded;
    int linear_rows, linear_cols;   /* the last torch draw was `linear RxC` (else 0) */
    int lineno;
    const char *line;           /* current line (NUL-terminated copy) */
    /* what the current section is */
    enum { SEC_HEAD, SEC_SETUP, SEC_STAGE } sec;
    bool stage_prose;           /* a stage's options are over */
    Buf para;                   /* the paragraph being collected */
    int key_line[32];           /* where each setting of this section was set */
    int64_t numbers;            /* numbers held by the matrices of every setup so far */
    int64_t work;               /* estimated cost of computing the setups so far */
    int64_t npy_bytes;          /* data read from NumPy files so far */
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

/* Record an error at a column of the current line (1-based, in characters). */
static bool fail_at(Parser *p, int col, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static bool fail_at(Parser *p, int col, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    p->err->line = p->lineno;
    p->err->col = col;
    p->err->kind = LESSON_ERR_INVALID;
    snprintf(p->err->msg, sizeof p->err->msg, "%s:%d:%d: error: %s", p->file, p->lineno, col, what);
    return false;
}

/* Point errors at a given line (for checks made when a section ends). */
static bool fail_line(Parser *p, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static bool fail_line(Parser *p, int line, int col, const char *fmt, ...)
{
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    p->err->line = line;
    p->err->col = col;
    p->err->kind = LESSON_ERR_INVALID;
    snprintf(p->err->msg, sizeof p->err->msg, "%s:%d:%d: error: %s", p->file, line, col, what);
    return false;
}

/* The 1-based character column of pointer s within the current line. */
static int col_of(const Parser *p, const char *s)
{
    size_t n = 0;
    while (p->line + n < s && p->line[n]) n++;
    return 1 + (int)utf8_count_n(p->line, n);
}

/* Record an error pointing at s in the current line. */
#define FAIL(p, s, ...) fail_at((p), col_of((p), (s)), __VA_ARGS__)

/* The name of a stage id. */
const char *lesson_stage_name(StageId id)
{
    return (unsigned)id < STAGE_COUNT ? stage_names[id] : "?";
}

/* Look a stage id up by name. */
bool lesson_stage_from_name(const char *name, StageId *id)
{
    for (int i = 0; i < STAGE_COUNT; i++)
        if (!strcmp(name, stage_names[i])) { *id = (StageId)i; return true; }
    return false;
}

/* Skip spaces and tabs. */
static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t') s++;
    return s;
}

/* Describe what was found at s, for "found ..." in messages. */
static void found(const char *s, char *out, size_t n)
{
    s = skip_ws(s);
    if (!*s) { snprintf(out, n, "the end of the line"); return; }
    size_t len = 0;
    while (s[len] && s[len] != ' ' && s[len] != '\t' && len < 24) len++;
    len = utf8_floor(s, strlen(s), len);            /* never cut a character in two */
    snprintf(out, n, "'%.*s'", (int)len, s);
}

/* True if s starts with the lowercase word w, ignoring case. */
static bool starts_nocase(const char *s, const char *w)
{
    for (; *w; s++, w++)
        if (tolower((unsigned char)*s) != *w) return false;
    return true;
}

/* ---------------------------------------------------------------- numbers */

/*
** A number is [sign] digits [. digits] [e [sign] digits], with U+2212 (the
** typographic minus) accepted as either sign since lessons get pasted from
** slides (−1e−3).
** nan, inf and hex floats are not numbers here; a literal that overflows a
** double is an error too.
*/
static bool scan_number(Parser *p, const char **sp, double *out)
{
    const char *s = *sp;
    char buf[64];
    size_t n = 0;
    if (*s == '+' || *s == '-') buf[n++] = *s++;
    else if (!strncmp(s, "\xe2\x88\x92", 3)) { buf[n++] = '-'; s += 3; }
    const char *digits = s;
    while (isdigit((unsigned char)*s) && n < 60) buf[n++] = *s++;
    if (*s == '.' && n < 60) {
        buf[n++] = *s++;
        while (isdigit((unsigned char)*s) && n < 60) buf[n++] = *s++;
    }
    if (s == digits || (s == digits + 1 && *digits == '.')) {
        char what[48];
        found(*sp, what, sizeof what);
        const char *w = skip_ws(*sp);
        if (starts_nocase(w, "nan") || starts_nocase(w, "inf") || starts_nocase(w, "-inf") || starts_nocase(w, "+inf"))
            return FAIL(p, *sp, "expected a finite number, found %s (NaN and infinity are not allowed)", what);
        return FAIL(p, *sp, "expected a number, found %s", what);
    }
    if ((*s == 'e' || *s == 'E') && n < 60) {
        const char *e = s;
        buf[n++] = *s++;
        if (*s == '+' || *s == '-') buf[n++] = *s++;
        else if (!strncmp(s, "\xe2\x88\x92", 3)) { buf[n++] = '-'; s += 3; }      /* −1e−3 */
        if (!isdigit((unsigned char)*s)) return FAIL(p, e, "expected digits after the exponent 'e'");
        while (isdigit((unsigned char)*s) && n < 60) buf[n++] = *s++;
    }
    if (n >= 60) return FAIL(p, *sp, "number is too long (at most 60 characters)");
    if (isalpha((unsigned char)*s) || *s == '_') {
        char what[48];
        found(*sp, what, sizeof what);
        return FAIL(p, *sp, "expected a number, found %s", what);
    }
    buf[n] = '\0';
    errno = 0;
    double v = strtod(buf, NULL);
    if (!isfinite(v) || (errno == ERANGE && fabs(v) > 1.0))
        return FAIL(p, *sp, "number %s is too large for a double (it would be infinite)", buf);
    *out = v;
    *sp = s;
    return true;
}

/* A whole non-negative integer below limit, for sizes and counts. */
static bool scan_int(Parser *p, const char **sp, int64_t lo, int64_t hi, const char *what, int64_t *out)
{
    const char *s = skip_ws(*sp);
    if (!isdigit((unsigned char)*s) && *s != '-') {
        char f[48];
        found(s, f, sizeof f);
        return FAIL(p, s, "expected %s (a whole number), found %s", what, f);
    }
    const char *start = s;
    bool neg = *s == '-';
    if (neg) s++;
    int64_t v = 0;
    while (isdigit((unsigned char)*s)) {
        if (v > INT64_C(100000000000)) return FAIL(p, start, "%s is far too large", what);
        v = v * 10 + (*s++ - '0');
    }
    if (neg) v = -v;
    if (*s == '.' || *s == 'e' || *s == 'E') return FAIL(p, start, "expected %s to be a whole number", what);
    /* "-0" is as negative as it looks where only non-negative numbers go */
    if (v < lo || v > hi || (neg && lo >= 0))
        return FAIL(p, start, "%s must be between %" PRId64 " and %" PRId64 ", found %s%" PRId64, what, lo, hi,
                    neg ? "-" : "", neg ? -v : v);
    *out = v;
    *sp = s;
    return true;
}

/* -------------------------------------------------------------- expressions */

/*
** Scalars (scales, divisors, temperatures, frequencies) may be small
** arithmetic: numbers, + - * /, parentheses and sqrt(...), so a lesson can
** say `* sqrt(2/(64+16))` exactly as the notebook computes it.
*/
static bool expr_sum(Parser *p, const char **sp, double *out, int depth);

/* A number, a parenthesised sum, sqrt(...), or a negated factor. */
static bool expr_atom(Parser *p, const char **sp, double *out, int depth)
{
    const char *s = skip_ws(*sp);
    if (depth > 32) return FAIL(p, s, "expression is nested too deeply");
    if (*s == '(') {
        s++;
        if (!expr_sum(p, &s, out, depth + 1)) return false;
        s = skip_ws(s);
        if (*s != ')') return FAIL(p, s, "expected ')' to close the parenthesis");
        *sp = s + 1;
        return true;
    }
    if (!strncmp(s, "sqrt", 4)) {
        const char *at = s;
        s = skip_ws(s + 4);
        if (*s != '(') return FAIL(p, s, "expected '(' after sqrt");
        if (!expr_atom(p, &s, out, depth + 1)) return false;
        if (*out < 0) return FAIL(p, at, "sqrt of a negative number (%g)", *out);
        *out = sqrt(*out);
        *sp = s;
        return true;
    }
    if (*s == '-' || !strncmp(s, "\xe2\x88\x92", 3)) {
        const char *next = *s == '-' ? s + 1 : s + 3;
        if (*next == '(' || !strncmp(next, "sqrt", 4)) {
            if (!expr_atom(p, &next, out, depth + 1)) return false;
            *out = -*out;
            *sp = next;
            return true;
        }
    }
    if (!scan_number(p, &s, out)) return false;
    *sp = s;
    return true;
}

/* Factors joined by * and /. */
static bool expr_product(Parser *p, const char **sp, double *out, int depth)
{
    if (!expr_atom(p, sp, out, depth)) return false;
    for (;;) {
        const char *s = skip_ws(*sp);
        if (*s != '*' && *s != '/') return true;
        const char *op_at = s;      /* errors point at the operator */
        char op = *s++;
        double rhs;
        if (!expr_atom(p, &s, &rhs, depth)) return false;
        if (op == '/' && rhs == 0) return FAIL(p, op_at, "division by zero");
        *out = op == '*' ? *out * rhs : *out / rhs;
        if (!isfinite(*out)) return FAIL(p, op_at, "the expression overflows to infinity");
        *sp = s;
    }
}

/* Terms joined by + and -. */
static bool expr_sum(Parser *p, const char **sp, double *out, int depth)
{
    if (!expr_product(p, sp, out, depth)) return false;
    for (;;) {
        const char *s = skip_ws(*sp);
        if (*s != '+' && *s != '-') return true;
        const char *op_at = s;
        char op = *s++;
        double rhs;
        if (!expr_product(p, &s, &rhs, depth)) return false;
        *out = op == '+' ? *out + rhs : *out - rhs;
        if (!isfinite(*out)) return FAIL(p, op_at, "the expression overflows to infinity");
        *sp = s;
    }
}

/* A full expression that must end the line. */
static bool expr_line(Parser *p, const char *s, double *out)
{
    if (!expr_sum(p, &s, out, 0)) return false;
    s = skip_ws(s);
    if (*s) {
        char f[48];
        found(s, f, sizeof f);
        return FAIL(p, s, "expected the end of the expression, found %s", f);
    }
    return true;
}

/* Nothing but spaces may follow. */
static bool end_of_line(Parser *p, const char *s)
{
    s = skip_ws(s);
    if (!*s) return true;
    char f[48];
    found(s, f, sizeof f);
    return FAIL(p, s, "expected the end of the line, found %s", f);
}

/* ------------------------------------------------------------------- words */

/* An identifier (letters, digits, _) at s; its length, 0 if none. */
static size_t ident_len(const char *s)
{
    size_t n = 0;
    if (!isalpha((unsigned char)s[0]) && s[0] != '_') return 0;
    while (isalnum((unsigned char)s[n]) || s[n] == '_') n++;
    return n;
}

/* Read an identifier into a new string, advancing *sp. */
static char *take_ident(Parser *p, const char **sp, const char *what)
{
    const char *s = skip_ws(*sp);
    size_t n = ident_len(s);
    if (n == 0) {
        char f[48];
        found(s, f, sizeof f);
        FAIL(p, s, "expected %s, found %s", what, f);
        return NULL;
    }
    if (n > LESSON_MAX_NAME) {
        FAIL(p, s, "name is longer than %d characters", LESSON_MAX_NAME);
        return NULL;
    }
    *sp = s + n;
    return xstrndup(s, n);
}

/* Split a token list: words separated by spaces, or "quoted words". */
static bool parse_tokens(Parser *p, const char *s, char ***out, int *n)
{
    char **toks = NULL;
    int count = 0;
    s = skip_ws(s);
    while (*s) {
        const char *start = s, *end;
        if (*s == '"') {
            start = ++s;
            while (*s && *s != '"') s++;
            if (!*s) {
                for (int i = 0; i < count; i++) free(toks[i]);
                free(toks);
                return FAIL(p, start - 1, "unterminated quoted token");
            }
            end = s++;
        } else {
            while (*s && *s != ' ' && *s != '\t') s++;
            end = s;
        }
        if (count >= LESSON_MAX_TOKENS || end - start > LESSON_MAX_TOKEN || end == start) {
            for (int i = 0; i < count; i++) free(toks[i]);
            free(toks);
            if (end == start) return FAIL(p, start, "a token cannot be empty");
            if (count >= LESSON_MAX_TOKENS) return FAIL(p, start, "too many tokens (the limit is %d)", LESSON_MAX_TOKENS);
            return FAIL(p, start, "token is longer than %d bytes", LESSON_MAX_TOKEN);
        }
        toks = xrealloc(toks, sizeof *toks * (size_t)(count + 1));
        toks[count++] = xstrndup(start, (size_t)(end - start));
        s = skip_ws(s);
    }
    if (count == 0) return FAIL(p, s, "expected at least one token, found the end of the line");
    *out = toks;
    *n = count;
    return true;
}

/* Free a token list. */
static void free_tokens(char **t, int n)
{
    for (int i = 0; i < n; i++) free(t[i]);
    free(t);
}

/* Copy a token list. */
static char **copy_tokens(char *const *t, int n)
{
    if (!t) return NULL;
    char **c = xmalloc(sizeof *c * (size_t)n);
    for (int i = 0; i < n; i++) c[i] = xstrdup(t[i]);
    return c;
}

/* ---------------------------------------------------------------- matrices */

/* The current setup. */
static Setup *cur_setup(Parser *p)
{
    return &p->L->setups[p->L->nsetups - 1];
}

/* Find a matrix of a setup. */
LessonMatrix *lesson_matrix(const Setup *s, const char *name)
{
    for (int i = 0; i < s->nmats; i++)
        if (!strcmp(s->mats[i].name, name)) return &s->mats[i];
    return NULL;
}

/* Release one matrix definition's contents (the matrix only if it is its own). */
static void free_matrix(LessonMatrix *m)
{
    free(m->name);
    free(m->how);
    if (!m->borrowed) mat_free(m->m);
}

/* Give a setup its own copy of a matrix it shares with an earlier setup,
** before changing it. */
static void own_matrix(LessonMatrix *m)
{
    if (!m->borrowed) return;
    m->m = mat_copy(m->m);
    m->borrowed = false;
}

/* A shape RxC or SxRxC ("3x4", "4x64x16"). */
static bool parse_shape(Parser *p, const char **sp, int64_t *stack, int64_t *rows, int64_t *cols, bool allow_stack)
{
    int64_t dims[3];
    int nd = 0;
    const char *s = skip_ws(*sp), *start = s;
    for (;;) {
        /* A size below 1 gets its own message: scan_int's range would have
        ** named 1048576, which is not the limit of one side. */
        const char *at = skip_ws(s);
        if (!scan_int(p, &s, -1000000000, 1000000000, nd == 0 ? "a size like 3x4" : "a size", &dims[nd])) return false;
        if (dims[nd] < 1) return FAIL(p, at, "a size must be at least 1, found %" PRId64, dims[nd]);
        nd++;
        if ((*s == 'x' || *s == 'X') && nd < 3) { s++; continue; }
        break;
    }
    if (nd == 1) return FAIL(p, start, "expected a size like 3x4 (rows x columns), found '%" PRId64 "'", dims[0]);
    if (nd == 3 && !allow_stack) return FAIL(p, start, "a stack of matrices (HxRxC) is not possible here");
    *stack = nd == 3 ? dims[0] : 1;
    *rows = dims[nd - 2];
    *cols = dims[nd - 1];
    if (*stack > LESSON_MAX_HEADS) return FAIL(p, start, "a stack of %" PRId64 " matrices is over the limit of %d heads", *stack, LESSON_MAX_HEADS);
    if (*rows > LESSON_MAX_DIM || *cols * *stack > LESSON_MAX_DIM)
        return FAIL(p, start, "size %" PRId64 "x%" PRId64 " is over the limit of %d rows or columns", *rows, *cols * *stack, LESSON_MAX_DIM);
    if (*rows * *cols * *stack > LESSON_MAX_CELLS) return FAIL(p, start, "matrix has more than %d cells", LESSON_MAX_CELLS);
    *sp = s;
    return true;
}

/* An optional "* EXPR" scale after a generator; 1 when absent. */
static bool parse_scale(Parser *p, const char *s, double *scale)
{
    s = skip_ws(s);
    *scale = 1.0;
    if (!*s) return true;
    if (*s != '*') {
        char f[48];
        found(s, f, sizeof f);
        return FAIL(p, s, "expected '* SCALE' or the end of the line, found %s", f);
    }
    return expr_line(p, s + 1, scale);
}

/* Random generators need a seed first, for reproducibility. */
static bool need_seed(Parser *p, const char *at, const char *gen)
{
    if (p->seeded) return true;
    return FAIL(p, at, "%s needs a seed: add 'seed: N' to the setup before this line", gen);
}

/*
** Count n more numbers held by the lesson's matrices, before they are
** allocated. Every setup holds its own copy of what it inherits, and so
** does the trace, so the total, not one matrix, is what costs memory.
*/
static bool add_numbers(Parser *p, int line, int col, int64_t n)
{
    p->numbers += n;
    if (p->numbers <= LESSON_MAX_NUMBERS) return true;
    return fail_line(p, line, col, "the matrices of this lesson would hold more than %d numbers in all "
                     "(each setup counts the matrices it inherits); use smaller matrices or fewer setups",
                     LESSON_MAX_NUMBERS);
}

/* Fill a new stack x rows x cols matrix with randn (stack-major, numpy order). */
static Mat *gen_random(Parser *p, const char *kind, int64_t stack, int64_t rows, int64_t cols,
                       double scale, int64_t lo, int64_t hi)
{
    Mat *m = mat_create((int)rows, (int)(cols * stack));
    Mat *part = stack > 1 ? mat_create((int)rows, (int)cols) : m;     /* one block: drawn in place */
    for (int64_t h = 0; h < stack; h++) {
        if (!strcmp(kind, "randn")) rng_fill_randn(&p->rng, part, scale);
        else if (!strcmp(kind, "rand")) rng_fill_rand(&p->rng, part, scale);
        else rng_fill_randint(&p->rng, part, lo, hi);
        for (int i = 0; part != m && i < rows; i++)
            memcpy(mat_row(m, i) + h * cols, mat_row(part, i), sizeof(double) * (size_t)cols);
    }
    if (part != m) mat_free(part);
    return m;
}

/* `torch_seed: S`: torch.manual_seed(S) for any S from 0 to 2^64-1. */
static bool parse_torch_seed(Parser *p, const char *s)
{
    const char *start = s;
    if (*s == '-') s++;
    if (!isdigit((unsigned char)*s)) {
        char f[48];
        found(start, f, sizeof f);
        return FAIL(p, start, "expected the torch seed (a whole number), found %s", f);
    }
    uint64_t v = 0;
    bool over = *start == '-';
    for (; isdigit((unsigned char)*s); s++) {
        unsigned d = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - d) / 10) over = true;
        else v = v * 10 + d;
    }
    if (*s == '.' || *s == 'e' || *s == 'E') return FAIL(p, start, "expected the torch seed to be a whole number");
    if (over)
        return FAIL(p, start, "the torch seed must be between 0 and 18446744073709551615, found %.*s",
                    (int)(s - start > 40 ? 40 : s - start), start);
    if (!end_of_line(p, s)) return false;
    trng_seed(&p->trng, v);
    p->torch_seeded = true;
    p->linear_rows = p->linear_cols = 0;
    return true;
}

/*
** PyTorch's generators, drawn from p->trng in file order:
**   torch_rand [S x]R x C [* K]    torch.rand(S, R, C) * K (a float32 product, as torch)
**   torch_randn [S x]R x C [* K]   torch.randn(S, R, C) * K
**   xavier_uniform OUTxIN [gain G] nn.init.xavier_uniform_ on an OUT x IN weight
**   linear OUTxIN                  nn.Linear(IN, OUT).weight, laid out OUT x IN
**   linear_bias OUT                its bias (1 x OUT), right after that weight
** A stack is one tensor of S·R·C values (which decides randn's path), laid
** out like numpy's stacks: matrix h of the stack is column block h.
*/
static bool parse_torch_generator(Parser *p, LessonMatrix *lm, const char *word, const char *gen_at, const char *s)
{
    int col = col_of(p, gen_at);
    bool is_bias = !strcmp(word, "linear_bias"), is_linear = !strcmp(word, "linear");
    bool is_xavier = !strcmp(word, "xavier_uniform");
    bool is_rand = !strcmp(word, "torch_rand"), is_randn = !strcmp(word, "torch_randn");
    if (!is_bias && !is_linear && !is_xavier && !is_rand && !is_randn) {
        char f[48];
        found(gen_at, f, sizeof f);
        return FAIL(p, gen_at, "expected a PyTorch generator (torch_rand, torch_randn, xavier_uniform, "
                    "linear, linear_bias), found %s", f);
    }
    if (!p->torch_seeded)
        return FAIL(p, gen_at, "%s needs a torch seed: add 'torch_seed: N' to the setup before this line", word);
    int64_t stack = 1, rows = 1, cols, n;
    if (is_bias) {
        const char *num = skip_ws(s);
        if (!scan_int(p, &s, 1, LESSON_MAX_DIM, "the size of the bias", &cols) || !end_of_line(p, s)) return false;
        if (p->linear_rows == 0)
            return FAIL(p, gen_at, "linear_bias must come right after the linear weight it belongs to "
                        "(nn.Linear draws its bias just after its weight)");
        if (cols != p->linear_rows)
            return FAIL(p, num, "linear_bias %" PRId64 " does not match the linear weight above, which has %d outputs (rows)",
                        cols, p->linear_rows);
    } else {
        if (!parse_shape(p, &s, &stack, &rows, &cols, is_rand || is_randn)) return false;
    }
    double scale = 1.0, gain = 1.0;
    if (is_rand || is_randn) {
        if (!parse_scale(p, s, &scale)) return false;
    } else if (is_xavier && *skip_ws(s)) {
        s = skip_ws(s);
        if (strncmp(s, "gain", 4) || ident_len(s) != 4) {
            char f[48];
            found(s, f, sizeof f);
            return FAIL(p, s, "expected 'gain G' or the end of the line after the size, found %s", f);
        }
        const char *g = skip_ws(s + 4);
        if (!expr_line(p, s + 4, &gain)) return false;
        if (!(gain > 0)) return FAIL(p, g, "the gain must be greater than 0, found %g", gain);
    } else if (!is_bias && !end_of_line(p, s)) {
        return false;
    }
    n = stack * rows * cols;
    if (!add_numbers(p, p->lineno, col, n)) return false;
    Mat *m = mat_create((int)rows, (int)(cols * stack));
    if (is_rand || is_randn) {
        double *v = xmalloc(sizeof *v * (size_t)n);
        if (is_rand) trng_rand(&p->trng, v, n);
        else trng_randn(&p->trng, v, n);
        float f = (float)scale;
        for (int64_t h = 0; h < stack; h++)
            for (int64_t i = 0; i < rows; i++)
                for (int64_t j = 0; j < cols; j++) {
                    double x = v[(h * rows + i) * cols + j];
                    mat_set(m, (int)i, (int)(h * cols + j), scale == 1.0 ? x : (double)((float)x * f));
                }
        free(v);
    } else if (is_xavier) {
        trng_xavier_uniform(&p->trng, m, gain);
    } else if (is_linear) {
        trng_linear(&p->trng, m);
    } else {
        trng_linear_bias(&p->trng, m->data, cols, p->linear_cols);
    }
    p->linear_rows = is_linear ? (int)rows : 0;
    p->linear_cols = is_linear ? (int)cols : 0;
    lm->m = m;
    lm->stack = (int)stack;
    return true;
}

static char *known_matrix(Parser *p, const char **sp);

/* `transpose NAME`: a matrix above in this setup, rows and columns swapped
** (nn.Linear's OUT x IN weight becomes the IN x OUT matrix of X @ W). */
static bool parse_transpose(Parser *p, LessonMatrix *lm, const char *s)
{
    const char *at = skip_ws(s);
    char *name = known_matrix(p, &s);
    if (!name) return false;
    const LessonMatrix *src = lesson_matrix(cur_setup(p), name);
    bool ok = false;
    if (src == lm || !src->m) FAIL(p, at, "%s cannot be the transpose of itself; give the transpose a new name", name);
    else if (src->stack > 1) FAIL(p, at, "%s is a stack of %d matrices; transpose takes one matrix", name, src->stack);
    else if (end_of_line(p, s) && add_numbers(p, p->lineno, col_of(p, at), (int64_t)src->m->rows * src->m->cols)) ok = true;
    free(name);
    if (!ok) return false;
    lm->m = mat_transpose(src->m);
    return true;
}

/* ------------------------------------------------------------ NumPy files */

/* One array may hold as many numbers as a whole lesson (docs/lesson-format.md). */
_Static_assert(NPY_MAX_COUNT == LESSON_MAX_NUMBERS, "npy.h and lesson.h disagree on the numbers budget");

/* The path of a file a lesson names: relative to the lesson's directory. */
static char *lesson_relative(const char *lesson_file, const char *path)
{
    const char *slash = strrchr(lesson_file, '/');
    if (path[0] == '/' || !slash) return xstrdup(path);
    Buf b = { 0 };
    buf_printf(&b, "%.*s/%s", (int)(slash - lesson_file), lesson_file, path);
    return buf_take(&b);
}

/* `layer N` or `head N` at *sp, if there: its 0-based index into the leading
** axis of the array (of size dim, described as what). 0 when absent, -1 on error. */
static int parse_selector(Parser *p, const char **sp, const char *word, int64_t dim, const char *file, int64_t *index)
{
    const char *s = skip_ws(*sp);
    size_t n = strlen(word);
    if (strncmp(s, word, n) || ident_len(s) != n) return 0;
    const char *num = skip_ws(s + n);
    if (dim < 1) {
        FAIL(p, s, "%s: '%s' picks an index of the first axis left, but there is none (or it is empty)", file, word);
        return -1;
    }
    if (!scan_int(p, &num, 1, dim, word, index)) return -1;
    (*index)--;
    *sp = num;
    return 1;
}

/* The quoted file name after `load` and, for a .npz, the KEY after it, of
** any length (np.savez's member KEY.npy): into file and a new *key ("" for
** a .npy), advancing *sp. */
static bool parse_load_source(Parser *p, const char **sp, char *file, size_t fn, char **key)
{
    *key = NULL;
    const char *s = skip_ws(*sp);
    if (*s != '"') return FAIL(p, s, "expected the file in double quotes after load, e.g. load \"weights.npz\" W_q");
    const char *end = strchr(s + 1, '"');
    if (!end) return FAIL(p, s, "the file name has no closing '\"'");
    size_t fl = (size_t)(end - s - 1);
    if (fl == 0 || fl >= fn) return FAIL(p, s, "expected a file name of 1 to %zu bytes", fn - 1);
    memcpy(file, s + 1, fl);
    file[fl] = '\0';
    bool npz = fl > 4 && !strcmp(file + fl - 4, ".npz");
    if (!npz && !(fl > 4 && !strcmp(file + fl - 4, ".npy")))
        return FAIL(p, s, "expected a .npy or .npz file, found \"%s\"", file);
    s = skip_ws(end + 1);
    size_t kn = 0;
    if (npz) {
        while (isalnum((unsigned char)s[kn]) || s[kn] == '_' || s[kn] == '.' || s[kn] == '-') kn++;
        if (kn == 0) {
            char f[48];
            found(s, f, sizeof f);
            return FAIL(p, s, "expected the name of an array in %s after the file (as given to np.savez), found %s", file, f);
        }
    }
    *key = xstrndup(s, kn);
    *sp = s + kn;
    return true;
}

/* The shape left after skip selectors, as (stack, rows, cols), within the
** lesson's limits; q is where errors point. */
static bool load_dims(Parser *p, const char *q, const NpyHeader *h, int skip, const char *file, const char *key, int64_t dims[3])
{
    int left = h->ndim - skip;
    dims[0] = dims[1] = dims[2] = 1;
    if (left < 1 || left > 3)
        return FAIL(p, q, "%s%s%s is %d-D; expected 1 to 3 dimensions after the selectors%s", file, *key ? " " : "", key,
                    h->ndim, left > 3 ? " (pick one with 'layer N', then 'head N')" : "");
    for (int a = 0; a < left; a++) dims[3 - left + a] = h->shape[skip + a];
    if (h->count == 0) return FAIL(p, q, "%s%s%s is empty (a dimension of size 0)", file, *key ? " " : "", key);
    if (dims[0] > LESSON_MAX_HEADS)
        return FAIL(p, q, "%s: a stack of %" PRId64 " matrices is over the limit of %d heads", file, dims[0], LESSON_MAX_HEADS);
    if (dims[1] > LESSON_MAX_DIM || dims[2] * dims[0] > LESSON_MAX_DIM)
        return FAIL(p, q, "%s: size %" PRId64 "x%" PRId64 " is over the limit of %d rows or columns", file, dims[1], dims[2] * dims[0], LESSON_MAX_DIM);
    p->npy_bytes += (int64_t)h->data_len;
    if (p->npy_bytes > NPY_MAX_FILE)
        return FAIL(p, q, "%s: the NumPy data this lesson loads would be over %" PRId64 " bytes in all", file, NPY_MAX_FILE);
    return add_numbers(p, p->lineno, col_of(p, q), dims[0] * dims[1] * dims[2]);
}

/*
** `load "FILE.npy"` or `load "FILE.npz" KEY`, then optional selectors
** `layer L` and `head H`, each picking one index (1-based) of the leading
** axis. What is left must be 1-D (one row), 2-D (a matrix) or 3-D (a stack,
** as `randn HxRxC` makes). Every shape and budget check is made on the
** header, before the data is read.
*/
static bool gen_load(Parser *p, LessonMatrix *lm, const char *s)
{
    const char *q = skip_ws(s);
    char file[1024], *key, why[400];
    if (!parse_load_source(p, &s, file, sizeof file, &key)) return false;
    char *path = lesson_relative(p->L->path, file);
    NpyFile *f = npy_open(path, *key ? key : NULL, why, sizeof why);
    free(path);
    if (!f) {
        free(key);
        return FAIL(p, q, "%s: %s", file, why);
    }
    const NpyHeader *h = npy_header(f);
    int64_t layer = -1, head = -1, dims[3];
    int skip = 0, r;
    bool ok = (r = parse_selector(p, &s, "layer", h->ndim > 0 ? h->shape[0] : 0, file, &layer)) >= 0;
    skip += ok ? r : 0;
    ok = ok && (r = parse_selector(p, &s, "head", h->ndim > skip ? h->shape[skip] : 0, file, &head)) >= 0;
    skip += ok ? r : 0;
    ok = ok && end_of_line(p, s) && load_dims(p, q, h, skip, file, key, dims);
    double *all = ok ? xmalloc(sizeof *all * (size_t)h->count) : NULL;
    if (ok && npy_read(f, all, why, sizeof why) < 0) ok = FAIL(p, q, "%s: %s", file, why);
    if (ok) {
        /* the selected block is contiguous in C order; a stack goes side by side */
        int64_t cells = dims[0] * dims[1] * dims[2];
        int64_t at = (layer >= 0 ? layer : 0) * (skip == 2 ? h->shape[1] : 1) + (head >= 0 ? head : 0);
        lm->m = mat_create((int)dims[1], (int)(dims[2] * dims[0]));
        for (int64_t k = 0; k < dims[0]; k++)
            for (int64_t i = 0; i < dims[1]; i++)
                memcpy(mat_row(lm->m, (int)i) + k * dims[2], all + at * cells + (k * dims[1] + i) * dims[2],
                       sizeof(double) * (size_t)dims[2]);
        lm->stack = (int)dims[0];
    }
    free(all);
    free(key);
    npy_close(f);
    return ok;
}

/*
** The right-hand side of `NAME = ...`. Either empty (rows follow), `stack N`
** (rows follow, side by side), or a generator.
*/
static bool parse_generator(Parser *p, LessonMatrix *lm, const char *s)
{
    s = skip_ws(s);
    const char *at = s;
    size_t n = ident_len(s);
    char word[16] = "";
    if (n > 0 && n < sizeof word) memcpy(word, s, n), word[n] = '\0';
    int64_t stack = 1, rows = 0, cols = 0;
    if (!*s || !strcmp(word, "stack")) {
        int64_t st = 1;
        if (*s) {
            s += n;
            if (!scan_int(p, &s, 1, LESSON_MAX_HEADS, "the number of matrices in the stack", &st)) return false;
            if (!end_of_line(p, s)) return false;
        }
        p->rows_target = lm;
        p->rows_stack = (int)st;
        p->nrows = 0;
        p->rows_cols = 0;
        lm->generated = false;
        lm->stack = (int)st;
        return true;
    }
    s += n;
    lm->generated = true;
    int col = col_of(p, at);
    double scale = 1.0;         /* `* S` after any generator but sinusoid (whose freq would swallow it) */
    if (!strcmp(word, "zeros") || !strcmp(word, "ones")) {
        if (!parse_shape(p, &s, &stack, &rows, &cols, true) || !parse_scale(p, s, &scale)) return false;
        if (!add_numbers(p, p->lineno, col, rows * cols * stack)) return false;
        lm->m = mat_create((int)rows, (int)(cols * stack));
        if (word[0] == 'o')
            for (int64_t i = 0; i < rows * cols * stack; i++) lm->m->data[i] = 1.0;
    } else if (!strcmp(word, "identity")) {
        int64_t k;
        if (!scan_int(p, &s, 1, LESSON_MAX_DIM, "the size of the identity", &k) || !parse_scale(p, s, &scale)) return false;
        if (!add_numbers(p, p->lineno, col, k * k)) return false;
        lm->m = mat_create((int)k, (int)k);
        for (int i = 0; i < k; i++) mat_set(lm->m, i, i, 1.0);
    } else if (!strcmp(word, "onehot")) {
        const char *sh = skip_ws(s);
        if (!parse_shape(p, &s, &stack, &rows, &cols, false) || !parse_scale(p, s, &scale)) return false;
        if (rows > cols) return FAIL(p, sh, "onehot %" PRId64 "x%" PRId64 " needs at least as many columns as rows", rows, cols);
        if (!add_numbers(p, p->lineno, col, rows * cols)) return false;
        lm->m = mat_create((int)rows, (int)cols);
        for (int i = 0; i < rows; i++) mat_set(lm->m, i, i, 1.0);
    } else if (!strcmp(word, "randn") || !strcmp(word, "rand")) {
        if (!need_seed(p, at, word)) return false;
        if (!parse_shape(p, &s, &stack, &rows, &cols, true) || !parse_scale(p, s, &scale)) return false;
        if (!add_numbers(p, p->lineno, col, rows * cols * stack)) return false;
        lm->m = gen_random(p, word, stack, rows, cols, scale, 0, 0);
        scale = 1.0;            /* applied while drawing, as numpy's randn(...) * S */
    } else if (!strcmp(word, "randint")) {
        int64_t lo = 0, hi;
        if (!need_seed(p, at, word)) return false;
        const char *first = skip_ws(s);
        if (!scan_int(p, &s, -1000000000, 1000000000, "the upper bound of randint", &hi)) return false;
        if (*s == 'x' || *s == 'X')
            return FAIL(p, first, "randint needs its upper bound before the size: randint HIGH RxC (or LOW HIGH RxC)");
        /* a second number before the size makes the first one the lower bound */
        const char *q = skip_ws(s);
        while (isdigit((unsigned char)*q) || *q == '-') q++;
        if (*q != 'x' && *q != 'X') {
            lo = hi;
            if (!scan_int(p, &s, -1000000000, 1000000000, "the upper bound of randint", &hi)) return false;
        }
        if (hi <= lo) return FAIL(p, first, "randint needs low < high, found %" PRId64 " and %" PRId64, lo, hi);
        if (!parse_shape(p, &s, &stack, &rows, &cols, true) || !parse_scale(p, s, &scale)) return false;
        if (!add_numbers(p, p->lineno, col, rows * cols * stack)) return false;
        lm->m = gen_random(p, word, stack, rows, cols, 1.0, lo, hi);
    } else if (!strcmp(word, "load")) {
        if (!gen_load(p, lm, s)) return false;
        return true;
    } else if (!strcmp(word, "sinusoid")) {
        /* X[i][k] = sin(k·(i+1)·freq) + noise·randn, row by row (seed 001) */
        double freq = 0, noise = 0;
        if (!parse_shape(p, &s, &stack, &rows, &cols, false)) return false;
        s = skip_ws(s);
        if (strncmp(s, "freq", 4)) {
            char f[48];
            found(s, f, sizeof f);
            return FAIL(p, s, "expected 'freq F' after the size of a sinusoid, found %s", f);
        }
        s += 4;
        const char *fs = s;
        if (!expr_sum(p, &fs, &freq, 0)) return false;
        fs = skip_ws(fs);
        bool noisy = !strncmp(fs, "noise", 5);
        if (noisy) {
            if (!need_seed(p, fs, "sinusoid noise")) return false;
            if (!expr_line(p, fs + 5, &noise)) return false;
        } else if (!end_of_line(p, fs)) {
            return false;
        }
        if (!add_numbers(p, p->lineno, col, rows * cols)) return false;
        lm->m = mat_create((int)rows, (int)cols);
        for (int i = 0; i < rows; i++)
            for (int k = 0; k < cols; k++) {
                double angle = (double)((int64_t)k * (i + 1)) * freq;
                if (!isfinite(angle))
                    return FAIL(p, at, "sinusoid freq %g makes the angle k*(i+1)*freq too large for a double; use a smaller freq", freq);
                double v = sin(angle);
                if (noisy) v += rng_randn(&p->rng) * noise;
                mat_set(lm->m, i, k, v);
            }
    } else if (!strncmp(word, "torch_", 6) || !strcmp(word, "xavier_uniform") || !strncmp(word, "linear", 6)) {
        if (!parse_torch_generator(p, lm, word, at, s)) return false;
        stack = lm->stack;
    } else if (!strcmp(word, "transpose")) {
        if (!parse_transpose(p, lm, s)) return false;
    } else {
        char f[48];
        found(at, f, sizeof f);
        return FAIL(p, at, "expected rows of numbers on the next lines or a generator "
                    "(zeros, ones, identity, onehot, randn, rand, randint, sinusoid, stack, load, torch_rand, "
                    "torch_randn, xavier_uniform, linear, linear_bias, transpose), found %s", f);
    }
    if (scale != 1.0 && lm->m)
        for (int64_t i = 0; i < (int64_t)lm->m->rows * lm->m->cols; i++) lm->m->data[i] *= scale;
    /* A scale like 1e308 turns some draws infinite: such a matrix could
    ** neither be shown nor saved (a written-out inf does not load). */
    if (!mat_all_finite(lm->m))
        return FAIL(p, at, "%s gives numbers too large for a double (infinite); use a smaller %s",
                    word, strcmp(word, "sinusoid") ? "scale" : "noise");
    lm->stack = (int)stack;
    return true;
}

/* Remember where the number at [from, to) of the current line is: cell k of
** the matrix being written out. */
static void add_span(Parser *p, int k, const char *from, const char *to)
{
    if (k >= p->spans_cap) {
        p->spans_cap = k < 32 ? 64 : k * 2;
        p->spans = xrealloc(p->spans, sizeof *p->spans * (size_t)p->spans_cap);
    }
    p->spans[k].off = p->line_off + (unsigned)(from - p->line);
    p->spans[k].len = (unsigned)(to - from);
}

/* One indented row of numbers for the matrix being written out. */
static bool parse_row(Parser *p, const char *s)
{
    int count = 0;
    s = skip_ws(s);
    /* Checked first: a 1025th row used to be reported as "more than 1048576
    ** cells" even when the matrix had a single column. */
    if (p->nrows >= LESSON_MAX_DIM) return FAIL(p, s, "%s has more than %d rows", p->rows_target->name, LESSON_MAX_DIM);
    while (*s) {
        double v;
        if (count >= LESSON_MAX_DIM) return FAIL(p, s, "row has more than %d numbers", LESSON_MAX_DIM);
        const char *num_at = s;
        if (!scan_number(p, &s, &v)) return false;
        add_span(p, (p->nrows * p->rows_cols) + count, num_at, s);
        if (*s && *s != ' ' && *s != '\t' && *s != ',') {
            char f[48];
            found(s, f, sizeof f);
            return FAIL(p, s, "expected a space between numbers, found %s", f);
        }
        s = skip_ws(s);                     /* "1 , 2" as well as "1, 2" */
        if (*s == ',') s++;
        if ((p->nrows * p->rows_cols) + count >= p->rows_cap) {
            p->rows_cap = p->rows_cap ? p->rows_cap * 2 : 64;
            p->rows = xrealloc(p->rows, sizeof *p->rows * (size_t)p->rows_cap);
        }
        p->rows[(p->nrows * p->rows_cols) + count] = v;
        count++;
        s = skip_ws(s);
    }
    if (p->nrows == 0) {
        p->rows_cols = count;
    } else if (count != p->rows_cols) {
        return fail_at(p, 1 + (int)(skip_ws(p->line) - p->line),
                       "row %d of %s has %d numbers, but row 1 has %d",
                       p->nrows + 1, p->rows_target->name, count, p->rows_cols);
    }
    p->nrows++;
    p->rows_target->end_line = p->lineno;
    p->L->defs[p->rows_target->def].end = p->line_end;
    return true;
}

/* The rows of a written-out matrix are complete: build it. */
static bool finish_rows(Parser *p)
{
    LessonMatrix *lm = p->rows_target;
    if (!lm) return true;
    p->rows_target = NULL;
    if (p->nrows == 0)
        return fail_line(p, lm->line, 1, "%s has no rows: write them on the following lines, indented", lm->name);
    if (p->rows_cols % p->rows_stack != 0)
        return fail_line(p, lm->line, 1, "%s is a stack of %d but its rows have %d numbers, not a multiple of %d",
                         lm->name, p->rows_stack, p->rows_cols, p->rows_stack);
    if (!add_numbers(p, lm->line, 1, (int64_t)p->nrows * p->rows_cols)) return false;
    lm->m = mat_from(p->nrows, p->rows_cols, p->rows);
    LessonDef *d = &p->L->defs[lm->def];
    d->rows = p->nrows;
    d->cols = p->rows_cols;
    d->cells = xmalloc(sizeof *d->cells * (size_t)p->nrows * (size_t)p->rows_cols);
    memcpy(d->cells, p->spans, sizeof *d->cells * (size_t)p->nrows * (size_t)p->rows_cols);
    return true;
}

static int key_index(const char *const *keys, const char *k);

/* A new definition record for the current line; its index. */
static int add_def(Parser *p)
{
    Lesson *L = p->L;
    L->defs = xrealloc(L->defs, sizeof *L->defs * (size_t)(L->ndefs + 1));
    LessonDef *d = &L->defs[L->ndefs];
    memset(d, 0, sizeof *d);
    d->setup = L->nsetups - 1;
    d->line = p->lineno;
    d->end = p->line_end;
    d->crlf = p->line_crlf;
    return L->ndefs++;
}

/* `NAME = ...` in a setup. */
static bool parse_matrix_def(Parser *p, const char *s)
{
    Setup *su = cur_setup(p);
    const char *name_at = skip_ws(s);
    char *name = take_ident(p, &s, "a matrix name");
    if (!name) return false;
    s = skip_ws(s);
    if (*s != '=') { free(name); return FAIL(p, s, "expected '=' after the matrix name"); }
    /* The trace keeps an input and a computed matrix of the same name as one
    ** entry, so an input called "weights" would be shown (and labelled with
    ** tokens) in place of the real weights. */
    static const char *const computed[] = { "raw_scores", "scaled_scores", "mask", "masked_scores",
                                            "weights", "output", "concat", "final", "entropy",
                                            "mask_causal", "mask_window", "mask_prefix", "mask_padding", "pe",
                                            "x_plus_pe", "rope_angles", "Q_rot", "K_rot", "alibi", "biased_scores",
                                            "kv_weights", "kv_output", "kv_groups", "kv_cache_size", "online_max",
                                            "online_sum", "online_rescale", "online_acc", "online_output",
                                            "online_diff", NULL };
    if (key_index(computed, name) >= 0) {
        FAIL(p, name_at, "%s is the name of a matrix the lesson computes; call this one something else", name);
        free(name);
        return false;
    }
    LessonMatrix *old = lesson_matrix(su, name);
    if (old && old->line >= su->line) {
        int first = old->line;
        free(name);
        return FAIL(p, name_at, "%s is defined twice in this setup (first on line %d)", old->name, first);
    }
    if (!old && su->nmats >= LESSON_MAX_MATRICES) {
        free(name);
        return FAIL(p, name_at, "too many matrices in one setup (the limit is %d)", LESSON_MAX_MATRICES);
    }
    for (int i = 0; old && i < p->L->novrs; i++)
        if (p->L->ovrs[i].setup == p->L->nsetups - 1 && p->L->ovrs[i].def == old->def) {
            int at = p->L->ovrs[i].line;
            free(name);
            return FAIL(p, name_at, "%s is redefined after a cell override on line %d, which would be lost; "
                        "put the override after this line", old->name, at);
        }
    LessonMatrix *lm;
    if (old) {                      /* redefining one inherited from a previous setup */
        p->numbers -= (int64_t)old->m->rows * old->m->cols;
        free_matrix(old);
        memset(old, 0, sizeof *old);
        lm = old;
    } else {
        su->mats = xrealloc(su->mats, sizeof *su->mats * (size_t)(su->nmats + 1));
        lm = &su->mats[su->nmats++];
        memset(lm, 0, sizeof *lm);
    }
    lm->name = name;
    lm->line = lm->end_line = p->lineno;
    lm->how = xstrdup(skip_ws(s + 1));
    lm->stack = 1;
    lm->def = add_def(p);
    if (!parse_generator(p, lm, s + 1)) return false;
    LessonDef *d = &p->L->defs[lm->def];
    d->generated = lm->generated;
    if (lm->m) { d->rows = lm->m->rows; d->cols = lm->m->cols; }
    return true;
}

/*
** `NAME[ROW,COL] = VALUE`: one cell of a matrix of this setup (its own or
** inherited), 1-based, set after the matrix was made. It changes this
** setup's copy, which later setups inherit. A cell may be set once per
** setup. Saving an edit of a generated matrix writes one of these.
*/
static bool parse_override(Parser *p, const char *s)
{
    Lesson *L = p->L;
    const char *name_at = s;
    char *name = take_ident(p, &s, "a matrix name");
    if (!name) return false;
    LessonMatrix *lm = lesson_matrix(cur_setup(p), name);
    if (!lm) {
        FAIL(p, name_at, "%s is not a matrix of this setup; a cell can be set only after its matrix is defined", name);
        free(name);
        return false;
    }
    free(name);
    char what[80];
    int64_t row, col;
    double v;
    s = skip_ws(skip_ws(s) + 1);                          /* past '[' */
    snprintf(what, sizeof what, "the row of %s", lm->name);
    if (!scan_int(p, &s, 1, lm->m->rows, what, &row)) return false;
    s = skip_ws(s);
    if (*s != ',') return FAIL(p, s, "expected ',' between the row and the column, as in %s[1,2]", lm->name);
    s++;
    snprintf(what, sizeof what, "the column of %s", lm->name);
    if (!scan_int(p, &s, 1, lm->m->cols, what, &col)) return false;
    s = skip_ws(s);
    if (*s != ']') return FAIL(p, s, "expected ']' after the column, as in %s[1,2]", lm->name);
    s = skip_ws(s + 1);
    if (*s != '=') return FAIL(p, s, "expected '=' after %s[%" PRId64 ",%" PRId64 "]", lm->name, row, col);
    s = skip_ws(s + 1);
    const char *num_at = s;
    if (!scan_number(p, &s, &v)) return false;
    if (*skip_ws(s)) {
        char f[48];
        found(num_at, f, sizeof f);
        return FAIL(p, num_at, "the value of %s[%" PRId64 ",%" PRId64 "] must be one number (no expression), found %s", lm->name, row, col, f);
    }
    if (L->novrs >= LESSON_MAX_OVERRIDES)
        return FAIL(p, name_at, "too many cell overrides (the limit is %d)", LESSON_MAX_OVERRIDES);
    for (int i = 0; i < L->novrs; i++)
        if (L->ovrs[i].setup == L->nsetups - 1 && L->ovrs[i].def == lm->def
            && L->ovrs[i].row == row - 1 && L->ovrs[i].col == col - 1)
            return FAIL(p, name_at, "%s[%" PRId64 ",%" PRId64 "] is set twice in this setup (first on line %d)",
                        lm->name, row, col, L->ovrs[i].line);
    L->ovrs = xrealloc(L->ovrs, sizeof *L->ovrs * (size_t)(L->novrs + 1));
    LessonOverride *o = &L->ovrs[L->novrs++];
    own_matrix(lm);                     /* the setups before keep their value */
    o->under = mat_get(lm->m, (int)row - 1, (int)col - 1);
    mat_set(lm->m, (int)row - 1, (int)col - 1, v);
    o->setup = L->nsetups - 1;
    o->line = p->lineno;
    o->def = lm->def;
    o->row = (int)row - 1;
    o->col = (int)col - 1;
    o->num.off = p->line_off + (unsigned)(num_at - p->line);
    o->num.len = (unsigned)(s - num_at);
    o->end = p->line_end;
    return true;
}

/* ----------------------------------------------------------------- settings */

static const char *const setup_keys[] = {
    "seed", "tokens", "query_tokens", "key_tokens", "queries", "keys", "values",
    "score", "divisor", "temperature", "heads", "mask", "output", "additive", "dims", "key_dims", "torch_seed",
    "residual", "positions", "kv_heads", "attention", NULL
};
static const char *const stage_keys[] = { "cmap", "decimals", "head", "query", "scale", "block", NULL };
static const char *const head_keys[] = { "title", "summary", "language", NULL };

/* Index of key in a NULL-terminated list, or -1. */
static int key_index(const char *const *keys, const char *k)
{
    for (int i = 0; keys[i]; i++)
        if (!strcmp(keys[i], k)) return i;
    return -1;
}

/* The line where the setup key named k was set in this section, 0 if it
** was not. k is one of setup_keys: a name that is not would index -1. */
static int setup_key_line(const Parser *p, const char *k)
{
    int i = key_index(setup_keys, k);
    assert(i >= 0 && (size_t)i < sizeof p->key_line / sizeof p->key_line[0]);
    return p->key_line[i];
}

/* Every key of every section has a slot in key_line. */
_Static_assert(sizeof setup_keys / sizeof setup_keys[0] - 1 <= sizeof ((Parser *)0)->key_line / sizeof(int),
               "key_line has a slot for every setup key");

/* Comma-separated list of keys for messages. */
static void key_list(const char *const *keys, char *out, size_t n)
{
    out[0] = '\0';
    for (int i = 0; keys[i]; i++) {
        strncat(out, keys[i], n - strlen(out) - 1);
        if (keys[i + 1]) strncat(out, ", ", n - strlen(out) - 1);
    }
}

/* Look key up in keys and mark it set on this line: its index, or -1 after
** an error for an unknown key ("unknown WHAT 'key' WHERE; expected one of
** ... HINT") or one set twice in SCOPE. */
static int claim_key(Parser *p, const char *const *keys, const char *key, const char *key_at,
                     const char *what, const char *where, const char *scope, const char *hint)
{
    int k = key_index(keys, key);
    if (k < 0) {
        char list[400];
        key_list(keys, list, sizeof list);
        FAIL(p, key_at, "unknown %s '%s'%s%s; expected one of: %s %s", what, key, *where ? " " : "", where, list, hint);
        return -1;
    }
    if (p->key_line[k]) {
        FAIL(p, key_at, "'%s' is set twice in %s (first on line %d)", key, scope, p->key_line[k]);
        return -1;
    }
    p->key_line[k] = p->lineno;
    return k;
}

/* `queries: X @ W_q` or `queries: X`. */
static bool parse_operand(Parser *p, const char *s, Operand *o)
{
    free(o->input);
    free(o->weight);
    o->input = o->weight = NULL;
    o->line = p->lineno;
    o->col = col_of(p, skip_ws(s));
    o->input = take_ident(p, &s, "a matrix name");
    if (!o->input) return false;
    s = skip_ws(s);
    if (*s == '@' || !strncmp(s, "\xc2\xb7", 2)) {
        s += *s == '@' ? 1 : 2;
        o->weight = take_ident(p, &s, "a weight matrix name after '@'");
        if (!o->weight) return false;
    }
    return end_of_line(p, s);
}

/* A matrix name that must exist in the current setup. */
static char *known_matrix(Parser *p, const char **sp)
{
    const char *at = skip_ws(*sp);
    char *name = take_ident(p, sp, "a matrix name");
    if (name && !lesson_matrix(cur_setup(p), name)) {
        FAIL(p, at, "no matrix called %s is defined above", name);
        free(name);
        return NULL;
    }
    return name;
}

/* ------------------------------------------ masks, positions, K/V heads */

/* Is s one of the words that start mask parts? */
static bool mask_part_word(const char *s)
{
    static const char *const words[] = { "causal", "sliding", "prefix", "padding", NULL };
    size_t n = ident_len(s);
    for (int i = 0; words[i]; i++)
        if (n == strlen(words[i]) && !strncmp(s, words[i], n)) return true;
    return false;
}

/*
** `mask: causal sliding 3 padding <pad> prefix 2`: parts in any order, each
** at most once. A lone `causal` is the plain causal mask (MASK_CAUSAL);
** sliding and prefix are kinds of causal masks and bring the causal part
** with them.
*/
static bool parse_mask_parts(Parser *p, Setup *su, const char *s)
{
    unsigned parts = 0;
    su->mask_line = p->lineno;
    free(su->pad_token);
    su->pad_token = NULL;
    su->window = su->prefix = 0;
    while (*(s = skip_ws(s))) {
        const char *at = s;
        size_t n = ident_len(s);
        unsigned bit = n == 6 && !strncmp(s, "causal", 6) ? MASKP_CAUSAL
                     : n == 7 && !strncmp(s, "sliding", 7) ? MASKP_SLIDING
                     : n == 6 && !strncmp(s, "prefix", 6) ? MASKP_PREFIX
                     : n == 7 && !strncmp(s, "padding", 7) ? MASKP_PADDING : 0;
        if (!bit) {
            char f[48];
            found(s, f, sizeof f);
            return FAIL(p, s, "expected a mask part (causal, sliding W, prefix P or padding TOKEN), found %s", f);
        }
        if (parts & bit) return FAIL(p, at, "mask part '%.*s' is given twice", (int)n, s);
        parts |= bit;
        s += n;
        int64_t x;
        if (bit == MASKP_SLIDING) {
            if (!scan_int(p, &s, 1, LESSON_MAX_TOKENS, "the window (keys each query sees)", &x)) return false;
            su->window = (int)x;
        } else if (bit == MASKP_PREFIX) {
            if (!scan_int(p, &s, 1, LESSON_MAX_TOKENS, "the prefix length", &x)) return false;
            su->prefix = (int)x;
        } else if (bit == MASKP_PADDING) {
            s = skip_ws(s);
            const char *t = s;
            while (*s && *s != ' ' && *s != '\t') s++;
            if (s == t) return FAIL(p, s, "expected the pad token after 'padding', e.g. padding <pad>");
            if (s - t > LESSON_MAX_TOKEN) return FAIL(p, t, "token is longer than %d bytes", LESSON_MAX_TOKEN);
            su->pad_token = xstrndup(t, (size_t)(s - t));
        }
    }
    if (parts & (MASKP_SLIDING | MASKP_PREFIX)) parts |= MASKP_CAUSAL;
    su->mask_parts = parts;
    su->mask = parts == MASKP_CAUSAL ? MASK_CAUSAL : MASK_PARTS;
    return true;
}

/* `positions: none | sinusoidal | rope [base B] | alibi` and `kv_heads: G`. */
static bool parse_modern_key(Parser *p, Setup *su, const char *key, const char *s)
{
    if (!strcmp(key, "kv_heads")) {
        int64_t g;
        su->kv_line = p->lineno;
        if (!scan_int(p, &s, 1, LESSON_MAX_HEADS, "the number of K/V heads", &g) || !end_of_line(p, s)) return false;
        su->kv_heads = (int)g;
        return true;
    }
    static const char *const kinds[] = { "none", "sinusoidal", "rope", "alibi", NULL };
    size_t n = ident_len(s);
    su->positions_line = p->lineno;
    for (int i = 0; kinds[i]; i++) {
        if (n != strlen(kinds[i]) || strncmp(s, kinds[i], n)) continue;
        su->positions = (PositionKind)i;
        su->rope_base = 10000.0;
        s = skip_ws(s + n);
        if (i == POS_ROPE && !strncmp(s, "base", 4) && ident_len(s) == 4) {
            const char *at = skip_ws(s + 4);
            if (!expr_line(p, at, &su->rope_base)) return false;
            if (!(su->rope_base > 1)) return FAIL(p, at, "the RoPE base must be greater than 1, found %g", su->rope_base);
            return true;
        }
        return end_of_line(p, s);
    }
    char f[48];
    found(s, f, sizeof f);
    return FAIL(p, s, "expected positions to be none, sinusoidal, rope [base B] or alibi, found %s", f);
}

/* The K/V heads of a setup. */
int lesson_kv_heads(const Setup *su)
{
    return su->kv_heads > 0 ? su->kv_heads : su->heads;
}

/* The block size of an online_softmax stage. */
int lesson_stage_block(const Lesson *L, const Stage *st)
{
    if (st->block > 0) return st->block;
    int n = L->setups[st->setup].nk;
    return n >= 4 ? (n + 3) / 4 : 1;
}

/* What a setup's masks, positions and K/V heads need (after the widths
** are known: dq, dk, dv). */
static bool check_modern(Parser *p, const Setup *su, int dq, int dk, int dv)
{
    int H = su->heads, G = lesson_kv_heads(su);
    /* point at the setting when this setup wrote it, else at [setup] */
    int kv_at = su->kv_line > su->line ? su->kv_line : su->line;
    int mask_at = su->mask_line > su->line ? su->mask_line : su->line;
    int pos_at = su->positions_line > su->line ? su->positions_line : su->line;
    if (su->kv_heads) {
        if (H % G)
            return fail_line(p, kv_at, 1, "kv_heads: %d does not divide heads: %d; every K/V head must serve "
                             "the same number of query heads", G, H);
        if (dk != dq / H * G)
            return fail_line(p, kv_at, 1, "with heads: %d and kv_heads: %d the keys must be %d wide "
                             "(%d K/V heads of the query heads' width %d), found %d",
                             H, G, dq / H * G, G, dq / H, dk);
        if (dv % G)
            return fail_line(p, kv_at, 1, "kv_heads: %d does not divide the width of the values (%d)", G, dv);
    }
    if (su->mask == MASK_PARTS && su->cross && (su->mask_parts & MASKP_CAUSAL))
        return fail_line(p, mask_at, 1, "causal, sliding and prefix masks need one sequence, but this setup has "
                         "query_tokens and key_tokens; only 'mask: padding TOKEN' works across two");
    if (su->mask == MASK_PARTS && (su->mask_parts & MASKP_PREFIX) && su->prefix > su->nq)
        return fail_line(p, mask_at, 1, "mask: prefix %d is longer than the %d tokens", su->prefix, su->nq);
    if (su->mask == MASK_PARTS && (su->mask_parts & MASKP_PADDING)) {
        bool any = false;
        for (int i = 0; i < su->nq; i++) any |= !strcmp(su->qtokens[i], su->pad_token);
        for (int i = 0; i < su->nk; i++) any |= !strcmp(su->ktokens[i], su->pad_token);
        if (!any)
            return fail_line(p, mask_at, 1, "mask: padding %s names the pad token, but no token is %s", su->pad_token,
                             su->pad_token);
    }
    if (su->positions == POS_NONE) return true;
    static const char *const pos[] = { "none", "sinusoidal", "rope", "alibi" };
    if (su->cross)
        return fail_line(p, pos_at, 1, "positions: %s needs one sequence, but this setup has query_tokens and key_tokens",
                         pos[su->positions]);
    if (su->positions == POS_SINUSOIDAL && (strcmp(su->queries.input, su->keys.input) || strcmp(su->queries.input, su->values.input)))
        return fail_line(p, pos_at, 1, "positions: sinusoidal adds positions to the one input of queries, keys and "
                         "values, but they come from %s, %s and %s", su->queries.input, su->keys.input, su->values.input);
    if (su->positions == POS_ROPE && su->score == SCORE_ADDITIVE)
        return fail_line(p, pos_at, 1, "positions: rope rotates queries and keys for dot products; it does not work with score: additive");
    if (su->positions == POS_ROPE && (dq / H) % 2)
        return fail_line(p, pos_at, 1, "positions: rope turns pairs of dimensions, but one head's queries and keys are %d wide "
                         "(an odd number)", dq / H);
    (void)dv;
    return true;
}

/* One `key: value` line in a setup. */
static bool parse_setup_key(Parser *p, const char *key, const char *key_at, const char *v)
{
    Setup *su = cur_setup(p);
    if (claim_key(p, setup_keys, key, key_at, "setting", "in [setup]", "this setup",
                  "(matrices are defined with NAME = ...)") < 0)
        return false;
    const char *s = skip_ws(v);
    if (!strcmp(key, "seed")) {
        int64_t seed;
        if (!scan_int(p, &s, 0, INT64_C(4294967295), "the seed", &seed) || !end_of_line(p, s)) return false;
        rng_seed(&p->rng, (uint32_t)seed);
        p->seeded = true;
        p->seed = (uint32_t)seed;
        su->seed = (uint32_t)seed;
        su->seeded = true;
    } else if (!strcmp(key, "torch_seed")) {
        return parse_torch_seed(p, s);
    } else if (!strcmp(key, "tokens")) {
        char **t; int n;
        int other = setup_key_line(p, "query_tokens") ? setup_key_line(p, "query_tokens")
                  : setup_key_line(p, "key_tokens");
        if (other)
            return FAIL(p, key_at, "this setup already set query_tokens or key_tokens (line %d): use 'tokens:' for "
                        "self-attention, or 'query_tokens:' and 'key_tokens:' for cross-attention, not both", other);
        if (!parse_tokens(p, s, &t, &n)) return false;
        free_tokens(su->qtokens, su->nq);
        free_tokens(su->ktokens, su->nk);
        su->qtokens = t; su->nq = n;
        su->ktokens = copy_tokens(t, n); su->nk = n;
        su->cross = false;
    } else if (!strcmp(key, "query_tokens") || !strcmp(key, "key_tokens")) {
        char **t; int n;
        if (!parse_tokens(p, s, &t, &n)) return false;
        bool q = key[0] == 'q';
        if (setup_key_line(p, "tokens")) {
            free_tokens(t, n);
            return FAIL(p, key_at, "this setup already set tokens (line %d): use 'tokens:' for self-attention, "
                        "or 'query_tokens:' and 'key_tokens:' for cross-attention, not both",
                        setup_key_line(p, "tokens"));
        }
        free_tokens(q ? su->qtokens : su->ktokens, q ? su->nq : su->nk);
        if (q) { su->qtokens = t; su->nq = n; } else { su->ktokens = t; su->nk = n; }
        if (!su->cross) {
            /* becoming cross-attention: keys and values now default to Y,
            ** unless this setup says where they come from */
            Operand *kv[2] = { &su->keys, &su->values };
            const char *names[2] = { "keys", "values" };
            for (int i = 0; i < 2; i++)
                if (!setup_key_line(p, names[i])) {
                    free(kv[i]->input); free(kv[i]->weight);
                    kv[i]->input = kv[i]->weight = NULL;
                }
        }
        su->cross = true;
    } else if (!strcmp(key, "residual")) {
        size_t n = ident_len(s);
        if ((n == 3 && !strncmp(s, "yes", 3)) || (n == 2 && !strncmp(s, "no", 2))) {
            su->residual = n == 3;
            su->residual_line = p->lineno;
            return end_of_line(p, s + n);
        }
        char f[48];
        found(s, f, sizeof f);
        return FAIL(p, s, "expected residual to be yes or no, found %s", f);
    } else if (!strcmp(key, "attention")) {
        size_t n = ident_len(s);
        free(su->attention);
        su->attention = NULL;
        su->attention_line = p->lineno;
        if (n == 4 && !strncmp(s, "none", 4)) return end_of_line(p, s + n);
        su->attention = known_matrix(p, &s);
        return su->attention && end_of_line(p, s);
    } else if (!strcmp(key, "dims") || !strcmp(key, "key_dims")) {
        char **t; int n;
        if (!parse_tokens(p, s, &t, &n)) return false;
        bool q = key[0] == 'd';
        free_tokens(q ? su->dims : su->key_dims, q ? su->ndims : su->nkey_dims);
        if (q) { su->dims = t; su->ndims = n; } else { su->key_dims = t; su->nkey_dims = n; }
        su->dims_line = p->lineno;
    } else if (!strcmp(key, "queries")) {
        return parse_operand(p, s, &su->queries);
    } else if (!strcmp(key, "keys")) {
        return parse_operand(p, s, &su->keys);
    } else if (!strcmp(key, "values")) {
        return parse_operand(p, s, &su->values);
    } else if (!strcmp(key, "score")) {
        size_t n = ident_len(s);
        if (n == 10 && !strncmp(s, "scaled_dot", n)) su->score = SCORE_SCALED_DOT;
        else if (n == 3 && !strncmp(s, "dot", n)) su->score = SCORE_DOT;
        else if (n == 8 && !strncmp(s, "additive", n)) su->score = SCORE_ADDITIVE;
        else {
            char f[48];
            found(s, f, sizeof f);
            return FAIL(p, s, "expected score to be scaled_dot, dot or additive, found %s", f);
        }
        return end_of_line(p, s + n);
    } else if (!strcmp(key, "divisor") || !strcmp(key, "temperature")) {
        double x;
        if (!expr_line(p, s, &x)) return false;
        if (!(x > 0)) return FAIL(p, s, "%s must be greater than 0, found %g", key, x);
        if (key[0] == 'd') su->divisor = x; else su->temperature = x;
    } else if (!strcmp(key, "heads")) {
        int64_t h;
        if (!scan_int(p, &s, 1, LESSON_MAX_HEADS, "the number of heads", &h) || !end_of_line(p, s)) return false;
        su->heads = (int)h;
    } else if (!strcmp(key, "mask")) {
        size_t n = ident_len(s);
        free(su->mask_matrix);
        su->mask_matrix = NULL;
        if (n == 4 && !strncmp(s, "none", 4)) { su->mask = MASK_NONE; return end_of_line(p, s + n); }
        if (mask_part_word(s)) return parse_mask_parts(p, su, s);
        if ((n == 5 && !strncmp(s, "allow", 5)) || (n == 5 && !strncmp(s, "block", 5))) {
            su->mask = s[0] == 'a' ? MASK_ALLOW : MASK_BLOCK;
            s += n;
            su->mask_matrix = known_matrix(p, &s);
            return su->mask_matrix && end_of_line(p, s);
        }
        char f[48];
        found(s, f, sizeof f);
        return FAIL(p, s, "expected mask to be none, causal, allow NAME or block NAME (parts combine: causal sliding W prefix P padding TOKEN), found %s", f);
    } else if (!strcmp(key, "positions") || !strcmp(key, "kv_heads")) {
        return parse_modern_key(p, su, key, s);
    } else if (!strcmp(key, "output")) {
        free(su->output_proj);
        su->output_proj = known_matrix(p, &s);
        return su->output_proj && end_of_line(p, s);
    } else if (!strcmp(key, "additive")) {
        free(su->add_w1); free(su->add_w2); free(su->add_v);
        su->add_w1 = su->add_w2 = su->add_v = NULL;
        if (!(su->add_w1 = known_matrix(p, &s))) return false;
        if (!(su->add_w2 = known_matrix(p, &s))) return false;
        if (!(su->add_v = known_matrix(p, &s))) return false;
        return end_of_line(p, s);
    }
    return true;
}

/* One option line of a stage. */
static bool parse_stage_key(Parser *p, const char *key, const char *key_at, const char *v)
{
    Stage *st = &p->L->stages[p->L->nstages - 1];
    if (claim_key(p, stage_keys, key, key_at, "stage option", "", "this stage",
                  "(leave a blank line between the options and the text)") < 0)
        return false;
    const char *s = skip_ws(v);
    int64_t x;
    if (!strcmp(key, "cmap")) {
        size_t n = ident_len(s);
        int i = colormaps_find(s, n);
        if (i >= 0) {
            st->cmap = xstrdup(colormaps_names()[i]);
            return end_of_line(p, s + n);
        }
        char f[48], list[COLORMAPS_LIST_MAX];
        found(s, f, sizeof f);
        colormaps_list(list, sizeof list);
        return FAIL(p, s, "unknown colormap %s; expected %s", f, list);
    }
    if (!strcmp(key, "decimals")) {
        if (!scan_int(p, &s, 0, 6, "decimals", &x) || !end_of_line(p, s)) return false;
        st->decimals = (int)x;
    } else if (!strcmp(key, "head")) {
        if (!scan_int(p, &s, 1, LESSON_MAX_HEADS, "head", &x) || !end_of_line(p, s)) return false;
        st->head = (int)x;
    } else if (!strcmp(key, "query")) {
        if (!scan_int(p, &s, 1, LESSON_MAX_TOKENS, "query", &x) || !end_of_line(p, s)) return false;
        st->query = (int)x;
    } else if (!strcmp(key, "block")) {
        if (!scan_int(p, &s, 1, LESSON_MAX_TOKENS, "block (keys per block)", &x) || !end_of_line(p, s)) return false;
        st->block = (int)x;
    } else if (!strcmp(key, "scale")) {
        size_t n = ident_len(s);
        if ((n == 6 && !strncmp(s, "shared", 6)) || (n == 3 && !strncmp(s, "own", 3))) {
            st->own_scale = n == 3;
            return end_of_line(p, s + n);
        }
        char f[48];
        found(s, f, sizeof f);
        return FAIL(p, s, "expected scale to be shared or own, found %s", f);
    }
    return true;
}

/* ------------------------------------------------------------------ checks */

/* `residual: yes` continues the stream of the setup above: it needs one,
** with the same tokens, and its output (after W_o) as wide as this
** setup's queries' input, which the stream replaces. */
static bool check_residual(Parser *p, const Setup *su, int dq)
{
    int line = su->residual_line > su->line ? su->residual_line : su->line;
    if (p->L->nsetups < 2)
        return fail_line(p, line, 1, "residual: yes continues the setup above, but this is the first setup");
    const Setup *prev = &p->L->setups[p->L->nsetups - 2];
    if (prev->attention)
        return fail_line(p, line, 1, "residual: yes continues the stream of the setup above, but that setup is given its "
                         "weights (attention: %s) and has no input X to continue", prev->attention);
    if (su->cross || prev->cross || su->nq != prev->nq)
        return fail_line(p, line, 1, "residual: yes needs the same tokens as the setup above (self-attention on one sequence)");
    const LessonMatrix *px = lesson_matrix(prev, prev->queries.input), *x = lesson_matrix(su, su->queries.input);
    int out = prev->output_proj ? lesson_matrix(prev, prev->output_proj)->m->cols
                                : lesson_matrix(prev, prev->values.input)->m->cols;
    if (prev->values.weight) {
        const LessonMatrix *w = lesson_matrix(prev, prev->values.weight);
        if (!prev->output_proj) out = w->m->cols;
    }
    if (!px || !x || px->m->cols != out || x->m->cols != out || dq < 0)
        return fail_line(p, line, 1, "residual: yes adds the output of the setup above (%d wide) to %s (%d wide): "
                         "they must be as wide as each other", out, su->queries.input, x ? x->m->cols : 0);
    return true;
}

/* Where to point at an operand: its line, or the [setup] line when it was
** inherited from an earlier setup (the problem is in this one: it changed
** the tokens or a matrix the operand uses). */
static void operand_at(const Setup *su, const Operand *o, int *line, int *col)
{
    bool here = o->line > su->line;
    *line = here ? o->line : su->line;
    *col = here ? o->col : 1;
}

/* Width of an operand's result, or -1 with an error. */
static int operand_check(Parser *p, const Setup *su, const Operand *o, const char *role, int want_rows, const char *tok_what)
{
    int line, col;
    operand_at(su, o, &line, &col);
    const LessonMatrix *in = lesson_matrix(su, o->input);
    if (!in) { fail_line(p, line, col, "no matrix called %s is defined in this setup", o->input); return -1; }
    if (in->m->rows != want_rows) {
        fail_line(p, line, col, "%s come from %s, which has %d rows, but there are %d %s",
                  role, o->input, in->m->rows, want_rows, tok_what);
        return -1;
    }
    if (!o->weight) return in->m->cols;
    const LessonMatrix *w = lesson_matrix(su, o->weight);
    if (!w) { fail_line(p, line, col, "no matrix called %s is defined in this setup", o->weight); return -1; }
    if (w->m->rows != in->m->cols) {
        fail_line(p, line, col, "cannot compute %s @ %s: %s has %d columns but %s has %d rows",
                  o->input, o->weight, o->input, in->m->cols, o->weight, w->m->rows);
        return -1;
    }
    return w->m->cols;
}

/*
** Q, K and V also name the queries, keys and values a setup computes (see
** trace.h), and the trace keeps one matrix per name. So a matrix called Q
** may be used only when the queries are that very matrix (`queries: Q`);
** otherwise views and explanations would show the computed queries in its
** place, with the wrong number of rows.
*/
static bool check_role_names(Parser *p, const Setup *su)
{
    static const char *const role[3] = { "Q", "K", "V" }, *const key[3] = { "queries", "keys", "values" };
    const Operand *ops[3] = { &su->queries, &su->keys, &su->values };
    const char *other[5] = { su->mask_matrix, su->output_proj, su->add_w1, su->add_w2, su->add_v };
    for (int r = 0; r < 3; r++) {
        const Operand *self = ops[r];
        if (!self->weight && !strcmp(self->input, role[r])) continue;
        int line = 0, col = 1;
        for (int i = 0; i < 3 && !line; i++)
            if (!strcmp(ops[i]->input, role[r]) || (ops[i]->weight && !strcmp(ops[i]->weight, role[r])))
                operand_at(su, ops[i], &line, &col);
        for (int i = 0; i < 5 && !line; i++)
            if (other[i] && !strcmp(other[i], role[r])) line = su->line;
        if (line)
            return fail_line(p, line, col, "a matrix called %s can only be used as '%s: %s', since %s also names "
                             "the computed %s (here %s%s%s); call the matrix something else, e.g. %s_in",
                             role[r], key[r], role[r], role[r], key[r], self->input,
                             self->weight ? " @ " : "", self->weight ? self->weight : "", role[r]);
    }
    return true;
}

/* The stack depth of an operand's weight (1 if none). */
static int operand_stack(const Setup *su, const Operand *o)
{
    const LessonMatrix *w = o->weight ? lesson_matrix(su, o->weight) : NULL;
    return w ? w->stack : 1;
}

/*
** What computing a checked setup costs (see LESSON_MAX_WORK): the
** multiply-adds of its products plus the numbers of the matrices the trace
** stores. With several heads attention is computed whole and again head by
** head; a tanh of additive scoring costs about 32 multiply-adds (measured).
*/
static int64_t setup_work(const Setup *su, int64_t dq, int64_t dk, int64_t dv)
{
    int64_t nq = su->nq, nk = su->nk, w = 0, passes = su->heads > 1 ? 2 : 1;
    const Operand *o[3] = { &su->queries, &su->keys, &su->values };
    for (int i = 0; i < 3; i++) {
        const Mat *in = lesson_matrix(su, o[i]->input)->m;
        const Mat *wt = o[i]->weight ? lesson_matrix(su, o[i]->weight)->m : NULL;
        w += wt ? (int64_t)in->rows * in->cols * wt->cols : 0;
        w += passes * (int64_t)in->rows * (wt ? wt->cols : in->cols);       /* Q, K or V, and its head slices */
    }
    if (su->score == SCORE_ADDITIVE) {
        const Mat *v = lesson_matrix(su, su->add_v)->m;
        int64_t u = (int64_t)v->rows * v->cols;
        w += nq * dq * u + nk * dk * u + 32 * nq * nk * u;
    } else {
        w += passes * nq * nk * dq;
    }
    w += passes * (nq * nk * dv + 5 * nq * nk + nq * dv);   /* weights·V; scores to weights; output */
    if (su->output_proj) {
        const Mat *wo = lesson_matrix(su, su->output_proj)->m;
        w += nq * dv * wo->cols + nq * wo->cols;
    }
    return w;
}

/* A causal mask needs one sequence; `mask: allow NAME` or `block NAME`:
** NAME is queries x keys and holds only 0 and 1. */
static bool check_mask(Parser *p, const Setup *su)
{
    if (su->mask == MASK_CAUSAL && su->cross)
        return fail_line(p, su->line, 1, "a causal mask needs one sequence, but this setup has query_tokens and key_tokens "
                         "(cross-attention sees the whole source sentence); use 'mask: allow NAME' to block keys");
    if (su->mask != MASK_ALLOW && su->mask != MASK_BLOCK) return true;
    const Mat *m = lesson_matrix(su, su->mask_matrix)->m;
    if (m->rows != su->nq || m->cols != su->nk)
        return fail_line(p, su->line, 1, "mask %s is %dx%d but the scores are %dx%d (queries x keys)",
                         su->mask_matrix, m->rows, m->cols, su->nq, su->nk);
    for (int64_t i = 0; i < (int64_t)m->rows * m->cols; i++)
        if (m->data[i] != 0.0 && m->data[i] != 1.0)
            return fail_line(p, lesson_matrix(su, su->mask_matrix)->line, 1,
                             "mask %s may hold only 0 and 1, found %g", su->mask_matrix, m->data[i]);
    return true;
}

/* A stack of weights (one per head) has as many matrices as the heads that
** use it: want, query heads or (kv) K/V heads. */
static bool check_operand_stack(Parser *p, const Setup *su, const Operand *o, int want, bool kv)
{
    int st = operand_stack(su, o), line, col;
    if (st <= 1 || st == want) return true;
    operand_at(su, o, &line, &col);
    return fail_line(p, line, col, "%s is a stack of %d matrices but the setup has %d %shead%s",
                     o->weight, st, want, kv ? "K/V " : "", want == 1 ? "" : "s");
}

/* W_o (when set) has a row per number of the attention output it multiplies. */
static bool check_output_rows(Parser *p, const Setup *su, int width)
{
    const Mat *wo = su->output_proj ? lesson_matrix(su, su->output_proj)->m : NULL;
    if (!wo || wo->rows == width) return true;
    return fail_line(p, su->line, 1, "output projection %s has %d rows but the attention output it multiplies is %d wide",
                     su->output_proj, wo->rows, width);
}

/* Count a setup's work against LESSON_MAX_WORK. */
static bool add_work(Parser *p, const Setup *su, int64_t work)
{
    p->work += work;
    if (p->work > LESSON_MAX_WORK)
        return fail_line(p, su->line, 1, "computing the lesson up to this setup takes about %" PRId64 " million multiplications, "
                         "over the limit of %" PRId64 " million; use fewer tokens, smaller matrices or fewer setups",
                         p->work / 1000000, LESSON_MAX_WORK / 1000000);
    return true;
}

/* Free an operand's names (a setup given its weights has no queries or keys). */
static void clear_operand(Operand *o)
{
    free(o->input);
    free(o->weight);
    memset(o, 0, sizeof *o);
}

/* Whether the mask of a setup blocks every key of query row r: a padded
** query under `mask: padding TOKEN`, or a row of zeros in `mask: allow M`
** (of ones in `block M`). Such a row of given weights is all 0, as a model
** returns it; the trace checks that every blocked weight is 0. */
static bool row_blocked(const Setup *su, int r)
{
    if (su->mask == MASK_PARTS)
        return (su->mask_parts & MASKP_PADDING) && !strcmp(su->qtokens[r], su->pad_token);
    if (su->mask != MASK_ALLOW && su->mask != MASK_BLOCK) return false;
    const LessonMatrix *m = lesson_matrix(su, su->mask_matrix);
    if (!m || m->m->rows != su->nq || m->m->cols != su->nk) return false;       /* check_mask says so */
    for (int j = 0; j < su->nk; j++)
        if ((mat_get(m->m, r, j) != 0.0) == (su->mask == MASK_ALLOW)) return false;
    return true;
}

/*
** A setup given its attention weights (`attention: A`): A holds one block
** of nk columns per head (a stack of heads, or heads: H side by side), and
** every row of every head is a distribution: numbers in [0, 1] that sum to
** 1, or all 0 where the mask blocks every key (row_blocked). Nothing about queries, keys or scores applies, so settings for them
** written in this setup are errors and inherited ones are dropped; values
** (and W_o after them) are optional.
*/
static bool check_given(Parser *p, Setup *su)
{
    static const char *const no[] = { "queries", "keys", "score", "divisor", "temperature", "positions", "kv_heads",
                                      "additive", "residual", NULL };
    for (int i = 0; no[i]; i++) {
        int line = setup_key_line(p, no[i]);
        if (line)
            return fail_line(p, line, 1, "'%s' does not apply to a setup with 'attention: %s' (line %d): its weights are given, "
                             "not computed from queries and keys", no[i], su->attention, su->attention_line);
    }
    clear_operand(&su->queries);
    clear_operand(&su->keys);
    if (!setup_key_line(p, "values")) clear_operand(&su->values);
    if (!su->values.input && !setup_key_line(p, "output")) {
        free(su->output_proj);          /* inherited, with the values it multiplied */
        su->output_proj = NULL;
    }
    su->score = SCORE_SCALED_DOT;
    su->divisor = 0;
    su->temperature = 1.0;
    su->positions = POS_NONE;
    su->kv_heads = 0;
    su->residual = false;
    free(su->add_w1); free(su->add_w2); free(su->add_v);
    su->add_w1 = su->add_w2 = su->add_v = NULL;
    const LessonMatrix *A = lesson_matrix(su, su->attention);
    int line = su->attention_line > su->line ? su->attention_line : A->line;
    int heads_line = setup_key_line(p, "heads");
    if (A->stack > 1) {
        if (heads_line && su->heads != A->stack)
            return fail_line(p, heads_line, 1, "heads: %d, but attention %s is a stack of %d heads", su->heads, su->attention, A->stack);
        su->heads = A->stack;
    } else if (!heads_line) {
        su->heads = 1;
    }
    int H = su->heads;
    if (A->m->rows != su->nq || A->m->cols != H * su->nk) {
        char has[64];
        if (A->stack > 1) snprintf(has, sizeof has, "%d heads of %dx%d", A->stack, A->m->rows, A->m->cols / A->stack);
        else snprintf(has, sizeof has, "%dx%d", A->m->rows, A->m->cols);
        return fail_line(p, line, 1, "attention %s is %s, but %d queries attending to %d keys need %dx%d%s", su->attention,
                         has, su->nq, su->nk, su->nq, su->nk,
                         H > 1 ? " in each head" : " (a (heads, queries, keys) array loads as a stack of heads)");
    }
    for (int h = 0; h < H; h++)
        for (int r = 0; r < su->nq; r++) {
            const double *row = mat_row(A->m, r) + (int64_t)h * su->nk;
            char who[32] = "";
            if (H > 1) snprintf(who, sizeof who, " in head %d", h + 1);
            double sum = 0;
            for (int j = 0; j < su->nk; j++) {
                if (!(row[j] >= -1e-6 && row[j] <= 1 + 1e-6))
                    return fail_line(p, line, 1, "attention %s holds %g at row %d, key %d%s: attention weights lie between 0 and 1",
                                     su->attention, row[j], r + 1, j + 1, who);
                sum += row[j];
            }
            if (fabs(sum - 1) > 0.01 && !(sum == 0 && row_blocked(su, r)))
                return fail_line(p, line, 1, "row %d of attention %s%s sums to %.4g, not 1: each row of attention "
                                 "weights is a softmax over the keys%s", r + 1, su->attention, who, sum,
                                 sum == 0 ? " (a row of zeros is a padded query's, under 'mask: padding TOKEN')" : "");
        }
    int dv = 0;
    if (su->values.input) {
        dv = operand_check(p, su, &su->values, "values", su->nk, su->cross ? "key tokens" : "tokens");
        if (dv < 0) return false;
        if (dv % H) return fail_line(p, su->line, 1, "%d heads do not divide the width of the values (%d)", H, dv);
        if (!check_operand_stack(p, su, &su->values, H, false)) return false;
    }
    if (su->output_proj && !dv)
        return fail_line(p, su->line, 1, "output: %s multiplies the heads' outputs, but this setup has no values: "
                         "add 'values: ...'", su->output_proj);
    if (!check_output_rows(p, su, dv) || !check_mask(p, su)) return false;
    int64_t out = su->output_proj ? lesson_matrix(su, su->output_proj)->m->cols : 0;
    return add_work(p, su, (int64_t)su->nq * su->nk * H * (3 + dv) + (int64_t)su->nq * dv * (out + 1));
}

/* Fill in defaults and check that everything in a setup fits together. */
static bool check_setup(Parser *p, Setup *su)
{
    if (su->attention && su->qtokens && su->ktokens) return check_given(p, su);
    if (!su->qtokens || !su->ktokens) {
        if (su->qtokens || su->ktokens)
            return fail_line(p, su->line, 1, "this setup has %s but no %s", su->qtokens ? "query_tokens" : "key_tokens",
                             su->qtokens ? "key_tokens" : "query_tokens");
        return fail_line(p, su->line, 1, "this setup has no tokens: add 'tokens: ...' (or query_tokens and key_tokens)");
    }
    /* Defaults: X for everything, or Y for keys and values when cross. */
    Operand *ops[3] = { &su->queries, &su->keys, &su->values };
    const char *names[3] = { "queries", "keys", "values" };
    for (int i = 0; i < 3; i++) {
        if (ops[i]->input) continue;
        const char *def = (i > 0 && su->cross) ? "Y" : "X";
        if (!lesson_matrix(su, def))
            return fail_line(p, su->line, 1, "this setup does not say where %s come from: add '%s: %s' "
                             "(or define a matrix %s)", names[i], names[i], def, def);
        ops[i]->input = xstrdup(def);
        ops[i]->line = su->line;
        ops[i]->col = 1;
    }
    if (!check_role_names(p, su)) return false;
    int dq = operand_check(p, su, &su->queries, "queries", su->nq, su->cross ? "query tokens" : "tokens");
    if (dq < 0) return false;
    int dk = operand_check(p, su, &su->keys, "keys", su->nk, su->cross ? "key tokens" : "tokens");
    if (dk < 0) return false;
    int dv = operand_check(p, su, &su->values, "values", su->nk, su->cross ? "key tokens" : "tokens");
    if (dv < 0) return false;
    if (su->heads < 1) su->heads = 1;
    if (su->temperature <= 0) su->temperature = 1.0;
    if (su->score == SCORE_ADDITIVE) {
        if (!su->add_w1)
            return fail_line(p, su->line, 1, "score: additive needs 'additive: W1 W2 v' naming its two weights and its vector");
        const Mat *w1 = lesson_matrix(su, su->add_w1)->m, *w2 = lesson_matrix(su, su->add_w2)->m, *v = lesson_matrix(su, su->add_v)->m;
        int u = v->rows * v->cols;
        if (v->rows != 1 && v->cols != 1)
            return fail_line(p, su->line, 1, "%s must be a vector (one row or one column), found %dx%d", su->add_v, v->rows, v->cols);
        if (w1->rows != dq || w1->cols != u)
            return fail_line(p, su->line, 1, "%s must be %dx%d (query width x length of %s), found %dx%d", su->add_w1, dq, u, su->add_v, w1->rows, w1->cols);
        if (w2->rows != dk || w2->cols != u)
            return fail_line(p, su->line, 1, "%s must be %dx%d (key width x length of %s), found %dx%d", su->add_w2, dk, u, su->add_v, w2->rows, w2->cols);
        if (su->heads != 1)
            return fail_line(p, su->line, 1, "additive scoring works with one head, found heads: %d", su->heads);
    } else if (dq != dk && !su->kv_heads) {
        /* a line the author wrote in this setup: keys, else queries, else [setup] */
        int line, col;
        operand_at(su, su->keys.line > su->line ? &su->keys : &su->queries, &line, &col);
        return fail_line(p, line, col, "queries are %d wide but keys are %d wide: "
                         "they must match to take dot products", dq, dk);
    }
    if (su->heads > 1) {
        if (dq % su->heads || (dv % su->heads && !su->kv_heads))
            return fail_line(p, su->line, 1, "%d heads do not divide the width of the queries (%d) and values (%d)",
                             su->heads, dq, dv);
    }
    Operand *all[3] = { &su->queries, &su->keys, &su->values };
    for (int i = 0; i < 3; i++)
        if (!check_operand_stack(p, su, all[i], i > 0 ? lesson_kv_heads(su) : su->heads, i > 0 && su->kv_heads))
            return false;
    if (su->residual && !check_residual(p, su, dq)) return false;
    const Operand *src[2] = { &su->queries, &su->keys };
    int nd[2] = { su->ndims, su->nkey_dims };
    for (int i = 0; i < 2; i++) {
        const LessonMatrix *in = lesson_matrix(su, src[i]->input);
        if (nd[i] && in && nd[i] != in->m->cols / in->stack)
            return fail_line(p, su->dims_line > su->line ? su->dims_line : su->line, 1,
                             "%s names %d columns but %s has %d", i ? "key_dims" : "dims", nd[i], src[i]->input,
                             in->m->cols / in->stack);
    }
    if (su->nkey_dims && !su->cross)
        return fail_line(p, su->dims_line > su->line ? su->dims_line : su->line, 1,
                         "key_dims names the columns of the key sentence's input, but this setup has no key_tokens; use dims");
    if (!check_mask(p, su) || !check_modern(p, su, dq, dk, dv)) return false;
    if (!check_output_rows(p, su, dv / lesson_kv_heads(su) * su->heads)) return false;
    return add_work(p, su, setup_work(su, dq, dk, dv));
}

/* The width of an operand's result in a checked setup. */
static int64_t operand_width(const Setup *su, const Operand *o)
{
    const char *name = o->weight ? o->weight : o->input;
    const LessonMatrix *m = name ? lesson_matrix(su, name) : NULL;     /* a setup given its weights has none */
    return m ? m->m->cols : 0;
}

/* The cells of a kv_cache stage's pages: per token t, its q, k and v, the
** t + 1 cached keys and values, its row of weights and its output; then
** the comparison (decoded and full weights and outputs). dq, dk, dv: one
** head's widths. */
static int64_t kv_cache_cells(int64_t n, int64_t nk, int64_t dq, int64_t dk, int64_t dv)
{
    return n * (dq + dk + 2 * dv) + (dk + dv + 1) * n * (n + 1) / 2 + 2 * n * nk + 2 * n * dv;
}

/* The cells of an online_softmax stage's pages for blocks of b keys: per
** block its scores, the max, rescale and sum of every block so far and the
** running output; then the output, softmax·V and their difference. */
static int64_t online_cells(int64_t nq, int64_t nk, int64_t b, int64_t dv)
{
    int64_t nb = (nk + b - 1) / b;
    return nq * nk + 3 * nq * nb * (nb + 1) / 2 + nq * nb * dv + 3 * nq * dv;
}

/*
** The budgets of what stages unfold into (lesson.h), checked before
** anything is computed: every stage is a page, kv_cache one per token and
** online_softmax one per block (each one more for its last page), and the
** panels of those sub-step pages hold cells that --dump writes and the
** exports draw. The online softmax also keeps its running output after
** every block, for each query a row of blocks × one head's value width
** numbers, which must be a matrix (at most MAT_MAX_DIM wide). Each
** message says which stage goes past which limit and what makes it fit.
*/
static bool check_pages(Parser *p, const Stage *st, const Setup *su)
{
    int64_t pages = 1, cells = 0, nq = su->nq, nk = su->nk, H = su->heads, G = lesson_kv_heads(su);
    int64_t dq = operand_width(su, &su->queries) / H, dk = operand_width(su, &su->keys) / G;
    int64_t dv = operand_width(su, &su->values) / G;
    const char *id = lesson_stage_name(st->id);
    if (st->id == STAGE_KV_CACHE) {
        pages = nq + 1;
        cells = kv_cache_cells(nq, nk, dq, dk, dv);
    } else if (st->id == STAGE_ONLINE_SOFTMAX) {
        int64_t b = lesson_stage_block(p->L, st), nb = (nk + b - 1) / b;
        pages = nb + 1;
        cells = online_cells(nq, nk, b, dv);
        if (nb * dv > MAT_MAX_DIM) {
            int64_t fit = (nk + MAT_MAX_DIM / dv - 1) / (MAT_MAX_DIM / dv);      /* the smallest block with few enough blocks */
            return fail_line(p, st->line, 2, "stage online_softmax keeps its running output after each of its %" PRId64
                             " blocks, %" PRId64 " numbers a query (blocks x the %" PRId64 " values of a head), over the "
                             "limit of %d; use block: %" PRId64 " or more", nb, nb * dv, dv, MAT_MAX_DIM, fit);
        }
    }
    p->pages += pages;
    if (p->pages > LESSON_MAX_PAGES)
        return fail_line(p, st->line, 2, "stage %s brings the lesson to %" PRId64 " pages (this stage %" PRId64 "), over the "
                         "limit of %d; %s", id, p->pages, pages, LESSON_MAX_PAGES,
                         pages > 1 ? "kv_cache shows a page per token and online_softmax one per block: use fewer tokens, "
                                     "larger blocks or fewer such stages" : "use fewer stages");
    p->step_cells += cells;
    if (p->step_cells <= LESSON_MAX_STEP_CELLS) return true;
    int64_t before = p->step_cells - cells, fit = 0;
    for (int64_t b = lesson_stage_block(p->L, st) + 1; st->id == STAGE_ONLINE_SOFTMAX && b <= nk && !fit; b++)
        if (before + online_cells(nq, nk, b, dv) <= LESSON_MAX_STEP_CELLS) fit = b;
    char with[80] = "", hint[64];
    if (before) snprintf(with, sizeof with, ", %" PRId64 " with the sub-steps above it", p->step_cells);
    if (fit) snprintf(hint, sizeof hint, "use block: %" PRId64 " or more", fit);
    else snprintf(hint, sizeof hint, "%s", st->id == STAGE_KV_CACHE ? "use fewer tokens or narrower heads" : "use fewer tokens");
    return fail_line(p, st->line, 2, "stage %s unfolds into %" PRId64 " pages that show %" PRId64 " numbers%s, over the "
                     "limit of %d for the sub-steps of a lesson; %s", id, pages, cells, with, LESSON_MAX_STEP_CELLS, hint);
}

/* What the stages of masks, positions, K/V heads and inference need. */
static bool check_modern_stage(Parser *p, const Stage *st, const Setup *su)
{
    static const char *const need[] = { "positions: sinusoidal", "positions: rope", "positions: alibi", "kv_heads: G" };
    static const PositionKind pk[] = { POS_SINUSOIDAL, POS_ROPE, POS_ALIBI };
    const char *id = lesson_stage_name(st->id);
    int k = st->id - STAGE_POSITIONAL_ENCODING;
    if (k < 3 && su->positions != pk[k])
        return fail_line(p, st->line, 2, "stage %s needs '%s' in its setup", id, need[k]);
    if (st->id == STAGE_GROUPED_QUERY && !su->kv_heads)
        return fail_line(p, st->line, 2, "stage grouped_query needs '%s' in its setup (G K/V heads shared by the query heads)", need[3]);
    if (st->id == STAGE_KV_CACHE && !(su->mask == MASK_CAUSAL || (su->mask == MASK_PARTS && (su->mask_parts & MASKP_CAUSAL)
                                                                    && !(su->mask_parts & MASKP_PREFIX))))
        return fail_line(p, st->line, 2, "stage kv_cache decodes one token at a time, so its setup needs a mask that hides "
                         "later tokens: 'mask: causal' (sliding and padding may join it; prefix may not)");
    int64_t nq = su->nq, nk = su->nk, d = 0;
    for (int i = 0; i < su->nmats; i++) if (su->mats[i].m->cols > d) d = su->mats[i].m->cols;
    if (st->id == STAGE_ONLINE_SOFTMAX) {
        if (st->block > su->nk)
            return fail_line(p, st->line, 2, "stage online_softmax has block: %d but the setup has %d keys", st->block, su->nk);
        p->work += 4 * nq * nk * d;
    }
    if (st->id == STAGE_KV_CACHE) p->work += 4 * nq * nk * d;
    if (p->work > LESSON_MAX_WORK)
        return fail_line(p, st->line, 2, "computing the lesson up to this stage takes about %" PRId64 " million multiplications, "
                         "over the limit of %" PRId64 " million", p->work / 1000000, LESSON_MAX_WORK / 1000000);
    return true;
}

/* The stages a setup given its weights can show: those that start from
** the weights (values and a mask where the stage needs them). */
static bool check_given_stage(Parser *p, const Stage *st, const Setup *su)
{
    const char *id = lesson_stage_name(st->id);
    switch (st->id) {
    case STAGE_SOFTMAX: case STAGE_MULTI_HEAD: case STAGE_PER_TOKEN: case STAGE_ENTROPY:
    case STAGE_CAUSAL_MASK: case STAGE_CROSS_ATTENTION:
        return true;
    case STAGE_WEIGHTED_SUM:
        if (su->values.input) return true;
        return fail_line(p, st->line, 2, "stage weighted_sum needs values, but this setup is given only its weights "
                         "(attention: %s); add 'values: ...'", su->attention);
    default:
        return fail_line(p, st->line, 2, "stage %s computes what comes before the weights, but this setup is given its weights "
                         "(attention: %s, line %d); it can show softmax, multi_head, per_token, entropy, causal_mask, "
                         "cross_attention and, with values, weighted_sum", id, su->attention, su->attention_line);
    }
}

/* Check that a stage can be shown with its setup. */
static bool check_stage(Parser *p, const Stage *st)
{
    const Setup *su = &p->L->setups[st->setup];
    const char *id = lesson_stage_name(st->id);
    if (su->attention && !check_given_stage(p, st, su)) return false;
    switch (st->id) {
    case STAGE_MULTI_HEAD:
        if (su->heads < 2) return fail_line(p, st->line, 2, "stage multi_head needs 'heads:' of 2 or more in its setup, found %d", su->heads);
        break;
    case STAGE_CAUSAL_MASK:
        if (su->mask == MASK_NONE) return fail_line(p, st->line, 2, "stage causal_mask needs a mask in its setup: add 'mask: causal' (or allow/block NAME)");
        break;
    case STAGE_QKV_PROJECTION:
        if (!su->queries.weight && !su->keys.weight && !su->values.weight)
            return fail_line(p, st->line, 2, "stage qkv_projection needs projections: write 'queries: X @ W_q' (and keys, values)");
        break;
    case STAGE_ADDITIVE_SCORES:
        if (su->score != SCORE_ADDITIVE) return fail_line(p, st->line, 2, "stage additive_scores needs 'score: additive' in its setup");
        break;
    case STAGE_CROSS_ATTENTION:
        if (!su->cross) return fail_line(p, st->line, 2, "stage cross_attention needs query_tokens and key_tokens in its setup");
        break;
    case STAGE_POSITIONAL_ENCODING: case STAGE_ROPE: case STAGE_ALIBI: case STAGE_GROUPED_QUERY:
    case STAGE_KV_CACHE: case STAGE_ONLINE_SOFTMAX:
        if (!check_modern_stage(p, st, su)) return false;
        break;
    case STAGE_SCALED_SCORES:
        if (su->score == SCORE_ADDITIVE) return fail_line(p, st->line, 2, "stage scaled_scores needs dot-product scores, but the setup says score: additive");
        break;
    default:
        break;
    }
    if (st->head > su->heads) return fail_line(p, st->line, 2, "stage %s asks for head %d but the setup has %d", id, st->head, su->heads);
    if (st->query > su->nq) return fail_line(p, st->line, 2, "stage %s asks for query %d but there are %d", id, st->query, su->nq);
    return check_pages(p, st, su);
}

/* ---------------------------------------------------------------- sections */

/* Close the paragraph being collected into the current stage. */
static void flush_para(Parser *p)
{
    if (p->para.len == 0) return;
    Stage *st = &p->L->stages[p->L->nstages - 1];
    if ((st->npara & (st->npara - 1)) == 0)     /* 0, 1, 2, 4, ...: the array doubles */
        st->paras = xrealloc(st->paras, sizeof *st->paras * (size_t)(st->npara ? 2 * st->npara : 1));
    st->paras[st->npara++] = buf_take(&p->para);
}

/* End the current section: finish rows, paragraphs and checks. */
static bool end_section(Parser *p)
{
    if (!finish_rows(p)) return false;
    p->cont_target = NULL;
    if (p->sec == SEC_STAGE) flush_para(p);
    if (p->sec == SEC_SETUP) return check_setup(p, cur_setup(p));
    return true;
}

/* Deep-copy a setup to start the next one from it. */
static void inherit_setup(Setup *dst, const Setup *src)
{
    *dst = *src;
    dst->title = NULL;
    dst->qtokens = copy_tokens(src->qtokens, src->nq);
    dst->ktokens = copy_tokens(src->ktokens, src->nk);
    dst->dims = copy_tokens(src->dims, src->ndims);
    dst->key_dims = copy_tokens(src->key_dims, src->nkey_dims);
    dst->mats = src->nmats ? xmalloc(sizeof *dst->mats * (size_t)src->nmats) : NULL;
    for (int i = 0; i < src->nmats; i++) {      /* the matrices shared until one is changed (own_matrix) */
        dst->mats[i] = src->mats[i];
        dst->mats[i].name = xstrdup(src->mats[i].name);
        dst->mats[i].how = xstrdup(src->mats[i].how);
        dst->mats[i].borrowed = true;
    }
    Operand *o[3] = { &dst->queries, &dst->keys, &dst->values };
    for (int i = 0; i < 3; i++) {
        o[i]->input = o[i]->input ? xstrdup(o[i]->input) : NULL;
        o[i]->weight = o[i]->weight ? xstrdup(o[i]->weight) : NULL;
    }
    char **strs[] = { &dst->mask_matrix, &dst->output_proj, &dst->add_w1, &dst->add_w2, &dst->add_v, &dst->pad_token,
                      &dst->attention };
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        if (*strs[i]) *strs[i] = xstrdup(*strs[i]);
}

/* `[setup]`, `[setup: Title]`, `[STAGE_ID]` or `[STAGE_ID: Title]`. */
static bool parse_section(Parser *p, const char *s)
{
    if (!end_section(p)) return false;
    const char *open = s;
    s++;
    const char *name_at = skip_ws(s);
    size_t n = ident_len(name_at);
    char name[40] = "";
    if (n > 0 && n < sizeof name) memcpy(name, name_at, n);
    const char *q = skip_ws(name_at + n);
    const char *title = NULL, *close = strchr(q, ']');
    if (!close) return FAIL(p, open, "expected ']' to close the section header");
    if (*q == ':') {
        title = skip_ws(q + 1);
    } else if (q != close) {
        char f[48];
        found(q, f, sizeof f);
        return FAIL(p, q, "expected ':' or ']' after the section name, found %s", f);
    }
    if (!end_of_line(p, close + 1)) return false;
    size_t tlen = title ? (size_t)(close - title) : 0;
    while (tlen > 0 && (title[tlen - 1] == ' ' || title[tlen - 1] == '\t')) tlen--;
    memset(p->key_line, 0, sizeof p->key_line);
    Lesson *L = p->L;
    if (!strcmp(name, "setup")) {
        if (L->nsetups >= LESSON_MAX_SETUPS) return FAIL(p, open, "too many setups (the limit is %d)", LESSON_MAX_SETUPS);
        for (int i = 0; L->nsetups > 0 && i < L->setups[L->nsetups - 1].nmats; i++) {
            const Mat *m = L->setups[L->nsetups - 1].mats[i].m;
            if (!add_numbers(p, p->lineno, 1, (int64_t)m->rows * m->cols)) return false;
        }
        L->setups = xrealloc(L->setups, sizeof *L->setups * (size_t)(L->nsetups + 1));
        Setup *su = &L->setups[L->nsetups];
        if (L->nsetups > 0) inherit_setup(su, &L->setups[L->nsetups - 1]);
        else {
            memset(su, 0, sizeof *su);
            su->heads = 1;
            su->temperature = 1.0;
        }
        L->nsetups++;
        su->line = p->lineno;
        su->seed = p->seed;
        su->seeded = p->seeded;
        su->title = tlen ? xstrndup(title, tlen) : NULL;
        p->sec = SEC_SETUP;
        return true;
    }
    StageId id;
    if (!lesson_stage_from_name(name, &id)) {
        char list[400] = "setup";
        for (int i = 0; i < STAGE_COUNT; i++) {
            assert(strlen(list) + 2 + strlen(stage_names[i]) < sizeof list);   /* every stage name fits */
            strcat(list, ", "); strcat(list, stage_names[i]);
        }
        char f[48];
        if (n > 0) snprintf(f, sizeof f, "'%.*s'", (int)(n < 40 ? n : 40), name_at);
        else found(name_at, f, sizeof f);
        return FAIL(p, name_at, "unknown section %s; expected one of: %s", f, list);
    }
    if (L->nsetups == 0) return FAIL(p, name_at, "stage %s comes before any [setup]: the stage needs a setup above it", name);
    if (L->nstages >= LESSON_MAX_STAGES) return FAIL(p, open, "too many stages (the limit is %d)", LESSON_MAX_STAGES);
    L->stages = xrealloc(L->stages, sizeof *L->stages * (size_t)(L->nstages + 1));
    Stage *st = &L->stages[L->nstages++];
    memset(st, 0, sizeof *st);
    st->id = id;
    st->setup = L->nsetups - 1;
    st->line = p->lineno;
    st->decimals = -1;
    st->title = tlen ? xstrndup(title, tlen) : NULL;
    p->sec = SEC_STAGE;
    p->stage_prose = false;
    return true;
}

/* `language: ja`: a code for the interface's catalogue (see i18n.h). */
static bool parse_language(Parser *p, const char *v)
{
    char code[64];
    size_t n = strcspn(v, " \t");
    snprintf(code, sizeof code, "%.*s", (int)(n < sizeof code - 1 ? n : sizeof code - 1), v);
    if (!i18n_lang_valid(code))
        return FAIL(p, v, "'%s' is not a language code; write two or three lowercase letters, "
                    "optionally with a region (ja, es, ar, pt_BR)", code);
    if (v[n]) return FAIL(p, skip_ws(v + n), "expected one language code after 'language:'");
    p->L->language = xstrdup(code);
    p->cont_target = NULL;
    return true;
}

/* A `key: value` line before the first section. */
static bool parse_head_key(Parser *p, const char *key, const char *key_at, const char *v)
{
    int k = key_index(head_keys, key);
    if (k < 0) {
        if (key_index(setup_keys, key) >= 0)
            return FAIL(p, key_at, "'%s' belongs in a [setup] section; add '[setup]' above it", key);
        return FAIL(p, key_at, "unknown key '%s' at the top of the lesson; expected title, summary or language", key);
    }
    if (p->key_line[k]) return FAIL(p, key_at, "'%s' is set twice (first on line %d)", key, p->key_line[k]);
    p->key_line[k] = p->lineno;
    v = skip_ws(v);
    if (!*v) return FAIL(p, v, "expected text after '%s:'", key);
    if (k == 2) return parse_language(p, v);
    char **dst = k == 0 ? &p->L->title : &p->L->summary;
    *dst = xstrdup(v);
    p->cont_target = dst;
    p->cont_len = strlen(v);
    p->cont_cap = p->cont_len + 1;
    return true;
}

/* Strip a trailing " # comment" from a settings line (not from prose). */
static void strip_comment(char *s)
{
    bool quoted = false;
    for (char *c = s; *c; c++) {
        if (*c == '"') quoted = !quoted;
        if (*c == '#' && !quoted && (c == s || c[-1] == ' ' || c[-1] == '\t')) { *c = '\0'; break; }
    }
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
}

/* One line of the file (already without its line ending). */
static bool parse_line(Parser *p, char *line)
{
    p->line = line;
    bool indented = line[0] == ' ' || line[0] == '\t';
    const char *s = skip_ws(line);
    bool blank = *s == '\0';
    bool comment = *s == '#';

    /* Prose: a stage's text after its options, kept verbatim. */
    if (p->sec == SEC_STAGE && p->stage_prose && *s != '[') {
        if (comment) return true;
        if (blank) { flush_para(p); return true; }
        if (p->para.len) buf_puts(&p->para, " ");
        buf_puts(&p->para, s);
        return true;
    }
    /* A stage's options sit directly under its header; a blank line or the
    ** first line that is not `option: value` starts the prose. */
    if (p->sec == SEC_STAGE && !p->stage_prose && *s != '[' && !comment) {
        size_t kn = ident_len(s);
        /* an option is a lowercase word: "Note: ..." is prose */
        if (blank || kn == 0 || *skip_ws(s + kn) != ':' || isupper((unsigned char)*s)) {
            p->stage_prose = true;
            return parse_line(p, line);
        }
    }
    if (blank || comment) {
        if (blank && p->rows_target == NULL) p->cont_target = NULL;
        return true;
    }
    strip_comment(line);
    if (indented && *s != '[') {           /* a '[' line starts a section, indented or not */
        if (p->rows_target) return parse_row(p, s);
        if (p->cont_target) {          /* joined with a space, in amortised O(line) */
            size_t b = strlen(s), need = p->cont_len + b + 2;
            if (need > p->cont_cap) {
                p->cont_cap = need > 2 * p->cont_cap ? need : 2 * p->cont_cap;
                *p->cont_target = xrealloc(*p->cont_target, p->cont_cap);
            }
            char *t = *p->cont_target;
            t[p->cont_len] = ' ';
            memcpy(t + p->cont_len + 1, s, b + 1);
            p->cont_len += b + 1;
            return true;
        }
    }
    if (!finish_rows(p)) return false;
    p->cont_target = NULL;
    if (*s == '[') return parse_section(p, s);

    /* key: value  or  NAME = ... */
    if (*s == '_') {
        char f[48];
        found(s, f, sizeof f);
        return FAIL(p, s, "a name starts with a letter, found %s", f);
    }
    size_t n = ident_len(s);
    const char *after = skip_ws(s + n);
    if (n > 0 && *after == '=' && p->sec == SEC_SETUP) return parse_matrix_def(p, s);
    if (n > 0 && *after == '[' && p->sec == SEC_SETUP) return parse_override(p, s);
    if (n == 0 || *after != ':') {
        char f[48];
        found(s, f, sizeof f);
        if (n > 0 && *after == '=')
            return FAIL(p, s, "matrices are defined inside a [setup] section, found %s here", f);
        return FAIL(p, s, "expected 'key: value'%s, found %s",
                    p->sec == SEC_SETUP ? " or 'NAME = ...'" : "", f);
    }
    char key[40];
    if (n >= sizeof key) n = sizeof key - 1;
    memcpy(key, s, n);
    key[n] = '\0';
    switch (p->sec) {
    case SEC_HEAD: return parse_head_key(p, key, s, after + 1);
    case SEC_SETUP: return parse_setup_key(p, key, s, after + 1);
    case SEC_STAGE: return parse_stage_key(p, key, s, after + 1);
    }
    return true;
}

/* ----------------------------------------------------------------- file */

/* Whole-file checks: NUL bytes, UTF-8, control characters, noncharacters, line lengths. */
static bool check_bytes(Parser *p, const char *text, size_t len)
{
    int line = 1, col = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)text[i];
        p->lineno = line;
        if (c == '\n') {
            line++; col = 1; i++; line_start = i;
            continue;
        }
        /* the CR of a CRLF ends the line and is not part of it */
        if (c == '\r' && (i + 1 == len || text[i + 1] == '\n')) { i++; continue; }
        if (i - line_start >= LESSON_MAX_LINE) {
            fail_at(p, col, "line is longer than %d bytes", LESSON_MAX_LINE);
            p->err->kind = LESSON_ERR_LIMIT;
            return false;
        }
        if (c == 0) return fail_at(p, col, "NUL byte in the file (is it a text file?)");
        /* any other CR is an old Mac line ending, which would otherwise
        ** run the lines together */
        if (c == '\r')
            return fail_at(p, col, "carriage return (0x0d) that does not end a line; "
                           "save the file with Unix (LF) or Windows (CRLF) line endings");
        if (c < 0x20 && c != '\t' && c != '\r')
            return fail_at(p, col, "control character 0x%02x in the file (is it a text file?)", c);
        int n = utf8_seq_len(text + i, len - i);
        if (n == 0) return fail_at(p, col, "invalid UTF-8 byte 0x%02x (save the file as UTF-8)", c);
        uint32_t cp;
        utf8_decode(text + i, len - i, &cp);
        if (utf8_noncharacter(cp))      /* no font draws one, and every output would show it differently */
            return fail_at(p, col, "U+%04X is a noncharacter, not text (Unicode reserves it for a program's own use); "
                           "delete it or write the character you meant", (unsigned)cp);
        i += (size_t)n;
        col++;
    }
    return true;
}

/* Parse a whole lesson. */
Lesson *lesson_parse(const char *text, size_t len, const char *filename, LessonError *err)
{
    Parser P;
    memset(&P, 0, sizeof P);
    Parser *p = &P;
    p->err = err;
    memset(err, 0, sizeof *err);
    p->L = xcalloc(1, sizeof *p->L);
    p->L->path = xstrdup(filename);
    bool std_in = !strcmp(filename, FILEIO_STDIN);      /* messages say <stdin>, pictures stdin-NN-... */
    p->L->shown = std_in ? xstrdup(LESSON_STDIN_SHOWN) : util_shown(filename);
    p->file = p->L->shown;                  /* messages name the file on one line */
    const char *base = strrchr(filename, '/');
    base = std_in ? "stdin" : base ? base + 1 : filename;
    size_t bl = strlen(base);
    if (bl > 7 && !strcmp(base + bl - 7, ".lesson")) bl -= 7;
    p->L->name = xstrndup(base, bl);
    bool ok = true;
    if (len > LESSON_MAX_BYTES) {
        p->lineno = 1;
        ok = fail_at(p, 1, "file is %zu bytes, over the limit of %d bytes", len, LESSON_MAX_BYTES);
        err->kind = LESSON_ERR_LIMIT;
    }
    unsigned bom = 0;
    if (ok && len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) { text += 3; len -= 3; bom = 3; }   /* BOM */
    if (ok) ok = check_bytes(p, text, len);
    char *line = ok ? xmalloc(LESSON_MAX_LINE + 1) : NULL;
    size_t i = 0;
    p->lineno = 0;
    while (ok && i < len) {
        size_t j = i;
        while (j < len && text[j] != '\n') j++;
        size_t n = j - i;
        p->line_crlf = n > 0 && text[i + n - 1] == '\r';
        if (p->line_crlf) n--;                                             /* CRLF */
        p->line_off = bom + (unsigned)i;
        p->line_end = bom + (unsigned)(j < len ? j + 1 : j);
        memcpy(line, text + i, n);
        line[n] = '\0';
        p->lineno++;
        ok = parse_line(p, line);
        i = j + 1;
    }
    if (ok) {
        p->lineno++;
        p->line = "";
        ok = end_section(p);
    }
    free(line);
    if (ok && !p->L->title) { p->lineno = 1; ok = fail_at(p, 1, "the lesson has no title: add 'title: ...' at the top"); }
    if (ok && p->L->nsetups == 0) { p->lineno = 1; ok = fail_at(p, 1, "the lesson has no [setup] section"); }
    if (ok && p->L->nstages == 0) { p->lineno = 1; ok = fail_at(p, 1, "the lesson has no stages: add a section such as [softmax]"); }
    for (int k = 0; ok && k < p->L->nstages; k++) ok = check_stage(p, &p->L->stages[k]);
    free(p->rows);
    free(p->spans);
    buf_free(&p->para);
    if (!ok) {
        lesson_free(p->L);
        return NULL;
    }
    return p->L;
}

/* The message of a lesson that cannot be read (path as shown). */
static void lesson_read_error(LessonError *err, const char *path, const FileioError *fe)
{
    if (fe->kind == FILEIO_IO) {
        err->kind = LESSON_ERR_IO;
        snprintf(err->msg, sizeof err->msg, "%s: error: %s", path, fe->reason);
        return;
    }
    /* Over the limit: say the file's real size when it tells it. */
    err->kind = LESSON_ERR_LIMIT;
    err->line = err->col = 1;
    if (fe->size > LESSON_MAX_BYTES)
        snprintf(err->msg, sizeof err->msg, "%s:1:1: error: file is %lld bytes, over the limit of %d bytes",
                 path, fe->size, LESSON_MAX_BYTES);
    else
        snprintf(err->msg, sizeof err->msg, "%s:1:1: error: file is over the limit of %d bytes",
                 path, LESSON_MAX_BYTES);
}

/* The bytes of a lesson file, within the size limit. */
char *lesson_read(const char *path, size_t *len, LessonError *err)
{
    memset(err, 0, sizeof *err);
    FileioError fe;
    char *text = fileio_read(path, LESSON_MAX_BYTES, len, &fe);
    if (text) return text;
    char *shown = strcmp(path, FILEIO_STDIN) ? util_shown(path) : xstrdup(LESSON_STDIN_SHOWN);
    lesson_read_error(err, shown, &fe);
    free(shown);
    return NULL;
}

/* 1 for I/O, 2 for everything else that went wrong, 0 for nothing. */
int lesson_exit_code(const LessonError *err)
{
    switch (err->kind) {
    case LESSON_ERR_IO: return 1;
    case LESSON_ERR_INVALID: case LESSON_ERR_LIMIT: return 2;
    case LESSON_ERR_NONE: break;
    }
    return err->msg[0] ? 2 : 0;
}

/* Read a file and parse it. */
Lesson *lesson_load(const char *path, LessonError *err)
{
    size_t len;
    char *text = lesson_read(path, &len, err);
    if (!text) return NULL;
    Lesson *L = lesson_parse(text, len, path, err);
    free(text);
    return L;
}

/* Release a setup's contents. */
static void free_setup(Setup *s)
{
    free(s->title);
    free_tokens(s->qtokens, s->nq);
    free_tokens(s->ktokens, s->nk);
    free_tokens(s->dims, s->ndims);
    free_tokens(s->key_dims, s->nkey_dims);
    for (int i = 0; i < s->nmats; i++) free_matrix(&s->mats[i]);
    free(s->mats);
    Operand *o[3] = { &s->queries, &s->keys, &s->values };
    for (int i = 0; i < 3; i++) { free(o[i]->input); free(o[i]->weight); }
    free(s->mask_matrix);
    free(s->pad_token);
    free(s->attention);
    free(s->output_proj);
    free(s->add_w1); free(s->add_w2); free(s->add_v);
}

/* Release a lesson. */
void lesson_free(Lesson *L)
{
    if (!L) return;
    for (int i = 0; i < L->nsetups; i++) free_setup(&L->setups[i]);
    free(L->setups);
    for (int i = 0; i < L->nstages; i++) {
        Stage *st = &L->stages[i];
        free(st->title);
        free(st->cmap);
        for (int k = 0; k < st->npara; k++) free(st->paras[k]);
        free(st->paras);
    }
    free(L->stages);
    for (int i = 0; i < L->ndefs; i++) free(L->defs[i].cells);
    free(L->defs);
    free(L->ovrs);
    free(L->path);
    free(L->shown);
    free(L->name);
    free(L->title);
    free(L->summary);
    free(L->language);
    free(L);
}
