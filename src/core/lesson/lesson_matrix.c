/*
** lesson_matrix.c: the matrices of a setup (see lesson_int.h).
**
** `NAME = ...` defines a matrix (its rows written out on the indented
** lines below it, or a generator: lesson_gen.c), `NAME[ROW,COL] = VALUE`
** sets one cell of it afterwards. For saving edits in place, every
** definition (LessonDef), every written-out number and every override
** (LessonOverride) records where it sits in the text. A setup shares the
** matrices it inherits with the setup above until an override changes one
** (own_matrix).
*/
#include "lesson_int.h"
#include "core/compute/trace.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Find a matrix of a setup. */
LessonMatrix *lesson_matrix(const Setup *s, const char *name)
{
    for (int i = 0; i < s->nmats; i++)
        if (!strcmp(s->mats[i].name, name)) return &s->mats[i];
    return NULL;
}

/* Release one matrix definition's contents (the matrix only if it is its own). */
void lp_matrix_free(LessonMatrix *m)
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
bool lp_shape(Parser *p, const char **sp, int64_t *stack, int64_t *rows, int64_t *cols, bool allow_stack)
{
    int64_t dims[3];
    int nd = 0;
    const char *s = skip_ws(*sp), *start = s;
    for (;;) {
        /* A size below 1 gets its own message: scan_int's range would have
        ** named 1048576, which is not the limit of one side. */
        const char *at = skip_ws(s);
        if (!lp_int(p, &s, -1000000000, 1000000000, nd == 0 ? "a size like 3x4" : "a size", &dims[nd])) return false;
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

/* A matrix name that must exist in the current setup. */
char *lp_known_matrix(Parser *p, const char **sp)
{
    const char *at = skip_ws(*sp);
    char *name = lp_ident(p, sp, "a matrix name");
    if (name && !lesson_matrix(lp_setup(p), name)) {
        FAIL(p, at, "no matrix called %s is defined above", name);
        free(name);
        return NULL;
    }
    return name;
}

/* ------------------------------------------------------------ written out */

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
bool lp_row(Parser *p, const char *s)
{
    assert(p->rows_target);
    int count = 0;
    s = skip_ws(s);
    /* Checked first: a 1025th row used to be reported as "more than 1048576
    ** cells" even when the matrix had a single column. */
    if (p->nrows >= LESSON_MAX_DIM) return FAIL(p, s, "%s has more than %d rows", p->rows_target->name, LESSON_MAX_DIM);
    while (*s) {
        double v;
        if (count >= LESSON_MAX_DIM) return FAIL(p, s, "row has more than %d numbers", LESSON_MAX_DIM);
        const char *num_at = s;
        if (!lp_number(p, &s, &v)) return false;
        add_span(p, (p->nrows * p->rows_cols) + count, num_at, s);
        if (*s && *s != ' ' && *s != '\t' && *s != ',') {
            char f[48];
            lp_found(s, f, sizeof f);
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
        return lp_fail_at(p, 1 + (int)(skip_ws(p->line) - p->line),
                       "row %d of %s has %d numbers, but row 1 has %d",
                       p->nrows + 1, p->rows_target->name, count, p->rows_cols);
    }
    p->nrows++;
    p->rows_target->end_line = p->lineno;
    p->L->defs[p->rows_target->def].end = p->line_end;
    return true;
}

/* The rows of a written-out matrix are complete: build it. */
bool lp_finish_rows(Parser *p)
{
    LessonMatrix *lm = p->rows_target;
    if (!lm) return true;
    p->rows_target = NULL;
    if (p->nrows == 0)
        return lp_fail_line(p, lm->line, 1, "%s has no rows: write them on the following lines, indented", lm->name);
    if (p->rows_cols % p->rows_stack != 0)
        return lp_fail_line(p, lm->line, 1, "%s is a stack of %d but its rows have %d numbers, not a multiple of %d",
                         lm->name, p->rows_stack, p->rows_cols, p->rows_stack);
    if (!lp_add_numbers(p, lm->line, 1, (int64_t)p->nrows * p->rows_cols)) return false;
    lm->m = mat_from(p->nrows, p->rows_cols, p->rows);
    LessonDef *d = &p->L->defs[lm->def];
    d->rows = p->nrows;
    d->cols = p->rows_cols;
    d->cells = xmalloc(sizeof *d->cells * (size_t)p->nrows * (size_t)p->rows_cols);
    memcpy(d->cells, p->spans, sizeof *d->cells * (size_t)p->nrows * (size_t)p->rows_cols);
    return true;
}

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
bool lp_matrix_def(Parser *p, const char *s)
{
    Setup *su = lp_setup(p);
    const char *name_at = skip_ws(s);
    char *name = lp_ident(p, &s, "a matrix name");
    if (!name) return false;
    s = skip_ws(s);
    if (*s != '=') { free(name); return FAIL(p, s, "expected '=' after the matrix name"); }
    /* The trace keeps an input and a computed matrix of the same name as one
    ** entry, so an input called "weights" would be shown (and labelled with
    ** tokens) in place of the real weights. */
    if (trace_reserved_name(name)) {
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
        lp_matrix_free(old);
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
    if (!lp_generator(p, lm, s + 1)) return false;
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
bool lp_override(Parser *p, const char *s)
{
    Lesson *L = p->L;
    const char *name_at = s;
    char *name = lp_ident(p, &s, "a matrix name");
    if (!name) return false;
    LessonMatrix *lm = lesson_matrix(lp_setup(p), name);
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
    if (!lp_int(p, &s, 1, lm->m->rows, what, &row)) return false;
    s = skip_ws(s);
    if (*s != ',') return FAIL(p, s, "expected ',' between the row and the column, as in %s[1,2]", lm->name);
    s++;
    snprintf(what, sizeof what, "the column of %s", lm->name);
    if (!lp_int(p, &s, 1, lm->m->cols, what, &col)) return false;
    s = skip_ws(s);
    if (*s != ']') return FAIL(p, s, "expected ']' after the column, as in %s[1,2]", lm->name);
    s = skip_ws(s + 1);
    if (*s != '=') return FAIL(p, s, "expected '=' after %s[%" PRId64 ",%" PRId64 "]", lm->name, row, col);
    s = skip_ws(s + 1);
    const char *num_at = s;
    if (!lp_number(p, &s, &v)) return false;
    if (*skip_ws(s)) {
        char f[48];
        lp_found(num_at, f, sizeof f);
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
