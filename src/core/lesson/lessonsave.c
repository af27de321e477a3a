/*
** lessonsave.c: edits written into a lesson's own text (see lessonsave.h).
**
** Each edit becomes one operation on the original text: a replacement of a
** number's bytes, or a new override line inserted at the end of a line.
** Operations are made against the original offsets the parser recorded,
** sorted, and the new text is built in one pass; nothing else is touched.
** The result is parsed again and every edited cell compared bit for bit
** before it is handed back, so a save can never write a lesson that loads
** to other numbers than the ones on screen.
*/
#include "lessonsave.h"
#include "core/text/utf8.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One change of the text: bytes [from, to) become text; an insertion has
** from == to and sorts before a replacement at the same place. */
typedef struct Op {
    unsigned from, to;
    bool insert;
    bool remove;                    /* drop the whole line [from, to) */
    int key_kind, key_a, key_b;     /* what it changes, for keeping only the last edit of a place */
    int def, row, col;              /* the cell (inserted overrides are ordered by it) */
    int edit;                       /* the edit it makes */
    char name[LESSON_MAX_NAME + 1];
    char num[32];
} Op;

/* The source of a cell. */
bool lsave_source(const Lesson *L, int setup, const char *matrix, int row, int col, LsaveSource *out)
{
    if (setup < 0 || setup >= L->nsetups) return false;
    const LessonMatrix *lm = lesson_matrix(&L->setups[setup], matrix);
    if (!lm || row < 0 || col < 0 || row >= lm->m->rows || col >= lm->m->cols) return false;
    out->def = lm->def;
    out->ovr = -1;
    for (int i = 0; i < L->novrs && L->ovrs[i].setup <= setup; i++) {
        const LessonOverride *o = &L->ovrs[i];
        if (o->def == lm->def && o->row == row && o->col == col) out->ovr = i;
    }
    return true;
}

/* Same source in two setups? */
bool lsave_shared(const Lesson *L, int s1, int s2, const char *matrix, int row, int col)
{
    LsaveSource a, b;
    return lsave_source(L, s1, matrix, row, col, &a) && lsave_source(L, s2, matrix, row, col, &b)
        && a.def == b.def && a.ovr == b.ovr;
}

/* Does a transpose read this matrix, here or in any setup, earlier or
** later, that has it from the same text? (An edit goes to the text that
** defines it, so a transpose of it in an earlier setup would change too.) */
bool lsave_feeds_transpose(const Lesson *L, int s, const char *matrix)
{
    for (int t = 0; t < L->nsetups; t++) {
        if (t != s && !lsave_shared(L, s, t, matrix, 0, 0)) continue;
        const Setup *su = &L->setups[t];
        for (int k = 0; k < su->nmats; k++) {
            const char *how = su->mats[k].how;
            if (how && !strncmp(how, "transpose", 9) && !strcmp(how + 9 + strspn(how + 9, " \t"), matrix)) return true;
        }
    }
    return false;
}

/* Is this matrix a setup's given attention (`attention: NAME`), here or in
** any setup that has it from the same text? */
bool lsave_gives_attention(const Lesson *L, int s, const char *matrix)
{
    for (int t = 0; t < L->nsetups; t++) {
        if (t != s && !lsave_shared(L, s, t, matrix, 0, 0)) continue;
        if (L->setups[t].attention && !strcmp(L->setups[t].attention, matrix)) return true;
    }
    return false;
}

/* Cells that differ between two parses. */
int lsave_diff(const Lesson *base, const Lesson *edited, LsaveEdit **out)
{
    *out = NULL;
    if (base->nsetups != edited->nsetups) return -1;
    int n = 0, cap = 0;
    for (int s = 0; s < base->nsetups; s++) {
        const Setup *sa = &base->setups[s], *sb = &edited->setups[s];
        if (sa->nmats != sb->nmats) goto differ;
        for (int k = 0; k < sb->nmats; k++) {
            const LessonMatrix *mb = &sb->mats[k], *ma = lesson_matrix(sa, mb->name);
            if (!ma || !mat_same_shape(ma->m, mb->m)) goto differ;
            for (int i = 0; i < mb->m->rows; i++)
                for (int j = 0; j < mb->m->cols; j++) {
                    double x = mat_peek(ma->m, i, j), y = mat_peek(mb->m, i, j);
                    if (!memcmp(&x, &y, sizeof x)) continue;
                    if (n == cap) {
                        cap = cap ? cap * 2 : 16;
                        *out = xrealloc(*out, sizeof **out * (size_t)cap);
                    }
                    LsaveEdit *e = &(*out)[n++];
                    e->setup = s;
                    snprintf(e->matrix, sizeof e->matrix, "%s", mb->name);
                    e->row = i;
                    e->col = j;
                    e->value = y;
                }
        }
    }
    return n;
differ:
    free(*out);
    *out = NULL;
    return -1;
}

