/*
** test_mat.c: the matrix module, against products worked out by hand.
*/
#include "suites.h"
#include "core/compute/mat.h"
#include "core/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_matmul_by_hand)
{
    double a[] = { 1, 2, 3, 4, 5, 6 };          /* 2x3 */
    double b[] = { 7, 8, 9, 10, 11, 12 };       /* 3x2 */
    Mat *A = mat_from(2, 3, a), *B = mat_from(3, 2, b);
    Mat *C = mat_matmul(A, B);
    ck_assert_int_eq(C->rows, 2);
    ck_assert_int_eq(C->cols, 2);
    ck_assert_double_eq(mat_get(C, 0, 0), 1 * 7 + 2 * 9 + 3 * 11);
    ck_assert_double_eq(mat_get(C, 0, 1), 1 * 8 + 2 * 10 + 3 * 12);
    ck_assert_double_eq(mat_get(C, 1, 0), 4 * 7 + 5 * 9 + 6 * 11);
    ck_assert_double_eq(mat_get(C, 1, 1), 4 * 8 + 5 * 10 + 6 * 12);
    mat_free(A); mat_free(B); mat_free(C);
}
END_TEST

START_TEST(test_transpose_scale_add)
{
    double a[] = { 1, -2, 3, 4, 5, -6 };
    Mat *A = mat_from(2, 3, a);
    Mat *T = mat_transpose(A);
    ck_assert_int_eq(T->rows, 3);
    ck_assert_double_eq(mat_get(T, 2, 1), -6);
    ck_assert_double_eq(mat_get(T, 1, 0), -2);
    Mat *S = mat_scale(A, 0.5);
    ck_assert_double_eq(mat_get(S, 1, 2), -3);
    Mat *D = mat_add(A, S);
    ck_assert_double_eq(mat_get(D, 0, 1), -3);
    Mat *C = mat_copy(A);
    mat_set(C, 0, 0, 99);
    ck_assert_double_eq(mat_get(A, 0, 0), 1);   /* a deep copy */
    mat_free(A); mat_free(T); mat_free(S); mat_free(D); mat_free(C);
}
END_TEST

START_TEST(test_blocks_and_concat_roundtrip)
{
    Mat *M = mat_create(3, 6);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 6; j++) mat_set(M, i, j, i * 10 + j);
    Mat *parts[3];
    for (int h = 0; h < 3; h++) parts[h] = mat_col_block(M, 2 * h, 2);
    ck_assert_double_eq(mat_get(parts[1], 2, 0), 22);
    ck_assert_double_eq(mat_get(parts[2], 0, 1), 5);
    Mat *R = mat_hconcat(parts, 3);
    ck_assert_double_eq(mat_max_abs_diff(M, R), 0);
    for (int h = 0; h < 3; h++) mat_free(parts[h]);
    mat_free(M); mat_free(R);
}
END_TEST

START_TEST(test_limits_one_by_one)
{
    double one = 3;
    Mat *A = mat_from(1, 1, &one);
    Mat *P = mat_matmul(A, A);
    ck_assert_double_eq(mat_get(P, 0, 0), 9);
    Mat *T = mat_transpose(A);
    ck_assert_double_eq(mat_get(T, 0, 0), 3);
    mat_free(A); mat_free(P); mat_free(T);
}
END_TEST

START_TEST(test_limits_shape_errors)
{
    Mat *A = mat_create(2, 3), *B = mat_create(2, 3);
    ck_assert_ptr_null(mat_matmul(A, B));
    Mat *C = mat_create(3, 3);
    ck_assert_ptr_null(mat_add(A, C));
    ck_assert_ptr_null(mat_col_block(A, 2, 2));
    Mat *parts[2] = { A, C };
    ck_assert_ptr_null(mat_hconcat(parts, 2));
    ck_assert_ptr_null(mat_create(0, 3));
    ck_assert_ptr_null(mat_create(3, -1));
    ck_assert_ptr_null(mat_create(MAT_MAX_DIM + 1, 1));
    mat_free(A); mat_free(B); mat_free(C);
}
END_TEST

START_TEST(test_finite_range_skips_infinities)
{
    double a[] = { -INFINITY, 2, -1, 5 };
    Mat *A = mat_from(2, 2, a);
    double lo = 0, hi = 0;
    ck_assert(mat_finite_range(A, &lo, &hi));
    ck_assert_double_eq(lo, -1);
    ck_assert_double_eq(hi, 5);
    ck_assert(!mat_all_finite(A));
    mat_free(A);
}
END_TEST

/* The textbook product, one element at a time: the sum starts at +0.0 and
** takes the products in order, each rounded before it is added (separate
** statements: nothing may fuse them). */
static double textbook(const Mat *a, const Mat *b, int i, int j)
{
    double s = 0.0;
    for (int k = 0; k < a->cols; k++) {
        double p = mat_get(a, i, k) * mat_get(b, k, j);
        s += p;
    }
    return s;
}

/* Bit for bit, with the sign of zero, and NaN where NaN. */
static bool same_double(double x, double y)
{
    return memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y));
}

/* Values that test the order: magnitudes from 1e-8 to 1e8 (rounding differs
** with the order of the sum), and now and then 0, -0, ±∞ or NaN. */
static void fill_awkward(Mat *m, unsigned seed, bool specials)
{
    static const double special[] = { 0.0, -0.0, INFINITY, -INFINITY, NAN };
    for (long i = 0; i < (long)m->rows * m->cols; i++) {
        seed = seed * 1103515245u + 12345u;
        double v = ((seed >> 8) & 0xFFFF) / 65536.0 - 0.5;
        v *= pow(10.0, (int)((seed >> 24) % 17) - 8);
        if (specials && (seed >> 4) % 97 == 0) v = special[(seed >> 12) % 5];
        m->data[i] = v;
    }
}

