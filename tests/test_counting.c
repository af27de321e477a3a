/*
** test_counting.c: people count from 1. Every label, title, formula, hover
** and --dump name names a row, column, position, pair or head by its number
** from 1; where a formula's own variable starts at 0 (a position in
** sin(p·θ), a RoPE angle), the text writes p − 1 and shows the number it
** uses. Checked by hand on small lessons, and over every stage, sub-step
** and panel of the bundled lessons and the lessons in slide-lessons/.
*/
#define _DEFAULT_SOURCE
#include "suites.h"
#include "tjson.h"
#include "tstages.h"
#include "core/compute/attn.h"
#include "core/stage/dump.h"
#include "core/stage/explain.h"
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"
#include "core/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A lesson that must be valid, computed; the trace, and the lesson in *l. */
static Trace *run_text(const char *text, Lesson **l)
{
    return tstages_run(text, "c.lesson", l);
}

/* Assert that text contains part. */
static void has(const char *text, const char *part)
{
    ck_assert_msg(text && strstr(text, part), "\"%s\"\ndoes not contain \"%s\"", text ? text : "(null)", part);
}

/* Words after which a number is an index people read: "position 3". */
static const char *const INDEX_WORDS[] = {
    "position ", "row ", "rows ", "column ", "columns ", "pair ", "token ", "query ", "key ", "keys ",
    "head ", "block ", "step ", "p = ", "p=", "[", "..", ", ", "d",
};

/* The place in s where an index 0 stands (after one of INDEX_WORDS, as a
** whole number: "position 0", "p = 0", "[0][", "d0", not "= 0.5" or "10"),
** or NULL. A label that starts with a lone 0 ("0 the") counts as well. */
static const char *zero_index(const char *s)
{
    if (!s) return NULL;
    for (const char *z = strchr(s, '0'); z; z = strchr(z + 1, '0')) {
        bool whole = !isdigit((unsigned char)z[1]) && !(z[1] == '.' && isdigit((unsigned char)z[2]));
        if (!whole || (z > s && (isdigit((unsigned char)z[-1]) || z[-1] == '.'))) continue;
        if (z == s && (z[1] == '\0' || z[1] == ' ')) return z;
        for (size_t w = 0; w < sizeof INDEX_WORDS / sizeof INDEX_WORDS[0]; w++) {
            size_t n = strlen(INDEX_WORDS[w]);
            if ((size_t)(z - s) < n || strncmp(z - n, INDEX_WORDS[w], n)) continue;
            /* "d0" only as a dimension's label ("d0" alone or after a space) */
            if (!strcmp(INDEX_WORDS[w], "d") && z - n > s && isalnum((unsigned char)z[-2])) continue;
            /* ", 0" only inside brackets: a part's columns "[2..3, 0..4]" */
            if (!strcmp(INDEX_WORDS[w], ", ") && z[1] != '.') continue;
            return z;
        }
    }
    return NULL;
}

/* Whether a row or column label names a token by a number from 0: a short
** stem of letters and 0 ("t0", "x0", "tok0"; after an index, "1 t0"). */
static bool label_from_0(const char *label)
{
    const char *w = strrchr(label, ' ');
    w = w ? w + 1 : label;
    size_t n = 0;
    while (isalpha((unsigned char)w[n])) n++;
    return n >= 1 && n <= 4 && !strcmp(w + n, "0");
}

/* The detector itself: indices from 0 are found, numbers that are values
** are not. */
START_TEST(test_zero_index_finds_indices_only)
{
    const char *zero[] = { "p = 0", "angle of pair 1 at position 0\n= 0", "PE[0][1]", "K[0..2, 1..4]", "K[1..2, 0..4]",
                           "0 the", "d0", "row 0 sees", "head 0 of 2", "x[0:2]" };
    const char *fine[] = { "p = 1", "= 0.5", "sum to 1.000", "position 10", "K[1..2, 1..4]", "weights = 0", "1 the",
                           "d10", "x = (0.3, 0.25)", "masked: 0", "(0 \xe2\x88\x92 1)", "width 0.04", "acc[1] = 0" };
    for (size_t i = 0; i < sizeof zero / sizeof zero[0]; i++)
        ck_assert_msg(zero_index(zero[i]), "missed an index 0 in \"%s\"", zero[i]);
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++)
        ck_assert_msg(!zero_index(fine[i]), "took a value for an index 0 in \"%s\"", fine[i]);
    ck_assert(label_from_0("t0") && label_from_0("1 tok0") && label_from_0("d0"));
    ck_assert(!label_from_0("t1") && !label_from_0("t10") && !label_from_0("0") && !label_from_0("hello0x"));
}
END_TEST

