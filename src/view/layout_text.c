/*
** layout_text.c: text as the layout measures it. Widths come from the
** caller's measure and are remembered for one layout (MeasureCache, and a
** width table per axis of labels and size); fitting a string with "…",
** wrapping a paragraph, and pushing a text run all go through here.
*/
#include "layout_int.h"
#include "core/util.h"

#include <float.h>
#include <stdlib.h>
#include <string.h>

/* The width of s at a size, from the caller's measure, remembered for this
** layout in the direct-mapped MeasureCache (sizes are keyed to 1/KEY_SUBPX px). */
float lay_width(const Page *p, const char *s, float size, int bold)
{
    uint64_t h = 1469598103934665603ULL;                /* FNV-1a */
    size_t n = 0;
    for (; s[n]; n++) h = lay_mix(h, (unsigned char)s[n]);
    h = lay_mix(lay_mix(lay_mix(lay_mix(h, n), (uint64_t)(size * KEY_SUBPX)), (uint64_t)(bold != 0)), p->gen) | 1;
    MeasureCache *c = p->cache;
    size_t i = lay_slot(h, MCACHE);
    if (c->key[i] == h) return c->w[i];
    float w = p->o.measure(p->o.measure_ctx, s, size, bold);
    c->key[i] = h;
    c->w[i] = w;
    return w;
}

/* What text_wrap and text_fit measure with: the page's font at one size. */
typedef struct {
    const Page *p;
    float size;
    int bold;
} WrapFont;

/* Width of len bytes of s for text.h; a line too long to measure is too
** wide. */
static float wrap_measure(void *ctx, const char *s, size_t len)
{
    const WrapFont *f = ctx;
    char line[1024];
    if (len >= sizeof line) return FLT_MAX;
    memcpy(line, s, len);
    line[len] = '\0';
    return lay_width(f->p, line, f->size, f->bold);
}

/* Copy s into out (n bytes), cut with "…" to at most maxw pixels wide
** (text_fit, in the page's font). Returns the width kept. */
float lay_fit(const Page *p, const char *s, float size, int bold, float maxw, char *out, size_t n)
{
    WrapFont f = { p, size, bold };
    return text_fit(s, maxw, wrap_measure, &f, out, n);
}

/* Push a text run with its style bits; returns the command's index. */
int lay_text(Page *p, Rect r, const char *s, float size, Color c, HAlign ha, VAlign va, DrawRole role, int bold,
             int rot)
{
    int i = draw_text(p->d, r, s, size, c, ha, va, role);
    p->d->cmds[i].bold = (uint8_t)bold;
    p->d->cmds[i].rotate = (uint8_t)(rot ? 90 : 0);
    return i;
}

/* The width table of labels (n of them) at a size, for this layout: a run
** of the pool, every width -1 (not measured yet) at first. Without a table
** (no slot, or the pool is full) widths go through lay_width. */
LabelTable lay_label_table(const Page *p, char **labels, int n, float size)
{
    LabelTable t = { p, labels, size, NULL, NULL };
    PlanMemo *m = p->memo;
    if (!labels || n <= 0) return t;
    if (m->pool_gen != p->label_gen) {       /* the pool starts again: no table points into it */
        m->pool_gen = p->label_gen;
        m->pool_used = 0;
        memset(m->lw_gen, 0, sizeof m->lw_gen);  /* 0 is no layout's number, nor any label_gen */
    }
    uint64_t h = lay_mix(lay_mix(lay_mix(0x9e3779b97f4a7c15ULL, (uint64_t)(uintptr_t)labels), (uint64_t)n),
                         (uint64_t)(size * KEY_SUBPX));
    bool hit;
    size_t i = lay_memo_slot(m->lw_key, m->lw_gen, LWSLOTS, h, p->label_gen, &hit);
    if (i == LWSLOTS || (!hit && (uint32_t)n > LWPOOL - m->pool_used)) return t;
    if (!hit) {
        m->lw_key[i] = h;
        m->lw_gen[i] = p->label_gen;
        m->lw_off[i] = m->pool_used;
        m->lw_inner[i] = -1;
        m->pool_used += (uint32_t)n;
        for (int j = 0; j < n; j++) m->pool[m->lw_off[i] + (uint32_t)j] = -1;
    }
    t.w = m->pool + m->lw_off[i];
    t.inner = &m->lw_inner[i];
    return t;
}

/* The widest of labels 0, step, 2*step, ... of n at a size: the ones a
** thinned axis draws, so a thinned axis of 1024 labels measures only the
** few it shows (remembered for each step and size). */
float lay_widest(const Page *p, char **labels, int n, int step, float size)
{
    if (!labels || n <= 0) return 0;
    if (step < 1) step = 1;
    PlanMemo *m = p->memo;
    uint64_t h = lay_mix(lay_mix(lay_mix(lay_mix(0x6a09e667f3bcc909ULL, (uint64_t)(uintptr_t)labels), (uint64_t)n),
                                 (uint64_t)step), (uint64_t)(size * KEY_SUBPX));
    bool hit;
    size_t k = lay_memo_slot(m->wide_key, m->wide_gen, WIDEMEMO, h, p->label_gen, &hit);
    if (hit) return m->wide_w[k];
    LabelTable t = lay_label_table(p, labels, n, size);
    float w = 0;
    for (int i = 0; i < n; i += step) {
        float x = lay_label_w(&t, i);
        if (x > w) w = x;
    }
    if (k < WIDEMEMO) {
        m->wide_key[k] = h;
        m->wide_gen[k] = p->label_gen;
        m->wide_w[k] = w;
    }
    return w;
}

/* One paragraph wrapped to width w (text.h's rules: breaks between words,
** between CJK characters, never inside a character): the number of lines,
** their bytes in *out (free it). */
int lay_wrap(const Page *p, const char *s, float size, float w, TextLine **out)
{
    WrapFont f = { p, size, 0 };
    size_t len = strlen(s);
    TextLine first[64];
    int n = text_wrap(s, len, w, w, wrap_measure, &f, first, 64);
    *out = xmalloc(sizeof **out * (size_t)(n > 0 ? n : 1));
    if (n <= 64) memcpy(*out, first, sizeof *first * (size_t)n);
    else text_wrap(s, len, w, w, wrap_measure, &f, *out, n);
    return n;
}

/* How many lines a paragraph wraps to (planning asks again and again, at
** the few sizes and widths it tries: remembered for the layout). */
int lay_para_lines(const Page *p, const char *s, float size, float w)
{
    PlanMemo *m = p->memo;
    uint64_t h = lay_mix(lay_mix(lay_mix(0x2545f4914f6cdd1dULL, (uint64_t)(uintptr_t)s), (uint64_t)(size * KEY_SUBPX)),
                         (uint64_t)(w * KEY_SUBPX));
    bool hit;
    size_t k = lay_memo_slot(m->wrap_key, m->wrap_gen, WRAPMEMO, h, p->gen, &hit);
    if (hit) return m->wrap_lines[k];
    WrapFont f = { p, size, 0 };
    int n = text_wrap(s, strlen(s), w, w, wrap_measure, &f, NULL, 0);
    if (k < WRAPMEMO) {
        m->wrap_key[k] = h;
        m->wrap_gen[k] = p->gen;
        m->wrap_lines[k] = n;
    }
    return n;
}
