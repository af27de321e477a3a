/*
** test_pages.c: the pages of a stage shown head by head: the comparison
** page that opens it (every head's picture side by side, each kind of
** panel on one scale over the heads), where each head's own pages start
** (View.head_step) and what the header says a page holds.
*/
#include "suites.h"
#include "tstages.h"
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"
#include "core/compute/attn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Stage k of L at sub-step step, paged by the suites' pager. */
static View *page(const Lesson *L, const Trace *T, int k, int step)
{
    StageOpts o = { 0, step, false, tstages_pager() };
    View *v = stage_view_with(L, T, k, &o);
    ck_assert_ptr_nonnull(v);
    return v;
}

/* What a walk over the stages counted. */
typedef struct Count {
    int compared;               /* stages opened by a comparison page */
    int heads_seen;             /* head pages checked */
} Count;

/*
** The comparison page v (sub-step 0) of stage k: what every head shares
** (the mask) first and on no other page, then every head's pictures in
** head order, as many for each head, each kind on the colours of every
** head's; then head h's first page shows head h and says so.
*/
static void check_compare(const char *name, const Lesson *L, const Trace *T, int k, const View *v, Count *n)
{
    int H = T->s[v->setup].heads, lead = 0;
    while (lead < v->npanels && v->panels[lead].ref.head == 0) lead++;     /* what every head shares, once */
    int per = (v->npanels - lead) / H;
    ck_assert_msg(v->compare, "%s stage %d: its first page is not the comparison", name, k + 1);
    ck_assert_msg(per >= 1 && lead + per * H == v->npanels, "%s stage %d: %d panels for %d heads", name, k + 1,
                  v->npanels, H);
    ck_assert_str_eq(v->step_name, "heads");
    ck_assert_int_eq(v->page_h0, 0);
    for (int j = 0; j < lead; j++) {        /* the mask: on no head's own page when it is here */
        for (int s = 1; s < v->nsteps; s++) {
            View *w = page(L, T, k, s);
            for (int i = 0; i < w->npanels; i++)
                ck_assert_msg(w->panels[i].ref.kind != v->panels[j].ref.kind, "%s stage %d: page %d shows %s again", name,
                              k + 1, s + 1, v->panels[j].title);
            stage_view_free(w);
        }
    }
    for (int i = lead; i < v->npanels; i++) {
        const Panel *p = &v->panels[i], *first = &v->panels[lead + (i - lead) % per];
        ck_assert_msg(p->ref.head == (i - lead) / per + 1, "%s stage %d: panel %d is head %d's", name, k + 1, i + 1,
                      p->ref.head);
        ck_assert(p->has_span);
        ck_assert_msg(p->group_lo == first->group_lo && p->group_hi == first->group_hi,
                      "%s stage %d: head %d's %s has a scale of its own", name, k + 1, p->ref.head, p->title);
        ck_assert_int_eq(p->kind, first->kind);
    }
    int last = 0;
    for (int h = 1; h <= H; h++) {
        int s = v->head_step[h];
        ck_assert_msg(s >= (h == 1 ? 1 : last) && s < v->nsteps, "%s stage %d: head %d's pages start at %d", name, k + 1, h, s);
        last = s;
        View *w = page(L, T, k, s);
        ck_assert(!w->compare);
        ck_assert_int_eq(w->step, s);
        ck_assert_msg(w->page_h0 <= h && h <= w->page_h1, "%s stage %d: page %d shows heads %d-%d, not %d", name, k + 1,
                      s + 1, w->page_h0, w->page_h1, h);
        char head[40];
        snprintf(head, sizeof head, w->page_h1 > w->page_h0 ? "heads %d" : "head %d", w->page_h0);
        ck_assert_msg(w->step_label && strncmp(w->step_label, head, strlen(head)) == 0,
                      "%s stage %d: page %d says \"%s\"", name, k + 1, s + 1, w->step_label ? w->step_label : "");
        for (int i = 0; i < w->npanels; i++)
            ck_assert_msg(w->panels[i].ref.head == 0 || (w->panels[i].ref.head >= w->page_h0 && w->panels[i].ref.head <= w->page_h1),
                          "%s stage %d: page %d shows head %d", name, k + 1, s + 1, w->panels[i].ref.head);
        stage_view_free(w);
        n->heads_seen++;
    }
    n->compared++;
}

/* A stage of the bundled lessons: opened by a comparison page exactly
** when its every head is shown and they take several pages. */
static void bundled_stage(const char *name, const Lesson *L, const Trace *T, int k, View *v, void *ctx)
{
    int H = T->s[v->setup].heads;
    bool by_heads = v->head_step[1] >= 0;
    if (v->id == STAGE_COMPARE) {   /* two setups side by side: a comparison page of its own kind */
        ck_assert(v->compare);
        return;
    }
    if (!by_heads || H < 2 || v->head || v->id == STAGE_KV_CACHE) {
        ck_assert_msg(!v->compare, "%s stage %d: a comparison page where there are not several heads' pages", name, k + 1);
        return;
    }
    check_compare(name, L, T, k, v, ctx);
}

