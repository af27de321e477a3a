/*
** test_slide_prose.c: the words of the projector slide, over the bundled,
** test and generated lessons at 1280x720: the explanation is drawn whole
** and at 14 px or more, labels beside printed numbers at 12 px or more,
** the header says the page's place and what it holds, paragraphs tied to
** heads go to their pages, and a stage of H heads takes at most 1 + 3 H
** pages; and lesson 13's MLP, four times as wide as the stream, prints
** every hidden number with every row labelled.
*/
#include "suites.h"
#include "tfonts.h"
#include "tstages.h"
#include "tslides.h"
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/stage/stage_table.h"
#include "core/compute/trace.h"
#include "view/layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the pages of lesson 13's MLP print: every hidden unit's numbers,
** the sizes of the numbers and of the row labels, the rows labelled. */
typedef struct MlpPages {
    int pages;
    long hidden_cells, hidden_printed;  /* cells of the hidden layer on the pages, and the numbers printed in them */
    float least_number, least_label;
    int unlabelled;                     /* rows of a panel with numbers that no label of its row names */
    int unpaired;                       /* blocks of units before the activation without the same after it */
} MlpPages;

/* tstages_each_step callback: one page of the MLP measured. */
static void mlp_page(const View *v, void *ctx)
{
    MlpPages *mp = ctx;
    DrawList *d = tslides_lay(v);
    mp->pages++;
    for (int k = 0; k < v->npanels; k++) {
        const Panel *p = &v->panels[k];
        bool hidden = p->ref.kind == TK_MLP_PRE || p->ref.kind == TK_MLP_ACT;
        long printed = 0;
        bool labelled[64] = { false };
        for (int i = 0; i < d->n; i++) {
            const DrawCmd *c = &d->cmds[i];
            if (c->role == ROLE_CELL_TEXT && c->panel == k) {
                printed++;
                mp->least_number = fminf(mp->least_number, c->size);
            }
            if (c->role == ROLE_ROW_LABEL && c->row >= 0 && c->row < 64 && (c->panel == k || c->panel == k - 1)) {
                labelled[c->row] = true;     /* its own labels, or its neighbour's that it shares */
                mp->least_label = fminf(mp->least_label, c->size);
            }
        }
        for (int r = 0; r < p->m->rows && r < 64; r++) mp->unlabelled += !labelled[r];
        if (hidden) {
            mp->hidden_cells += (long)p->m->rows * p->m->cols;
            mp->hidden_printed += printed;
        }
        bool paired = p->ref.kind != TK_MLP_PRE;
        for (int j = 0; j < v->npanels && !paired; j++)
            paired = v->panels[j].ref.kind == TK_MLP_ACT && v->panels[j].col_offset == p->col_offset &&
                     v->panels[j].m->cols == p->m->cols;
        mp->unpaired += !paired;
    }
    draw_free(d);
}

/* Lesson 13's MLP, four times as wide as the stream (GPT-2's ratio): its
** hidden layer in blocks of units, every page printing every number at
** 14 px, its rows labelled at 14 px, the same units before and after the
** activation on one page, where the whole layer was drawn as thumbnails
** without numbers and with 9 px labels on some rows. */
START_TEST(test_wide_mlp_prints_every_hidden_number)
{
    Trace *T;
    Lesson *L = tslides_load("../lessons/13-a-whole-block.lesson", &T);
    int k = 2;
    ck_assert_int_eq(L->stages[k].id, STAGE_MLP);
    const Mat *pre = trace_at(T, L->stages[k].setup, trace_ref(TK_MLP_PRE, 0));
    ck_assert_int_eq(pre->cols, 32);
    MlpPages mp = { 0, 0, 0, INFINITY, INFINITY, 0, 0 };
    tstages_each_step(L, T, k, 0, mlp_page, &mp);
    printf("slides: the MLP of lesson 13 on %d pages, %ld of %ld hidden numbers printed, at %.0f px or more, "
           "row labels at %.0f px or more\n", mp.pages, mp.hidden_printed, mp.hidden_cells, mp.least_number, mp.least_label);
    ck_assert_int_ge(mp.pages, 2);
    ck_assert_int_eq(mp.hidden_cells, 2L * pre->rows * pre->cols);
    ck_assert_int_eq(mp.hidden_printed, mp.hidden_cells);
    ck_assert_float_ge(mp.least_number, 14);
    ck_assert_float_ge(mp.least_label, 14);
    ck_assert_int_eq(mp.unlabelled, 0);
    ck_assert_int_eq(mp.unpaired, 0);
    trace_free(T);
    lesson_free(L);
}
END_TEST

