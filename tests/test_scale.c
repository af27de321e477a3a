/*
** test_scale.c: colour scales and ticks (src/view/scale.c), on their own:
** round steps, positions in a range, tick values and their labels, at
** ordinary ranges and at the ends of the doubles.
*/
#include "suites.h"
#include "view/scale.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The labels of every tick of t, joined by spaces, into out. */
static void labels(const Ticks *t, char *out, size_t n)
{
    out[0] = '\0';
    for (int i = 0; i < t->n; i++) {
        char s[64];
        scale_tick_text(s, sizeof s, t, i);
        size_t used = strlen(out);
        snprintf(out + used, n - used, "%s%s", i ? " " : "", s);
    }
}

START_TEST(test_nice_steps)
{
    const double raw[] = { 0.3, 1, 1.5, 2.2, 2.5, 3, 7, 0.012, 4e7 };
    const double want[] = { 0.5, 1, 2, 2.5, 2.5, 5, 10, 0.02, 5e7 };
    for (int i = 0; i < 9; i++)
        ck_assert_msg(fabs(scale_nice_step(raw[i]) - want[i]) <= 1e-12 * want[i], "nice step of %g: %g, want %g",
                      raw[i], scale_nice_step(raw[i]), want[i]);
    ck_assert_int_eq(scale_step_decimals(1), 0);
    ck_assert_int_eq(scale_step_decimals(0.5), 1);
    ck_assert_int_eq(scale_step_decimals(2.5), 1);
    ck_assert_int_eq(scale_step_decimals(0.25), 2);
    ck_assert_int_eq(scale_step_decimals(0.002), 3);
    ck_assert_int_eq(scale_step_decimals(1e-5), 5);
    ck_assert_int_eq(scale_step_decimals(2.5e-6), 6);
}
END_TEST

START_TEST(test_positions)
{
    Scale k = scale_of(-2, 6);
    ck_assert(k.ok);
    ck_assert_double_eq_tol(scale_at(&k, -2), 0, 1e-15);
    ck_assert_double_eq_tol(scale_at(&k, 2), 0.5, 1e-15);
    ck_assert_double_eq_tol(scale_at(&k, 6), 1, 1e-15);
    ck_assert_double_eq(scale_at(&k, -100), 0);        /* clamped */
    ck_assert_double_eq(scale_at(&k, 100), 1);
    ck_assert_double_eq_tol(scale_frac(0, -2, 6), 0.25, 1e-15);
}
END_TEST

START_TEST(test_ticks)
{
    char s[256];
    Ticks t = scale_ticks(0, 1, 5);
    labels(&t, s, sizeof s);
    ck_assert_str_eq(s, "0.00 0.25 0.50 0.75 1.00");
    t = scale_ticks(0, 1, 3);
    labels(&t, s, sizeof s);
    ck_assert_str_eq(s, "0.0 0.5 1.0");
    t = scale_ticks(-3.7, 8.2, 7);                      /* inside the range, round */
    labels(&t, s, sizeof s);
    ck_assert_str_eq(s, "-2 0 2 4 6 8");
    t = scale_ticks(-3.7, 8.2, 5);                      /* the step for 5 leaves room for 2 */
    labels(&t, s, sizeof s);
    ck_assert_str_eq(s, "0 5");
    t = scale_ticks(-0.3, 0.3, 4);
    labels(&t, s, sizeof s);
    ck_assert_str_eq(s, "-0.2 0.0 0.2");
    ck_assert_int_eq(t.decimals, 1);
    t = scale_ticks(0, 1500, 4);
    labels(&t, s, sizeof s);
    ck_assert_str_eq(s, "0 500 1000 1500");
    for (int want = 2; want <= SCALE_MAX_TICKS; want++) {
        t = scale_ticks(-0.37, 2.9, want);
        ck_assert_int_ge(t.n, 2);
        ck_assert_int_le(t.n, want);
        for (int i = 0; i < t.n; i++) {
            ck_assert(t.v[i] >= -0.37 && t.v[i] <= 2.9);
            if (i) ck_assert(t.v[i] > t.v[i - 1]);
        }
    }
}
END_TEST

START_TEST(test_limits_empty_and_not_finite)
{
    ck_assert_double_eq(scale_nice_step(0), 0);
    ck_assert_double_eq(scale_nice_step(-1), 0);
    ck_assert_double_eq(scale_nice_step(NAN), 0);
    ck_assert_double_eq(scale_nice_step(INFINITY), 0);
    ck_assert_double_eq(scale_nice_step(1e-320), 0);   /* its power of ten is subnormal */
    Scale k = scale_of(3, 3);
    ck_assert(!k.ok);
    ck_assert_double_eq(scale_at(&k, 3), 0.5);
    k = scale_of(0, 0);
    ck_assert(!k.ok);
    ck_assert_double_eq(scale_at(&k, 0), 0.5);
    k = scale_of(0, 1);
    ck_assert_double_eq(scale_at(&k, NAN), 0.5);
    ck_assert_double_eq(scale_at(&k, -INFINITY), 0.5);
    Ticks t = scale_ticks(2, 2, 5);                     /* one value: itself */
    ck_assert_int_eq(t.n, 1);
    ck_assert_double_eq(t.v[0], 2);
    t = scale_ticks(-1, 1, 1);
    ck_assert_int_eq(t.n, 1);
}
END_TEST

START_TEST(test_limits_ends_of_the_doubles)
{
    char s[256];
    /* ±1e308: the width overflows, the positions do not */
    Scale k = scale_of(-1e308, 1e308);
    ck_assert(k.ok);
    ck_assert_double_eq(scale_at(&k, 0), 0.5);
    ck_assert_double_eq(scale_at(&k, 1e308), 1);
    ck_assert_double_eq(scale_at(&k, -1e308), 0);
    ck_assert_double_eq_tol(scale_frac(DBL_MAX / 2, -DBL_MAX, DBL_MAX), 0.75, 1e-15);
    Ticks t = scale_ticks(-1e308, 1e308, 5);
    labels(&t, s, sizeof s);
    ck_assert_str_eq(s, "-1.00e+308 0 1.00e+308");
    /* subnormals: the half-range rounds to 0 */
    k = scale_of(0, 5e-324);
    ck_assert(k.ok);
    ck_assert_double_eq(scale_at(&k, 5e-324), 1);
    t = scale_ticks(0, 5e-324, 5);
    labels(&t, s, sizeof s);
    ck_assert_str_eq(s, "0 4.94e-324");
    /* neighbours that three digits would print alike get more */
    t = scale_ticks(1e9, 1e9 + 1000, 3);
    ck_assert_int_eq(t.n, 3);
    labels(&t, s, sizeof s);
    ck_assert_str_eq(s, "1.0000000e+09 1.0000005e+09 1.0000010e+09");
}
END_TEST

/* The scale suite. */
Suite *scale_suite(void)
{
    Suite *s = suite_create("scale");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_nice_steps);
    tcase_add_test(core, test_positions);
    tcase_add_test(core, test_ticks);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_limits_empty_and_not_finite);
    tcase_add_test(limits, test_limits_ends_of_the_doubles);
    suite_add_tcase(s, limits);
    return s;
}
