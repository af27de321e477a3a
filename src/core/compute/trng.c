/*
** trng.c: torch.manual_seed, rand, randn and the nn.init uniforms.
**
** Everything here mirrors one piece of PyTorch 1.13's CPU code, operation
** by operation and in the same precision, because a single rounding done
** differently changes the last bit of a weight:
**
**   CPUGeneratorImpl      mt19937 seeded with init_genrand(seed & 0xffffffff);
**                         random() is one 32-bit draw, random64() two (hi, lo)
**   uniform_real          float: (draw & 0xffffff) * 2^-24, then x*(to-from)+from
**                         in float; the AVX2 build of the kernel fuses that
**                         multiply-add, the portable build does not
**   normal_distribution   double Box-Muller on 53-bit uniforms: r = sqrt(-2
**                         log(1-u2)), theta = 2 pi u1; returns r cos(theta) and
**                         caches r sin(theta) until the next small normal call
**   normal_fill           n >= 16: n float uniforms, then each block of 16 turns
**                         (1-u[j], u[j+8]) into cos and sin normals; a tail
**                         that is not a multiple of 16 draws 16 fresh uniforms
**                         over the last 16 places and transforms them again
**
** The AVX2 block transform calls the Cephes-style log256_ps and sincos256_ps
** of avx_mathfun.h. GCC contracts their a*b+c steps into fused multiply-adds
** (C++ allows it by default); they are written here as scalar float code with
** fmaf exactly where the compiled kernel fuses, which the tests against the
** installed torch confirm bit for bit.
*/
#include "trng.h"

#include <math.h>
#include <string.h>

#define TRNG_PI 3.14159265358979323846

