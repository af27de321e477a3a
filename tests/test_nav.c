/*
** test_nav.c: the head, token and stage keys (src/app/nav.c), the clicks
** of the comparison page, and the slide sorter (src/app/sorter.c): where
** each goes from views made by hand, then on the induction lesson (stage
** 2: four heads in pages after their comparison), the inference lesson
** (a K/V cache) and a K/V cache of two heads.
*/
#include "suites.h"
#include "app/frame.h"
#include "app/keys.h"
#include "app/nav.h"
#include "app/sorter.h"
#include "app/state.h"
#include "core/util.h"
#include "view/layout.h"
#include "ttour.h"

#include <stdio.h>
#include <string.h>

#define INDUCTION "../lessons/07-induction-head.lesson"
#define INFERENCE "../lessons/10-inference.lesson"

/* A K/V cache of six tokens and four heads, each token on a page per head,
** the comparison on pages of its own after its heads side by side. */
static const char kv4[] = "title: t\n[setup]\nseed: 3\ntokens: a b c d e f\nX = randn 6x8\nW_q = randn 8x16\n"
                          "W_k = randn 8x16\nW_v = randn 8x16\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\n"
                          "heads: 4\nmask: causal\n[softmax]\n[kv_cache]\n";

/* A state on a lesson file, or fail. */
static AppState *open_file(const char *path)
{
    AppState *a = app_create();
    ck_assert_msg(app_open(a, path) == 0, "%s", a->error);
    return a;
}

/* A view made by hand: a stage of 18 pages, the comparison first, then
** heads 1-4 four pages each, then the heads joined. */
static View paged(void)
{
    View v;
    memset(&v, 0, sizeof v);
    v.stage = 1;
    v.nstages = 11;
    v.nsteps = 18;
    v.token = -1;
    for (int h = 0; h <= LESSON_MAX_HEADS; h++) v.head_step[h] = -1;
    for (int h = 1; h <= 4; h++) v.head_step[h] = 1 + 4 * (h - 1);
    return v;
}

/* Put v on page p: the heads it shows, from head_step. */
static void on_page(View *v, int p)
{
    v->step = p;
    v->compare = p == 0;
    v->page_h0 = v->page_h1 = 0;
    for (int h = 1; h <= 4; h++)
        if (p >= v->head_step[h] && p < v->head_step[h] + 4) v->page_h0 = v->page_h1 = h;
}

/* Head targets on a view made by hand: the comparison, a head's pages, the
** heads joined, a page of two heads, a stage whose heads share a page. */
START_TEST(test_head_targets)
{
    View v = paged();
    on_page(&v, 0);                                 /* the comparison: next is head 1, nothing before */
    NavTarget t = nav_head(&v, +1);
    ck_assert_int_eq(t.why, NAV_GO);
    ck_assert_int_eq(t.step, 1);
    ck_assert_int_eq(t.which, 1);
    ck_assert_int_eq(t.count, 4);
    ck_assert_int_eq(t.stage, 1);
    ck_assert_int_eq(nav_head(&v, -1).why, NAV_FIRST);
    on_page(&v, 7);                                 /* head 2, its third page */
    ck_assert_int_eq(nav_head(&v, +1).step, 9);
    ck_assert_int_eq(nav_head(&v, -1).step, 1);
    on_page(&v, 1);
    ck_assert_int_eq(nav_head(&v, -1).why, NAV_FIRST);
    on_page(&v, 14);                                /* head 4: nothing after */
    ck_assert_int_eq(nav_head(&v, +1).why, NAV_LAST);
    ck_assert_int_eq(nav_head(&v, -1).step, 9);
    on_page(&v, 17);                                /* the heads joined: back to the last head */
    ck_assert_int_eq(nav_head(&v, -1).step, 13);
    ck_assert_int_eq(nav_head(&v, -1).which, 4);
    ck_assert_int_eq(nav_head(&v, +1).why, NAV_LAST);
    v.page_h0 = 1;                                  /* a page of heads 1-2: next is 3 */
    v.page_h1 = 2;
    v.step = 1;
    ck_assert_int_eq(nav_head(&v, +1).which, 3);
    for (int h = 1; h <= 4; h++) v.head_step[h] = -1;       /* every head on one page */
    ck_assert_int_eq(nav_head(&v, +1).why, NAV_NONE);
    ck_assert_int_eq(nav_head(&v, -1).why, NAV_NONE);
}
END_TEST

