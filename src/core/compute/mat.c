/*
** mat.c: dense matrix operations. Straightforward loops, except the matrix
** product: a real model's layer (1024 tokens, 768 dimensions) multiplies
** matrices of a million cells, so the product is cut into cache-sized
** blocks and vectorised, with every element summed in the textbook's order
** (see "The matrix product" below), and a large one shared among the
** CPU's cores by columns.
*/
#include "mat.h"
#include "core/util.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(__EMSCRIPTEN__) && !defined(ATTNLAB_NO_THREADS)
#include <pthread.h>
#include <unistd.h>
#define MAT_THREADS 1
#endif

/* A zero matrix, or NULL for a size outside 1..MAT_MAX_DIM. */
Mat *mat_create(int rows, int cols)
{
    if (rows < 1 || cols < 1 || rows > MAT_MAX_DIM || cols > MAT_MAX_DIM) return NULL;
    Mat *m = xcalloc(1, sizeof *m);
    m->rows = rows;
    m->cols = cols;
    m->data = xcalloc((size_t)rows * (size_t)cols, sizeof(double));
    return m;
}

/* A matrix owning data. */
Mat *mat_adopt(int rows, int cols, double *data)
{
    if (rows < 1 || cols < 1 || rows > MAT_MAX_DIM || cols > MAT_MAX_DIM) return NULL;
    Mat *m = xcalloc(1, sizeof *m);
    m->rows = rows;
    m->cols = cols;
    m->data = data;
    return m;
}

/* A view of floats. */
Mat *mat_view_f32(int rows, int cols, const float *f, long ld, bool transposed)
{
    if (rows < 1 || cols < 1 || rows > MAT_MAX_DIM || cols > MAT_MAX_DIM) return NULL;
    assert(f && ld >= (transposed ? rows : cols));
    Mat *m = xcalloc(1, sizeof *m);
    m->rows = rows;
    m->cols = cols;
    m->f32 = f;
    m->f32_ld = ld;
    m->f32_t = transposed;
    return m;
}

/* Element (i, j) of a view. */
static inline double view_get(const Mat *m, long i, long j)
{
    return m->f32_t ? (double)m->f32[j * m->f32_ld + i] : (double)m->f32[i * m->f32_ld + j];
}