/* What walk_prose adds up. */
typedef struct Prose {
    int pages, cut, small, small_labels, unplaced, stages, long_stages, titles_cut, held_cut;
    char first_title[400], first_held[400];
    int joined;                 /* pages of the joined heads in the stage walked */
    bool dense;                 /* and whether its heads' pages are dense (View.dense) */
    int dense_long;             /* stages over 1 + 3 H pages whose heads do not fit three pages even dense */
    char first_cut[400], first_small[400], first_label[400], first_unplaced[400], first_long[400];
    const char *name;
    int k;
} Prose;

/* s without its white space, into out (n bytes). */
static void squeeze(const char *s, char *out, size_t n)
{
    size_t j = 0;
    for (; s && *s && j + 1 < n; s++)
        if (*s != ' ' && *s != '\n' && *s != '\t') out[j++] = *s;
    out[j] = '\0';
}

/* tstages_each_step callback: on the slide, the explanation of v is drawn
** whole (its lines, put together, are its paragraphs) at 14 px or more;
** where numbers are printed, no row or column label is under 12 px; on the
** comparison page none is under 10 px; the header of a page of several
** says "page n of N". */
static void walk_prose(const View *v, void *ctx)
{
    Prose *pr = ctx;
    DrawList *d = tslides_lay(v);
    Theme th = layout_theme(false);
    static char want[16384], got[16384], piece[4096], head[4096], title[1024];
    want[0] = got[0] = head[0] = '\0';
    for (int i = 0; i < v->npara; i++) {
        squeeze(v->paras[i], piece, sizeof piece);
        strncat(want, piece, sizeof want - strlen(want) - 1);
    }
    float body_min = INFINITY, label_min = INFINITY;
    bool numbers = false, placed = v->nsteps <= 1, printed[VIEW_MAX_PANELS] = { false };
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].role == ROLE_CELL_TEXT && d->cmds[i].panel >= 0 && d->cmds[i].panel < VIEW_MAX_PANELS)
            numbers = printed[d->cmds[i].panel] = true;
    char place[64];
    snprintf(place, sizeof place, "page %d of %d", v->step + 1, v->nsteps);
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->kind != DRAW_TEXT) continue;
        if (c->role == ROLE_BODY && c->color.r == th.fg.r && c->color.g == th.fg.g && c->color.b == th.fg.b) {
            squeeze(draw_str(d, c), piece, sizeof piece);
            strncat(got, piece, sizeof got - strlen(got) - 1);
            body_min = fminf(body_min, c->size);
        }
        bool glance = v->compare && c->panel >= 0 && c->panel < VIEW_MAX_PANELS && !printed[c->panel];
        if ((c->role == ROLE_ROW_LABEL || c->role == ROLE_COL_LABEL) && (numbers || glance))     /* under 12 px: */
            label_min = fminf(label_min, glance ? c->size + 2 : c->size);                   /* under 10 there */
        if (c->role == ROLE_TITLE && strstr(draw_str(d, c), place)) placed = true;
        if (c->role == ROLE_TITLE) {
            squeeze(draw_str(d, c), piece, sizeof piece);
            strncat(head, piece, sizeof head - strlen(head) - 1);
        }
    }
    draw_free(d);
    pr->pages++;
    const char *at = v->step_name ? v->step_name : "";
    for (int i = 0; i < 2; i++) {           /* the stage's title and the lesson's, whole in the header */
        squeeze(i ? v->lesson_title : v->title, title, sizeof title);
        if (title[0] && !strstr(head, title) && !pr->titles_cut++)
            snprintf(pr->first_title, sizeof pr->first_title, "%s stage %d page %d: the header says \"%.200s\"", pr->name,
                     pr->k + 1, v->step + 1, head);
    }
    char held[300];                         /* and the place of what the page holds whole: "head 1 of 4" */
    snprintf(held, sizeof held, "%s", v->step_label ? v->step_label : "");
    held[strcspn(held, ",")] = '\0';
    if (strstr(held, "\xc2\xb7")) *strstr(held, "\xc2\xb7") = '\0';
    squeeze(held, title, sizeof title);
    if (v->nsteps > 1 && title[0] && !strstr(head, title) && !pr->held_cut++)
        snprintf(pr->first_held, sizeof pr->first_held, "%s stage %d page %d: the header says \"%.200s\"", pr->name,
                 pr->k + 1, v->step + 1, head);
    pr->joined += strncmp(at, "joined", 6) == 0;
    pr->dense |= v->dense;
    if (strcmp(want, got) && !pr->cut++)
        snprintf(pr->first_cut, sizeof pr->first_cut, "%s stage %d page %d (%s): the explanation drawn is \"%.120s\"",
                 pr->name, pr->k + 1, v->step + 1, at, got);
    if (want[0] && body_min < 14 && !pr->small++)
        snprintf(pr->first_small, sizeof pr->first_small, "%s stage %d page %d (%s): explanation at %.0f px", pr->name,
                 pr->k + 1, v->step + 1, at, body_min);
    if (label_min < 12 && !pr->small_labels++)
        snprintf(pr->first_label, sizeof pr->first_label, "%s stage %d page %d (%s): labels at %.0f px%s", pr->name,
                 pr->k + 1, v->step + 1, at, label_min, v->compare ? " (every head; 2 px added where no number)" : "");
    if (!placed && !pr->unplaced++)
        snprintf(pr->first_unplaced, sizeof pr->first_unplaced, "%s stage %d page %d (%s): the header does not say \"%s\"",
                 pr->name, pr->k + 1, v->step + 1, at, place);
}

