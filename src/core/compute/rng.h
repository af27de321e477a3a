/*
** rng.h: numpy's legacy global random generator, reproduced bit for bit.
**
** np.random.seed(s) seeds a Mersenne Twister (MT19937) with init_genrand(s);
** randn draws gaussians by the polar Box-Muller method on 53-bit doubles and
** keeps the second value of each pair for the next gaussian call, even across
** calls of other kinds; rand is random_sample; randint(low, high) masks 32-bit
** draws and rejects those above the range. With these, a lesson that says
** `seed 42` sees exactly the numbers the notebook printed.
**
** Usage:  Rng r; rng_seed(&r, 42); double g = rng_randn(&r);
*/
#ifndef ATTNLAB_RNG_H
#define ATTNLAB_RNG_H

#include <stdint.h>
#include "mat.h"

#define RNG_STATE_LEN 624

typedef struct Rng {
    uint32_t key[RNG_STATE_LEN];
    int pos;            /* next word of key to temper; RNG_STATE_LEN means refill */
    int has_gauss;      /* a cached second gaussian is waiting */
    double gauss;       /* that cached value */
} Rng;

/* np.random.seed(seed) for 0 <= seed < 2^32. */
void rng_seed(Rng *r, uint32_t seed);
/* The next raw 32-bit output of MT19937. */
uint32_t rng_next32(Rng *r);
/* np.random.random_sample(): a double in [0, 1) with 53 random bits. */
double rng_rand(Rng *r);
/* np.random.standard_normal(): one gaussian (polar method, cached pair). */
double rng_randn(Rng *r);
/* np.random.randint(low, high): an integer in [low, high). Requires low < high
** and high - low <= 2^32 (the masked-rejection path numpy takes for them). */
int64_t rng_randint(Rng *r, int64_t low, int64_t high);

/* Fill m row-major with randn() * scale (numpy: randn(rows, cols) * scale). */
void rng_fill_randn(Rng *r, Mat *m, double scale);
/* Fill m row-major with rand() * scale. */
void rng_fill_rand(Rng *r, Mat *m, double scale);
/* Fill m row-major with randint(low, high). */
void rng_fill_randint(Rng *r, Mat *m, int64_t low, int64_t high);
/* Fill a stack of n matrices in numpy's order for shape (n, rows, cols):
** all of stack[0] row by row, then stack[1], ... (randn * scale). */
void rng_fill_randn_stack(Rng *r, Mat *const *stack, int n, double scale);

#endif