/* The bits of a float. */
static uint32_t f2u(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
/* The float with these bits. */
static float u2f(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

/* torch.manual_seed. */
void trng_seed(Trng *t, uint64_t seed)
{
    rng_seed(&t->mt, (uint32_t)(seed & 0xffffffffu));
    t->has_normal = false;
    t->normal = 0.0;
}

/* A float in [0, 1) from the low 24 bits of one draw. */
static float unit_float(Trng *t)
{
    return (float)(rng_next32(&t->mt) & 0xffffffu) * (1.0f / 16777216.0f);
}

/* A double in [0, 1) from the low 53 bits of two draws (first one high). */
static double unit_double(Trng *t)
{
    uint64_t hi = rng_next32(&t->mt), lo = rng_next32(&t->mt);
    return (double)(((hi << 32) | lo) & ((1ULL << 53) - 1)) * (1.0 / 9007199254740992.0);
}

/* uniform_real_distribution<float>(from, to), as the fused AVX2 build runs it. */
float trng_uniform1(Trng *t, float from, float to)
{
    float x = unit_float(t);
    if (t->portable) return x * (to - from) + from;
    return fmaf(x, to - from, from);
}

/* tensor.uniform_(from, to) in float32. */
void trng_uniform(Trng *t, double *out, long n, double from, double to)
{
    float f = (float)from, g = (float)to;
    for (long i = 0; i < n; i++) out[i] = trng_uniform1(t, f, g);
}

/* torch.rand. */
void trng_rand(Trng *t, double *out, long n)
{
    trng_uniform(t, out, n, 0.0, 1.0);
}

/* normal_distribution<double>(0, 1) with torch's one-value cache. */
static double normal_small(Trng *t)
{
    if (t->has_normal) {
        t->has_normal = false;
        return t->normal * 1.0 + 0.0;
    }
    double u1 = unit_double(t);
    double u2 = unit_double(t);
    double r = sqrt(-2.0 * log(1.0 - u2));
    double theta = 2.0 * TRNG_PI * u1;
    t->normal = r * sin(theta);
    t->has_normal = true;
    return r * cos(theta) * 1.0 + 0.0;      /* * std + mean, as torch writes it */
}

/*
** log256_ps of avx_mathfun.h for one lane: split x into mantissa m in
** [sqrt(1/2), sqrt(2)) and exponent e, then log(x) = log1p(m-1) + e ln 2,
** with log1p from a degree-9 polynomial and ln 2 in two parts (q2 + q1).
*/
static float avx_logf(float xin)
{
    static const float p[9] = { 7.0376836292E-2f, -1.1514610310E-1f, 1.1676998740E-1f,
                                -1.2420140846E-1f, 1.4249322787E-1f, -1.6668057665E-1f,
                                2.0000714765E-1f, -2.4999993993E-1f, 3.3333331174E-1f };
    const float sqrthf = (float)0.707106781186547524, q1 = -2.12194440e-4f, q2 = 0.693359375f;
    float x = xin < u2f(0x00800000u) ? u2f(0x00800000u) : xin;
    uint32_t b = f2u(x);
    int32_t ex = (int32_t)(b >> 23) - 0x7f;
    x = u2f((b & ~0x7f800000u) | f2u(0.5f));
    float e = (float)ex + 1.0f;
    bool small = x < sqrthf;
    float tmp = small ? x : 0.0f;
    x = x - 1.0f;
    e = e - (small ? 1.0f : 0.0f);
    x = x + tmp;
    float z = x * x;
    float y = p[0];
    for (int k = 1; k < 9; k++) y = fmaf(y, x, p[k]);
    y = y * x;
    y = fmaf(y, z, e * q1);
    y = fmaf(-z, 0.5f, y);
    return fmaf(e, q2, x + y);
}

/*
** sincos256_ps for one lane: reduce |x| by multiples of pi/4 (j even, pi/4
** in three parts), evaluate the cosine and sine polynomials on the rest,
** and pick and sign them by j's octant.
*/
static void avx_sincosf(float xin, float *s, float *c)
{
    const float dp1 = -0.78515625f, dp2 = -2.4187564849853515625e-4f, dp3 = (float)-3.77489497744594108e-8;
    const float s0 = -1.9515295891E-4f, s1 = 8.3321608736E-3f, s2 = -1.6666654611E-1f;
    const float c0 = (float)2.443315711809948E-005, c1 = (float)-1.388731625493765E-003,
                c2 = (float)4.166664568298827E-002, fopi = (float)1.27323954473516;
    uint32_t sign_sin = f2u(xin) & 0x80000000u;
    float x = u2f(f2u(xin) & 0x7fffffffu);
    int32_t j = (int32_t)(x * fopi);
    j = (j + 1) & ~1;
    float y = (float)j;
    sign_sin ^= ((uint32_t)j & 4u) << 29;
    bool poly = (j & 2) == 0;
    uint32_t sign_cos = ((uint32_t)~(j - 2) & 4u) << 29;
    x = fmaf(y, dp1, x);
    x = fmaf(y, dp2, x);
    x = fmaf(y, dp3, x);
    float z = x * x;
    float yc = fmaf(c0, z, c1);
    yc = fmaf(yc, z, c2);
    yc = yc * z;
    yc = fmaf(yc, z, -(z * 0.5f));
    yc = yc + 1.0f;
    float ys = fmaf(s0, z, s1);
    ys = fmaf(ys, z, s2);
    ys = ys * z;
    ys = fmaf(ys, x, x);
    /* the vector code masks with and/andnot and adds the parts back */
    float ysin2 = poly ? ys : 0.0f, ysin1 = poly ? 0.0f : yc;
    float rest_s = ys - ysin2, rest_c = yc - ysin1;
    *s = u2f(f2u(ysin1 + ysin2) ^ sign_sin);
    *c = u2f(f2u(rest_c + rest_s) ^ sign_cos);
}

/* normal_fill_16: d[0..7] and d[8..15] hold uniforms; make them normals. */
static void normal_block(float *d, bool portable)
{
    const float two_pi = (float)(2.0 * TRNG_PI);
    for (int j = 0; j < 8; j++) {
        float u1 = 1.0f - d[j], u2 = d[j + 8];
        if (portable) {
            float radius = sqrtf(-2.0f * logf(u1));
            float theta = (float)(2.0 * TRNG_PI * (double)u2);
            d[j] = radius * cosf(theta) * 1.0f + 0.0f;
            d[j + 8] = radius * sinf(theta) * 1.0f + 0.0f;
        } else {
            float radius = sqrtf(-2.0f * avx_logf(u1));
            float sn, cs;
            avx_sincosf(two_pi * u2, &sn, &cs);
            /* _mm256_fmadd_ps(n, std, mean) with std 1 and mean 0 */
            d[j] = fmaf(radius * cs, 1.0f, 0.0f);
            d[j + 8] = fmaf(radius * sn, 1.0f, 0.0f);
        }
    }
}

/* normal_fill: uniforms for all, blocks of 16, the tail redrawn and redone. */
static void normal_fill(Trng *t, double *out, long n)
{
    float blk[TRNG_NORMAL_BLOCK];
    long i = 0;
    /* whole blocks are transformed as soon as their 16 uniforms exist: the
    ** draws do not depend on the transform, so the order is the same */
    long whole = n / TRNG_NORMAL_BLOCK * TRNG_NORMAL_BLOCK;
    for (; i < whole; i += TRNG_NORMAL_BLOCK) {
        for (int k = 0; k < TRNG_NORMAL_BLOCK; k++) blk[k] = unit_float(t);
        normal_block(blk, t->portable);
        for (int k = 0; k < TRNG_NORMAL_BLOCK; k++) out[i + k] = blk[k];
    }
    if (whole == n) return;
    /* the tail's own uniforms are drawn (and overwritten) first */
    for (; i < n; i++) (void)unit_float(t);
    for (int k = 0; k < TRNG_NORMAL_BLOCK; k++) blk[k] = unit_float(t);
    normal_block(blk, t->portable);
    for (int k = 0; k < TRNG_NORMAL_BLOCK; k++) out[n - TRNG_NORMAL_BLOCK + k] = blk[k];
}

/* torch.randn: the small path below 16 elements, normal_fill from 16. */
void trng_randn(Trng *t, double *out, long n)
{
    if (n >= TRNG_NORMAL_BLOCK) {
        normal_fill(t, out, n);
        return;
    }
    for (long i = 0; i < n; i++) out[i] = (float)normal_small(t);
}

/* xavier_uniform_: std = gain sqrt(2/(fan_in+fan_out)), bound = sqrt(3) std. */
void trng_xavier_uniform(Trng *t, Mat *w, double gain)
{
    double std = gain * sqrt(2.0 / (double)(w->rows + w->cols));
    double a = sqrt(3.0) * std;
    trng_uniform(t, w->data, (long)w->rows * w->cols, -a, a);
}

/* kaiming_uniform_(a=sqrt(5)): gain sqrt(2/(1+a^2)), std gain/sqrt(fan_in). */
void trng_linear(Trng *t, Mat *w)
{
    double a = sqrt(5.0);
    double gain = sqrt(2.0 / (1.0 + pow(a, 2.0)));
    double std = gain / sqrt((double)w->cols);
    double bound = sqrt(3.0) * std;
    trng_uniform(t, w->data, (long)w->rows * w->cols, -bound, bound);
}

/* nn.Linear's bias: uniform_(-1/sqrt(fan_in), 1/sqrt(fan_in)). */
void trng_linear_bias(Trng *t, double *bias, long n, long fan_in)
{
    double bound = 1.0 / sqrt((double)fan_in);
    trng_uniform(t, bias, n, -bound, bound);
}