/* Token targets: the same page of the next or previous token, from the
** comparison the last token, nothing on a stage that decodes none. */
START_TEST(test_token_targets)
{
    View v = paged();
    for (int h = 1; h <= 4; h++) v.head_step[h] = -1;
    ck_assert_int_eq(nav_token(&v, 6, +1).why, NAV_NONE);  /* not a K/V cache */
    v.id = STAGE_KV_CACHE;
    v.token_pages = 2;                              /* 6 tokens of 2 pages, the comparison from 12 */
    v.nsteps = 15;
    v.token = 2;
    v.step = 5;                                     /* token 3, its second page */
    NavTarget t = nav_token(&v, 6, +1);
    ck_assert_int_eq(t.why, NAV_GO);
    ck_assert_int_eq(t.step, 7);                    /* token 4, its second page */
    ck_assert_int_eq(t.which, 4);
    ck_assert_int_eq(t.count, 6);
    ck_assert_int_eq(nav_token(&v, 6, -1).step, 3);
    v.token = 0;
    v.step = 0;
    ck_assert_int_eq(nav_token(&v, 6, -1).why, NAV_FIRST);
    v.token = 5;
    v.step = 10;
    ck_assert_int_eq(nav_token(&v, 6, +1).why, NAV_LAST);
    v.token = -1;                                   /* the comparison: back to the last token's first page */
    v.step = 13;
    ck_assert_int_eq(nav_token(&v, 6, -1).step, 10);
    ck_assert_int_eq(nav_token(&v, 6, +1).why, NAV_LAST);
}
END_TEST

/* Stage targets: the next or previous stage's first page, none past the ends. */
START_TEST(test_stage_targets)
{
    NavTarget t = nav_stage(1, 11, +1);
    ck_assert_int_eq(t.why, NAV_GO);
    ck_assert_int_eq(t.stage, 2);
    ck_assert_int_eq(t.step, 0);
    ck_assert_int_eq(t.which, 3);
    ck_assert_int_eq(nav_stage(1, 11, -1).stage, 0);
    ck_assert_int_eq(nav_stage(0, 11, -1).why, NAV_FIRST);
    ck_assert_int_eq(nav_stage(10, 11, +1).why, NAV_LAST);
}
END_TEST

/* The induction lesson's stage 2: . and , go from the comparison to each
** head's first page and back; the heads joined go back to head 4. */
START_TEST(test_head_keys_on_the_induction_lesson)
{
    AppState *a = open_file(INDUCTION);
    app_goto(a, 2);
    ck_assert(a->view->compare);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, '.', 0), ACT_HEAD_NEXT);
    ck_assert_int_eq(a->view->page_h0, 1);
    ck_assert_int_eq(a->step, a->view->head_step[1]);
    ck_assert_str_eq(a->toast, "head 1 of 4");
    app_next(a);                                    /* into head 1's pages, then to head 2 */
    app_key(a, EDITION_DESKTOP, '.', 0);
    ck_assert_int_eq(a->view->page_h0, 2);
    ck_assert_int_eq(a->step, a->view->head_step[2]);
    app_key(a, EDITION_DESKTOP, ',', 0);
    ck_assert_int_eq(a->view->page_h0, 1);
    app_key(a, EDITION_DESKTOP, ',', 0);            /* nothing before head 1: said, not moved */
    ck_assert_int_eq(a->view->page_h0, 1);
    ck_assert_str_eq(a->toast, "no head before this page");
    app_show(a, a->view->nsteps - 1, 0);            /* the heads joined */
    ck_assert_int_eq(a->view->page_h0, 0);
    app_key(a, EDITION_DESKTOP, ',', 0);
    ck_assert_int_eq(a->view->page_h0, 4);
    ck_assert_int_eq(a->step, a->view->head_step[4]);
    app_key(a, EDITION_DESKTOP, '.', 0);
    ck_assert_str_eq(a->toast, "no head after this page");
    app_goto(a, 1);                                 /* a stage without heads says so */
    app_key(a, EDITION_DESKTOP, '.', 0);
    ck_assert_int_eq(a->stage, 0);
    ck_assert_str_eq(a->toast, "this stage shows no heads");
    app_free(a);
}
END_TEST