/* Every stage of one lesson through walk_prose; a stage of H heads takes
** at most 1 + 3 H pages (every head's, three a head), and the joined
** heads', dense ones (numbers at the legible floor) or not. */
static void prose_lesson(const char *name, const Lesson *L, const Trace *T, void *ctx)
{
    Prose *pr = ctx;
    pr->name = name;
    for (pr->k = 0; pr->k < L->nstages; pr->k++) {
        pr->joined = 0;
        pr->dense = false;
        tstages_each_step(L, T, pr->k, 0, walk_prose, pr);
        int H = T->s[L->stages[pr->k].setup].heads;
        if (H < 2 || L->stages[pr->k].head || stage_kind(L->stages[pr->k].id)->steps) continue;
        StageOpts o = { 0, 0, false, tstages_pager() };
        View *v = stage_view_with(L, T, pr->k, &o);
        pr->stages++;
        pr->dense_long += v->nsteps > 1 + STAGE_HEAD_PARTS * H + pr->joined && pr->dense;   /* (counted in both) */
        if (v->nsteps > 1 + STAGE_HEAD_PARTS * H + pr->joined && !pr->long_stages++)
            snprintf(pr->first_long, sizeof pr->first_long, "%s stage %d (%s): %d heads on %d pages (%d joined)", name,
                     pr->k + 1, lesson_stage_name(L->stages[pr->k].id), H, v->nsteps, pr->joined);
        stage_view_free(v);
    }
}