/* The start of the line holding offset off. */
static unsigned line_start(const char *text, unsigned off)
{
    while (off > 0 && text[off - 1] != '\n') off--;
    return off;
}

/* The character column of off within its line (0-based). */
static int char_col(const char *text, unsigned off)
{
    unsigned ls = line_start(text, off);
    return (int)utf8_count_n(text + ls, off - ls);
}

typedef enum Align { COL_FREE, COL_RIGHT, COL_LEFT } Align;

/* Do the numbers of column col all end (right) or start (left) in the same
** character column? */
static void column_edges(const char *text, const LessonDef *d, int col, bool *right, bool *left)
{
    const LessonSpan *first = &d->cells[col];
    int s0 = char_col(text, first->off), e0 = char_col(text, first->off + first->len);
    *right = *left = true;
    for (int i = 1; i < d->rows; i++) {
        const LessonSpan *c = &d->cells[i * d->cols + col];
        if (char_col(text, c->off + c->len) != e0) *right = false;
        if (char_col(text, c->off) != s0) *left = false;
    }
}

/* How column col of a written-out matrix is aligned: every number ending in
** the same character column (right); else every one starting in the same
** column, when padding after it keeps the next column in place (left: the
** next column is aligned too, or there is none); else not at all. */
static Align column_align(const char *text, const LessonDef *d, int col)
{
    if (d->rows < 2) return COL_FREE;
    bool right, left, next_right = true, next_left = true;
    column_edges(text, d, col, &right, &left);
    if (right) return COL_RIGHT;
    if (col + 1 < d->cols) column_edges(text, d, col + 1, &next_right, &next_left);
    return left && (next_right || next_left) ? COL_LEFT : COL_FREE;
}

/*
** Widen a replacement of a number to keep its column aligned. Right-aligned:
** a shorter number gets spaces before it, a longer one takes spaces from
** before it. Left-aligned: the same after it. One space always stays
** between two numbers (none is needed after a comma) and before a comment;
** a row keeps at least one character of indentation. floor is where the
** previous operation ended: spaces before it are not ours to take.
*/
static void align_op(const char *text, size_t len, Op *op, Align al, unsigned floor, Buf *pad)
{
    unsigned oldlen = op->to - op->from, nl = (unsigned)strlen(op->num);
    buf_clear(pad);
    if (al == COL_RIGHT) {
        if (nl < oldlen) {
            for (unsigned i = nl; i < oldlen; i++) buf_puts(pad, " ");
            return;
        }
        unsigned a = op->from;
        while (a > floor && text[a - 1] == ' ') a--;
        unsigned avail = op->from - a;
        bool after_comma = a > 0 && text[a - 1] == ',';
        if (!after_comma && avail > 0) avail--;
        unsigned eat = nl - oldlen < avail ? nl - oldlen : avail;
        op->from -= eat;
    } else if (al == COL_LEFT) {
        unsigned b = op->to;
        while (b < len && text[b] == ' ') b++;
        bool eol = b >= len || text[b] == '\n' || text[b] == '\r';
        if (nl < oldlen) {
            if (!eol) for (unsigned i = nl; i < oldlen; i++) buf_puts(pad, " ");
            return;
        }
        if (eol) return;
        unsigned avail = b - op->to;
        if (text[b] != ',' && avail > 0) avail--;
        unsigned eat = nl - oldlen < avail ? nl - oldlen : avail;
        op->to += eat;
    }
}

/* Decimals of a plain number's text; -1 with an exponent. */
static int decimals_of(const char *t, unsigned n)
{
    if (memchr(t, 'e', n) || memchr(t, 'E', n)) return -1;
    const char *dot = memchr(t, '.', n);
    return dot ? (int)(t + n - dot - 1) : 0;
}