/* A view's doubles, made once. */
double *mat_materialize(const Mat *m)
{
    if (m->data) return m->data;
    assert(m->f32);
    double *d = xmalloc(sizeof *d * (size_t)m->rows * (size_t)m->cols);
    for (long i = 0; i < m->rows; i++)
        for (long j = 0; j < m->cols; j++) d[i * m->cols + j] = view_get(m, i, j);
    ((Mat *)m)->data = d;                   /* the matrix is the same: only how it is held changes */
    return d;
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

/* Deep copy (a view not yet made into doubles: another view of the same floats). */
Mat *mat_copy(const Mat *m)
{
    if (!m->data) return mat_view_f32(m->rows, m->cols, m->f32, m->f32_ld, m->f32_t);
    return mat_from(m->rows, m->cols, m->data);
}

/*
** ---- The matrix product ----
**
** Every element c[i][j] of a·b is the sum over k = 0, 1, ..., n-1 of
** a[i][k]·b[k][j], added in that order to a running sum that starts at
** +0.0, each product rounded to a double before it is added (no fused
** multiply-add). That is the textbook loop's order, so small products
** agree with numpy's to the last bit; numpy's products of large matrices
** go through a BLAS that orders and fuses its sums its own way, and agree
** with these to about 1e-15 relative.
**
** The order fixes the value of each element, not the order in which
** elements are computed, so the product is cut up for speed without
** changing a bit of any result:
** - k runs in blocks of KC rows of b, in increasing order; between blocks
**   the running sums wait in c (a double in memory is the same double);
** - each block of b is copied, NR columns at a time, into panels whose KC
**   rows of NR numbers follow each other (packed), so the inner loop reads
**   one stream that stays in the cache for every row of a (a view of
**   floats times a few rows is read where it is instead, DKC rows at a
**   time: direct(); a transposed view, a model's unembedding, by turning
**   the few rows of a over instead: direct_t());
** - a tile of MR rows x NR columns of c lives in vector registers while k
**   runs through the block: one step adds a[i][k]·b[k][j .. j+NR) to row
**   i's NR sums, so NR elements advance together, each through its own k
**   in order.
** A row's NR sums are NR/L vectors of L doubles, GCC's vector extension
** at the width the instruction set holds in one register: the kernel is
** compiled for AVX-512 (L 8, MR 8 rows), AVX2 (L 4, MR 4) and any other CPU
** (L 2, MR 2), and chosen once at run time; so MR·NR/L sums stay in
** registers (a vector wider than the registers would be split and spilled
** to the stack at every step, a third of the speed). The product and the
** sum are separate statements: under ISO C (-std=c11) GCC contracts
** nothing and clang only within one expression, so no compiler fuses them.
*/

#define NR 8                            /* columns of c a tile holds */
#define PREFETCH 16                     /* rows of b ahead a few rows of a ask for while reading it unpacked */
#define DKC 512                         /* rows of b a few rows of a go through at a time, read unpacked */
#define KC 256                          /* rows of b in a packed block */
typedef double Vec __attribute__((vector_size(NR * sizeof(double))));   /* the packing's alignment */

/* Room for n doubles starting on a Vec boundary (malloc promises 16
** bytes); *mem is what to free. */
static double *vec_buffer(size_t n, char **mem)
{
    *mem = xmalloc(n * sizeof(double) + sizeof(Vec));
    return (double *)(*mem + (sizeof(Vec) - (uintptr_t)*mem % sizeof(Vec)) % sizeof(Vec));
}

/* Copy rows [k0, k0+kc) of b's columns [lo, hi) into panels of NR columns
** (the last padded with zeros): panel p holds kc rows of
** b[k][lo+p·NR .. lo+p·NR+NR). lo is a multiple of NR. */
static void pack_b(const Mat *b, int k0, int kc, int lo, int hi, double *pack)
{
    for (int j0 = lo; j0 < hi; j0 += NR) {
        int w = hi - j0 < NR ? hi - j0 : NR;
        for (int k = 0; k < kc; k++) {
            if (b->data) {
                const double *src = b->data + (long)(k0 + k) * b->cols + j0;
                for (int j = 0; j < w; j++) pack[j] = src[j];
            } else if (!b->f32_t) {         /* a view of floats, read as it is packed (threads only read it) */
                const float *src = b->f32 + (long)(k0 + k) * b->f32_ld + j0;
                for (int j = 0; j < w; j++) pack[j] = src[j];
            } else {                        /* a transposed view: b's column j is row j of the floats */
                const float *src = b->f32 + (long)j0 * b->f32_ld + k0 + k;
                for (int j = 0; j < w; j++) pack[j] = src[(long)j * b->f32_ld];
            }
            for (int j = w; j < NR; j++) pack[j] = 0.0;
            pack += NR;
        }
    }
}

/*
** One tile, for vectors V of L doubles: rows [i, i+mr) of c, NR columns
** from col (w of them real), k over the packed block bp of kc rows
** starting at k0. The first block starts every sum at +0.0; later blocks
** continue the sums stored in c. mr is a constant where this is inlined,
** so the tile stays in registers.
*/
#define TILE(NAME, V, L)                                                                                              \
    static inline __attribute__((always_inline)) void NAME(int mr, const Mat *a, int i, int k0, int kc, bool f32, \
                                                           const void *bsrc, long ld, Mat *c, int col, int w)    \
    {                                                                                                             \
        typedef double VU __attribute__((vector_size(L * sizeof(double)), aligned(sizeof(double))));              \
        typedef float VF __attribute__((vector_size(L * sizeof(float)), aligned(sizeof(float))));                 \
        const double *bp = bsrc;                                                                                  \
        const float *bf = bsrc;                                                                                   \
        enum { H = NR / L };                                                                                      \
        V acc[8][H];                                                                                              \
        double *cr[8];                                                                                            \
        const double *ar[8];                                                                                      \
        _Pragma("GCC unroll 8") for (int r = 0; r < mr; r++) {                                                   \
            cr[r] = mat_row(c, i + r) + col;                                                                      \
            ar[r] = mat_row(a, i + r) + k0;                                                                       \
            _Pragma("GCC unroll 8") for (int h = 0; h < H; h++) {                                                \
                V z = { 0 };                                                                                      \
                acc[r][h] = z;                                                                                    \
                if (k0 > 0 && w == NR) acc[r][h] = *(const VU *)(cr[r] + h * L);                                  \
            }                                                                                                     \
            if (k0 > 0 && w < NR)                                                                                 \
                for (int j = 0; j < w; j++) acc[r][j / L][j % L] = cr[r][j];                                      \
        }                                                                                                         \
        for (int k = 0; k < kc; k++) {                                                                            \
            V bk[H];                                                                                              \
            if (f32) __builtin_prefetch(bf + (k + PREFETCH) * ld);  /* read unpacked: the rows to come */   \
            _Pragma("GCC unroll 8") for (int h = 0; h < H; h++)                                                  \
                bk[h] = f32 ? __builtin_convertvector(*(const VF *)(bf + k * ld + h * L), V)                             \
                            : *(const V *)(bp + (size_t)k * NR + h * L);                                              \
            _Pragma("GCC unroll 8") for (int r = 0; r < mr; r++) {                                               \
                double x = ar[r][k];                                                                              \
                _Pragma("GCC unroll 8") for (int h = 0; h < H; h++) {                                            \
                    V p = bk[h] * x;    /* rounded product ... */                                                 \
                    acc[r][h] += p;     /* ... then the sum, as in the textbook loop */                           \
                }                                                                                                 \
            }                                                                                                     \
        }                                                                                                         \
        _Pragma("GCC unroll 8") for (int r = 0; r < mr; r++) {                                                   \
            if (w == NR)                                                                                          \
                _Pragma("GCC unroll 8") for (int h = 0; h < H; h++) *(VU *)(cr[r] + h * L) = acc[r][h];           \
            else                                                                                                  \
                for (int j = 0; j < w; j++) cr[r][j] = acc[r][j / L][j % L];                                      \
        }                                                                                                         \
    }

typedef double Vec8 __attribute__((vector_size(8 * sizeof(double))));
typedef double Vec4 __attribute__((vector_size(4 * sizeof(double))));
typedef double Vec2 __attribute__((vector_size(2 * sizeof(double))));
TILE(tile8, Vec8, 8)
TILE(tile4, Vec4, 4)
TILE(tile2, Vec2, 2)

/* One tile with vectors of lanes doubles, lanes rows at a time (MR = L:
** the sums fill the registers; a constant where inlined); b packed
** doubles, or (f32) a view's floats, NR of a row at bsrc, a row every ld. */
static inline __attribute__((always_inline)) void tile(int lanes, int mr, const Mat *a, int i, int k0, int kc, bool f32,
                                                       const void *bsrc, long ld, Mat *c, int col, int w)
{
    if (lanes == 8) tile8(mr, a, i, k0, kc, f32, bsrc, ld, c, col, w);
    else if (lanes == 4) tile4(mr, a, i, k0, kc, f32, bsrc, ld, c, col, w);
    else tile2(mr, a, i, k0, kc, f32, bsrc, ld, c, col, w);
}

/* Columns [lo, hi) of c (whole panels of NR) = a·b, b a view of floats
** not transposed, read where it is instead of packed: DKC rows of b at a
** time (the rows of a panel then sit on fewer pages than the TLB holds),
** a panel at a time through every row of a (the sums start at +0.0 and
** run k in order, as in a packed block). More rows than one tile holds
** read the panel's DKC rows as doubles, made once into a buffer the cache
** keeps, instead of each tile making them again. For a few rows of a (a
** typed sentence) packing the whole of b would cost more than the product. */
static inline __attribute__((always_inline)) void direct(int lanes, const Mat *a, const Mat *b, Mat *c, int lo, int hi)
{
    int m = c->rows;
    long ld = b->f32_ld;
    char *mem = NULL;
    double *d = m > lanes ? vec_buffer((size_t)DKC * NR, &mem) : NULL;     /* a panel's DKC rows of NR doubles */
    for (int k0 = 0; k0 < a->cols; k0 += DKC) {
        int kc = a->cols - k0 < DKC ? a->cols - k0 : DKC;
        for (int j0 = lo; j0 < hi; j0 += NR) {
            const float *bf = b->f32 + (long)k0 * ld + j0;
            int i = 0;
            if (d) {
                for (int k = 0; k < kc; k++) {
                    __builtin_prefetch(bf + (k + PREFETCH) * ld);
                    for (int j = 0; j < NR; j++) d[k * NR + j] = bf[k * ld + j];
                }
                for (; i + lanes <= m; i += lanes) tile(lanes, lanes, a, i, k0, kc, false, d, 0, c, j0, NR);
                for (; i < m; i++) tile(lanes, 1, a, i, k0, kc, false, d, 0, c, j0, NR);
            } else if (m == lanes) {
                tile(lanes, lanes, a, 0, k0, kc, true, bf, ld, c, j0, NR);
            } else {
                for (; i < m; i++) tile(lanes, 1, a, i, k0, kc, true, bf, ld, c, j0, NR);
            }
        }
    }
    free(mem);
}

/*
** b a transposed view of floats (a model's unembedding: column v of b is
** the word's row v of the floats, k along it) times a few rows of a, read
** where it is: a is turned over once (at[k·mp + i] = a[i][k], rows padded
** with zeros to mp), and a tile of TR·L rows by nv columns of c keeps its
** sums in registers while k runs in order: at step k, the rows' vectors
** at[k][i ..] times b's nv numbers of that k, each rounded, then added.
** nv is a constant where this is inlined.
*/
#define TILE_T(NAME, V, L)                                                                                         \
    static inline __attribute__((always_inline)) void NAME(int nv, const double *at, int mp, int i, int kk,       \
                                                           const float *bt, long ld, Mat *c, int j)              \
    {                                                                                                          \
        typedef double VU __attribute__((vector_size(L * sizeof(double)), aligned(sizeof(double))));           \
        V acc[TR][TC];                                                                                         \
        const float *br[TC];                                                                                   \
        _Pragma("GCC unroll 8") for (int v = 0; v < nv; v++) {                                                \
            br[v] = bt + (long)(j + v) * ld;                                                                   \
            _Pragma("GCC unroll 8") for (int g = 0; g < TR; g++) acc[g][v] = (V){ 0 };                       \
        }                                                                                                      \
        for (int k = 0; k < kk; k++) {                                                                         \
            V x[TR];                                                                                           \
            _Pragma("GCC unroll 8") for (int g = 0; g < TR; g++) x[g] = *(const VU *)(at + (size_t)k * mp + i + g * L); \
            _Pragma("GCC unroll 8") for (int v = 0; v < nv; v++) {                                            \
                double y = br[v][k];                                                                           \
                _Pragma("GCC unroll 8") for (int g = 0; g < TR; g++) {                                        \
                    V p = x[g] * y; /* rounded product ... */                                                  \
                    acc[g][v] += p; /* ... then the sum */                                                     \
                }                                                                                              \
            }                                                                                                  \
        }                                                                                                      \
        int m = c->rows;                                                                                       \
        for (int g = 0; g < TR; g++)                                                                           \
            for (int l = 0; l < L && i + g * L + l < m; l++)                                                   \
                _Pragma("GCC unroll 8") for (int v = 0; v < nv; v++) mat_row(c, i + g * L + l)[j + v] = acc[g][v][l]; \
    }
enum { TR = 2, TC = 6 };                /* a transposed tile: TR vectors of rows by TC columns */
TILE_T(tile_t8, Vec8, 8)
TILE_T(tile_t4, Vec4, 4)
TILE_T(tile_t2, Vec2, 2)

/* One transposed tile with vectors of lanes doubles (constants where inlined). */
static inline __attribute__((always_inline)) void tile_t(int lanes, int nv, const double *at, int mp, int i, int kk,
                                                         const Mat *b, Mat *c, int j)
{
    if (lanes == 8) tile_t8(nv, at, mp, i, kk, b->f32, b->f32_ld, c, j);
    else if (lanes == 4) tile_t4(nv, at, mp, i, kk, b->f32, b->f32_ld, c, j);
    else tile_t2(nv, at, mp, i, kk, b->f32, b->f32_ld, c, j);
}

/* Columns [lo, hi) of c = a·b for b a transposed view of floats and a few
** rows of a: TC columns at a time (the rest one by one), each through
** every group of rows while its floats are in the cache. */
static inline __attribute__((always_inline)) void direct_t(int lanes, const Mat *a, const Mat *b, Mat *c, int lo,
                                                           int hi)
{
    int m = a->rows, kk = a->cols, mp = (m + TR * lanes - 1) / (TR * lanes) * (TR * lanes);
    double *at = xcalloc((size_t)mp * (size_t)kk, sizeof *at);
    for (int i = 0; i < m; i++)
        for (int k = 0; k < kk; k++) at[(size_t)k * mp + i] = mat_row(a, i)[k];
    int j = lo;
    for (; j + TC <= hi; j += TC)
        for (int i = 0; i < mp; i += TR * lanes) tile_t(lanes, TC, at, mp, i, kk, b, c, j);
    for (; j < hi; j++)
        for (int i = 0; i < mp; i += TR * lanes) tile_t(lanes, 1, at, mp, i, kk, b, c, j);
    free(at);
}

/* Every tile of one packed block of c's columns [lo, hi): rows in groups
** of lanes (the rest one by one), panels left to right. */
static inline __attribute__((always_inline)) void block(int lanes, const Mat *a, int k0, int kc, const double *pack,
                                                        Mat *c, int lo, int hi)
{
    int m = c->rows, i = 0;
    for (; i + lanes <= m; i += lanes)          /* two loops: the tile's rows stay a constant */
        for (int j0 = lo; j0 < hi; j0 += NR)
            tile(lanes, lanes, a, i, k0, kc, false, pack + (size_t)((j0 - lo) / NR) * (size_t)kc * NR, 0, c, j0,
                 hi - j0 < NR ? hi - j0 : NR);
    for (; i < m; i++)
        for (int j0 = lo; j0 < hi; j0 += NR)
            tile(lanes, 1, a, i, k0, kc, false, pack + (size_t)((j0 - lo) / NR) * (size_t)kc * NR, 0, c, j0,
                 hi - j0 < NR ? hi - j0 : NR);
}

/* A packed block times a, for each instruction set. */
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx512f"))) static void block_avx512(const Mat *a, int k0, int kc, const double *pack, Mat *c,
                                                             int lo, int hi)
{
    block(8, a, k0, kc, pack, c, lo, hi);
}
__attribute__((target("avx2"))) static void block_avx2(const Mat *a, int k0, int kc, const double *pack, Mat *c,
                                                       int lo, int hi)
{
    block(4, a, k0, kc, pack, c, lo, hi);
}
__attribute__((target("avx512f"))) static void direct_avx512(const Mat *a, const Mat *b, Mat *c, int lo, int hi)
{
    direct(8, a, b, c, lo, hi);
}
__attribute__((target("avx2"))) static void direct_avx2(const Mat *a, const Mat *b, Mat *c, int lo, int hi)
{
    direct(4, a, b, c, lo, hi);
}
__attribute__((target("avx512f"))) static void direct_t_avx512(const Mat *a, const Mat *b, Mat *c, int lo, int hi)
{
    direct_t(8, a, b, c, lo, hi);
}
__attribute__((target("avx2"))) static void direct_t_avx2(const Mat *a, const Mat *b, Mat *c, int lo, int hi)
{
    direct_t(4, a, b, c, lo, hi);
}
#endif
static void block_plain(const Mat *a, int k0, int kc, const double *pack, Mat *c, int lo, int hi)
{
    block(2, a, k0, kc, pack, c, lo, hi);
}
static void direct_plain(const Mat *a, const Mat *b, Mat *c, int lo, int hi)
{
    direct(2, a, b, c, lo, hi);
}
static void direct_t_plain(const Mat *a, const Mat *b, Mat *c, int lo, int hi)
{
    direct_t(2, a, b, c, lo, hi);
}

