/*
** mat.h: dense row-major matrices of doubles.
**
** Every intermediate of attention is a Mat. Constructors return a new matrix
** the caller owns (mat_free). Operations whose shapes do not fit return NULL;
** they never abort or read out of bounds. Their callers check the shapes
** first (the lesson parser checks every one a lesson can make), so NULL
** means a bug, which the caller reports as an error rather than crash on.
** Sizes are limited to MAT_MAX_DIM per side so products cannot overflow.
**
** The element accessors check their indices with assert, which the normal
** build keeps (-O2 -g, no NDEBUG): an index outside the matrix is a bug in
** the caller and stops the program where it happens, not pages later.
** Loops that run through a whole row take mat_row once and index the
** pointer, so the check costs one comparison per row, not per element.
**
** A matrix may also be a view of float32 numbers that live elsewhere (a
** trained model's weights, mapped from its file: mat_view_f32), so that a
** 124-million-number model is not held twice. Products read the view as
** they pack it (the same doubles, so the same bits as a copy would give);
** anything else that asks for the numbers (mat_data, mat_row, mat_get)
** gets them made once, as doubles, on first use.
*/
#ifndef ATTNLAB_MAT_H
#define ATTNLAB_MAT_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

/* The largest rows or cols a matrix may have. */
#define MAT_MAX_DIM 65536                /* LESSON_MAX_VOCAB: a row of logits per token, a column per word */

typedef struct Mat {
    int rows;
    int cols;
    double *data;       /* rows*cols values, row-major; NULL while a view has not been asked for them */
    const float *f32;   /* or a view: element (i, j) at f32[i*f32_ld + j], or f32[j*f32_ld + i] when f32_t */
    long f32_ld;
    bool f32_t;
} Mat;

/* A new rows x cols matrix of zeros, or NULL for a size outside 1..MAT_MAX_DIM. */
Mat *mat_create(int rows, int cols);
/* A new matrix holding a copy of rows*cols values from data (row-major). */
Mat *mat_from(int rows, int cols, const double *data);
/* A rows x cols matrix that takes data (rows*cols values, row-major, from
** malloc) as its own, or NULL (data untouched) for a size outside
** 1..MAT_MAX_DIM: a matrix decoded in place, not copied. */
Mat *mat_adopt(int rows, int cols, double *data);
/* A rows x cols view of float32 numbers that outlive it (not copied, not
** freed): element (i, j) is f[i*ld + j], or f[j*ld + i] when transposed
** (a column of the numbers as stored is a row of the matrix). NULL for a
** size outside 1..MAT_MAX_DIM. */
Mat *mat_view_f32(int rows, int cols, const float *f, long ld, bool transposed);
/* Release m (NULL is fine). */
void mat_free(Mat *m);
/* A view's numbers made into doubles (once; from then on they are the
** matrix, and edits go there). Not to be called on one matrix from two
** threads at once. */
double *mat_materialize(const Mat *m);

/* m's rows*cols values, row-major (a view's made on first use). */
static inline double *mat_data(const Mat *m)
{
    return m->data ? m->data : mat_materialize(m);
}
/* Element (i, j), which must be inside m (asserted). */
static inline double mat_get(const Mat *m, int i, int j)
{
    assert(i >= 0 && i < m->rows && j >= 0 && j < m->cols);
    return mat_data(m)[(long)i * m->cols + j];
}
/* Element (i, j) read where it is: a view's float, not made into doubles
** (for a look at every cell of a matrix that may be a model's). */
static inline double mat_peek(const Mat *m, int i, int j)
{
    assert(i >= 0 && i < m->rows && j >= 0 && j < m->cols);
    if (m->data) return m->data[(long)i * m->cols + j];
    return m->f32_t ? (double)m->f32[(long)j * m->f32_ld + i] : (double)m->f32[(long)i * m->f32_ld + j];
}
/* Set element (i, j), which must be inside m (asserted). */
static inline void mat_set(Mat *m, int i, int j, double v)
{
    assert(i >= 0 && i < m->rows && j >= 0 && j < m->cols);
    mat_data(m)[(long)i * m->cols + j] = v;
}
/* Pointer to row i, which must be a row of m (asserted); its m->cols
** elements follow each other. */
static inline double *mat_row(const Mat *m, int i)
{
    assert(i >= 0 && i < m->rows);
    return mat_data(m) + (long)i * m->cols;
}

/* A deep copy of m. */
Mat *mat_copy(const Mat *m);
/* a·b, or NULL when a->cols != b->rows. Each element is summed over k in
** increasing order, products rounded before they are added (mat.c says
** why that makes it fast and exact at once). */
Mat *mat_matmul(const Mat *a, const Mat *b);
/* a·bᵀ (each element the dot product of a row of a and a row of b, in the
** same order), or NULL when a->cols != b->cols. */
Mat *mat_matmul_t(const Mat *a, const Mat *b);
/* mᵀ. */
Mat *mat_transpose(const Mat *m);
/* s·m, a new matrix. */
Mat *mat_scale(const Mat *m, double s);
/* a + b, or NULL when shapes differ. */
Mat *mat_add(const Mat *a, const Mat *b);
/* Columns [col0, col0+ncols) of m: one head's slice. NULL when out of range. */
Mat *mat_col_block(const Mat *m, int col0, int ncols);
/* The n parts side by side: [parts[0] | parts[1] | ...]. NULL when row counts differ. */
Mat *mat_hconcat(Mat *const *parts, int n);
/* True when a and b have the same shape. */
bool mat_same_shape(const Mat *a, const Mat *b);
/* True when every element is finite (no NaN, no ±∞). */
bool mat_all_finite(const Mat *m);
/* True when none of n floats is NaN or ±∞ (a model's weights, fast). */
bool mat_floats_finite(const float *f, int64_t n);
/* Largest |a - b| over all elements; +∞ when shapes differ. */
double mat_max_abs_diff(const Mat *a, const Mat *b);
/* Smallest and largest finite element; returns false if there is none. */
bool mat_finite_range(const Mat *m, double *lo, double *hi);

#endif
