/*
** rng.c: MT19937 with numpy's legacy seeding and distributions.
**
** The generator is the reference Mersenne Twister of Matsumoto and Nishimura:
** a 624-word state, refilled ("twisted") all at once, each output tempered by
** four shifts and masks. Seeding with a 32-bit integer is their init_genrand,
** which is what np.random.seed(int) calls. The distributions follow numpy's
** legacy code paths, which RandomState keeps frozen for reproducibility.
*/
#include "rng.h"

#include <math.h>

#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfU
#define MT_UPPER 0x80000000U
#define MT_LOWER 0x7fffffffU

/* init_genrand: each word from the previous by Knuth's multiplier. */
void rng_seed(Rng *r, uint32_t seed)
{
    r->key[0] = seed;
    for (int i = 1; i < RNG_STATE_LEN; i++) {
        uint32_t prev = r->key[i - 1];
        r->key[i] = 1812433253U * (prev ^ (prev >> 30)) + (uint32_t)i;
    }
    r->pos = RNG_STATE_LEN;
    r->has_gauss = 0;
    r->gauss = 0.0;
}

/* Regenerate all 624 words of state. */
static void mt_twist(Rng *r)
{
    uint32_t *k = r->key;
    int i;
    for (i = 0; i < RNG_STATE_LEN - MT_M; i++) {
        uint32_t y = (k[i] & MT_UPPER) | (k[i + 1] & MT_LOWER);
        k[i] = k[i + MT_M] ^ (y >> 1) ^ ((y & 1U) ? MT_MATRIX_A : 0U);
    }
    for (; i < RNG_STATE_LEN - 1; i++) {
        uint32_t y = (k[i] & MT_UPPER) | (k[i + 1] & MT_LOWER);
        k[i] = k[i + (MT_M - RNG_STATE_LEN)] ^ (y >> 1) ^ ((y & 1U) ? MT_MATRIX_A : 0U);
    }
    uint32_t y = (k[RNG_STATE_LEN - 1] & MT_UPPER) | (k[0] & MT_LOWER);
    k[RNG_STATE_LEN - 1] = k[MT_M - 1] ^ (y >> 1) ^ ((y & 1U) ? MT_MATRIX_A : 0U);
    r->pos = 0;
}

/* One tempered 32-bit output. */
uint32_t rng_next32(Rng *r)
{
    if (r->pos >= RNG_STATE_LEN) mt_twist(r);
    uint32_t y = r->key[r->pos++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= y >> 18;
    return y;
}

/* 53-bit double: 27 high bits of one draw and 26 of the next. */
double rng_rand(Rng *r)
{
    uint32_t a = rng_next32(r) >> 5;
    uint32_t b = rng_next32(r) >> 6;
    return ((double)a * 67108864.0 + (double)b) / 9007199254740992.0;
}

/*
** Polar Box-Muller: pick a point uniformly in the unit disc (rejecting the
** corners of the square and the exact centre), then one radius factor turns
** its two coordinates into two independent gaussians. numpy returns the
** second coordinate's and keeps the first's for the next call.
*/
double rng_randn(Rng *r)
{
    if (r->has_gauss) {
        r->has_gauss = 0;
        double g = r->gauss;
        r->gauss = 0.0;
        return g;
    }
    double x1, x2, r2;
    do {
        x1 = 2.0 * rng_rand(r) - 1.0;
        x2 = 2.0 * rng_rand(r) - 1.0;
        r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = sqrt(-2.0 * log(r2) / r2);
    r->gauss = f * x1;
    r->has_gauss = 1;
    return f * x2;
}

/*
** randint(low, high): numpy's legacy path for a range that fits in 32 bits
** masks each 32-bit draw to the smallest all-ones mask covering the range and
** rejects values above it. A range of exactly 2^32 uses the draw as it is.
*/
int64_t rng_randint(Rng *r, int64_t low, int64_t high)
{
    uint64_t range = (uint64_t)(high - low) - 1;   /* inclusive span */
    if (range == 0) return low;
    if (range == 0xffffffffULL) return low + (int64_t)rng_next32(r);
    uint32_t rng = (uint32_t)range;
    uint32_t mask = rng;
    mask |= mask >> 1;
    mask |= mask >> 2;
    mask |= mask >> 4;
    mask |= mask >> 8;
    mask |= mask >> 16;
    uint32_t v;
    while ((v = rng_next32(r) & mask) > rng) {}
    return low + (int64_t)v;
}

/* randn * scale, row-major. */
void rng_fill_randn(Rng *r, Mat *m, double scale)
{
    for (long i = 0; i < (long)m->rows * m->cols; i++) m->data[i] = rng_randn(r) * scale;
}

/* rand * scale, row-major. */
void rng_fill_rand(Rng *r, Mat *m, double scale)
{
    for (long i = 0; i < (long)m->rows * m->cols; i++) m->data[i] = rng_rand(r) * scale;
}

/* randint(low, high), row-major. */
void rng_fill_randint(Rng *r, Mat *m, int64_t low, int64_t high)
{
    for (long i = 0; i < (long)m->rows * m->cols; i++) m->data[i] = (double)rng_randint(r, low, high);
}

/* A (n, rows, cols) array is n matrices one after another in C order. */
void rng_fill_randn_stack(Rng *r, Mat *const *stack, int n, double scale)
{
    for (int h = 0; h < n; h++) rng_fill_randn(r, stack[h], scale);
}