typedef void (*BlockFn)(const Mat *a, int k0, int kc, const double *pack, Mat *c, int lo, int hi);
typedef void (*DirectFn)(const Mat *a, const Mat *b, Mat *c, int lo, int hi);
/* The kernels for this CPU. */
typedef struct Kernels {
    BlockFn block;
    DirectFn direct, direct_t;
} Kernels;

/* The widest kernels this CPU runs. */
static Kernels kernels(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) return (Kernels){ block_avx512, direct_avx512, direct_t_avx512 };
    if (__builtin_cpu_supports("avx2")) return (Kernels){ block_avx2, direct_avx2, direct_t_avx2 };
#endif
    return (Kernels){ block_plain, direct_plain, direct_t_plain };
}

static Kernels chosen;                  /* kernels(), once */
#ifdef MAT_THREADS
static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;
#endif

/* Choose the kernels. */
static void choose(void)
{
    chosen = kernels();
}

/* The kernels for this CPU, chosen once (products run in several threads
** at once: the first of them chooses, the others wait for it). */
static const Kernels *kernels_now(void)
{
#ifdef MAT_THREADS
    pthread_once(&chosen_once, choose);
#else
    if (!chosen.block) choose();
#endif
    return &chosen;
}

#define NC_PANELS 64                    /* panels of b packed at a time (1 MB at KC) */
/* a's rows up to which a view of floats is read unpacked (measured: faster
** than packing from 24 rows to 128, as fast to 256), and up to which a
** transposed view is read with a's rows turned over (past it, packing wins) */
#define DIRECT_ROWS 128
#define DIRECT_T_ROWS 24

