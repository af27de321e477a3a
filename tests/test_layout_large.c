/*
** test_layout_large.c: attention-only lessons at the documented maximum,
** 1,024 tokens (and 256 and 512), laid out with DejaVu Sans as --export
** draws them: one and two heads, with and without a causal mask, tokens
** that are short words or long subword pieces, every stage and sub-step on
** the projector slide (1280x720); and eight heads on a 640x400 window.
** On every page every command stays inside the canvas, no text covers
** another text or a panel's cells, every label drawn is at least FONT_MIN,
** and the header (stage title, lesson and stage counter) is as big as on
** the same stage of an eight-token lesson.
*/
#include "tlayout.h"
#include "tfonts.h"
#include "tstages.h"
#include "core/lesson/lesson.h"
#include "core/stage/slide.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"
#include "sdl/font.h"
#include "view/layout.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The words tokens are made of. */
static const char *words[] = { "the", "model", "reads", "a", "long", "internationally", "known", "story",
                               "about", "attention", "and", "its", "heads", "over", "1,024", "tokens" };

/* What a lesson is made of. */
typedef struct Big {
    int n, heads;
    bool causal;
    bool pieces;                /* tokens are long subword pieces ("▁internationalthe") */
    bool all_stages;            /* softmax, raw_scores, weighted_sum, (causal_mask,) per_token; else softmax,
                                ** (causal_mask) */
} Big;

/* An attention-only lesson as b says, with X = randn n x 8 and small
** random projections (caller frees the text). */
static char *big_lesson(const Big *b)
{
    size_t cap = (size_t)b->n * 40 + 2048, len = 0;
    char *s = malloc(cap);
    ck_assert_ptr_nonnull(s);
    len += (size_t)snprintf(s + len, cap - len, "title: Attention over %d tokens\n[setup: s]\nseed: 7\ntokens:", b->n);
    for (int i = 0; i < b->n; i++)
        len += (size_t)snprintf(s + len, cap - len, b->pieces ? " \xe2\x96\x81international%s" : " %s",
                                words[b->pieces ? i % 16 : (i * 7 + i / 16) % 16]);
    len += (size_t)snprintf(s + len, cap - len,
                            "\nX = randn %dx8\nW_q = randn 8x8 * 0.3\nW_k = randn 8x8 * 0.3\nW_v = randn 8x8 * 0.3\n"
                            "queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\nheads: %d\n%s\n"
                            "[softmax]\n\nEvery row sums to one.\n\n",
                            b->n, b->heads, b->causal ? "mask: causal" : "");
    if (b->all_stages)
        len += (size_t)snprintf(s + len, cap - len, "[raw_scores]\n\nEvery query against every key.\n\n"
                                "[weighted_sum]\n\nEach output is a blend of the values.\n\n");
    if (b->causal) len += (size_t)snprintf(s + len, cap - len, "[causal_mask]\n\nThe future is blocked.\n\n");
    if (b->all_stages) snprintf(s + len, cap - len, "[per_token]\nquery: %d\n\nOne query at a time.\n", b->n / 2);
    return s;
}

/* v laid out at w x h with DejaVu Sans (caller frees). */
static DrawList *lay_real(const View *v, int w, int h)
{
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(w, h, &th, font_measure, tfonts);
    return tl_lay_with(v, &o);
}

/* Where a command lands (text measured with DejaVu Sans). */
static Box extent(const DrawList *d, const DrawCmd *c)
{
    return tl_extent_with(d, c, font_measure, tfonts);
}

/* The bounds of panel k's cells in d (empty, x0 > x1, when it has none). */
static Box cells_of(const DrawList *d, int k)
{
    Box b = { INFINITY, INFINITY, -INFINITY, -INFINITY };
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        bool cell = (c->kind == DRAW_RECT && c->width == 0 && (c->role == ROLE_CELL || c->role == ROLE_MASKED))
                    || c->kind == DRAW_IMAGE;
        if (!cell || c->panel != k) continue;
        Box e = extent(d, c);
        b.x0 = fminf(b.x0, e.x0);
        b.y0 = fminf(b.y0, e.y0);
        b.x1 = fmaxf(b.x1, e.x1);
        b.y1 = fmaxf(b.y1, e.y1);
    }
    return b;
}

/* The sizes of the header's texts in d: the stage title (bold), and the
** lesson and stage counter. */
static void header_sizes(const DrawList *d, float *title, float *meta)
{
    *title = *meta = 0;
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->kind != DRAW_TEXT || c->role != ROLE_TITLE) continue;
        if (c->bold) *title = c->size;
        else *meta = c->size;
    }
}

