/*
** trng.h: PyTorch's CPU random generator (torch 1.13), reproduced bit for bit.
**
** torch.manual_seed(s) seeds a Mersenne Twister with the low 32 bits of s,
** like numpy's seed (so the Rng of rng.h does the raw draws). What differs
** is how draws become numbers: torch works in float32. A uniform float takes
** the low 24 bits of one 32-bit draw; a normal tensor below 16 elements uses
** double-precision Box-Muller on 53-bit uniforms (keeping the sine for the
** next call), a tensor of 16 or more fills uniforms first and transforms
** them in blocks of 16. That block transform has two versions in torch: the
** vectorised one that x86-64 machines with AVX2 run (polynomial log, sin and
** cos with fused multiply-adds) and the portable one that uses libm; both
** are here. Values are float32, returned as doubles that hold them exactly.
**
** The nn.init helpers compute their bounds as torch/nn/init.py does, in
** double precision, then draw uniform_(-bound, bound).
**
** Usage:  Trng t; trng_seed(&t, 42);
**         trng_xavier_uniform(&t, W, 1.0);     // W: out x in, like nn.Linear's weight
**         trng_randn(&t, buf, n);
*/
#ifndef ATTNLAB_TRNG_H
#define ATTNLAB_TRNG_H

#include <stdbool.h>
#include <stdint.h>
#include "mat.h"
#include "rng.h"

/* The size from which torch's normal_ fills in blocks of 16. */
#define TRNG_NORMAL_BLOCK 16

typedef struct Trng {
    Rng mt;             /* the Mersenne Twister (same seeding as numpy's) */
    bool has_normal;    /* a cached second normal from the small-tensor path */
    double normal;      /* that cached value (double, as torch keeps it) */
    bool portable;      /* act as torch's portable kernels (no AVX2): no fused
                        ** multiply-add in uniform_, libm's log/sin/cos in randn */
} Trng;

/* torch.manual_seed(seed): any 64-bit seed; only its low 32 bits matter.
** Clears the cached normal, as torch does. Leaves t->portable as it was. */
void trng_seed(Trng *t, uint64_t seed);
/* One float32 in [from, to): tensor.uniform_(from, to) for one element. */
float trng_uniform1(Trng *t, float from, float to);
/* tensor.uniform_(from, to) on a float32 tensor of n elements (row-major);
** from and to are rounded to float32 first, as torch does. */
void trng_uniform(Trng *t, double *out, long n, double from, double to);
/* torch.rand(n): float32 uniforms in [0, 1). */
void trng_rand(Trng *t, double *out, long n);
/* torch.randn(n): float32 normals, through the path torch takes for n. */
void trng_randn(Trng *t, double *out, long n);
/* nn.init.xavier_uniform_(W, gain) for W of shape out x in (rows x cols). */
void trng_xavier_uniform(Trng *t, Mat *w, double gain);
/* nn.Linear(in, out)'s weight: kaiming_uniform_(W, a=sqrt(5)) on the
** out x in matrix w (fan_in = in = its columns). */
void trng_linear(Trng *t, Mat *w);
/* nn.Linear's bias, drawn right after its weight: n values uniform in
** +-1/sqrt(fan_in). */
void trng_linear_bias(Trng *t, double *bias, long n, long fan_in);

#endif