/* Columns [lo, hi) of c = a·b, c fresh from mat_create (zeros); shapes
** already checked, lo a multiple of NR. The columns go in chunks of
** NC_PANELS panels, each through every block of k: a packed chunk stays in
** the cache, and the packing memory stays small however wide b is (a
** 50,257-word unembedding). Each element still sums its k in order. */
static void product_cols(const Mat *a, const Mat *b, Mat *c, int lo, int hi)
{
    assert(a->cols == b->rows && c->rows == a->rows && c->cols == b->cols);
    assert(lo % NR == 0 && lo < hi && hi <= b->cols);
    const Kernels k = *kernels_now();
    if (!b->data && b->f32_t && a->rows <= DIRECT_T_ROWS) {
        k.direct_t(a, b, c, lo, hi);
        return;
    }
    if (!b->data && !b->f32_t && a->rows <= DIRECT_ROWS) {
        int whole = lo + (hi - lo) / NR * NR;       /* the last panel, if partial, is packed below */
        if (whole > lo) k.direct(a, b, c, lo, whole);
        if (whole == hi) return;
        lo = whole;
    }
    int panels = (hi - lo + NR - 1) / NR;
    if (panels > NC_PANELS) panels = NC_PANELS;
    int kmax = a->cols < KC ? a->cols : KC;
    char *mem;
    double *pack = vec_buffer((size_t)panels * (size_t)kmax * NR, &mem);
    for (int c0 = lo; c0 < hi; c0 += NC_PANELS * NR) {
        int c1 = hi - c0 < NC_PANELS * NR ? hi : c0 + NC_PANELS * NR;
        for (int k0 = 0; k0 < a->cols; k0 += KC) {
            int kc = a->cols - k0 < KC ? a->cols - k0 : KC;
            pack_b(b, k0, kc, c0, c1, pack);
            k.block(a, k0, kc, pack, c, c0, c1);
        }
    }
    free(mem);
}

