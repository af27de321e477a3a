/*
** lesson_gen.c: matrices a lesson draws or loads rather than writes out (see
** lesson_int.h).
**
** `NAME = GENERATOR ...` names one of the generators in the table below:
** numpy's (randn, rand, randint, with the legacy generator of `seed:`),
** PyTorch's (torch_rand, torch_randn, xavier_uniform, linear, linear_bias,
** with the generator of `torch_seed:`), fixed ones (zeros, ones, identity,
** onehot, sinusoid), `transpose NAME`, and `load` of a .npy file or an
** array of a .npz archive. Random matrices are drawn as soon as their line
** is read, from one generator of each kind for the whole file, so the draw
** order is the order of the file. Every size is checked against the
** lesson's limits and budgets before anything is allocated.
*/
#include "lesson_int.h"
#include "core/io/npy.h"

#include <assert.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a generator line is read into. */
typedef struct GenLine {
    LessonMatrix *lm;
    const char *word;           /* the generator's name (at most 15 bytes, else "") */
    const char *at;             /* where the name starts: errors point there */
    const char *s;              /* what follows the name */
    int col;                    /* the column of at */
    int64_t stack;              /* matrices side by side (1 unless a stack) */
    double scale;               /* `* S` still to apply (1: none, or applied while drawing) */
} GenLine;

/* Read the rest of a generator line into g->lm. */
typedef bool (*GenFn)(Parser *p, GenLine *g);

static void gen_names(GenFn only, char *out, size_t n);

/* ------------------------------------------------------------- numpy's */

/* An optional "* EXPR" scale after a generator; 1 when absent. */
static bool parse_scale(Parser *p, const char *s, double *scale)
{
    s = skip_ws(s);
    *scale = 1.0;
    if (!*s) return true;
    if (*s != '*') {
        char f[48];
        lp_found(s, f, sizeof f);
        return FAIL(p, s, "expected '* SCALE' or the end of the line, found %s", f);
    }
    return lp_expr_line(p, s + 1, scale);
}

