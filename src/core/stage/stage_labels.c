/*
** stage_labels.c: the labels of a panel's rows and columns (stage_int.h's
** LabelKind): tokens, the named features of an input, the names of the
** values' columns, a head's own columns numbered as in the whole matrix,
** the words of next_token; numbered from 1 under `indices: yes`; a query
** that sees no key marked. One rule for every stage, so that the same
** column reads the same on every slide.
*/
#include "stage_int.h"
#include "core/text/utf8.h"
#include "core/util.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Labels for n dimensions: the lesson's names when it gave them, else d1, d2, ... */
static char **dim_labels(int n, char *const *names, int nnames)
{
    char **l = xmalloc(sizeof *l * (size_t)n);
    for (int i = 0; i < n; i++) l[i] = names && i < nnames ? xstrdup(names[i]) : stage_fmt("d%d", i + 1);
    return l;
}

/* Copies of n tokens. */
static char **tok_labels(char *const *t, int n)
{
    char **l = xmalloc(sizeof *l * (size_t)n);
    for (int i = 0; i < n; i++) l[i] = xstrdup(t[i]);
    return l;
}

/* The words of a next_token stage's columns: the vocabulary's word of
** each column its TK_TOP_IDS names. */
static char **word_labels(const Ctx *c, int n)
{
    const Mat *ids = trace_at(c->T, c->s, trace_block_ref(TK_TOP_IDS, 0, lesson_stage_top(c->L, c->st)));
    char **l = xmalloc(sizeof *l * (size_t)n);
    for (int i = 0; i < n; i++) {
        int w = ids && i < ids->cols ? (int)mat_data(ids)[i] : -1;
        l[i] = w >= 0 && w < c->su->nvocab ? xstrdup(c->su->vocab[w]) : stage_fmt("%d", i + 1);
    }
    return l;
}

/*
** The names of the values' columns: the lesson's `value_dims:`, else, when
** the values are an input used as it is, that input's feature names:
** `dims:` when it is the queries' input, `key_dims:` when it is the key
** sentence's. NULL (d1, d2, …) when they are projected, or come from a
** matrix no names describe (a setup given its weights has no queries or
** keys: its values are named by `value_dims:` alone). *n receives how many.
*/
static char *const *value_dim_names(const Ctx *c, int *n)
{
    const Setup *su = c->su;
    *n = 0;
    if (su->value_dims) {
        *n = su->nvalue_dims;
        return su->value_dims;
    }
    if (su->values.weight || !su->values.input) return NULL;
    if (su->cross && su->keys.input && !strcmp(su->values.input, su->keys.input)) {
        *n = su->nkey_dims;
        return su->key_dims;
    }
    if (su->queries.input && !strcmp(su->values.input, su->queries.input)) {
        *n = su->ndims;
        return su->dims;
    }
    return NULL;
}

/* The column of the whole matrix that column 0 of head h's matrix of n
** columns is, for labels that follow the head's block (Q_h's, K_h's and
** V_h's, and everything made from V_h): head 2 of two-column heads starts
** at column 2 (d3), a K or V head at the block of the K/V head it reads.
** 0 for a whole matrix (h 0) and for one head. */
static int head_first(const Ctx *c, LabelKind k, int n, int h)
{
    if (h <= 0 || c->H < 2) return 0;
    if (k == LAB_QHEAD) return (h - 1) * n;
    if (k == LAB_KHEAD || k == LAB_VDIM) return (trace_kv_head(c->ts, h) - 1) * n;
    return 0;
}

/* n labels for the value columns that a matrix of head h shows: all of
** them for a whole matrix, the K/V head's own block for a head's. */
static char **value_labels(const Ctx *c, int h, int n)
{
    int nnames;
    char *const *names = value_dim_names(c, &nnames);
    int first = head_first(c, LAB_VDIM, n, h);
    char **l = xmalloc(sizeof *l * (size_t)n);
    for (int i = 0; i < n; i++)
        l[i] = names && first + i < nnames ? xstrdup(names[first + i]) : stage_fmt("d%d", first + i + 1);
    return l;
}

/* The label of query r: its token, marked when it sees no key. */
char *stage_query_label(const Ctx *c, int r)
{
    return c->blind && c->blind[r] ? stage_fmt(STAGE_BLIND_MARK "%s", c->su->qtokens[r]) : xstrdup(c->su->qtokens[r]);
}