/* What the walk found wrong: how many of each kind, and the first. */
enum { OUTSIDE, TEXT_ON_TEXT, TEXT_ON_CELLS, SMALL_LABEL, HEADER, NFAULTS };
typedef struct Faults {
    int pages, n[NFAULTS];
    char first[NFAULTS][400];
} Faults;

/* Count a fault of kind k, keeping the first's description. */
static void fault(Faults *f, int k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fault(Faults *f, int k, const char *fmt, ...)
{
    if (f->n[k]++) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->first[k], sizeof f->first[k], fmt, ap);
    va_end(ap);
}

/* What one page is checked against: the canvas, the lesson's name, the
** stage, and the header's sizes on an eight-token lesson's page. */
typedef struct PageCheck {
    Faults *f;
    int w, h;
    const char *name;
    int k;
    float title, meta;
} PageCheck;

/* Every text of d against the texts after it and every panel's cells. */
static void check_texts(Faults *f, const DrawList *d, const Box *cells, int npanels, const char *what)
{
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->kind != DRAW_TEXT || !draw_str(d, c)[0]) continue;
        Box b = extent(d, c);
        if ((c->role == ROLE_ROW_LABEL || c->role == ROLE_COL_LABEL) && c->size < FONT_MIN)
            fault(f, SMALL_LABEL, "%s: label '%s' at %.1f px", what, draw_str(d, c), c->size);
        bool in_cell = c->role == ROLE_CELL_TEXT || c->role == ROLE_MASKED;
        for (int k = 0; !in_cell && k < npanels; k++)
            if (tl_overlap(b, cells[k]))
                fault(f, TEXT_ON_CELLS, "%s: '%s' (role %d, panel %d, %.1f %.1f %.1f %.1f) covers panel %d's cells "
                      "(%.1f %.1f %.1f %.1f)", what, draw_str(d, c), c->role, c->panel, b.x0, b.y0, b.x1, b.y1, k,
                      cells[k].x0, cells[k].y0, cells[k].x1, cells[k].y1);
        for (int j = i + 1; j < d->n; j++) {
            const DrawCmd *o = &d->cmds[j];
            if (o->kind != DRAW_TEXT || !draw_str(d, o)[0]) continue;
            Box bo = extent(d, o);
            if (tl_overlap(b, bo))
                fault(f, TEXT_ON_TEXT, "%s: '%s' (role %d, panel %d, %.1f %.1f %.1f %.1f) overlaps '%s' (role %d, "
                      "panel %d, %.1f %.1f %.1f %.1f)", what, draw_str(d, c), c->role, c->panel, b.x0, b.y0, b.x1,
                      b.y1, draw_str(d, o), o->role, o->panel, bo.x0, bo.y0, bo.x1, bo.y1);
        }
    }
}

/* tstages_each_step callback: one page laid out and checked. */
static void check_page(const View *v, void *ctx)
{
    PageCheck *pc = ctx;
    Faults *f = pc->f;
    DrawList *d = lay_real(v, pc->w, pc->h);
    char what[200];
    snprintf(what, sizeof what, "%s at %dx%d, stage %d (%s) step %d", pc->name, pc->w, pc->h, pc->k + 1,
             v->title ? v->title : "", v->step + 1);
    f->pages++;
    int np = v->npanels < VIEW_MAX_PANELS ? v->npanels : VIEW_MAX_PANELS;
    Box cells[VIEW_MAX_PANELS];
    for (int k = 0; k < np; k++) cells[k] = cells_of(d, k);
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        Box b = extent(d, c);
        if (!(b.x0 >= -0.5f && b.y0 >= -0.5f && b.x1 <= d->width + 0.5f && b.y1 <= d->height + 0.5f))
            fault(f, OUTSIDE, "%s: command %d ('%s', role %d, panel %d) leaves the canvas: %.1f %.1f %.1f %.1f", what,
                  i, c->kind == DRAW_TEXT ? draw_str(d, c) : "", c->role, c->panel, b.x0, b.y0, b.x1, b.y1);
    }
    check_texts(f, d, cells, np, what);
    float title, meta;
    header_sizes(d, &title, &meta);
    if (fabsf(title - pc->title) > 0.01f || fabsf(meta - pc->meta) > 0.01f)
        fault(f, HEADER, "%s: the header at %.0f and %.0f px, eight tokens' at %.0f and %.0f px", what, title, meta,
              pc->title, pc->meta);
    draw_free(d);
}

/* The header's sizes on the first page of stage k of the lesson b makes
** with eight tokens, at w x h. */
static void small_header(const Big *b, int k, int w, int h, float *title, float *meta)
{
    Big small = *b;
    small.n = 8;
    char *text = big_lesson(&small);
    Lesson *L;
    Trace *T = tstages_run(text, "small.lesson", &L);
    View *v = tstages_view(L, T, k);
    DrawList *d = lay_real(v, w, h);
    header_sizes(d, title, meta);
    ck_assert_float_gt(*title, 0);
    ck_assert_float_gt(*meta, 0);
    draw_free(d);
    stage_view_free(v);
    trace_free(T);
    lesson_free(L);
    free(text);
}

