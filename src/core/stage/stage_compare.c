/*
** stage_compare.c: the compare stage, two setups of one lesson on one slide.
**
** A compare stage shows one thing (`show:`: one head's weights, an output,
** the next token's probabilities) as two setups compute it, A and B, on
** one colour scale, and their difference B − A on a diverging scale
** centred on 0: before and after switching heads off, with and without a
** mask, at two temperatures. The parser asks stage_compare_check whether
** both setups compute it with the same shape; the view names what differs
** between them (their settings and matrices, and for setups that continue
** a stream, what differs in the setups they continue) and where the
** difference is largest.
**
** A's and B's panels borrow their matrices from the trace of their own
** setups (Panel.from); the difference is the one matrix computed here,
** owned by its panel (Panel.difference), and written by --dump with them.
*/
#include "stage_int.h"
#include "core/util.h"

#include <assert.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------- the check */

/* The shape of what st shows of setup s (0-based): true with *rows x *cols,
** else false with the reason in err. */
static bool shape_of(const Lesson *L, const Stage *st, int s, int64_t *rows, int64_t *cols, Error *err)
{
    const Setup *su = &L->setups[s];
    if (st->head > su->heads)
        return error_set(err, ERR_INVALID, NULL, st->cmp_line, 1, "stage compare shows head %d, but setup %d has %d head%s",
                         st->head, s + 1, su->heads, su->heads == 1 ? "" : "s");
    *rows = su->nq;
    switch (st->show) {
    case SHOW_WEIGHTS:
        if (su->heads > 1 && !st->head)
            return error_set(err, ERR_INVALID, NULL, st->cmp_line, 1, "stage compare shows one head's weights, but setup "
                             "%d has %d heads: add 'head: H'", s + 1, su->heads);
        *cols = su->nk;
        return true;
    case SHOW_OUTPUT:
        if (!su->values.input)
            return error_set(err, ERR_INVALID, NULL, st->cmp_line, 1, "stage compare shows outputs, but setup %d has no "
                             "values (it is given only its weights)", s + 1);
        *cols = st->head ? lesson_operand_width(su, &su->values) / lesson_kv_heads(su) : lesson_attention_width(su);
        return true;
    case SHOW_NEXT_TOKEN:
        if (!su->unembed || !su->vocab)
            return error_set(err, ERR_INVALID, NULL, st->cmp_line, 1, "stage compare shows the next token, but setup %d "
                             "has no %s", s + 1, su->unembed ? "'vocab:'" : "'unembed:' and 'vocab:'");
        if (su->nvocab > LESSON_MAX_LOAD_DIM)     /* a real model's 50,257: no slide holds them side by side */
            return error_set(err, ERR_LIMIT, NULL, st->cmp_line, 1, "stage compare shows the probability of every "
                             "word, but setup %d has %d words (at most %d): compare a head's weights or the output "
                             "instead, or show each next_token stage", s + 1, su->nvocab, LESSON_MAX_LOAD_DIM);
        *cols = su->nvocab;
        return true;
    default:
        assert(0 && "a show the parser knows");
        return false;
    }
}