/* Shift+→ leaves a stage in pages from any page for the next stage's
** first; Shift+← goes to the previous stage's first page (← its last). */
START_TEST(test_stage_keys)
{
    AppState *a = open_file(INDUCTION);
    app_goto(a, 2);
    app_show(a, 5, 0);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, KEY_RIGHT, KEYMOD_SHIFT), ACT_STAGE_NEXT);
    ck_assert_int_eq(a->stage, 2);
    ck_assert_int_eq(a->step, 0);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, KEY_LEFT, KEYMOD_SHIFT), ACT_STAGE_PREV);
    ck_assert_int_eq(a->stage, 1);
    ck_assert_int_eq(a->step, 0);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, KEY_RIGHT, 0), ACT_NEXT);     /* → alone: a page */
    ck_assert_int_eq(a->stage, 1);
    ck_assert_int_eq(a->step, 1);
    app_first(a);
    app_key(a, EDITION_DESKTOP, KEY_LEFT, KEYMOD_SHIFT);
    ck_assert_str_eq(a->toast, "this is the first stage");
    app_last(a);
    app_key(a, EDITION_DESKTOP, KEY_RIGHT, KEYMOD_SHIFT);
    ck_assert_str_eq(a->toast, "this is the last stage");
    app_free(a);
}
END_TEST

/* J and Shift+J on the inference lesson's K/V cache (a page a token),
** and on a stage without tokens. */
START_TEST(test_token_keys)
{
    AppState *a = open_file(INFERENCE);
    app_key(a, EDITION_DESKTOP, 'j', 0);
    ck_assert_str_eq(a->toast, "this stage does not decode token by token");
    ck_assert_int_eq(a->stage, 0);
    app_goto(a, 2);
    ck_assert_int_eq(a->view->token, 0);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 'j', 0), ACT_TOKEN_NEXT);
    ck_assert_int_eq(a->view->token, 1);
    ck_assert_int_eq(a->step, a->view->token_pages);
    ck_assert_str_eq(a->toast, "token 2 of 6");
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 'j', KEYMOD_SHIFT), ACT_TOKEN_PREV);
    ck_assert_int_eq(a->view->token, 0);
    app_key(a, EDITION_DESKTOP, 'j', KEYMOD_SHIFT);
    ck_assert_str_eq(a->toast, "no token before this page");
    app_show(a, a->view->nsteps - 1, 0);            /* the comparison */
    ck_assert_int_eq(a->view->token, -1);
    app_key(a, EDITION_DESKTOP, 'j', KEYMOD_SHIFT);
    ck_assert_int_eq(a->view->token, 5);            /* the last token's first page */
    ck_assert_int_eq(a->step, 5 * a->view->token_pages);
    app_key(a, EDITION_DESKTOP, 'j', 0);
    ck_assert_int_eq(a->view->token, 5);
    app_key(a, EDITION_DESKTOP, 'g', 0);            /* the sorter names each page's token */
    DrawList *d = draw_create(1280, 800);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    char cap[100];
    snprintf(cap, sizeof cap, "page %d  \xc2\xb7  token 2 of 6", a->view->token_pages + 1);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, cap), 1);
    draw_free(d);
    ck_assert_str_eq(a->toast, "no token after this page: \xe2\x86\x92 shows the comparison");
    app_free(a);
}
END_TEST