START_TEST(test_matmul_sums_in_order)
{
    /* Shapes around the kernel's tile (8 columns, 2 to 8 rows) and block of
    ** k (256): every edge case of the cutting, against the textbook loop;
    ** the last two are large enough to be shared among threads (2^24
    ** multiply-adds), in bands of columns that end mid-panel. */
    static const int shapes[][3] = { { 1, 1, 1 }, { 3, 5, 7 }, { 8, 8, 8 }, { 9, 17, 15 }, { 13, 300, 9 },
                                     { 4, 256, 16 }, { 33, 257, 31 }, { 2, 600, 65 }, { 17, 513, 24 },
                                     { 64, 64, 64 }, { 300, 257, 261 }, { 41, 600, 1003 } };
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        int m = shapes[t][0], k = shapes[t][1], n = shapes[t][2];
        for (int specials = 0; specials < 2; specials++) {
            Mat *A = mat_create(m, k), *B = mat_create(k, n);
            fill_awkward(A, 7u + (unsigned)t, specials);
            fill_awkward(B, 1000u + (unsigned)t, specials);
            Mat *C = mat_matmul(A, B), *Bt = mat_transpose(B), *D = mat_matmul_t(A, Bt);
            for (int i = 0; i < m; i++)
                for (int j = 0; j < n; j++) {
                    double want = textbook(A, B, i, j);
                    ck_assert_msg(same_double(mat_get(C, i, j), want), "%dx%dx%d [%d][%d]: %.17g, textbook %.17g",
                                  m, k, n, i, j, mat_get(C, i, j), want);
                    ck_assert_msg(same_double(mat_get(D, i, j), want), "a·bᵀ %dx%dx%d [%d][%d]", m, k, n, i, j);
                }
            mat_free(A); mat_free(B); mat_free(C); mat_free(Bt); mat_free(D);
        }
    }
}
END_TEST

START_TEST(test_matmul_views_sum_in_order)
{
    /* b a view of floats (a model's weights where they are mapped): with a
    ** few rows of a it is read unpacked (transposed: a turned over
    ** instead), with more packed; each way, bit for bit the textbook loop,
    ** including a row stride wider than a row (transposed too), a last panel or tile
    ** cut short, rows that fill no whole tile, more than one block of k
    ** unpacked, and a product shared among threads. */
    static const int shapes[][3] = { { 1, 1, 1 },      { 3, 5, 7 },     { 4, 256, 16 },  { 5, 300, 17 },
                                     { 24, 513, 40 },  { 25, 257, 9 },  { 7, 600, 3001 }, { 60, 300, 130 },
                                     { 9, 1100, 501 }, { 16, 1030, 70 }, { 17, 40, 13 },  { 2, 2000, 1200 },
                                     { 130, 70, 19 },  { 8, 513, 50 },  { 23, 90, 31 } };
    for (size_t t = 0; t < sizeof shapes / sizeof shapes[0]; t++) {
        int m = shapes[t][0], k = shapes[t][1], n = shapes[t][2];
        long ld = n + (long)(t % 3), ldt = k + (long)(t % 2);
        float *f = xmalloc(sizeof *f * (size_t)k * (size_t)ld), *ft = xmalloc(sizeof *ft * (size_t)ldt * (size_t)n);
        Mat *A = mat_create(m, k), *F = mat_create(k, (int)ld);
        fill_awkward(A, 3u + (unsigned)t, false);
        fill_awkward(F, 500u + (unsigned)t, false);
        for (long i = 0; i < (long)k * ld; i++) f[i] = (float)F->data[i];
        for (int r = 0; r < k; r++)
            for (int c = 0; c < n; c++) ft[(long)c * ldt + r] = f[(long)r * ld + c];
        Mat *V = mat_view_f32(k, n, f, ld, false), *T = mat_view_f32(k, n, ft, ldt, true);
        Mat *C = mat_matmul(A, V), *D = mat_matmul(A, T);
        for (int i = 0; i < m; i++)
            for (int j = 0; j < n; j++) {
                double s = 0.0;
                for (int q = 0; q < k; q++) {
                    double p = mat_get(A, i, q) * (double)f[(long)q * ld + j];
                    s += p;
                }
                ck_assert_msg(same_double(mat_get(C, i, j), s), "view %dx%dx%d [%d][%d]: %.17g, textbook %.17g", m, k, n,
                              i, j, mat_get(C, i, j), s);
                ck_assert_msg(same_double(mat_get(D, i, j), s), "transposed view %dx%dx%d [%d][%d]", m, k, n, i, j);
            }
        mat_free(A); mat_free(F); mat_free(V); mat_free(T); mat_free(C); mat_free(D);
        free(f);
        free(ft);
    }
}
END_TEST

/* The matrix suite. */
Suite *mat_suite(void)
{
    Suite *s = suite_create("mat");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_matmul_by_hand);
    tcase_add_test(core, test_transpose_scale_add);
    tcase_add_test(core, test_blocks_and_concat_roundtrip);
    tcase_add_test(core, test_finite_range_skips_infinities);
    tcase_add_test(core, test_matmul_sums_in_order);
    tcase_add_test(core, test_matmul_views_sum_in_order);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_limits_one_by_one);
    tcase_add_test(limits, test_limits_shape_errors);
    suite_add_tcase(s, limits);
    return s;
}