/* Both setups exist, differ, and compute what st shows with one shape
** (and, for the next token, the same words). */
bool stage_compare_check(const Lesson *L, const Stage *st, const StageSize *z, Error *err)
{
    (void)z;
    int a, b, line = st->cmp_line;
    lesson_compare_setups(L, st, &a, &b);
    assert(b >= 0 && b < L->nsetups && a < L->nsetups);
    if (a < 0)
        return error_set(err, ERR_INVALID, NULL, line, 1, "stage compare compares setup %d with the one above it, but "
                         "it is the first: add 'a: N' (a setup by its number or title)", b + 1);
    if (a == b)
        return error_set(err, ERR_INVALID, NULL, line, 1, "stage compare has setup %d as both A and B: compare two "
                         "different setups", a + 1);
    int64_t ra, ca, rb, cb;
    if (!shape_of(L, st, a, &ra, &ca, err) || !shape_of(L, st, b, &rb, &cb, err)) return false;
    static const char *const what_of[SHOW_COUNT] = { "weights", "outputs", "next-token probabilities" };
    const char *what = what_of[st->show];
    if (ra != rb || ca != cb)
        return error_set(err, ERR_INVALID, NULL, line, 1, "stage compare: A (setup %d) gives %s of %" PRId64 "x%" PRId64
                         " but B (setup %d) gives %" PRId64 "x%" PRId64 "; compare setups whose %s have the same shape",
                         a + 1, what, ra, ca, b + 1, rb, cb, what);
    const Setup *sa = &L->setups[a], *sb = &L->setups[b];
    for (int i = 0; st->show == SHOW_NEXT_TOKEN && i < sb->nvocab; i++)
        if (strcmp(sa->vocab[i], sb->vocab[i]))
            return error_set(err, ERR_INVALID, NULL, line, 1, "stage compare: A (setup %d) and B (setup %d) have "
                             "different words: word %d is '%s' in A and '%s' in B", a + 1, b + 1, i + 1, sa->vocab[i],
                             sb->vocab[i]);
    return true;
}

/* ------------------------------------------------------ what differs */

/* "head 2", "heads 1 and 3", "heads 1, 2 and 4": the heads of bits. */
static void heads_words(unsigned bits, Buf *out)
{
    int n = 0, seen = 0;
    for (int h = 1; h <= LESSON_MAX_HEADS; h++) n += (bits >> (h - 1)) & 1;
    buf_puts(out, n == 1 ? _("head") : _("heads"));
    for (int h = 1; h <= LESSON_MAX_HEADS; h++) {
        if (!((bits >> (h - 1)) & 1)) continue;
        seen++;
        buf_printf(out, "%s%d", seen == 1 ? " " : seen == n ? _(" and ") : ", ", h);
    }
}

/* How the heads of su switched off are replaced, after their names:
** " (→ 0)", " (→ their mean over the tokens)", or head by head when they
** differ. */
static void how_off(const Setup *su, Buf *out)
{
    unsigned mean = su->ablate_mean & su->ablated;
    if (mean == 0) buf_puts(out, _(" (\xe2\x86\x92 0)"));
    else if (mean == su->ablated) buf_puts(out, _(" (\xe2\x86\x92 their mean over the tokens)"));
    else {
        buf_puts(out, " (");
        stage_ablated_heads(out, su, LESSON_MAX_HEADS);
        buf_puts(out, ")");
    }
}

/* A setup's mask in the words of the format: none, causal, allow M,
** causal sliding 3 padding <pad>, ... */
static void mask_words(const Setup *su, Buf *out)
{
    switch (su->mask) {
    case MASK_NONE: buf_puts(out, "none"); return;
    case MASK_CAUSAL: buf_puts(out, "causal"); return;
    case MASK_ALLOW: buf_printf(out, "allow %s", su->mask_matrix); return;
    case MASK_BLOCK: buf_printf(out, "block %s", su->mask_matrix); return;
    case MASK_PARTS: break;
    }
    const char *sep = "";
    if (su->mask_parts & MASKP_CAUSAL) { buf_puts(out, "causal"); sep = " "; }
    if (su->mask_parts & MASKP_SLIDING) { buf_printf(out, "%ssliding %d", sep, su->window); sep = " "; }
    if (su->mask_parts & MASKP_PREFIX) { buf_printf(out, "%sprefix %d", sep, su->prefix); sep = " "; }
    if (su->mask_parts & MASKP_PADDING) buf_printf(out, "%spadding %s", sep, su->pad_token);
}

/* An operand as the lesson writes it: "X @ W_q + b_q", or "none". */
static void operand_words(const Operand *o, Buf *out)
{
    buf_puts(out, o->input ? o->input : "none");
    if (o->weight) buf_printf(out, " @ %s", o->weight);
    if (o->bias) buf_printf(out, " + %s", o->bias);
}