/* Every page of the lesson b makes, checked at w x h into f. */
static void check_lesson(Faults *f, const Big *b, int w, int h)
{
    char name[96];
    snprintf(name, sizeof name, "%d tokens%s, %d head%s%s", b->n, b->pieces ? " (subword pieces)" : "", b->heads,
             b->heads > 1 ? "s" : "", b->causal ? ", causal" : "");
    char *text = big_lesson(b);
    Lesson *L;
    Trace *T = tstages_run(text, "large.lesson", &L);
    for (int k = 0; k < L->nstages; k++) {
        PageCheck pc = { f, w, h, name, k, 0, 0 };
        small_header(b, k, w, h, &pc.title, &pc.meta);
        tstages_each_step(L, T, k, 0, check_page, &pc);
    }
    trace_free(T);
    lesson_free(L);
    free(text);
}

/* Fail on any fault f counted, naming the first of each kind. */
static void assert_no_faults(const Faults *f, const char *where)
{
    printf("large: %s: %d pages, %d commands outside the canvas, %d texts on texts, %d on cells, %d small labels, "
           "%d headers resized\n", where, f->pages, f->n[OUTSIDE], f->n[TEXT_ON_TEXT], f->n[TEXT_ON_CELLS],
           f->n[SMALL_LABEL], f->n[HEADER]);
    ck_assert_msg(f->n[OUTSIDE] == 0, "%d commands leave the canvas, e.g. %s", f->n[OUTSIDE], f->first[OUTSIDE]);
    ck_assert_msg(f->n[TEXT_ON_TEXT] == 0, "%d texts overlap, e.g. %s", f->n[TEXT_ON_TEXT], f->first[TEXT_ON_TEXT]);
    ck_assert_msg(f->n[TEXT_ON_CELLS] == 0, "%d texts cover cells, e.g. %s", f->n[TEXT_ON_CELLS],
                  f->first[TEXT_ON_CELLS]);
    ck_assert_msg(f->n[SMALL_LABEL] == 0, "%d labels under %d px, e.g. %s", f->n[SMALL_LABEL], FONT_MIN,
                  f->first[SMALL_LABEL]);
    ck_assert_msg(f->n[HEADER] == 0, "%d headers change size, e.g. %s", f->n[HEADER], f->first[HEADER]);
}

/*
** 256, 512 and 1,024 tokens on the slide. At 1,024 with two heads the
** page did not fit at full size: the pager shrank every font, the header
** too (18 px titles where eight tokens have 30), and with long tokens the
** rows of panels ran into each other, token labels over the titles of the
** row below and off the bottom of the slide: a row's cells were allowed a
** hundredth of a pixel too tall each, ten pixels over 1,024 rows, and a
** grid was never lower than a quarter of a pixel a row.
*/
START_TEST(test_large_lessons_lay_out_cleanly)
{
    static const int sizes[] = { 256, 512, 1024 };
    Faults f;
    memset(&f, 0, sizeof f);
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (int heads = 1; heads <= 2; heads++)
            for (int causal = 0; causal < 2; causal++)
                for (int pieces = 0; pieces < 2; pieces++) {
                    Big b = { sizes[s], heads, causal, pieces, true };
                    check_lesson(&f, &b, SLIDE_W, SLIDE_H);
                }
    ck_assert_int_ge(f.pages, 24 * 4 + 12);            /* every page of the 24 lessons' four or five stages */
    assert_no_faults(&f, "the slide");
}
END_TEST

/* Eight heads of 1,024 tokens on a 640x400 window: four heatmaps' titles
** a row are wider than the canvas, and the page used to be drawn at its
** smallest fonts anyway, off the canvas; now the panels go in three or
** four rows, at the header's normal size, after the page of every head
** side by side. */
START_TEST(test_many_heads_on_a_small_window)
{
    Faults f;
    memset(&f, 0, sizeof f);
    Big b = { 1024, 8, true, false, false };
    check_lesson(&f, &b, 640, 400);
    ck_assert_int_eq(f.pages, 8);                  /* two stages open with the eight heads side by side */
    assert_no_faults(&f, "640x400");
}
END_TEST

/* The case of the large lessons, with the real font. */
TCase *layout_large_tcase(void)
{
    TCase *tc = tcase_create("large");
    tcase_add_checked_fixture(tc, tfonts_setup, tfonts_teardown);
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_large_lessons_lay_out_cleanly);
    tcase_add_test(tc, test_many_heads_on_a_small_window);
    return tc;
}