/*
** Sharing a product among cores: the columns of c are cut into one band
** per thread (whole panels of NR), and each thread packs its band of b and
** computes that band of c for every row, on its own. Every element is
** still one row of a times one column of b summed in order, so the result
** does not depend on how many threads there are. Only products of
** MAT_SHARE multiply-adds or more are shared: below that a thread costs
** more than it saves (2^21 is about 0.2 ms of one core's kernel; sharing
** from there took a typed sentence of a GPT-2 from 244 to 214 ms).
*/
#define MAT_SHARE (INT64_C(1) << 21)
#define MAT_MAX_THREADS 8

#ifdef MAT_THREADS
typedef struct Band {
    const Mat *a, *b;
    Mat *c;
    int lo, hi;             /* c's columns [lo, hi) */
} Band;

/* One thread's band. */
static void *band_run(void *arg)
{
    Band *band = arg;
    product_cols(band->a, band->b, band->c, band->lo, band->hi);
    return NULL;
}

/* How many threads a product of this much work over this many panels
** gets: one per online CPU (at most MAT_MAX_THREADS), each at least four
** panels. */
static int threads_for(int panels, int64_t work)
{
    static int cpus;
    if (!cpus) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        cpus = n < 1 ? 1 : n > MAT_MAX_THREADS ? MAT_MAX_THREADS : (int)n;
    }
    if (work < MAT_SHARE) return 1;
    int t = cpus;
    while (t > 1 && panels / t < 4) t--;
    return t;
}
#endif