/*
** The teacher's style for a number of a written-out matrix: when most of
** the other numbers in its row and column have the same count of decimals,
** a new number with fewer gets as many (0.5 among 0.1350 and 0.0947 is
** written 0.5000): the same double, and the column keeps its width. Only
** the neighbours count, so one long number written once does not make
** every later one long.
*/
static void keep_decimals(const char *text, const LessonDef *d, int row, int col, char *num, size_t n)
{
    int tally[24] = { 0 }, others = 0;
    for (int k = 0; k < d->rows + d->cols; k++) {
        int r = k < d->rows ? k : row, c = k < d->rows ? col : k - d->rows;
        if (r == row && c == col) continue;
        const LessonSpan *sp = &d->cells[r * d->cols + c];
        int dec = decimals_of(text + sp->off, sp->len);
        others++;
        if (dec >= 0 && dec < 24) tally[dec]++;
    }
    int want = 0;
    for (int k = 1; k < 24; k++) if (tally[k] > tally[want]) want = k;
    int have = decimals_of(num, (unsigned)strlen(num));
    size_t len = strlen(num);
    if (tally[want] * 2 <= others || have < 0 || have >= want || len + (size_t)(want - have) + 2 > n) return;
    if (have == 0) num[len++] = '.';
    while (have++ < want) num[len++] = '0';
    num[len] = '\0';
}

/* Order: by position, insertions first, inserted overrides by cell. */
static int op_cmp(const void *x, const void *y)
{
    const Op *a = x, *b = y;
    if (a->from != b->from) return a->from < b->from ? -1 : 1;
    if (a->insert != b->insert) return a->insert ? -1 : 1;
    if (a->row != b->row) return a->row < b->row ? -1 : 1;
    return (a->col > b->col) - (a->col < b->col);
}

/* The end of the last `transpose NAME` definition in setup s that reads
** matrix name, or 0 if none does. A transpose is taken when its line is
** read, so an edit of its source must be written after it to leave it as
** the screen shows it. */
static unsigned transposes_end(const Lesson *L, int s, const char *name)
{
    unsigned end = 0;
    const Setup *su = &L->setups[s];
    for (int k = 0; k < su->nmats; k++) {
        const LessonMatrix *lm = &su->mats[k];
        if (!lm->how || strncmp(lm->how, "transpose", 9) || strcmp(lm->how + 9 + strspn(lm->how + 9, " \t"), name))
            continue;
        for (int i = 0; i < L->ndefs; i++)
            if (L->defs[i].setup == s && L->defs[i].line == lm->line && L->defs[i].end > end) end = L->defs[i].end;
    }
    return end;
}

/* Turn one edit into an operation; false (err filled) if it names no cell. */
static bool make_op(const char *text, const Lesson *L, const LsaveEdit *e, Op *op, Error *err)
{
    LsaveSource src;
    if (!lsave_source(L, e->setup, e->matrix, e->row, e->col, &src))
        return error_set(err, ERR_INVALID, NULL, 0, 0, "no cell %s[%d,%d] in setup %d", e->matrix, e->row + 1,
                         e->col + 1, e->setup + 1);
    memset(op, 0, sizeof *op);
    const LessonDef *d = &L->defs[src.def];
    op->def = src.def;
    op->row = e->row;
    op->col = e->col;
    snprintf(op->name, sizeof op->name, "%s", e->matrix);
    util_fmt_shortest(op->num, sizeof op->num, e->value);
    if (src.ovr >= 0) {
        const LessonOverride *o = &L->ovrs[src.ovr];
        op->from = o->num.off;
        op->to = o->num.off + o->num.len;
        op->key_kind = 1;
        op->key_a = src.ovr;
        /* set back to what is underneath (an edit undone): the line goes,
        ** unless it says more than the number (a comment) */
        unsigned k = op->to;
        while (k < o->end && (text[k] == ' ' || text[k] == '\t' || text[k] == '\r' || text[k] == '\n')) k++;
        if (!memcmp(&o->under, &e->value, sizeof o->under) && k == o->end) {
            op->from = line_start(text, o->num.off);
            op->to = o->end;
            op->remove = true;
        }
    } else if (!d->generated && !transposes_end(L, d->setup, e->matrix)) {
        const LessonSpan *c = &d->cells[e->row * d->cols + e->col];
        op->from = c->off;
        op->to = c->off + c->len;
        op->key_kind = 2;
        op->key_a = src.def;
        op->key_b = e->row * d->cols + e->col;
    } else {
        /* after the definition, or after the last override of this matrix in
        ** its setup, or after the transposes of it in that setup (a written-
        ** out matrix read by one is edited this way too, not in place) */
        unsigned at = d->end, t = transposes_end(L, d->setup, e->matrix);
        if (t > at) at = t;
        for (int i = 0; i < L->novrs; i++)
            if (L->ovrs[i].def == src.def && L->ovrs[i].setup == d->setup && L->ovrs[i].end > at) at = L->ovrs[i].end;
        op->from = op->to = at;
        op->insert = true;
        op->key_kind = 3;
        op->key_a = src.def;
        op->key_b = e->row * d->cols + e->col;
    }
    return true;
}

