/*
** scale.c: colour scales and ticks (scale.h). Ranges are handled through
** half-widths and ends divided by the larger magnitude, never through
** hi − lo, which overflows for ends of opposite sign near the largest
** double.
*/
#include "scale.h"
#include "core/util.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* A "nice" step (1, 2, 2.5 or 5 times a power of ten) near raw; 0 when raw
** is not a positive number whose power of ten is a normal double. */
double scale_nice_step(double raw)
{
    if (!(raw > 0) || !isfinite(raw)) return 0;
    double e = pow(10, floor(log10(raw)));
    if (!(e >= DBL_MIN) || !isfinite(e)) return 0;
    double f = raw / e;
    double nf = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
    return nf * e;
}

/* Digits after the point that show multiples of step exactly. */
int scale_step_decimals(double step)
{
    for (int d = 0; d < 6; d++) {
        double s = step * pow(10, d);
        if (fabs(s - floor(s + 0.5)) < 1e-6 * (s > 1 ? s : 1)) return d;
    }
    return 6;
}

/* Ticks in scientific notation with enough significant digits (3 at
** least) that neighbours read differently: for values of 1e9 and more, or
** non-zero ones that even 6 decimals would print as 0. */
static void ticks_notation(Ticks *t)
{
    t->sci = 0;
    bool need = false;
    for (int i = 0; i < t->n; i++)
        need |= fabs(t->v[i]) >= 1e9 || (t->v[i] != 0 && fabs(t->v[i]) < 0.5e-6);
    if (!need) return;
    for (t->sci = 3; t->sci < 17; t->sci++) {
        bool distinct = true;
        char a[48], b[48];
        for (int i = 1; i < t->n && distinct; i++) {
            snprintf(a, sizeof a, "%.*e", t->sci - 1, t->v[i - 1]);
            snprintf(b, sizeof b, "%.*e", t->sci - 1, t->v[i]);
            distinct = strcmp(a, b) != 0;
        }
        if (distinct) return;
    }
}

/* Tick i's label: util_fmt_num, or scientific notation (ticks_notation). */
void scale_tick_text(char *buf, size_t n, const Ticks *t, int i)
{
    if (t->sci && t->v[i] != 0) snprintf(buf, n, "%.*e", t->sci - 1, t->v[i]);
    else util_fmt_num(buf, n, t->v[i], t->sci ? 0 : t->decimals);
}

/* Up to want (2..SCALE_MAX_TICKS) round values inside [lo, hi]; if none fit, the
** ends themselves (and 0 when it lies between). Round values are looked for
** only where a step and its multiples are normal doubles (half-ranges from
** 1e-290 to 1e290); the ends serve beyond. */
Ticks scale_ticks(double lo, double hi, int want)
{
    Ticks t = { { 0 }, 0, 0, 0 };
    if (want > SCALE_MAX_TICKS) want = SCALE_MAX_TICKS;
    double half = hi / 2 - lo / 2;      /* never overflows, unlike hi - lo */
    if (want >= 2 && hi > lo && half > 1e-290 && half < 1e290) {
        for (int w = want; w >= 2 && t.n == 0; w--) {
            double step = scale_nice_step((hi - lo) / (w - 1));
            if (step <= 0) continue;
            double first = ceil(lo / step - 1e-9);
            int n = 0;
            for (double x = first * step; x <= hi + step * 1e-9 && n < SCALE_MAX_TICKS; x = (first + ++n) * step)
                t.v[n] = fabs(x) < step * 1e-9 ? 0 : x;
            if (n >= 2 && n <= want) { t.n = n; t.decimals = scale_step_decimals(step); }
        }
    }
    if (t.n == 0) {             /* no round values fit: the ends, and 0 between */
        t.v[0] = lo;
        t.n = 1;
        if (want >= 3 && lo < 0 && hi > 0) t.v[t.n++] = 0;
        if (hi > lo && want >= 2) t.v[t.n++] = hi;
        double span = half > 0 ? half : fabs(hi) / 2;
        t.decimals = span >= 5 ? 0 : span >= 0.5 ? 1 : span > 0 ? 1 - (int)floor(log10(2 * span)) : 1;
        if (t.decimals > 6) t.decimals = 6;
    }
    ticks_notation(&t);
    return t;
}