/* c = a·b: one band of columns per thread when it is large (see above). */
static void product(const Mat *a, const Mat *b, Mat *c)
{
    (void)mat_data(a);                          /* the threads read a's rows: made here, once */
#ifdef MAT_THREADS
    int panels = (b->cols + NR - 1) / NR;
    int t = threads_for(panels, (int64_t)a->rows * a->cols * b->cols);
    if (t > 1) {
        Band band[MAT_MAX_THREADS];
        pthread_t id[MAT_MAX_THREADS];
        bool started[MAT_MAX_THREADS] = { false };
        for (int i = 0; i < t; i++) {
            int lo = NR * (int)((int64_t)panels * i / t), hi = NR * (int)((int64_t)panels * (i + 1) / t);
            band[i] = (Band){ a, b, c, lo, hi < b->cols ? hi : b->cols };
        }
        /* the last band in this thread; a thread that cannot start runs here too */
        for (int i = 0; i + 1 < t; i++) started[i] = pthread_create(&id[i], NULL, band_run, &band[i]) == 0;
        band_run(&band[t - 1]);
        for (int i = 0; i + 1 < t; i++) {
            if (started[i]) pthread_join(id[i], NULL);
            else band_run(&band[i]);
        }
        return;
    }
#endif
    product_cols(a, b, c, 0, b->cols);
}