/* True if the edit of every operation reads back from the saved text bit for bit. */
static bool check_saved(const char *out, size_t out_len, const Lesson *base, const LsaveEdit *all, const Op *ops,
                        int n, Error *err)
{
    Error back_err;
    Lesson *back = lesson_parse(out, out_len, base->path, &back_err);
    if (!back) {
        char line[ERROR_LINE_MAX];
        error_format(&back_err, line, sizeof line);
        return error_set(err, ERR_RUNTIME, NULL, 0, 0, "the saved lesson would not load: %s", line);
    }
    bool ok = true;
    for (int i = 0; ok && i < n; i++) {
        const LsaveEdit *e = &all[ops[i].edit];
        const LessonMatrix *lm = back->nsetups > e->setup ? lesson_matrix(&back->setups[e->setup], e->matrix) : NULL;
        double v = lm ? mat_get(lm->m, e->row, e->col) : 0;
        if (!lm || memcmp(&v, &e->value, sizeof v))
            ok = error_set(err, ERR_RUNTIME, NULL, 0, 0, "%s[%d,%d] would not load back as %.17g", e->matrix, e->row + 1,
                           e->col + 1, e->value);
    }
    lesson_free(back);
    return ok;
}

/* The edited text. */
char *lsave_apply(const char *text, size_t len, const Lesson *base, const LsaveEdit *edits, int n,
                  size_t *out_len, Error *err)
{
    error_clear(err);
    if (base->from_model && n > 0) {
        error_set(err, ERR_INVALID, base->shown, 0, 0, "the numbers of a lesson that reads a model folder come from "
                  "the model: edits to them are not saved into the lesson");
        return NULL;
    }
    Op *ops = n ? xmalloc(sizeof *ops * (size_t)n) : NULL;
    int nops = 0;
    for (int i = 0; i < n; i++) {
        Op op;
        if (!make_op(text, base, &edits[i], &op, err)) { free(ops); return NULL; }
        op.edit = i;
        const LessonMatrix *lm = lesson_matrix(&base->setups[edits[i].setup], edits[i].matrix);
        double now = mat_get(lm->m, edits[i].row, edits[i].col);
        int k = 0;
        while (k < nops && !(ops[k].key_kind == op.key_kind && ops[k].key_a == op.key_a && ops[k].key_b == op.key_b)) k++;
        bool same = !memcmp(&now, &edits[i].value, sizeof now);
        if (k < nops) ops[k] = op;                    /* the last edit of a place wins */
        else if (!same) ops[nops++] = op;
        if (same && k < nops) ops[k] = ops[--nops];   /* edited back to what the text says */
    }
    if (nops > 1) qsort(ops, (size_t)nops, sizeof *ops, op_cmp);
    Buf out = { 0 }, pad = { 0 };
    unsigned at = 0;
    for (int i = 0; i < nops; i++) {
        Op *op = &ops[i];
        const LessonDef *d = &base->defs[op->def];
        Align al = op->key_kind == 2 ? column_align(text, d, op->col) : COL_FREE;
        buf_clear(&pad);
        if (!op->insert && !op->remove) {
            if (op->key_kind == 2) keep_decimals(text, d, op->row, op->col, op->num, sizeof op->num);
            align_op(text, len, op, al, at, &pad);
        }
        buf_append(&out, text + at, op->from - at);
        if (op->remove) {
            /* nothing: the override line is gone */
        } else if (op->insert) {
            const char *eol = d->crlf ? "\r\n" : "\n";
            if (out.len > 0 && out.s[out.len - 1] != '\n') buf_puts(&out, eol);    /* a last line without its end */
            buf_printf(&out, "%s[%d,%d] = %s%s", op->name, op->row + 1, op->col + 1, op->num, eol);
        } else if (al == COL_RIGHT) {
            buf_puts(&out, buf_str(&pad));
            buf_puts(&out, op->num);
        } else {
            buf_puts(&out, op->num);
            buf_puts(&out, buf_str(&pad));
        }
        at = op->to;
    }
    buf_append(&out, text + at, len - at);
    buf_free(&pad);
    *out_len = out.len;
    char *res = buf_take(&out);
    if (!check_saved(res, *out_len, base, edits, ops, nops, err)) {
        free(res);
        res = NULL;
    }
    free(ops);
    return res;
}
