/*
** test_rng.c: numpy's legacy generator, case by case from
** reference/numpy_rng.json (values printed by numpy itself).
*/
#include "suites.h"
#include "tjson.h"
#include "core/compute/rng.h"

#include <math.h>
#include <stdlib.h>

static Tj *cases;

/* Load the reference once per test (each test runs in its own fork). */
static void load_cases(void)
{
    cases = tjson_load("reference/numpy_rng.json");
    ck_assert_ptr_nonnull(cases);
}

/* Free the reference. */
static void free_cases(void)
{
    tjson_free(cases);
    cases = NULL;
}

/* The values array of case number i (in file order). */
static Tj *case_values(int i)
{
    Tj *c = tjson_at(tjson_get(cases, "cases"), i);
    ck_assert_ptr_nonnull(c);
    return tjson_get(c, "values");
}

/* Bit-identical comparison, with a readable message if it ever drifts. */
static void expect_same(double got, double want)
{
    if (got != want)
        ck_abort_msg("got %.17g, numpy printed %.17g (rel err %.3g)", got, want, fabs(got - want) / fabs(want));
}

/* Case i: seed, then n randn draws compared one by one. */
static void check_randn_case(int i, uint32_t seed)
{
    Tj *v = case_values(i);
    Rng r;
    rng_seed(&r, seed);
    for (int k = 0; k < v->n; k++) expect_same(rng_randn(&r), v->items[k]->num);
}

START_TEST(test_randn_seed42)      { check_randn_case(0, 42); }
END_TEST
START_TEST(test_randn_seed0)       { check_randn_case(4, 0); }
END_TEST
START_TEST(test_randn_seed123)     { check_randn_case(5, 123); }
END_TEST
START_TEST(test_randn_seed_max)    { check_randn_case(6, 4294967295U); }
END_TEST

START_TEST(test_rand_seed42)
{
    Tj *v = case_values(1);
    Rng r;
    rng_seed(&r, 42);
    for (int k = 0; k < v->n; k++) expect_same(rng_rand(&r), v->items[k]->num);
}
END_TEST

START_TEST(test_randint_high3)
{
    Tj *v = case_values(2);
    Rng r;
    rng_seed(&r, 42);
    for (int k = 0; k < v->n; k++) ck_assert_int_eq(rng_randint(&r, 0, 3), (int64_t)v->items[k]->num);
}
END_TEST

START_TEST(test_randint_low_high)
{
    Tj *v = case_values(3);
    Rng r;
    rng_seed(&r, 42);
    for (int k = 0; k < v->n; k++) ck_assert_int_eq(rng_randint(&r, 0, 1000), (int64_t)v->items[k]->num);
}
END_TEST

START_TEST(test_cached_gaussian_survives_rand)
{
    Tj *v = case_values(7);
    Rng r;
    rng_seed(&r, 7);
    Tj *a = tjson_at(v, 0), *b = tjson_at(v, 1), *c = tjson_at(v, 2);
    for (int k = 0; k < a->n; k++) expect_same(rng_randn(&r), a->items[k]->num);
    for (int k = 0; k < b->n; k++) expect_same(rng_rand(&r), b->items[k]->num);
    for (int k = 0; k < c->n; k++) expect_same(rng_randn(&r), c->items[k]->num);
}
END_TEST

START_TEST(test_fill_row_major)
{
    Mat *want = tjson_mat(case_values(8));
    Mat *m = mat_create(2, 3);
    Rng r;
    rng_seed(&r, 42);
    rng_fill_randn(&r, m, 1.0);
    ck_assert_double_eq(mat_max_abs_diff(m, want), 0.0);
    mat_free(m);
    mat_free(want);
}
END_TEST

START_TEST(test_stack_matches_flat_draws)
{
    /* a (2, 3, 4) stack is the same 24 draws as a flat randn(24) */
    Mat *s[2] = { mat_create(3, 4), mat_create(3, 4) };
    Rng a, b;
    rng_seed(&a, 42);
    rng_seed(&b, 42);
    rng_fill_randn_stack(&a, s, 2, 0.5);
    for (int h = 0; h < 2; h++)
        for (int k = 0; k < 12; k++) ck_assert_double_eq(s[h]->data[k], rng_randn(&b) * 0.5);
    mat_free(s[0]);
    mat_free(s[1]);
}
END_TEST

START_TEST(test_limits_randint_edges)
{
    Rng r;
    rng_seed(&r, 1);
    ck_assert_int_eq(rng_randint(&r, 5, 6), 5);              /* one value: no draw */
    Rng fresh;
    rng_seed(&fresh, 1);
    ck_assert_uint_eq(rng_next32(&r), rng_next32(&fresh));   /* and state untouched */
    for (int k = 0; k < 1000; k++) {
        int64_t v = rng_randint(&r, -3, 4);
        ck_assert(v >= -3 && v < 4);
    }
    for (int k = 0; k < 1000; k++) {
        double u = rng_rand(&r);
        ck_assert(u >= 0.0 && u < 1.0);
    }
}
END_TEST

/* The RNG suite. */
Suite *rng_suite(void)
{
    Suite *s = suite_create("rng");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, load_cases, free_cases);
    tcase_add_test(core, test_randn_seed42);
    tcase_add_test(core, test_randn_seed0);
    tcase_add_test(core, test_randn_seed123);
    tcase_add_test(core, test_rand_seed42);
    tcase_add_test(core, test_randint_high3);
    tcase_add_test(core, test_randint_low_high);
    tcase_add_test(core, test_cached_gaussian_survives_rand);
    tcase_add_test(core, test_fill_row_major);
    tcase_add_test(core, test_stack_matches_flat_draws);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_checked_fixture(limits, load_cases, free_cases);
    tcase_add_test(limits, test_randn_seed_max);
    tcase_add_test(limits, test_limits_randint_edges);
    suite_add_tcase(s, limits);
    return s;
}