/* RoPE's angles: rows p = 1, 2, …; a hover names the position from 1 and
** shows the p − 1 the formula multiplies by; the formula says so. */
START_TEST(test_rope_counts_positions_from_1)
{
    Lesson *l;
    Trace *t = run_text("title: R\n[setup]\nseed: 2\ntokens: a b c d\nX = randn 4x4\nW_q = randn 4x4\nW_k = randn 4x4\n"
                        "queries: X @ W_q\nkeys: X @ W_k\nvalues: X\npositions: rope\n[rope]\n", &l);
    View *v = tstages_view(l, t, 0);
    const Panel *a = &v->panels[0];
    ck_assert_str_eq(a->matrix, "rope_angles");
    ck_assert_str_eq(a->row_labels[0], "p = 1");
    ck_assert_str_eq(a->row_labels[3], "p = 4");
    ck_assert_str_eq(a->col_labels[0], "pair 1");
    has(a->title, "(p\xe2\x88\x92" "1)");
    has(v->formula, "(p\xe2\x88\x92" "1)\xc2\xb7\xce\xb8_i");
    has(v->formula, "10000^(\xe2\x88\x92" "2(i\xe2\x88\x92" "1)/4)");
    stage_view_free(v);
    char *x = explain_cell(l, t, 0, "rope_angles", 2, 1);
    has(x, "angle of pair 2 at position 3\n");
    has(x, "\n= (3 \xe2\x88\x92 1) \xc3\x97 0.01 = 0.02 radians");
    ck_assert_msg(!strstr(x, "p = 2"), "%s", x);
    free(x);
    x = explain_cell(l, t, 0, "rope_angles", 0, 0);
    has(x, "at position 1\n");
    has(x, "(1 \xe2\x88\x92 1) \xc3\x97 1 = 0 radians");
    free(x);
    trace_free(t);
    lesson_free(l);
}
END_TEST

/* The sinusoidal encoding: a hover names the position from 1 and shows
** the p − 1 inside the sine or cosine. */
START_TEST(test_sinusoidal_counts_positions_from_1)
{
    Lesson *l;
    Trace *t = run_text("title: S\n[setup]\nseed: 2\ntokens: a b c\nX = randn 3x4\nqueries: X\npositions: sinusoidal\n"
                        "[positional_encoding]\n", &l);
    char *x = explain_cell(l, t, 0, "pe", 2, 1);
    has(x, "PE[3][2]: position 3, column 2 of 4 (pair 1)\n= cos((3 \xe2\x88\x92 1) / 10000^(0/4)) = cos(2 / 1) = ");
    free(x);
    x = explain_cell(l, t, 0, "pe", 0, 2);
    has(x, "PE[1][3]: position 1, column 3 of 4 (pair 2)\n= sin((1 \xe2\x88\x92 1) / 10000^(2/4)) = sin(0 / 100) = 0");
    free(x);
    View *v = tstages_view(l, t, 0);
    has(v->formula, "PE[p][2i\xe2\x88\x92" "1] = sin((p\xe2\x88\x92" "1) / 10000^(2(i\xe2\x88\x92" "1)/d))");
    stage_view_free(v);
    trace_free(t);
    lesson_free(l);
}
END_TEST

/* The names of every matrix --dump writes for stage s (its sub-steps'
** too), each given to fn. */
static void each_dump_name(const Tj *stage, void (*fn)(const char *, void *), void *ctx)
{
    const Tj *steps = tjson_get(stage, "steps");
    for (int g = -1; g < (steps ? steps->n : 0); g++) {
        const Tj *mats = tjson_get(g < 0 ? stage : tjson_at(steps, g), "matrices");
        for (int i = 0; mats && i < mats->n; i++) fn(tjson_get(tjson_at(mats, i), "name")->str, ctx);
    }
}

/* What names_seen gathers: the names, one after another. */
static void names_seen(const char *name, void *ctx)
{
    Buf *b = ctx;
    buf_printf(b, "%s\n", name);
}

/* --dump names the part of a matrix a K/V cache shows with its rows and
** columns from 1, both ends included, as the hovers count. */
START_TEST(test_dump_names_parts_from_1)
{
    Lesson *l;
    Trace *t = run_text("title: D\n[setup]\nseed: 4\ntokens: a b c\nX = randn 3x4\nqueries: X\nmask: causal\n[kv_cache]\n", &l);
    Buf b = { 0 }, names = { 0 };
    dump_json(l, t, &b);
    Tj *j = tjson_parse(b.s);
    ck_assert_ptr_nonnull(j);
    each_dump_name(tjson_at(tjson_get(j, "stages"), 0), names_seen, &names);
    has(names.s, "\nK[1..2, 1..4]\n");
    has(names.s, "\nV[1..3, 1..4]\n");
    ck_assert_msg(!strchr(names.s, ':'), "a name as a Python slice:\n%s", names.s);
    ck_assert_msg(!zero_index(names.s), "a name counts from 0:\n%s", names.s);
    tjson_free(j);
    buf_free(&b);
    buf_free(&names);
    trace_free(t);
    lesson_free(l);
}
END_TEST