/* Labels of one side of a matrix of head h, as named. */
static char **plain_labels(const Ctx *c, LabelKind k, int n, int h)
{
    switch (k) {
    case LAB_WORDS: return word_labels(c, n);
    case LAB_VOCAB: {
        assert(n <= c->su->nvocab);
        char **l = xmalloc(sizeof *l * (size_t)n);
        for (int i = 0; i < n; i++) l[i] = xstrdup(c->su->vocab[i]);
        return l;
    }
    case LAB_Q: {
        assert(n <= c->su->nq);
        char **l = xmalloc(sizeof *l * (size_t)n);
        for (int i = 0; i < n; i++) l[i] = stage_query_label(c, i);
        return l;
    }
    case LAB_K: return tok_labels(c->su->ktokens, n);
    case LAB_QFEAT: return dim_labels(n, c->su->dims, c->su->ndims);
    case LAB_KFEAT: return dim_labels(n, c->su->cross ? c->su->key_dims : c->su->dims,
                                      c->su->cross ? c->su->nkey_dims : c->su->ndims);
    case LAB_VDIM: return value_labels(c, h, n);
    case LAB_QHEAD: case LAB_KHEAD: {           /* d3 d4 for head 2 of two-column heads */
        int first = head_first(c, k, n, h);
        char **l = xmalloc(sizeof *l * (size_t)n);
        for (int i = 0; i < n; i++) l[i] = stage_fmt("d%d", first + i + 1);
        return l;
    }
    default: return dim_labels(n, NULL, 0);
    }
}

/* True when a label is a dimension's own number ("d3"). */
static bool numbered_already(const char *s)
{
    if (s[0] != 'd' || !s[1]) return false;
    for (const char *q = s + 1; *q; q++) if (*q < '0' || *q > '9') return false;
    return true;
}

/* Label l with its place, counted from 1 (`indices: yes`): "3 sat". */
char *stage_with_index(char *l, int i)
{
    if (numbered_already(l)) return l;
    char *t = stage_fmt("%d %s", i + 1, l);
    free(l);
    return t;
}

/* Labels of one side of a matrix of head h: as named, and numbered from 1
** when the stage says `indices: yes`, by the column of the whole matrix
** (head 2's value columns are 3 and 4, as their d3 d4 would be); a
** next_token stage's words are not: their order is the slide's choice, not
** a place in the sentence or the vocabulary. */
char **stage_labels(const Ctx *c, LabelKind k, int n, int h)
{
    char **l = plain_labels(c, k, n, h);
    int first = head_first(c, k, n, h);
    for (int i = 0; c->st->indices && k != LAB_WORDS && k != LAB_VOCAB && i < n; i++) l[i] = stage_with_index(l[i], first + i);
    return l;
}

/* The advance of a character in DejaVu Sans, in font sizes: digits, signs
** and the point as the font has them, letters on average, a character two
** columns wide a full em. */
static float advance(uint32_t cp)
{
    if (cp >= '0' && cp <= '9') return 0.636f;
    switch (cp) {
    case '.': case ',': case ' ': return 0.318f;
    case '-': return 0.361f;
    case 0x2212: case '+': case '=': return 0.838f;     /* − */
    case 0x221e: return 0.833f;                         /* ∞ */
    default: break;
    }
    if (cp >= 'A' && cp <= 'Z') return 0.70f;
    if (cp >= 'a' && cp <= 'z') return 0.60f;
    return utf8_cp_columns(cp) == 2 ? 1.0f : 0.65f;
}

/* The width of s in font sizes. */
float stage_text_em(const char *s)
{
    float w = 0;
    while (s && *s) w += advance(utf8_next(&s));
    return w;
}

/* The widest of the first n labels of side k of head h's matrices, as
** stage_text_em estimates them. */
char *stage_widest_label(const Ctx *c, LabelKind k, int n, int h)
{
    char **l = stage_labels(c, k, n, h), *w = NULL;
    for (int i = 0; i < n; i++) {
        if (l[i] && (!w || stage_text_em(l[i]) > stage_text_em(w))) {
            free(w);
            w = l[i];
        } else {
            free(l[i]);
        }
    }
    free(l);
    return w;
}
