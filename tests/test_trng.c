/*
** test_trng.c: PyTorch's CPU generator, case by case from
** reference/torch_rng.json (values torch itself returned; the file is
** written by reference/make_torch_rng.py). The wide comparison over many
** seeds and sizes is tests/check_torch_rng.py; these are the fixed points.
*/
#include "suites.h"
#include "tjson.h"
#include "core/compute/trng.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static Tj *cases;

/* Load the reference once per test (each test runs in its own fork). */
static void load_cases(void)
{
    cases = tjson_load("reference/torch_rng.json");
    ck_assert_ptr_nonnull(cases);
}

/* Free the reference. */
static void free_cases(void)
{
    tjson_free(cases);
    cases = NULL;
}

/* Bit-identical comparison, with a readable message if it ever drifts. */
static void expect_same(double got, double want, int k)
{
    if (got != want)
        ck_abort_msg("value %d: got %.17g, torch gave %.17g", k, got, want);
}

/*
** Run case i of the file through the generator: seed, draw what the case
** says, compare every value. The case's kind must be want_kind, so a
** reordered file fails loudly instead of testing something else.
*/
static void check_case(int i, const char *want_kind)
{
    Tj *c = tjson_at(tjson_get(cases, "cases"), i);
    ck_assert_ptr_nonnull(c);
    const char *kind = tjson_get(c, "kind")->str;
    ck_assert_str_eq(kind, want_kind);
    int rows = (int)tjson_get(c, "rows")->num, cols = (int)tjson_get(c, "cols")->num;
    Tj *v = tjson_get(c, "values");
    Trng t;
    memset(&t, 0, sizeof t);
    t.portable = tjson_get(c, "portable")->num != 0;
    trng_seed(&t, strtoull(tjson_get(c, "seed")->str, NULL, 10));
    Mat *m = mat_create(rows, cols);
    double bias[64];
    int n = rows * cols;
    if (!strcmp(kind, "randn")) trng_randn(&t, m->data, n);
    else if (!strcmp(kind, "rand")) trng_rand(&t, m->data, n);
    else if (!strcmp(kind, "xavier")) trng_xavier_uniform(&t, m, tjson_get(c, "gain")->num);
    else {
        trng_linear(&t, m);
        trng_linear_bias(&t, bias, rows, cols);
    }
    ck_assert_int_eq(v->n, !strcmp(kind, "linear") ? n + rows : n);
    for (int k = 0; k < n; k++) expect_same(m->data[k], v->items[k]->num, k);
    for (int k = n; k < v->n; k++) expect_same(bias[k - n], v->items[k]->num, k);
    mat_free(m);
}

START_TEST(test_randn_small_path)     { check_case(0, "randn"); }
END_TEST
START_TEST(test_randn_largest_small)  { check_case(1, "randn"); }
END_TEST
START_TEST(test_randn_block_avx2)     { check_case(2, "randn"); }
END_TEST
START_TEST(test_randn_tail_avx2)      { check_case(3, "randn"); }
END_TEST
START_TEST(test_randn_block_portable) { check_case(4, "randn"); }
END_TEST
START_TEST(test_randn_tail_portable)  { check_case(5, "randn"); }
END_TEST
START_TEST(test_rand_seed_max32)      { check_case(6, "rand"); }
END_TEST
START_TEST(test_rand_seed_max64)      { check_case(7, "rand"); }
END_TEST
START_TEST(test_xavier_seed002)       { check_case(8, "xavier"); }
END_TEST
START_TEST(test_xavier_portable)      { check_case(9, "xavier"); }
END_TEST
START_TEST(test_xavier_gain)          { check_case(10, "xavier"); }
END_TEST
START_TEST(test_linear_weight_bias)   { check_case(11, "linear"); }
END_TEST

/* The cached second normal survives other draws and dies with manual_seed,
** as torch's generator keeps it: randn(1) twice equals randn(2). */
START_TEST(test_cache_across_calls)
{
    Trng a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    double two[2], one[1], u[1];
    trng_seed(&a, 42);
    trng_randn(&a, two, 2);
    trng_seed(&b, 42);
    trng_randn(&b, one, 1);
    ck_assert(one[0] == two[0]);
    trng_rand(&b, u, 1);                /* a uniform does not touch the cache */
    trng_randn(&b, one, 1);
    ck_assert(one[0] == two[1]);
    trng_seed(&b, 42);                  /* reseeding clears it */
    trng_randn(&b, one, 1);
    ck_assert(one[0] == two[0]);
}
END_TEST

/* Every value is a float32 held exactly, and uniforms stay inside their bounds. */
START_TEST(test_values_are_float32)
{
    Trng t;
    memset(&t, 0, sizeof t);
    trng_seed(&t, 2024);
    double buf[1000];
    trng_randn(&t, buf, 1000);
    for (int i = 0; i < 1000; i++) ck_assert(buf[i] == (double)(float)buf[i] && isfinite(buf[i]));
    Mat *w = mat_create(64, 32);
    trng_xavier_uniform(&t, w, 1.0);
    double a = sqrt(6.0 / 96.0);
    for (int i = 0; i < 64 * 32; i++) ck_assert(fabs(w->data[i]) <= a && w->data[i] == (double)(float)w->data[i]);
    mat_free(w);
}
END_TEST

/* Seeds that differ only above bit 31 give the same stream (torch keeps
** the low 32 bits), and the limits of the uniform come out right. */
START_TEST(test_limits_seed_bits)
{
    Trng a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    double x[20], y[20];
    trng_seed(&a, 5);
    trng_seed(&b, (UINT64_C(1) << 40) + 5);
    trng_randn(&a, x, 20);
    trng_randn(&b, y, 20);
    ck_assert(!memcmp(x, y, sizeof x));
    ck_assert(trng_uniform1(&a, 2.0f, 2.0f) == 2.0f);
}
END_TEST

/* The torch generator suite. */
Suite *trng_suite(void)
{
    Suite *s = suite_create("trng");
    TCase *core = tcase_create("core");
    tcase_add_checked_fixture(core, load_cases, free_cases);
    tcase_add_test(core, test_randn_small_path);
    tcase_add_test(core, test_randn_largest_small);
    tcase_add_test(core, test_randn_block_avx2);
    tcase_add_test(core, test_randn_tail_avx2);
    tcase_add_test(core, test_randn_block_portable);
    tcase_add_test(core, test_randn_tail_portable);
    tcase_add_test(core, test_rand_seed_max32);
    tcase_add_test(core, test_rand_seed_max64);
    tcase_add_test(core, test_xavier_seed002);
    tcase_add_test(core, test_xavier_portable);
    tcase_add_test(core, test_xavier_gain);
    tcase_add_test(core, test_linear_weight_bias);
    tcase_add_test(core, test_cache_across_calls);
    tcase_add_test(core, test_values_are_float32);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_limits_seed_bits);
    suite_add_tcase(s, limits);
    return s;
}