/* Matrix product: see above for its order of summation. */
Mat *mat_matmul(const Mat *a, const Mat *b)
{
    if (a->cols != b->rows) return NULL;     /* inner sizes differ */
    Mat *c = mat_create(a->rows, b->cols);
    product(a, b, c);
    return c;
}

/* a·bᵀ: b transposed once (a copy), then the same product, so each
** element is the dot product of a row of a and a row of b summed in order. */
Mat *mat_matmul_t(const Mat *a, const Mat *b)
{
    if (a->cols != b->cols) return NULL;     /* row widths differ */
    Mat *bt = mat_transpose(b);
    Mat *c = mat_create(a->rows, b->rows);
    product(a, bt, c);
    mat_free(bt);
    return c;
}

/* Transpose. */
Mat *mat_transpose(const Mat *m)
{
    Mat *t = mat_create(m->cols, m->rows);
    for (int i = 0; i < m->rows; i++) {
        const double *src = mat_row(m, i);
        double *dst = t->data + i;      /* column i of t: a stride of t->cols = m->rows */
        for (int j = 0; j < m->cols; j++) dst[(long)j * t->cols] = src[j];
    }
    return t;
}

/* Scalar multiple. */
Mat *mat_scale(const Mat *m, double s)
{
    Mat *r = mat_from(m->rows, m->cols, mat_data(m));
    for (long i = 0; i < (long)m->rows * m->cols; i++) r->data[i] *= s;
    return r;
}

/* Elementwise sum. */
Mat *mat_add(const Mat *a, const Mat *b)
{
    if (!mat_same_shape(a, b)) return NULL;     /* shapes differ */
    Mat *r = mat_from(a->rows, a->cols, mat_data(a));
    const double *bd = mat_data(b);
    for (long i = 0; i < (long)a->rows * a->cols; i++) r->data[i] += bd[i];
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

/* Element i (row-major) of m, a view's read where it is. */
static inline double at(const Mat *m, long i)
{
    return m->data ? m->data[i] : view_get(m, i / m->cols, i % m->cols);
}

/* All finite? */
bool mat_all_finite(const Mat *m)
{
    for (long i = 0; i < (long)m->rows * m->cols; i++)
        if (!isfinite(at(m, i))) return false;
    return true;
}

/* Whether none of the n floats at f has an exponent of all ones (NaN or
** infinity). In runs of a fixed length, which the compiler vectorises: a
** model's every weight is looked at, 500 MB for GPT-2 small. */
bool mat_floats_finite(const float *f, int64_t n)
{
    enum { RUN = 256 };
    uint32_t any = 0;
    int64_t i = 0;
    for (; i + RUN <= n; i += RUN) {
        uint32_t run = 0;
        for (int j = 0; j < RUN; j++) {
            uint32_t bits;
            memcpy(&bits, f + i + j, sizeof bits);
            run |= (uint32_t)((bits & 0x7F800000u) == 0x7F800000u);
        }
        any |= run;
    }
    for (; i < n; i++) any |= (uint32_t)!isfinite(f[i]);
    return !any;
}

/* Largest absolute difference. */
double mat_max_abs_diff(const Mat *a, const Mat *b)
{
    if (!mat_same_shape(a, b)) return INFINITY;
    double worst = 0;
    for (long i = 0; i < (long)a->rows * a->cols; i++) {
        double d = fabs(at(a, i) - at(b, i));
        if (d > worst || isnan(d)) worst = d;
    }
    return worst;
}

/* Range of the finite elements. */
bool mat_finite_range(const Mat *m, double *lo, double *hi)
{
    bool any = false;
    for (long i = 0; i < (long)m->rows * m->cols; i++) {
        double v = at(m, i);
        if (!isfinite(v)) continue;
        if (!any || v < *lo) *lo = v;
        if (!any || v > *hi) *hi = v;
        any = true;
    }
    return any;
}
