/*
** scale.h: colour scales and axis ticks as pure numbers: where a value
** falls between two ends, and the round values a colour bar or a plot axis
** is labelled with. No drawing and no text measuring, so the layout's
** numbers are tested on their own (tests/test_scale.c).
**
**     Scale k = scale_of(lo, hi);
**     double t = scale_at(&k, x);             // 0..1: never NaN or infinite
**     Ticks ticks = scale_ticks(lo, hi, 5);   // up to 5 round values in [lo, hi]
**     char s[48];
**     scale_tick_text(s, sizeof s, &ticks, 0);   // "0.25", or "1.00e+308"
**
** Every double is a valid end: a range of ±1e308 (whose width overflows)
** and one of subnormal numbers (whose halves round to 0) still give
** positions in 0..1 and tick labels that read differently.
*/
#ifndef ATTNLAB_SCALE_H
#define ATTNLAB_SCALE_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#define SCALE_MAX_TICKS 8

/* A range lo..hi prepared for placing many values in it (scale_at): both
** ends divided by the larger magnitude. */
typedef struct Scale {
    double s, ls, den;          /* the magnitude, lo / s, hi / s − lo / s */
    bool ok;                    /* a range with room in it */
} Scale;

/* Ticks of a scale: values, and the decimals that tell them apart. */
typedef struct Ticks {
    double v[SCALE_MAX_TICKS];
    int n, decimals;
    int sci;                    /* > 0: labels in scientific notation, this many significant digits */
} Ticks;

/* A "nice" step (1, 2, 2.5 or 5 times a power of ten) at or above raw; 0
** when raw is not a positive number whose power of ten is a normal double. */
double scale_nice_step(double raw);
/* Digits after the point that show multiples of step exactly (at most 6). */
int scale_step_decimals(double step);
/* The prepared range lo..hi (inline: a heatmap places every cell with it). */
static inline Scale scale_of(double lo, double hi)
{
    Scale k = { fmax(fabs(lo), fabs(hi)), 0, 0, false };
    if (!(k.s > 0) || !isfinite(k.s)) return k;
    k.ls = lo / k.s;
    k.den = hi / k.s - k.ls;
    k.ok = k.den > 0;
    return k;
}

/* Where x falls in a prepared range, 0..1 (clamped; 0.5 when the range is
** empty or x is not finite). */
static inline double scale_at(const Scale *k, double x)
{
    if (!k->ok || !isfinite(x)) return 0.5;
    double t = (x / k->s - k->ls) / k->den;
    if (isnan(t)) return 0.5;
    return t < 0 ? 0 : t > 1 ? 1 : t;
}

/* Where x falls between lo and hi, 0..1 (scale_at of scale_of). */
static inline double scale_frac(double x, double lo, double hi)
{
    Scale k = scale_of(lo, hi);
    return scale_at(&k, x);
}
/* Up to want (2..SCALE_MAX_TICKS) round values inside [lo, hi]; if none
** fit, the ends themselves (and 0 when it lies between). Labels switch to
** scientific notation for values of 1e9 and more or too small for 6
** decimals, with enough digits that neighbours read differently. */
Ticks scale_ticks(double lo, double hi, int want);
/* Tick i's label into buf (n bytes). */
void scale_tick_text(char *buf, size_t n, const Ticks *t, int i);

#endif