/* Add one difference to the list in out ("a, b"). */
static void item(Buf *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void item(Buf *out, const char *fmt, ...)
{
    va_list ap;
    if (out->len) buf_puts(out, ", ");
    va_start(ap, fmt);
    buf_vprintf(out, fmt, ap);
    va_end(ap);
}

/* "key: B's vs A's", as the lesson writes the setting. */
static void setting(Buf *out, const char *key, const char *vb, const char *va)
{
    item(out, _("%s %s vs %s"), key, vb, va);
}

/* Whether two token lists are the same. */
static bool same_tokens(char *const *a, int na, char *const *b, int nb)
{
    if (na != nb) return false;
    for (int i = 0; i < na; i++)
        if (strcmp(a[i], b[i])) return false;
    return true;
}

/* Whether two matrices hold the same numbers. */
static bool same_numbers(const Mat *a, const Mat *b)
{
    if (a == b) return true;
    if (!mat_same_shape(a, b)) return false;
    for (int i = 0; i < a->rows * a->cols; i++)
        if (mat_data(a)[i] != mat_data(b)[i]) return false;
    return true;
}

/* The settings of B that differ from A's. */
static void settings_differ(const Setup *sa, const Setup *sb, Buf *out)
{
    char x[32], y[32];
    if (sa->ablated != sb->ablated || sa->ablate_mean != sb->ablate_mean) {
        Buf hb = {0}, ha = {0};
        if (sb->ablated) heads_words(sb->ablated, &hb);
        if (sa->ablated) heads_words(sa->ablated, &ha);
        if (!sa->ablated) {
            item(out, _("%s off"), hb.s);
            how_off(sb, out);
        } else if (!sb->ablated) {
            item(out, _("%s off in A"), ha.s);
            how_off(sa, out);
        } else {
            item(out, _("%s off vs %s off"), hb.s, ha.s);
        }
        buf_free(&hb);
        buf_free(&ha);
    }
    if (sa->temperature != sb->temperature) {
        snprintf(x, sizeof x, "%g", sb->temperature);
        snprintf(y, sizeof y, "%g", sa->temperature);
        setting(out, "temperature", x, y);
    }
    if (sa->divisor != sb->divisor) {
        if (sb->divisor > 0) snprintf(x, sizeof x, "%g", sb->divisor); else snprintf(x, sizeof x, "\xe2\x88\x9a" "d_k");
        if (sa->divisor > 0) snprintf(y, sizeof y, "%g", sa->divisor); else snprintf(y, sizeof y, "\xe2\x88\x9a" "d_k");
        setting(out, "divisor", x, y);
    }
    if (sa->score != sb->score) {
        static const char *const scores[] = { "scaled_dot", "dot", "additive" };
        setting(out, "score", scores[sb->score], scores[sa->score]);
    }
    Buf ma = {0}, mb = {0};
    mask_words(sa, &ma);
    mask_words(sb, &mb);
    if (strcmp(ma.s, mb.s)) setting(out, "mask", mb.s, ma.s);
    buf_free(&ma);
    buf_free(&mb);
    if (sa->positions != sb->positions) {
        static const char *const pos[] = { "none", "sinusoidal", "rope", "alibi" };
        setting(out, "positions", pos[sb->positions], pos[sa->positions]);
    }
    if (sa->heads != sb->heads) {
        snprintf(x, sizeof x, "%d", sb->heads);
        snprintf(y, sizeof y, "%d", sa->heads);
        setting(out, "heads", x, y);
    }
    if (!same_tokens(sa->qtokens, sa->nq, sb->qtokens, sb->nq) || !same_tokens(sa->ktokens, sa->nk, sb->ktokens, sb->nk))
        item(out, "%s", _("other tokens"));
    const Operand *oa[3] = { &sa->queries, &sa->keys, &sa->values }, *ob[3] = { &sb->queries, &sb->keys, &sb->values };
    static const char *const okeys[3] = { "queries", "keys", "values" };
    for (int i = 0; i < 3; i++) {
        Buf wa = {0}, wb = {0};
        operand_words(oa[i], &wa);
        operand_words(ob[i], &wb);
        if (strcmp(wa.s, wb.s)) setting(out, okeys[i], wb.s, wa.s);
        buf_free(&wa);
        buf_free(&wb);
    }
    int n = 0;                  /* a matrix only one of them has is not what either computes from */
    for (int i = 0; i < sb->nmats; i++) {
        const LessonMatrix *mb2 = &sb->mats[i], *ma2 = lesson_matrix(sa, mb2->name);
        if (!ma2 || same_numbers(ma2->m, mb2->m)) continue;
        if (++n <= 3) item(out, _("%s differs"), mb2->name);
    }
    if (n > 3) item(out, _("%d more matrices differ"), n - 3);
}

/*
** What differs between setups a and b (0-based), B's against A's, into
** out: their own settings and matrices, then, while both continue the
** stream of the setup above them (`residual: yes`), what differs there,
** each with the setups it is in (a model's layers: "head 1 off in the
** setups they continue (setup 23 vs 11), heads 7 and 10 off in ... (setup
** 22 vs 10)"): the queries' input of such a setup is computed, so its own
** text need not differ for its numbers to.
*/
static void what_differs(const Lesson *L, int a, int b, Buf *out)
{
    settings_differ(&L->setups[a], &L->setups[b], out);
    for (; a != b; a--, b--) {
        const Setup *sa = &L->setups[a], *sb = &L->setups[b];
        if (sa->residual != sb->residual) {
            item(out, "%s", sb->residual ? _("B continues the stream above it, A does not")
                                         : _("A continues the stream above it, B does not"));
            return;
        }
        if (!sa->residual || a == 0 || b == 0) return;
        Buf up = {0};
        settings_differ(&L->setups[a - 1], &L->setups[b - 1], &up);
        if (up.len) item(out, _("%s in the setups they continue (setup %d vs %d)"), up.s, b, a);
        buf_free(&up);
    }
}

/* ------------------------------------------------------------- the view */

/* c as it would be for a stage of setup s: its trace, its labels. */
static Ctx setup_ctx(const Ctx *c, int s)
{
    Ctx x = *c;
    x.s = s;
    x.su = &c->L->setups[s];
    x.ts = &c->T->s[s];
    x.H = x.ts->heads;
    x.blind = NULL;
    return x;
}

/* What the stage shows of the setup of x. */
static TraceRef shown_ref(const Ctx *x)
{
    int h = x->st->head ? x->st->head : 1;
    switch (x->st->show) {
    case SHOW_WEIGHTS: return trace_ref(TK_WEIGHTS, h);
    case SHOW_OUTPUT:
        if (x->st->head) return trace_ref(TK_OUTPUT, h);
        return x->su->output_proj ? trace_ref(TK_FINAL, 0) : trace_joined(x->ts);
    default: return trace_ref(TK_PROBS, 0);
    }
}

/* A setup as a panel title names it: its title, else its number. */
static char *setup_words(const Ctx *x)
{
    return x->su->title ? xstrdup(x->su->title) : stage_fmt(_("setup %d"), x->s + 1);
}

/* One side's panel: A or B, the setup of x. */
static Panel *side(Ctx *x, const char *letter, LabelKind cols, const char *col_axis)
{
    char *who = setup_words(x), *t = stage_fmt("%s: %s", letter, who);
    Panel *p = stage_heat(x, shown_ref(x), t, LAB_Q, cols, AX_QUERIES, col_axis);
    free(who);
    free(t);
    assert(p);                  /* the parser checked that the setup computes it */
    if (x->st->show != SHOW_OUTPUT) stage_as_weights(x, p);
    return stage_grouped(x, p, 1);
}

/* The difference's panel: B − A, cell by cell, after A's and B's (ia, ib);
** a difference past the largest double is held there (it cannot happen
** with weights or probabilities, only with outputs near that size). */
static Panel *difference(Ctx *x, int ia, int ib, LabelKind cols, const char *col_axis)
{
    Panel *p = stage_heat(x, shown_ref(x), "B \xe2\x88\x92 A", LAB_Q, cols, AX_QUERIES, col_axis);
    assert(p);
    const Mat *A = x->v->panels[ia].m, *B = x->v->panels[ib].m;
    assert(mat_same_shape(A, B));
    Mat *d = mat_create(B->rows, B->cols);
    for (int i = 0; i < B->rows * B->cols; i++) {
        double v = mat_data(B)[i] - mat_data(A)[i];
        mat_data(d)[i] = isfinite(v) ? v : v > 0 ? DBL_MAX : -DBL_MAX;
    }
    p->owned = d;
    p->m = d;
    p->difference = true;
    p->from = 0;                /* computed here, from both setups */
    size_t n = strlen(p->matrix);
    assert(n + sizeof ".diff" <= sizeof p->matrix);     /* trace names are short: "head16.weights" */
    memcpy(p->matrix + n, ".diff", sizeof ".diff");
    return p;
}

/* "the largest change: “rocket” → “river”, 0.99 in A, 0.02 in B": the
** cell of d whose magnitude is largest (the first of equals). */
static char *largest_change(const Panel *pd, const Panel *pa, const Panel *pb)
{
    const Mat *d = pd->m;
    int best = 0;
    for (int i = 1; i < d->rows * d->cols; i++)
        if (fabs(mat_data(d)[i]) > fabs(mat_data(d)[best])) best = i;
    if (mat_data(d)[best] == 0) return xstrdup(_("B and A are equal in every cell"));
    int r = best / d->cols, col = best % d->cols;
    char va[32], vb[32];
    snprintf(va, sizeof va, "%.3g", mat_get(pa->m, r, col));
    snprintf(vb, sizeof vb, "%.3g", mat_get(pb->m, r, col));
    return stage_fmt(_("the largest change: row \xe2\x80\x9c%s\xe2\x80\x9d, column \xe2\x80\x9c%s\xe2\x80\x9d: %s in A, %s in B"),
                     pd->row_labels[r], pd->col_labels[col], va, vb);
}

/* A and B on one scale, then B − A; the note says what differs. The three
** stay on one slide, whatever the numbers there print: the comparison is
** what the slide is for (hovering a cell gives its number). */
void stage_compare(Ctx *c)
{
    int a, b;
    lesson_compare_setups(c->L, c->st, &a, &b);
    assert(a >= 0 && a < c->L->nsetups && b >= 0 && b < c->L->nsetups && a != b);
    Ctx ca = setup_ctx(c, a), cb = setup_ctx(c, b);
    LabelKind cols = LAB_VOCAB;
    const char *axis = _("next word");
    if (c->st->show == SHOW_WEIGHTS) {
        cols = LAB_K;
        axis = AX_KEYS;
    } else if (c->st->show == SHOW_OUTPUT) {
        cols = c->st->head || !cb.su->output_proj ? LAB_VDIM : LAB_DIM;
        axis = AX_DIMS;
    }
    c->paged = true;
    c->v->compare = true;
    side(&ca, "A", cols, axis);
    side(&cb, "B", cols, axis);
    Panel *pd = difference(&cb, 0, 1, cols, axis);
    char *big = largest_change(pd, &c->v->panels[0], &c->v->panels[1]);
    Buf d = {0};
    what_differs(c->L, a, b, &d);
    c->v->note = d.len ? stage_fmt(_("B vs A: %s"), d.s) : xstrdup(_("B and A are set up alike"));
    buf_free(&d);
    c->v->formula = stage_fmt(_("B \xe2\x88\x92 A, cell by cell (0: no change); %s"), big);
    free(big);
}
