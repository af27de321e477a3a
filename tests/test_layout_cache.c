/*
** test_layout_cache.c: what a LayoutCache computes from a view's matrices,
** against the plain definitions.
*/
#include "suites.h"
#include "view/layout_int.h"

#include <math.h>
#include <string.h>

/* The stats as layout_cache.c defines them: the plain loop, in order. */
static PanelStats plain_stats(const Mat *m)
{
    PanelStats st = { 0, 0, false, false, true, 0, 0, false };
    for (long i = 0; i < (long)m->rows * m->cols; i++) {
        double x = m->data[i];
        if (!isfinite(x)) { st.any_nonfinite = true; continue; }
        if (!st.any || x < st.vmin) st.vmin = x;
        if (!st.any || x > st.vmax) st.vmax = x;
        st.any = true;
        if (x != floor(x)) st.ints = false;
        if (x == 0.0 || x == 1.0) continue;
        if (!st.any_nx || x < st.nx_min) st.nx_min = x;
        if (!st.any_nx || x > st.nx_max) st.nx_max = x;
        st.any_nx = true;
    }
    return st;
}

/* Bit for bit (the sign of a zero extreme counts). */
static bool same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

START_TEST(test_stats_match_the_plain_loop)
{
    /* Sizes below, at and past the vector path's start, with every kind of
    ** value: zeros of both signs first or late, ones, whole numbers, ±∞,
    ** NaN, all negative, all non-finite. */
    static const double special[] = { 0.0, -0.0, 1.0, INFINITY, -INFINITY, NAN, 2.0, -3.0 };
    static const int sizes[][2] = { { 1, 1 }, { 3, 5 }, { 8, 8 }, { 1, 63 }, { 1, 64 }, { 9, 17 }, { 31, 33 },
                                    { 64, 64 }, { 3, 301 } };
    LayoutCache *c = layout_cache_create();
    View v;
    memset(&v, 0, sizeof v);
    v.npanels = 1;                      /* serial 0: read afresh at every call */
    unsigned seed = 5;
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        for (int mode = 0; mode < 9; mode++) {
            Mat *m = mat_create(sizes[t][0], sizes[t][1]);
            long n = (long)m->rows * m->cols;
            for (long i = 0; i < n; i++) {
                seed = seed * 1103515245u + 12345u;
                double x = ((seed >> 8) & 0xFFFF) / 4096.0 - 8.0;
                int pick = (int)((seed >> 3) % 8);
                if (mode == 1 && (seed >> 20) % 5 == 0) x = special[pick];          /* a few of each */
                if (mode == 2) x = special[pick];                                   /* only specials */
                if (mode == 3) x = -fabs(x) - 1;                                    /* all negative */
                if (mode == 4) x = special[3 + (seed >> 9) % 3];                    /* nothing finite */
                if (mode == 5) x = i == n - 1 ? -0.0 : (i % 2 ? 0.0 : 1.0);         /* zeros and ones */
                if (mode == 6) x = i == n / 2 ? -0.0 : fabs(x) + 0.5;               /* one -0 among positives */
                if (mode == 7 || mode == 8) {       /* -0 first, +0 later in another lane: the extreme is -0 */
                    x = mode == 7 ? fabs(x) + 0.5 : -fabs(x) - 0.5;
                    if (i == 1 % n) x = -0.0;
                    if (i == 4 % n && n > 4) x = 0.0;
                }
                m->data[i] = x;
            }
            v.panels[0].m = m;
            PanelStats got = lay_view_stats(c, &v, 0), want = plain_stats(m);
            ck_assert_msg(got.any == want.any && got.any_nonfinite == want.any_nonfinite && got.ints == want.ints
                          && got.any_nx == want.any_nx, "flags, %dx%d mode %d", m->rows, m->cols, mode);
            if (want.any)
                ck_assert_msg(same_bits(got.vmin, want.vmin) && same_bits(got.vmax, want.vmax),
                              "range %g..%g, want %g..%g (%dx%d mode %d)", got.vmin, got.vmax, want.vmin, want.vmax,
                              m->rows, m->cols, mode);
            if (want.any_nx)
                ck_assert_msg(same_bits(got.nx_min, want.nx_min) && same_bits(got.nx_max, want.nx_max),
                              "range without 0 and 1, %dx%d mode %d", m->rows, m->cols, mode);
            mat_free(m);
        }
    }
    layout_cache_free(c);
}
END_TEST

/* The layout cache suite. */
Suite *layout_cache_suite(void)
{
    Suite *s = suite_create("layout_cache");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_stats_match_the_plain_loop);
    suite_add_tcase(s, core);
    return s;
}
