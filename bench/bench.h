/*
** bench.h: what the parts of the benchmark program share (bench/bench.c
** runs them; bench/model.c measures a real model's layer): the settings,
** the scratch directory, the sampling loop, the output format and the
** child processes. Every figure is a line "name value unit" on stdout.
*/
#ifndef ATTNLAB_BENCH_H
#define ATTNLAB_BENCH_H

#include "sdl/font.h"
#include "view/layout.h"

/* Settings from the command line, and the scratch directory. */
typedef struct Bench {
    const char *attnlab;        /* the program, for the process figures */
    const char *lessons;        /* the bundled lessons */
    const char *script;         /* the matplotlib baseline */
    const char *python;         /* Debian's interpreter */
    int quick;                  /* fewer samples */
    int detail;                 /* breakdowns on stderr */
    int keep;                   /* leave the scratch directory (to look at the pictures) */
    const char *only;           /* run only the figures starting with this */
    char tmp[64];               /* mkdtemp directory, removed at exit (and by die) */
    FontSet *fonts;
    LayoutFitter *fitter;       /* pages cut as the fonts lay them out, as the program cuts them */
    StagePager *pager;
    int loop;                   /* --loop N: only the matched export, N times */
} Bench;

/* What a child process used, from wait4's rusage. */
typedef struct ChildUse {
    long rss_kb;                /* peak resident set (ru_maxrss) */
    long faults;                /* page faults, minor and major */
} ChildUse;

/* One timed run of something; returns its duration in milliseconds. */
typedef double (*RunFn)(void *ctx);

/* Print a message, remove the scratch directory and stop. */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* Run fn `warm` times untimed, then time it until it has at least min_runs
** samples and budget_ms in all, or max_runs samples; the median. */
double measure(RunFn fn, void *ctx, int warm, int min_runs, int max_runs, double budget_ms);
/* Print one figure, the program's whole output format. */
void figure(const char *name, double value, const char *unit);
/* Whether the figure called name is wanted (--only). */
int wanted(const Bench *B, const char *name);
/* Start argv[0] with argv, its output to /dev/null, and wait: wall-clock
** milliseconds from spawn to exit; *use (if not NULL) gets what it used.
** A failed exit stops the benchmark. */
double run_child(char **argv, ChildUse *use);
/* Median ru_maxrss of three runs of argv, in MiB; *ms_out (if not NULL)
** gets their median wall time. */
double rss_of(char **argv, double *ms_out);
/* Write len bytes to path, or die. */
void write_file(const char *path, const char *data, size_t len);

/* The start of a one-stage export (bench/start.c): its memory, page
** faults and instructions, measured first (see bench_model_rss), ... */
void bench_start_use(Bench *B);
/* ... and its time. */
void bench_start(Bench *B);

/* The model layer's figures (bench/model.c): run before the benchmark
** grows (peak memory of a child includes the spawner's, see bench.c). */
void bench_model_rss(Bench *B);
/* Its in-process figures: first frame, hover and step frames. */
void bench_model(Bench *B);

#endif