/* Every bundled stage whose heads take several pages opens with them side
** by side: lesson 04's and 07's multi_head stages among them. */
START_TEST(test_bundled_stages_open_with_the_heads_side_by_side)
{
    Count n = { 0, 0 };
    tstages_each("../lessons", bundled_stage, &n);
    printf("pages: %d stages open with their heads side by side, %d heads' first pages checked\n", n.compared, n.heads_seen);
    ck_assert_int_ge(n.compared, 5);
    ck_assert_int_ge(n.heads_seen, 16);
}
END_TEST

/* Sixteen heads (the most a lesson has) over twelve tokens: one page
** holds every head's weights, head 16's pages come last before the
** joined heads, and a head chosen alone (H) is shown without the
** comparison. */
START_TEST(test_sixteen_heads_on_one_page)
{
    const char *text =
        "title: Sixteen\n[setup: s]\nseed: 3\ntokens: a b c d e f g h i j k l\n"
        "X = randn 12x32 * 0.5\nW_q = randn 32x32 * 0.5\nW_k = randn 32x32 * 0.5\nW_v = randn 32x32 * 0.5\n"
        "W_o = randn 32x32 * 0.5\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\nheads: 16\nmask: causal\npositions: alibi\noutput: W_o\n"
        "[multi_head]\n\nEvery head at once.\n\n[softmax]\n\n[alibi]\n";
    Lesson *L;
    Trace *T = tstages_run(text, "sixteen.lesson", &L);
    Count n = { 0, 0 };
    for (int k = 0; k < L->nstages; k++) {
        View *v = page(L, T, k, 0);
        check_compare("sixteen.lesson", L, T, k, v, &n);
        ck_assert_int_eq(v->npanels, 16);
        ck_assert_str_eq(v->step_label, "heads 1\xe2\x80\x93" "16 side by side");
        View *last = page(L, T, k, v->nsteps - 1);
        ck_assert(!last->compare);
        ck_assert_int_gt(v->nsteps - 1, v->head_step[16] - 1);
        stage_view_free(last);
        StageOpts one = { 3, 0, false, tstages_pager() };
        View *h3 = stage_view_with(L, T, k, &one);
        ck_assert(!h3->compare);
        for (int i = 0; i < h3->npanels; i++) ck_assert(h3->panels[i].ref.head == 0 || h3->panels[i].ref.head == 3);
        stage_view_free(h3);
        stage_view_free(v);
    }
    ck_assert_int_eq(n.compared, 3);
    trace_free(T);
    lesson_free(L);
}
END_TEST

/* Lessons written for no picture: 12 to 20 tokens (some in Japanese),
** 2 to 16 heads, with and without a causal mask, ALiBi or RoPE; every
** stage of each opens with the heads side by side exactly when they take
** several pages, and each head's first page shows that head. */
START_TEST(test_generated_lessons_compare_their_heads)
{
    static const int heads[] = { 2, 3, 4, 6, 8, 16 };
    static const char *const words[] = { "the", "cat", "sat", "on", "mat", "\xe7\x8c\xab", "\xe3\x81\x8c", "\xe9\xad\x9a" };
    Count n = { 0, 0 };
    int stages = 0;
    for (int i = 0; i < 12; i++) {
        int H = heads[i % 6], T = 12 + (i * 5) % 9, d = H * (i % 2 ? 2 : 4);
        const char *pos = i % 3 == 0 ? "alibi" : i % 3 == 1 ? "rope" : "none";
        char text[4096], name[40];
        int len = snprintf(text, sizeof text, "title: Generated %d\n[setup: s]\nseed: %d\ntokens:", i, i + 7);
        for (int t = 0; t < T; t++) len += snprintf(text + len, sizeof text - (size_t)len, " %s", words[(t * 3 + i) % 8]);
        snprintf(text + len, sizeof text - (size_t)len,
                 "\nX = randn %dx%d * 0.5\nW_q = randn %dx%d * 0.5\nW_k = randn %dx%d * 0.5\nW_v = randn %dx%d * 0.5\n"
                 "W_o = randn %dx%d * 0.5\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\nheads: %d\n%s"
                 "positions: %s\noutput: W_o\n[multi_head]\n\nEvery head.\n\n[softmax]\n\n%s%s",
                 T, d, d, d, d, d, d, d, d, d, H, i % 2 ? "mask: causal\n" : "", pos,
                 i % 3 == 0 ? "[alibi]\n\n" : i % 3 == 1 ? "[rope]\n\n" : "", i % 2 ? "[causal_mask]\n" : "[raw_scores]\n");
        snprintf(name, sizeof name, "generated-%d.lesson", i);
        Lesson *L;
        Trace *Tr = tstages_run(text, name, &L);
        for (int k = 0; k < L->nstages; k++, stages++) {
            View *v = page(L, Tr, k, 0);
            bundled_stage(name, L, Tr, k, v, &n);
            stage_view_free(v);
        }
        trace_free(Tr);
        lesson_free(L);
    }
    printf("pages: %d stages of 12 generated lessons, %d open with their heads side by side\n", stages, n.compared);
    ck_assert_int_ge(n.compared, 12);
}
END_TEST