/*
** Over the bundled, test and generated lessons, on the slide: no page cuts,
** drops or shrinks its explanation (under 14 px), where lesson 07's heads
** printed only the first paragraph at 13 px beside a weights page; no page
** that prints numbers labels its tokens under 12 px (9 to 11 px beside 14
** to 20 px numbers), nor the comparison of every head under 10 px; a stage
** of H heads takes at most 1 + 3 H pages (lesson 07's took four a head);
** every page of several says which it is; and the header holds the stage's
** and the lesson's titles whole (lesson 04's was cut, "Eight tokens, four
** heads, e…").
*/
START_TEST(test_slides_keep_prose_and_labels)
{
    Prose pr;
    memset(&pr, 0, sizeof pr);
    tslides_each_lesson(prose_lesson, &pr);
    tslides_each_generated(prose_lesson, &pr);
    printf("slides: %d pages, %d with the explanation cut, %d under 14 px, %d with small labels, %d without their place; "
           "%d of %d multi-head stages over 1 + 3 H pages, %d of them dense\n", pr.pages, pr.cut,
           pr.small, pr.small_labels, pr.unplaced, pr.long_stages, pr.stages, pr.dense_long);
    ck_assert_int_gt(pr.pages, 400);
    ck_assert_int_gt(pr.stages, 20);
    ck_assert_msg(pr.cut == 0, "%d pages cut their explanation, e.g. %s", pr.cut, pr.first_cut);
    ck_assert_msg(pr.small == 0, "%d pages shrink their explanation, e.g. %s", pr.small, pr.first_small);
    ck_assert_msg(pr.small_labels == 0, "%d pages with small labels, e.g. %s", pr.small_labels, pr.first_label);
    ck_assert_msg(pr.unplaced == 0, "%d pages do not say their place, e.g. %s", pr.unplaced, pr.first_unplaced);
    ck_assert_msg(pr.titles_cut == 0, "%d pages cut a title, e.g. %s", pr.titles_cut, pr.first_title);
    ck_assert_msg(pr.held_cut == 0, "%d headers cut what their page holds, e.g. %s", pr.held_cut, pr.first_held);
    ck_assert_msg(pr.long_stages == 0, "%d stages take too many pages, e.g. %s", pr.long_stages, pr.first_long);
}
END_TEST

/*
** Paragraphs tied to pages: Stage.para_ties keeps each paragraph's tie,
** and the pages of a multi-head stage cut into pages carry the untied
** ones, those tied to the heads they show, and on the page of every head
** side by side all of them.
*/
START_TEST(test_paragraphs_tied_to_pages)
{
    const char *text = "title: Ties\n[setup: s]\nseed: 3\n"
                       "tokens: a b c d e f g h i j k l m n o p\nX = randn 16x8\nW_q = randn 8x8\nW_k = randn 8x8\n"
                       "W_v = randn 8x8\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\nheads: 2\n"
                       "[multi_head]\n\nOn every page.\n\n(side by side) Only where every head is.\n\n"
                       "(head 2) Head two's pages, and every head's.\n";
    Lesson *L;
    Trace *T = tstages_run(text, "ties.lesson", &L);
    const Stage *st = &L->stages[0];
    ck_assert_int_eq(st->npara, 3);
    ck_assert_str_eq(st->paras[1], "Only where every head is.");
    ck_assert_uint_eq(st->para_ties[0], 0);
    ck_assert_uint_eq(st->para_ties[1], LESSON_TIE_SIDE_BY_SIDE);
    ck_assert_uint_eq(st->para_ties[2], 1u << 2);
    int nsteps = 1, seen[3] = { 0, 0, 0 };
    for (int t = 0; t < nsteps; t++) {
        StageOpts o = { 0, t, false, tstages_pager() };
        View *v = stage_view_with(L, T, 0, &o);
        nsteps = v->nsteps;
        int want = v->compare ? 3 : v->page_h0 <= 2 && v->page_h1 >= 2 ? 2 : 1;
        ck_assert_msg(v->npara == want, "page %d (%s): %d paragraphs, %d wanted", t + 1, v->step_name, v->npara, want);
        ck_assert_str_eq(v->paras[0], "On every page.");
        if (want == 2) ck_assert_str_eq(v->paras[1], "Head two's pages, and every head's.");
        seen[v->compare ? 0 : want == 2 ? 1 : 2]++;
        stage_view_free(v);
    }
    ck_assert_msg(nsteps > 3 && seen[0] == 1 && seen[1] > 0 && seen[2] > 0, "%d pages: %d, %d, %d", nsteps, seen[0], seen[1],
                  seen[2]);
    trace_free(T);
    lesson_free(L);
}
END_TEST

Suite *slide_prose_suite(void)
{
    Suite *s = suite_create("slide_prose");
    TCase *tc = tcase_create("words");
    tcase_add_checked_fixture(tc, tfonts_setup, tfonts_teardown);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_wide_mlp_prints_every_hidden_number);
    tcase_add_test(tc, test_slides_keep_prose_and_labels);
    tcase_add_test(tc, test_paragraphs_tied_to_pages);
    suite_add_tcase(s, tc);
    return s;
}