/* What the walk over the lessons counts, and the first text that counts
** from 0. */
typedef struct Scan {
    const char *lesson;
    int stage;
    long texts, hovers;
    char first[600];
} Scan;

/* Check one text of a slide (a row or column label: is_label); remember
** the first that counts from 0. */
static void scan_text(Scan *sc, const View *v, const char *what, const char *text, bool is_label)
{
    if (!text) return;
    sc->texts++;
    bool z = zero_index(text) || (is_label && label_from_0(text));
    if (z && !sc->first[0])
        snprintf(sc->first, sizeof sc->first, "%s, stage %d%s%s, %s: \"%s\"", sc->lesson, sc->stage + 1,
                 v->step_name ? " " : "", v->step_name ? v->step_name : "", what, text);
}

/* Every text of one slide, and the hover of every cell in each panel's
** first row and first column (where an index from 0 would print 0). */
static void scan_view(Scan *sc, const Lesson *L, const Trace *T, const View *v)
{
    scan_text(sc, v, "title", v->title, false);
    scan_text(sc, v, "formula", v->formula, false);
    scan_text(sc, v, "note", v->note, false);
    scan_text(sc, v, "sub-step", v->step_label, false);
    scan_text(sc, v, "sub-step name", v->step_name, false);
    for (int p = 0; p < v->npanels; p++) {
        const Panel *pn = &v->panels[p];
        scan_text(sc, v, "panel title", pn->title, false);
        scan_text(sc, v, "row axis", pn->row_axis, false);
        scan_text(sc, v, "column axis", pn->col_axis, false);
        scan_text(sc, v, "y axis", pn->y_axis, false);
        scan_text(sc, v, "bound", pn->bound_label, false);
        for (int i = 0; pn->row_labels && i < pn->m->rows; i++) scan_text(sc, v, "row label", pn->row_labels[i], true);
        for (int j = 0; pn->col_labels && j < pn->m->cols; j++) scan_text(sc, v, "column label", pn->col_labels[j], true);
        for (int j = 0; pn->series && j < pn->m->cols; j++) scan_text(sc, v, "series", pn->series[j], false);
        for (int i = 0; i < pn->m->rows; i++)
            for (int j = 0; j < pn->m->cols; j = i == 0 ? j + 1 : pn->m->cols) {
                Explain ex;
                if (!explain_at(L, T, v->setup, pn->ref, i + pn->row_offset, j + pn->col_offset, &ex)) continue;
                scan_text(sc, v, "hover", ex.text, false);
                sc->hovers++;
                explain_free(&ex);
            }
    }
}

/* tstages_each's call for stage k: its first sub-step v, then the others. */
static void scan_stage(const char *name, const Lesson *L, const Trace *T, int k, View *v, void *ctx)
{
    Scan *sc = ctx;
    sc->lesson = name;
    sc->stage = k;
    scan_view(sc, L, T, v);
    for (int s = 1; s < v->nsteps; s++) {
        StageOpts o = { 0, s, false, tstages_pager() };
        View *w = stage_view_with(L, T, k, &o);
        scan_view(sc, L, T, w);
        stage_view_free(w);
    }
}

/* No label, title, formula, note or hover of the bundled lessons and the
** slide lessons (RoPE and sinusoidal positions among them) names a row,
** column, position, pair, head or sub-step 0, and no token is named by a
** number from 0 ("t0"). */
START_TEST(test_lessons_count_from_1)
{
    Scan sc = { 0 };
    tstages_each("../lessons", scan_stage, &sc);
    tstages_each("slide-lessons", scan_stage, &sc);
    ck_assert_msg(!sc.first[0], "counts from 0: %s", sc.first);
    ck_assert_int_gt(sc.texts, 10000);
    ck_assert_int_gt(sc.hovers, 1000);
}
END_TEST

Suite *counting_suite(void)
{
    Suite *s = suite_create("counting");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_zero_index_finds_indices_only);
    tcase_add_test(tc, test_rope_counts_positions_from_1);
    tcase_add_test(tc, test_sinusoidal_counts_positions_from_1);
    tcase_add_test(tc, test_dump_names_parts_from_1);
    tcase_add_test(tc, test_lessons_count_from_1);
    suite_add_tcase(s, tc);
    return s;
}
