/*
** test_mat.c: the matrix module, against products worked out by hand.
*/
#include "suites.h"
#include "core/mat.h"

#include <math.h>

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

/* The matrix suite. */
Suite *mat_suite(void)
{
    Suite *s = suite_create("mat");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_matmul_by_hand);
    tcase_add_test(core, test_transpose_scale_add);
    tcase_add_test(core, test_blocks_and_concat_roundtrip);
    tcase_add_test(core, test_finite_range_skips_infinities);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_limits_one_by_one);
    tcase_add_test(limits, test_limits_shape_errors);
    suite_add_tcase(s, limits);
    return s;
}