/* A K/V cache of four heads, a page each a token: J keeps head 2's page,
** . and , go between the heads of a token, and the comparison's head
** pages are where head_step says. */
START_TEST(test_kv_cache_heads)
{
    AppState *a = app_create();
    ck_assert_msg(app_open_text(a, "kv4.lesson", kv4, sizeof kv4 - 1) == 0, "%s", a->error);
    app_goto(a, 2);
    int per = a->view->token_pages;
    ck_assert_int_ge(per, 2);
    ck_assert_int_eq(a->view->page_h0, 1);
    ck_assert_int_eq(a->view->head_step[1], 0);
    app_key(a, EDITION_DESKTOP, '.', 0);            /* token 1, head 2 */
    ck_assert_int_eq(a->view->token, 0);
    ck_assert_int_eq(a->view->page_h0, 2);
    ck_assert_int_eq(a->step, a->view->head_step[2]);
    app_key(a, EDITION_DESKTOP, 'j', 0);            /* token 2, still head 2 */
    ck_assert_int_eq(a->view->token, 1);
    ck_assert_int_eq(a->view->page_h0, 2);
    ck_assert_int_eq(a->view->head_step[1], per);
    app_key(a, EDITION_DESKTOP, ',', 0);            /* token 2, head 1 */
    ck_assert_int_eq(a->view->token, 1);
    ck_assert_int_eq(a->view->page_h0, 1);
    ck_assert_int_eq(a->step, per);
    app_show(a, 6 * per, 0);                        /* the comparison: its heads come after the tokens */
    ck_assert_int_eq(a->view->token, -1);
    ck_assert(a->view->compare);
    for (int h = 1; h <= 4; h++) {
        int s = a->view->head_step[h];
        ck_assert_int_gt(s, 6 * per);
        ck_assert_int_lt(s, a->view->nsteps);
        app_show(a, s, 0);
        ck_assert_int_le(a->view->page_h0, h);
        ck_assert_int_ge(a->view->page_h1, h);
        app_show(a, 6 * per, 0);
    }
    app_free(a);
}
END_TEST

/* The layout's box of panel k's title in d, or fail. */
static Rect title_box(const DrawList *d, int k)
{
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].role == ROLE_PANEL_TITLE && d->cmds[i].panel == k) return d->cmds[i].r;
    ck_abort_msg("no title for panel %d", k);
    return (Rect){ 0, 0, 0, 0 };
}

/* Clicking head 3's panel (title or cells) on the comparison page goes to
** head 3's first page; the pointer over it says so first. */
START_TEST(test_compare_click)
{
    AppState *a = open_file(INDUCTION);
    app_goto(a, 2);
    ck_assert(a->view->compare);
    int k3 = -1;
    for (int k = 0; k < a->view->npanels; k++)
        if (a->view->panels[k].ref.head == 3) k3 = k;
    ck_assert_int_ge(k3, 0);
    DrawList *d = draw_create(1280, 800);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    Rect t = title_box(d, k3);
    ck_assert_int_eq(draw_panel_at(d, t.x + 2, t.y + t.h / 2), k3);
    Rect cell;
    ck_assert(draw_cell_rect(d, k3, 2, 1, &cell));
    ck_assert_int_eq(draw_panel_at(d, cell.x + cell.w / 2, cell.y + cell.h / 2), k3);
    app_nav_point(a, k3);
    char want[100];
    snprintf(want, sizeof want, "click: head 3 on its own pages (page %d)", a->view->head_step[3] + 1);
    ck_assert_str_eq(a->toast, want);
    int step3 = a->view->head_step[3];
    ck_assert(app_nav_click(a, k3));
    ck_assert_int_eq(a->step, step3);
    ck_assert_int_eq(a->view->page_h0, 3);
    ck_assert(!a->view->compare);
    ck_assert(!app_nav_click(a, 0));                /* not the comparison: a click pins as before */
    draw_free(d);
    app_free(a);
}
END_TEST

/* The text command of d that reads exactly s, or fail. */
static const DrawCmd *text_cmd(const DrawList *d, const char *s)
{
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].kind == DRAW_TEXT && !strcmp(draw_str(d, &d->cmds[i]), s)) return &d->cmds[i];
    ck_abort_msg("no text \"%s\"", s);
    return NULL;
}

