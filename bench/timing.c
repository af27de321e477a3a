/*
** timing.c: the benchmarks' clock and median (see timing.h).
*/
#define _DEFAULT_SOURCE     /* clock_gettime (glibc) */
#include "timing.h"

#include <stdlib.h>
#include <time.h>

/* Wall-clock milliseconds from an arbitrary origin (monotonic). */
double bench_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* qsort order for doubles. */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of n samples (sorts them in place). */
double bench_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