/* One head: no comparison, every head_step -1 but its own (or none). */
/* How many panels of kind kind the pages of stage k show, over all of them. */
static int panels_of_kind(const Lesson *L, const Trace *T, int k, TraceKind kind)
{
    int n = 0, pages = 1;
    for (int s = 0; s < pages; s++) {
        View *v = page(L, T, k, s);
        pages = v->nsteps;
        for (int i = 0; i < v->npanels; i++) n += v->panels[i].ref.kind == kind;
        stage_view_free(v);
    }
    return n;
}

/* The mask every head shares is drawn once, not once a head: on the heads'
** one page when they fit it (two heads over three tokens), else on the
** comparison page (four heads over sixteen tokens, a sliding window in
** parts), whose heads then take three pages each, not four. */
START_TEST(test_shared_mask_shown_once)
{
    const char *small = "title: Two\n[setup: s]\nseed: 5\ntokens: a b c\nX = randn 3x2\nW_q = randn 2x2\n"
                        "W_k = randn 2x2\nW_v = randn 2x2\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\n"
                        "heads: 2\nmask: causal\n[causal_mask]\n";
    Lesson *L;
    Trace *T = tstages_run(small, "two.lesson", &L);
    View *v = page(L, T, 0, 0);
    ck_assert_int_eq(v->nsteps, 1);
    ck_assert_int_eq(v->panels[0].ref.kind, TK_MASK);      /* first, then each head's three */
    ck_assert_int_eq(v->npanels, 1 + 2 * 3);
    stage_view_free(v);
    ck_assert_int_eq(panels_of_kind(L, T, 0, TK_MASK), 1);
    trace_free(T);
    lesson_free(L);

    Trace *T2;
    Lesson *L2 = NULL;
    Error err;
    L2 = lesson_load("slide-lessons/sixteen-grouped-window.lesson", &err);
    ck_assert_msg(L2 != NULL, "%s", eline(&err));
    T2 = attn_run(L2, &err);
    ck_assert_ptr_nonnull(T2);
    int k = 3;
    ck_assert_int_eq(L2->stages[k].id, STAGE_CAUSAL_MASK);
    View *c = page(L2, T2, k, 0);
    ck_assert(c->compare);
    ck_assert_int_eq(c->nsteps, 1 + 3 * 4);
    ck_assert_int_eq(panels_of_kind(L2, T2, k, TK_MASK), 1);
    ck_assert_int_eq(panels_of_kind(L2, T2, k, TK_MASK_WINDOW), 1);
    ck_assert_int_eq(panels_of_kind(L2, T2, k, TK_WEIGHTS), 4 + 4);     /* side by side, and each head's own page */
    stage_view_free(c);
    trace_free(T2);
    lesson_free(L2);
}
END_TEST

START_TEST(test_one_head_has_no_comparison)
{
    const char *text =
        "title: One\n[setup: s]\nseed: 3\ntokens: a b c d e f g h i j k l m n o p q r s t\n"
        "X = randn 20x8\nW_q = randn 8x8\nW_k = randn 8x8\nW_v = randn 8x8\n"
        "queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\n[qkv_projection]\n[softmax]\n";
    Lesson *L;
    Trace *T = tstages_run(text, "one.lesson", &L);
    for (int k = 0; k < L->nstages; k++) {
        View *v = page(L, T, k, 0);
        ck_assert(!v->compare);
        for (int h = 2; h <= LESSON_MAX_HEADS; h++) ck_assert_int_eq(v->head_step[h], -1);
        stage_view_free(v);
    }
    trace_free(T);
    lesson_free(L);
}
END_TEST

/* The suite. */
Suite *pages_suite(void)
{
    Suite *s = suite_create("pages");
    TCase *t = tcase_create("compare");
    tcase_set_timeout(t, 600);
    tcase_add_test(t, test_bundled_stages_open_with_the_heads_side_by_side);
    tcase_add_test(t, test_sixteen_heads_on_one_page);
    tcase_add_test(t, test_generated_lessons_compare_their_heads);
    tcase_add_test(t, test_one_head_has_no_comparison);
    tcase_add_test(t, test_shared_mask_shown_once);
    suite_add_tcase(s, t);
    return s;
}