/* G shows the stage's pages as grids of SORTER_GRID with their header's
** words; the arrows, PgDn and the pointer pick, Enter goes, Esc leaves;
** while it is open the main keys do nothing. */
START_TEST(test_sorter)
{
    AppState *a = open_file(INDUCTION);
    app_goto(a, 2);
    int n = a->view->nsteps;
    ck_assert_int_gt(n, SORTER_GRID);               /* two grids */
    app_show(a, 2, 0);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, 'g', 0), ACT_SORTER);
    ck_assert(a->sorter);
    ck_assert_int_eq(a->sorter_sel, 2);
    DrawList *d = draw_create(1280, 800);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    ck_assert_int_eq(ttour_count_role(d, ROLE_CELL, NULL), 0);      /* no cell to hover under it */
    const DrawCmd *c = text_cmd(d, "page 1  \xc2\xb7  heads 1\xe2\x80\x93" "4 side by side");
    ck_assert_int_eq(app_sorter_at(a, 1280, 800, c->r.x + 4, c->r.y - 20), 0);    /* the picture above it */
    text_cmd(d, "page 2  \xc2\xb7  head 1 of 4  \xc2\xb7  Q, K");
    app_key(a, EDITION_DESKTOP, 'h', 0);            /* a main key: nothing */
    ck_assert_int_eq(a->head, 0);
    app_key(a, EDITION_DESKTOP, KEY_RIGHT, 0);
    ck_assert_int_eq(a->sorter_sel, 3);
    app_key(a, EDITION_DESKTOP, KEY_DOWN, 0);
    ck_assert_int_eq(a->sorter_sel, 3 + SORTER_COLS);
    app_key(a, EDITION_DESKTOP, KEY_PAGEDOWN, 0);   /* the next grid (its last page when it has fewer) */
    int below = 3 + SORTER_COLS + SORTER_GRID;
    ck_assert_int_eq(a->sorter_sel, below < n ? below : n - 1);
    app_frame(a, 1280, 800, layout_measure_fixed, NULL, d);
    char cap[100];
    snprintf(cap, sizeof cap, "page %d", SORTER_GRID + 1);
    ck_assert_int_ge(ttour_count_role(d, ROLE_OVERLAY, cap), 1);
    ck_assert_int_eq(ttour_count_role(d, ROLE_OVERLAY, "page 1  "), 0);
    app_key(a, EDITION_DESKTOP, KEY_END, 0);
    ck_assert_int_eq(a->sorter_sel, n - 1);
    app_key(a, EDITION_DESKTOP, KEY_HOME, 0);
    ck_assert_int_eq(a->sorter_sel, 0);
    app_sorter_select(a, 9);
    ck_assert_int_eq(app_key(a, EDITION_DESKTOP, KEY_ENTER, 0), ACT_SORTER_GO);
    ck_assert(!a->sorter);
    ck_assert_int_eq(a->stage, 1);
    ck_assert_int_eq(a->step, 9);
    ck_assert_int_eq(a->view->page_h0, 3);
    app_key(a, EDITION_DESKTOP, 'g', 0);
    app_key(a, EDITION_DESKTOP, KEY_LEFT, 0);
    app_key(a, EDITION_DESKTOP, KEY_ESCAPE, 0);     /* Esc: the page as it was */
    ck_assert(!a->sorter);
    ck_assert_int_eq(a->step, 9);
    app_goto(a, 1);                                 /* a stage of one page */
    app_key(a, EDITION_DESKTOP, 'g', 0);
    ck_assert(!a->sorter);
    ck_assert_str_eq(a->toast, "this stage has one page");
    draw_free(d);
    app_free(a);
}
END_TEST

/* The nav suite. */
Suite *nav_suite(void)
{
    Suite *s = suite_create("nav");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_head_targets);
    tcase_add_test(core, test_token_targets);
    tcase_add_test(core, test_stage_targets);
    tcase_add_test(core, test_head_keys_on_the_induction_lesson);
    tcase_add_test(core, test_stage_keys);
    tcase_add_test(core, test_token_keys);
    tcase_add_test(core, test_kv_cache_heads);
    tcase_add_test(core, test_compare_click);
    tcase_add_test(core, test_sorter);
    suite_add_tcase(s, core);
    return s;
}