/* Random generators need a seed first, for reproducibility. */
static bool need_seed(Parser *p, const char *at, const char *gen)
{
    if (p->seeded) return true;
    return FAIL(p, at, "%s needs a seed: add 'seed: N' to the setup before this line", gen);
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

/* ------------------------------------------------------------ PyTorch's */

/* `torch_seed: S`: torch.manual_seed(S) for any S from 0 to 2^64-1. */
bool lp_torch_seed(Parser *p, const char *s)
{
    const char *start = s;
    if (*s == '-') s++;
    if (!isdigit((unsigned char)*s)) {
        char f[48];
        lp_found(start, f, sizeof f);
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
    if (!lp_end(p, s)) return false;
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
static bool gen_torch(Parser *p, GenLine *g)
{
    const char *word = g->word, *gen_at = g->at, *s = g->s;
    int col = g->col;
    bool is_bias = !strcmp(word, "linear_bias"), is_linear = !strcmp(word, "linear");
    bool is_xavier = !strcmp(word, "xavier_uniform");
    bool is_rand = !strcmp(word, "torch_rand"), is_randn = !strcmp(word, "torch_randn");
    if (!is_bias && !is_linear && !is_xavier && !is_rand && !is_randn) {
        char f[48], names[120];
        lp_found(gen_at, f, sizeof f);
        gen_names(gen_torch, names, sizeof names);
        return FAIL(p, gen_at, "expected a PyTorch generator (%s), found %s", names, f);
    }
    if (!p->torch_seeded)
        return FAIL(p, gen_at, "%s needs a torch seed: add 'torch_seed: N' to the setup before this line", word);
    int64_t stack = 1, rows = 1, cols, n;
    if (is_bias) {
        const char *num = skip_ws(s);
        if (!lp_int(p, &s, 1, LESSON_MAX_DIM, "the size of the bias", &cols) || !lp_end(p, s)) return false;
        if (p->linear_rows == 0)
            return FAIL(p, gen_at, "linear_bias must come right after the linear weight it belongs to "
                        "(nn.Linear draws its bias just after its weight)");
        if (cols != p->linear_rows)
            return FAIL(p, num, "linear_bias %" PRId64 " does not match the linear weight above, which has %d outputs (rows)",
                        cols, p->linear_rows);
    } else {
        if (!lp_shape(p, &s, &stack, &rows, &cols, is_rand || is_randn)) return false;
    }
    double scale = 1.0, gain = 1.0;
    if (is_rand || is_randn) {
        if (!parse_scale(p, s, &scale)) return false;
    } else if (is_xavier && *skip_ws(s)) {
        s = skip_ws(s);
        if (strncmp(s, "gain", 4) || ident_len(s) != 4) {
            char f[48];
            lp_found(s, f, sizeof f);
            return FAIL(p, s, "expected 'gain G' or the end of the line after the size, found %s", f);
        }
        const char *gain_at = skip_ws(s + 4);
        if (!lp_expr_line(p, s + 4, &gain)) return false;
        if (!(gain > 0)) return FAIL(p, gain_at, "the gain must be greater than 0, found %g", gain);
    } else if (!is_bias && !lp_end(p, s)) {
        return false;
    }
    n = stack * rows * cols;
    if (!lp_add_numbers(p, p->lineno, col, n)) return false;
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
    g->lm->m = m;
    g->stack = stack;
    return true;
}

/* `transpose NAME`: a matrix above in this setup, rows and columns swapped
** (nn.Linear's OUT x IN weight becomes the IN x OUT matrix of X @ W). */
static bool gen_transpose(Parser *p, GenLine *g)
{
    const char *s = g->s, *at = skip_ws(s);
    LessonMatrix *lm = g->lm;
    char *name = lp_known_matrix(p, &s);
    if (!name) return false;
    const LessonMatrix *src = lesson_matrix(lp_setup(p), name);
    bool ok = false;
    if (src == lm || !src->m) FAIL(p, at, "%s cannot be the transpose of itself; give the transpose a new name", name);
    else if (src->stack > 1) FAIL(p, at, "%s is a stack of %d matrices; transpose takes one matrix", name, src->stack);
    else if (lp_end(p, s) && (src->loaded ? lp_add_loaded : lp_add_numbers)(p, p->lineno, lp_col(p, at),
                                                                               (int64_t)src->m->rows * src->m->cols))
        ok = true;
    free(name);
    if (!ok) return false;
    lm->m = mat_transpose(src->m);
    lm->loaded = src->loaded;
    return true;
}

/* ------------------------------------------------------------ NumPy files */

/* One array may hold as many numbers as a whole lesson (docs/lesson-format.md). */
_Static_assert(NPY_MAX_COUNT == LESSON_MAX_LOADED_NUMBERS, "npy.h and lesson.h disagree on the numbers budget");
_Static_assert(LESSON_MAX_LOAD_STACK <= MAT_MAX_DIM && LESSON_MAX_LOAD_DIM <= MAT_MAX_DIM && LESSON_MAX_VOCAB <= MAT_MAX_DIM,
               "a loaded matrix the parser allows is one mat_create makes");
_Static_assert(NPY_TOKEN_BYTES == LESSON_MAX_TOKEN, "npy.h and lesson.h disagree on the bytes of a token");

/* The path of a file a lesson names: relative to the lesson's directory. */
char *lesson_relative(const char *lesson_file, const char *path)
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
    if (!lp_int(p, &num, 1, dim, word, index)) return -1;
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
            lp_found(s, f, sizeof f);
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
    /* one matrix may be as wide as a vocabulary (lesson_check.c allows that to the unembedding only) */
    if (dims[1] > LESSON_MAX_LOAD_DIM || dims[2] > (dims[0] > 1 ? LESSON_MAX_LOAD_DIM : LESSON_MAX_VOCAB)
        || (dims[0] > 1 && dims[2] * dims[0] > LESSON_MAX_LOAD_STACK))
        return FAIL(p, q, "%s: size %" PRId64 "x%" PRId64 " is over the limit of %d rows or columns (%d columns for a stack "
                    "side by side, %d for an unembedding)", file, dims[1], dims[2] * dims[0], LESSON_MAX_LOAD_DIM,
                    LESSON_MAX_LOAD_STACK, LESSON_MAX_VOCAB);
    if (dims[0] * dims[1] * dims[2] > LESSON_MAX_LOAD_CELLS)
        return FAIL(p, q, "%s: %" PRId64 "x%" PRId64 " holds more than %d numbers, the most a loaded matrix holds", file,
                    dims[1], dims[2] * dims[0], LESSON_MAX_LOAD_CELLS);
    p->npy_bytes += (int64_t)h->data_len;
    if (p->npy_bytes > NPY_MAX_FILE)
        return FAIL(p, q, "%s: the NumPy data this lesson loads would be over %" PRId64 " bytes in all", file, NPY_MAX_FILE);
    return lp_add_loaded(p, p->lineno, lp_col(p, q), dims[0] * dims[1] * dims[2]);
}

/* What `load "file" key` reads (key "" for a .npy): an array handed to
** the parser in memory (lesson_parse_with) by that name, else the file
** beside the lesson. NULL with why filled. */
static NpyFile *open_source(const Parser *p, const char *file, const char *key, const LessonArray **given, Error *why)
{
    bool named = false;
    *given = NULL;
    for (int i = 0; i < p->narrays; i++) {
        const LessonArray *a = &p->arrays[i];
        if (!a->file || strcmp(a->file, file)) continue;
        named = true;
        if (*key ? a->key && !strcmp(a->key, key) : !a->key) {
            *given = a;
            return npy_open_data(a->dtype, a->ndim, a->shape, a->data, a->len, why);
        }
    }
    if (named) {                /* the arrays given hold this file, but not this member */
        error_set(why, ERR_INVALID, NULL, 0, 0, "%s%sis not among the arrays given", key, *key ? " " : "");
        return NULL;
    }
    char *path = lesson_relative(p->L->path, file);
    NpyFile *f = npy_open(path, *key ? key : NULL, why);
    free(path);
    return f;
}

/*
** `load "FILE.npy"` or `load "FILE.npz" KEY`, then optional selectors
** `layer L` and `head H`, each picking one index (1-based) of the leading
** axis. What is left must be 1-D (one row), 2-D (a matrix) or 3-D (a stack,
** as `randn HxRxC` makes). Every shape and budget check is made on the
** header, before the data is read.
*/
static bool gen_load(Parser *p, GenLine *g)
{
    const char *s = g->s, *q = skip_ws(s);
    LessonMatrix *lm = g->lm;
    char file[1024], *key;
    Error why;
    if (!parse_load_source(p, &s, file, sizeof file, &key)) return false;
    const LessonArray *given;
    NpyFile *f = open_source(p, file, key, &given, &why);
    if (!f) {
        free(key);
        return FAIL(p, q, "%s: %s", file, why.msg);
    }
    const NpyHeader *h = npy_header(f);
    if (h->kind == 'U' || h->kind == 'S') {
        FAIL(p, q, "%s%s%s holds strings (dtype '%s'), not numbers; a list of words loads as tokens: "
             "tokens = load \"%s\"%s%s (or vocab, query_tokens, key_tokens)", file, *key ? " " : "", key, h->descr, file,
             *key ? " " : "", key);
        free(key);
        npy_close(f);
        return false;
    }
    int64_t layer = -1, head = -1, dims[3];
    int skip = 0, r;
    bool ok = (r = parse_selector(p, &s, "layer", h->ndim > 0 ? h->shape[0] : 0, file, &layer)) >= 0;
    skip += ok ? r : 0;
    ok = ok && (r = parse_selector(p, &s, "head", h->ndim > skip ? h->shape[skip] : 0, file, &head)) >= 0;
    skip += ok ? r : 0;
    ok = ok && lp_end(p, s) && load_dims(p, q, h, skip, file, key, dims);
    if (ok && given && given->borrow && !(given->lent && (skip || dims[0] != 1))) {
        /* a model's weights, or a lent matrix loaded whole: a view of its
        ** numbers, not a copy (they outlive the lesson) */
        assert(!strcmp(given->dtype, "<f4") && given->ndim == 2);
        if (skip || dims[0] != 1) {
            FAIL(p, q, "%s %s is a model's matrix: it loads whole, without layer or head", file, key);
            free(key);
            npy_close(f);
            return false;
        }
        lm->m = mat_view_f32((int)dims[1], (int)dims[2], given->data, given->ld, given->transposed);
        lm->loaded = true;
        lm->mapped = !given->lent;
        g->stack = 1;
        free(key);
        npy_close(f);
        return lm->m != NULL;
    }
    double *all = ok ? xmalloc(sizeof *all * (size_t)h->count) : NULL;
    if (ok && npy_read(f, all, &why) < 0) ok = FAIL(p, q, "%s: %s", file, why.msg);
    if (ok && dims[0] == 1 && skip == 0) {
        /* the whole array is the matrix: it keeps the numbers where they were decoded */
        lm->m = mat_adopt((int)dims[1], (int)dims[2], all);
        all = NULL;
        lm->loaded = true;
        g->stack = 1;
    } else if (ok) {
        /* the selected block is contiguous in C order; a stack goes side by side */
        int64_t cells = dims[0] * dims[1] * dims[2];
        int64_t at = (layer >= 0 ? layer : 0) * (skip == 2 ? h->shape[1] : 1) + (head >= 0 ? head : 0);
        lm->m = mat_create((int)dims[1], (int)(dims[2] * dims[0]));
        lm->loaded = true;
        for (int64_t k = 0; k < dims[0]; k++)
            for (int64_t i = 0; i < dims[1]; i++)
                memcpy(mat_row(lm->m, (int)i) + k * dims[2], all + at * cells + (k * dims[1] + i) * dims[2],
                       sizeof(double) * (size_t)dims[2]);
        g->stack = dims[0];
    }
    free(all);
    free(key);
    npy_close(f);
    return ok;
}

/*
** `tokens = load "FILE.npy"` (or "FILE.npz" KEY): a token list from a 1-D
** NumPy array of strings, as a tokenizer's output is saved
** (np.array(tokenizer.convert_ids_to_tokens(ids))): numpy's str ('<UN')
** or bytes ('|SN'). Each string becomes a token as a quoted one would
** (lp_token_text), and must be one.
*/
bool lp_load_strings(Parser *p, const char *s, int max, char ***out, int *n)
{
    const char *q = skip_ws(s);
    char file[1024], *key;
    Error why;
    if (!parse_load_source(p, &s, file, sizeof file, &key)) return false;
    if (!lp_end(p, s)) { free(key); return false; }
    const LessonArray *given;
    NpyFile *f = open_source(p, file, key, &given, &why);
    const char *sep = *key ? " " : "";
    bool ok = f != NULL;
    if (!ok) FAIL(p, q, "%s: %s", file, why.msg);
    const NpyHeader *h = ok ? npy_header(f) : NULL;
    if (ok && h->kind != 'U' && h->kind != 'S')
        ok = FAIL(p, q, "%s%s%s holds numbers (dtype '%s'); tokens load from an array of strings, such as "
                  "np.array(words)", file, sep, key, h->descr);
    if (ok && h->ndim != 1)
        ok = FAIL(p, q, "%s%s%s is %d-D; tokens load from a 1-D array of strings", file, sep, key, h->ndim);
    if (ok && (h->count < 1 || h->count > max))
        ok = FAIL(p, q, "%s%s%s holds %ld strings; a list holds 1 to %d tokens", file, sep, key, h->count, max);
    if (ok) {
        p->npy_bytes += (int64_t)h->data_len;
        if (p->npy_bytes > NPY_MAX_FILE)
            ok = FAIL(p, q, "%s: the NumPy data this lesson loads would be over %" PRId64 " bytes in all", file, NPY_MAX_FILE);
    }
    char **raw = ok ? xcalloc((size_t)h->count, sizeof *raw) : NULL;
    if (ok && npy_read_strings(f, raw, &why) < 0) {
        free(raw);
        raw = NULL;
        ok = FAIL(p, q, "%s: %s", file, why.msg);
    }
    char **toks = NULL;
    int count = 0;
    if (ok) {
        toks = xcalloc((size_t)h->count, sizeof *toks);
        for (long i = 0; i < h->count; i++) {
            toks[count++] = lp_token_text(raw[i], strlen(raw[i]));
            if (ok && !*toks[i])
                ok = FAIL(p, q, "%s%s%s: string %ld is empty, and a token cannot be", file, sep, key, i + 1);
            else if (ok && strlen(toks[i]) > LESSON_MAX_TOKEN)
                ok = FAIL(p, q, "%s%s%s: string %ld is longer than %d bytes", file, sep, key, i + 1, LESSON_MAX_TOKEN);
        }
        for (long i = 0; i < h->count; i++) free(raw[i]);
        free(raw);
    }
    npy_close(f);
    free(key);
    if (!ok) {
        lp_tokens_free(toks, count);
        return false;
    }
    *out = toks;
    *n = count;
    return true;
}

/* ---------------------------------------------------------- fixed matrices */

/* `zeros RxC [* S]` and `ones RxC [* S]` (a stack as well). */
static bool gen_fill(Parser *p, GenLine *g)
{
    int64_t rows, cols;
    if (!lp_shape(p, &g->s, &g->stack, &rows, &cols, true) || !parse_scale(p, g->s, &g->scale)) return false;
    int64_t n = rows * cols * g->stack;
    if (!lp_add_numbers(p, p->lineno, g->col, n)) return false;
    g->lm->m = mat_create((int)rows, (int)(cols * g->stack));
    if (g->word[0] == 'o')
        for (int64_t i = 0; i < n; i++) g->lm->m->data[i] = 1.0;
    return true;
}

/* `identity K [* S]`. */
static bool gen_identity(Parser *p, GenLine *g)
{
    int64_t k;
    if (!lp_int(p, &g->s, 1, LESSON_MAX_DIM, "the size of the identity", &k) || !parse_scale(p, g->s, &g->scale)) return false;
    if (!lp_add_numbers(p, p->lineno, g->col, k * k)) return false;
    g->lm->m = mat_create((int)k, (int)k);
    for (int i = 0; i < k; i++) mat_set(g->lm->m, i, i, 1.0);
    return true;
}

/* `onehot RxC [* S]`: row i is 1 in column i. */
static bool gen_onehot(Parser *p, GenLine *g)
{
    int64_t rows, cols;
    const char *sh = skip_ws(g->s);
    if (!lp_shape(p, &g->s, &g->stack, &rows, &cols, false) || !parse_scale(p, g->s, &g->scale)) return false;
    if (rows > cols) return FAIL(p, sh, "onehot %" PRId64 "x%" PRId64 " needs at least as many columns as rows", rows, cols);
    if (!lp_add_numbers(p, p->lineno, g->col, rows * cols)) return false;
    g->lm->m = mat_create((int)rows, (int)cols);
    for (int i = 0; i < rows; i++) mat_set(g->lm->m, i, i, 1.0);
    return true;
}

/* `randn RxC [* S]` and `rand RxC [* S]` (a stack as well). */
static bool gen_numpy(Parser *p, GenLine *g)
{
    int64_t rows, cols;
    if (!need_seed(p, g->at, g->word)) return false;
    if (!lp_shape(p, &g->s, &g->stack, &rows, &cols, true) || !parse_scale(p, g->s, &g->scale)) return false;
    if (!lp_add_numbers(p, p->lineno, g->col, rows * cols * g->stack)) return false;
    g->lm->m = gen_random(p, g->word, g->stack, rows, cols, g->scale, 0, 0);
    g->scale = 1.0;             /* applied while drawing, as numpy's randn(...) * S */
    return true;
}

/* `randint HIGH RxC` or `randint LOW HIGH RxC` [* S]: np.random.randint. */
static bool gen_randint(Parser *p, GenLine *g)
{
    int64_t lo = 0, hi, rows, cols;
    if (!need_seed(p, g->at, g->word)) return false;
    const char *first = skip_ws(g->s);
    if (!lp_int(p, &g->s, -1000000000, 1000000000, "the upper bound of randint", &hi)) return false;
    if (*g->s == 'x' || *g->s == 'X')
        return FAIL(p, first, "randint needs its upper bound before the size: randint HIGH RxC (or LOW HIGH RxC)");
    /* a second number before the size makes the first one the lower bound */
    const char *q = skip_ws(g->s);
    while (isdigit((unsigned char)*q) || *q == '-') q++;
    if (*q != 'x' && *q != 'X') {
        lo = hi;
        if (!lp_int(p, &g->s, -1000000000, 1000000000, "the upper bound of randint", &hi)) return false;
    }
    if (hi <= lo) return FAIL(p, first, "randint needs low < high, found %" PRId64 " and %" PRId64, lo, hi);
    if (!lp_shape(p, &g->s, &g->stack, &rows, &cols, true) || !parse_scale(p, g->s, &g->scale)) return false;
    if (!lp_add_numbers(p, p->lineno, g->col, rows * cols * g->stack)) return false;
    g->lm->m = gen_random(p, g->word, g->stack, rows, cols, 1.0, lo, hi);
    return true;
}

/* `sinusoid RxC freq F [noise N]`: X[r][c] = sin((c−1)·r·F) + N·randn with r
** and c from 1 (numpy's k·(i+1) from 0), row by row (seed 001). No `* S`:
** F's expression would take it in. */
static bool gen_sinusoid(Parser *p, GenLine *g)
{
    double freq = 0, noise = 0;
    int64_t rows, cols;
    const char *s = g->s;
    if (!lp_shape(p, &s, &g->stack, &rows, &cols, false)) return false;
    s = skip_ws(s);
    if (strncmp(s, "freq", 4)) {
        char f[48];
        lp_found(s, f, sizeof f);
        return FAIL(p, s, "expected 'freq F' after the size of a sinusoid, found %s", f);
    }
    const char *fs = s + 4;
    if (!lp_expr(p, &fs, &freq, 0)) return false;
    fs = skip_ws(fs);
    bool noisy = !strncmp(fs, "noise", 5);
    if (noisy) {
        if (!need_seed(p, fs, "sinusoid noise")) return false;
        if (!lp_expr_line(p, fs + 5, &noise)) return false;
    } else if (!lp_end(p, fs)) {
        return false;
    }
    if (!lp_add_numbers(p, p->lineno, g->col, rows * cols)) return false;
    Mat *m = g->lm->m = mat_create((int)rows, (int)cols);
    for (int i = 0; i < rows; i++)
        for (int k = 0; k < cols; k++) {
            double angle = (double)((int64_t)k * (i + 1)) * freq;
            if (!isfinite(angle))
                return FAIL(p, g->at, "sinusoid freq %g makes the angle (column-1)*row*freq too large for a double; use a smaller freq", freq);
            double v = sin(angle);
            if (noisy) v += rng_randn(&p->rng) * noise;
            mat_set(m, i, k, v);
        }
    return true;
}

/* ------------------------------------------------------------------ table */

/* Every generator, in the order messages list them. `stack` has no
** function: its rows follow on the next lines (lp_generator). */
static const struct { const char *name; GenFn fn; } generators[] = {
    { "zeros", gen_fill }, { "ones", gen_fill }, { "identity", gen_identity }, { "onehot", gen_onehot },
    { "randn", gen_numpy }, { "rand", gen_numpy }, { "randint", gen_randint }, { "sinusoid", gen_sinusoid },
    { "stack", NULL }, { "load", gen_load },
    { "torch_rand", gen_torch }, { "torch_randn", gen_torch }, { "xavier_uniform", gen_torch },
    { "linear", gen_torch }, { "linear_bias", gen_torch },
    { "transpose", gen_transpose },
};

/* The names of the generators read by only (every one when NULL), ", "
** between them, into out (size n). */
static void gen_names(GenFn only, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof generators / sizeof *generators; i++) {
        if (only && generators[i].fn != only) continue;
        int w = snprintf(out + len, n - len, "%s%s", len ? ", " : "", generators[i].name);
        assert(w > 0 && (size_t)w < n - len);           /* the buffers are sized for the table */
        len += (size_t)w;
    }
}

/* The function of a generator's name. A name that starts like PyTorch's
** (torch_…, linear…) is PyTorch's, which says what it expected. */
static GenFn gen_find(const char *word)
{
    for (size_t i = 0; i < sizeof generators / sizeof *generators; i++)
        if (!strcmp(word, generators[i].name)) return generators[i].fn;
    if (!strncmp(word, "torch_", 6) || !strncmp(word, "linear", 6)) return gen_torch;
    return NULL;
}

/* `NAME =` with nothing after it or `stack N`: the rows follow, indented. */
static bool rows_follow(Parser *p, LessonMatrix *lm, const char *s, size_t n)
{
    int64_t st = 1;
    if (*s) {
        s += n;
        if (!lp_int(p, &s, 1, LESSON_MAX_HEADS, "the number of matrices in the stack", &st)) return false;
        if (!lp_end(p, s)) return false;
    }
    p->rows_target = lm;
    p->rows_stack = (int)st;
    p->nrows = 0;
    p->rows_cols = 0;
    lm->generated = false;
    lm->stack = (int)st;
    return true;
}

/*
** The right-hand side of `NAME = ...`. Either empty (rows follow), `stack N`
** (rows follow, side by side), or a generator.
*/
bool lp_generator(Parser *p, LessonMatrix *lm, const char *s)
{
    s = skip_ws(s);
    size_t n = ident_len(s);
    char word[16] = "";
    if (n > 0 && n < sizeof word) memcpy(word, s, n), word[n] = '\0';
    if (!*s || !strcmp(word, "stack")) return rows_follow(p, lm, s, n);
    GenLine g = { lm, word, s, s + n, lp_col(p, s), 1, 1.0 };
    GenFn fn = gen_find(word);
    if (!fn) {
        char f[48], names[240];
        lp_found(s, f, sizeof f);
        gen_names(NULL, names, sizeof names);
        return FAIL(p, s, "expected rows of numbers on the next lines or a generator (%s), found %s", names, f);
    }
    lm->generated = true;
    if (!fn(p, &g)) return false;
    if (g.scale != 1.0 && lm->m)
        for (int64_t i = 0; i < (int64_t)lm->m->rows * lm->m->cols; i++) mat_data(lm->m)[i] *= g.scale;
    /* A scale like 1e308 turns some draws infinite: such a matrix could
    ** neither be shown nor saved (a written-out inf does not load). A
    ** model's view was checked where it was read (lesson_model.c). */
    if (lm->m->data && !mat_all_finite(lm->m))
        return FAIL(p, s, "%s gives numbers too large for a double (infinite); use a smaller %s",
                    word, strcmp(word, "sinusoid") ? "scale" : "noise");
    lm->stack = (int)g.stack;
    return true;
}
