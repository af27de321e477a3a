/*
** mat.c: dense matrix operations. Straightforward loops; the matrices of a
** lesson are small (at most a few hundred per side), and the i-k-j order of
** matmul keeps the inner loop on contiguous memory.
*/
#include "mat.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A zero matrix, or NULL for a size outside 1..MAT_MAX_DIM. */
Mat *mat_create(int rows, int cols)
{
    if (rows < 1 || cols < 1 || rows > MAT_MAX_DIM || cols > MAT_MAX_DIM) return NULL;
    Mat *m = xmalloc(sizeof *m);
    m->rows = rows;
    m->cols = cols;
    m->data = xcalloc((size_t)rows * (size_t)cols, sizeof(double));
    return m;
}

/* A matrix filled from row-major data. */
Mat *mat_from(int rows, int cols, const double *data)
{
    Mat *m = mat_create(rows, cols);
    if (m) memcpy(m->data, data, sizeof(double) * (size_t)rows * (size_t)cols);
    return m;
}

/* Release a matrix. */
void mat_free(Mat *m)
{
    if (!m) return;
    free(m->data);
    free(m);
}

/* Deep copy. */
Mat *mat_copy(const Mat *m)
{
    return mat_from(m->rows, m->cols, m->data);
}

/* Matrix product; the sum for each element runs k = 0..n-1 in order, the
** same order numpy's naive reference uses, so small cases agree bit for bit. */
Mat *mat_matmul(const Mat *a, const Mat *b)
{
    if (a->cols != b->rows) return NULL;     /* inner sizes differ */
    Mat *c = mat_create(a->rows, b->cols);
    for (int i = 0; i < a->rows; i++) {
        double *ci = mat_row(c, i);
        const double *ai = mat_row(a, i);
        for (int k = 0; k < a->cols; k++) {
            double aik = ai[k];
            const double *bk = mat_row(b, k);
            for (int j = 0; j < b->cols; j++) ci[j] += aik * bk[j];
        }
    }
    return c;
}

/* Transpose. */
Mat *mat_transpose(const Mat *m)
{
    Mat *t = mat_create(m->cols, m->rows);
    for (int i = 0; i < m->rows; i++)
        for (int j = 0; j < m->cols; j++) mat_set(t, j, i, mat_get(m, i, j));
    return t;
}

/* Scalar multiple. */
Mat *mat_scale(const Mat *m, double s)
{
    Mat *r = mat_copy(m);
    for (long i = 0; i < (long)m->rows * m->cols; i++) r->data[i] *= s;
    return r;
}

/* Elementwise sum. */
Mat *mat_add(const Mat *a, const Mat *b)
{
    if (!mat_same_shape(a, b)) return NULL;     /* shapes differ */
    Mat *r = mat_copy(a);
    for (long i = 0; i < (long)a->rows * a->cols; i++) r->data[i] += b->data[i];
    return r;
}

/* A block of columns. */
Mat *mat_col_block(const Mat *m, int col0, int ncols)
{
    if (col0 < 0 || ncols < 1 || col0 > m->cols - ncols) return NULL;     /* columns outside the matrix */
    Mat *r = mat_create(m->rows, ncols);
    for (int i = 0; i < m->rows; i++)
        memcpy(mat_row(r, i), mat_row(m, i) + col0, sizeof(double) * (size_t)ncols);
    return r;
}

/* Side-by-side concatenation. */
Mat *mat_hconcat(Mat *const *parts, int n)
{
    if (n < 1) return NULL;     /* nothing to concatenate */
    int cols = 0;
    for (int p = 0; p < n; p++) {
        if (parts[p]->rows != parts[0]->rows) return NULL;     /* parts with different rows */
        cols += parts[p]->cols;
    }
    Mat *r = mat_create(parts[0]->rows, cols);
    if (!r) return NULL;
    for (int i = 0; i < r->rows; i++) {
        double *dst = mat_row(r, i);
        for (int p = 0; p < n; p++) {
            memcpy(dst, mat_row(parts[p], i), sizeof(double) * (size_t)parts[p]->cols);
            dst += parts[p]->cols;
        }
    }
    return r;
}

/* Same shape? */
bool mat_same_shape(const Mat *a, const Mat *b)
{
    return a->rows == b->rows && a->cols == b->cols;
}

/* All finite? */
bool mat_all_finite(const Mat *m)
{
    for (long i = 0; i < (long)m->rows * m->cols; i++)
        if (!isfinite(m->data[i])) return false;
    return true;
}

/* Largest absolute difference. */
double mat_max_abs_diff(const Mat *a, const Mat *b)
{
    if (!mat_same_shape(a, b)) return INFINITY;
    double worst = 0;
    for (long i = 0; i < (long)a->rows * a->cols; i++) {
        double d = fabs(a->data[i] - b->data[i]);
        if (d > worst || isnan(d)) worst = d;
    }
    return worst;
}

/* Range of the finite elements. */
bool mat_finite_range(const Mat *m, double *lo, double *hi)
{
    bool any = false;
    for (long i = 0; i < (long)m->rows * m->cols; i++) {
        double v = m->data[i];
        if (!isfinite(v)) continue;
        if (!any || v < *lo) *lo = v;
        if (!any || v > *hi) *hi = v;
        any = true;
    }
    return any;
}
