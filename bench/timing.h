/*
** timing.h: the clock and the median the benchmark programs share
** (bench/bench.c, bench/png.c, bench/sentence.c): every figure they print is a median of
** wall-clock samples taken with bench_now_ms.
*/
#ifndef ATTNLAB_BENCH_TIMING_H
#define ATTNLAB_BENCH_TIMING_H

/* Wall-clock milliseconds from an arbitrary origin (monotonic). */
double bench_now_ms(void);
/* The median of n samples (sorts them in place). */
double bench_median(double *v, int n);

#endif
