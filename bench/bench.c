/*
** bench.c: attnlab's performance figures, printed one per line as
** "name value unit" (medians over repeated runs after a warm-up).
**
** `make bench` builds and runs it. What each figure measures, how, and the
** targets are in docs/performance.md; in short:
**
**   frame_ms_NxN         layout_view + render_drawlist of a softmax stage on
**                        N tokens, 1920x1080, offscreen software renderer
**   stage_switch_ms      attn_run + stage_view + layout + draw, cycling
**                        through the stages of lessons/01-tour.lesson
**   layout_ms_max        the slowest layout_view of any stage at 1280x720:
**                        the largest lesson within the limits, a 256-token
**                        16-head lesson and every bundled lesson
**                        (a frame of a view laid out before, as the window
**                        lays it out again: the page kept, outlines drawn)
**   layout_ms_first_max  the same, for the first layout of each stage's view
**                        (with the fonts warmed at start-up as the window's)
**   layout_ms_plan_max   the same, with the page planned at every layout
**                        (layout_cache_forget_page before each)
**   export_png_ms        app_shot_write of a 7-token softmax stage to a PNG
**                        file in /tmp at 1200x800 (the whole path)
**   matched_matplotlib_ms, matched_seaborn_ms   the same stage drawn by
**                        bench/baseline.py (from a description of attnlab's
**                        view), timed in the Python process, in batches
**                        of five taken in turn with attnlab's exports
**   export_vs_matplotlib_matched, export_vs_seaborn_matched   their ratios
**   lesson_export_ms     `attnlab --export DIR lessons/01-tour.lesson`
**   lesson_matplotlib_script_ms   baseline.py drawing the same ten stages,
**                        spawn to exit, alternated with the former
**   lesson_vs_matplotlib_script   their ratio
**   start_to_png_ms      a new `attnlab --export` process on the tour's first
**                        stage, from spawn to exit
**   peak_rss_mb          ru_maxrss of `attnlab --export DIR` on every bundled lesson
**   peak_rss_mb_largest  ru_maxrss of `attnlab --export` on the largest lesson
**   largest_matrices_mb  one copy of every matrix that lesson needs
**   start_*              a one-stage export's start: time, memory, page
**                        faults and instructions (bench/start.c)
**   model_layer_*        a GPT-2 small layer at 1024 tokens: first frame,
**                        hover, steps (also with the pointer resting on a
**                        cell) and memory (bench/model.c)
**   png_*                each PNG encoder on the tour's stages (build/bench_png)
**
** Usage: bench [--attnlab PATH] [--lessons DIR] [--script PATH]
**              [--python PATH] [--quick] [--detail] [--keep] [--only PREFIX]
**              [--loop N]
** --quick takes fewer samples (a smoke test); --detail adds breakdowns (the
** export path, every stage's switch and layout time) on stderr; --keep leaves
** the scratch directory with both sides' pictures; --only runs the figures
** whose names start with PREFIX (for profiling one of them); --loop runs
** nothing but the matched export, N times after the warm-up, and prints its
** median (for `perf stat` or callgrind, which then count little else).
**
** Lessons for the frame and export figures are written in memory and go
** through lesson_parse; the largest and the many-heads lessons are written
** to the scratch directory; the benchmark reads only lessons/.
*/
#define _DEFAULT_SOURCE     /* wait4, mkdtemp, clock_gettime (glibc) */
#include "core/stage/dump.h"
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"
#include "core/io/fileio.h"
#include "core/util.h"
#include "app/shot.h"
#include "sdl/export.h"
#include "sdl/font.h"
#include "sdl/render.h"
#include "view/draw.h"
#include "view/layout.h"
#include "bench.h"
#include "timing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <math.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Most samples any figure keeps. */
#define MAX_SAMPLES 1000
/* The seeds' figure: figsize (12, 8) at matplotlib's default 100 dpi. */
#define EXPORT_W 1200
#define EXPORT_H 800
/* The frame figures' canvas. */
#define FRAME_W 1920
#define FRAME_H 1080

/* The errors of the font, render and export calls, for messages. */
static Error ferr, rerr, xerr;

/* e as one line, in a buffer the next call reuses. */
static const char *errline(const Error *e)
{
    static char line[ERROR_LINE_MAX];
    error_format(e, line, sizeof line);
    return line;
}

/* The scratch directory once made, for die() to remove. */
static const char *scratch;

/* Remove a directory tree (defined with main, below). */
static void remove_tree(const char *path);

/* Print a message, remove the scratch directory and stop. */
void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    if (scratch) remove_tree(scratch);
    exit(1);
}

/*
** Run fn `warm` times untimed, then keep timing it until it has at least
** min_runs samples and budget_ms of total time, or max_runs samples.
** Returns the median.
*/
double measure(RunFn fn, void *ctx, int warm, int min_runs, int max_runs, double budget_ms)
{
    static double s[MAX_SAMPLES];
    if (max_runs > MAX_SAMPLES) max_runs = MAX_SAMPLES;
    for (int i = 0; i < warm; i++) fn(ctx);
    int n = 0;
    double total = 0;
    while (n < max_runs && (n < min_runs || total < budget_ms)) {
        s[n] = fn(ctx);
        total += s[n];
        n++;
    }
    return bench_median(s, n);
}

/* Print one figure, the program's whole output format. */
void figure(const char *name, double value, const char *unit)
{
    printf("%s %.3f %s\n", name, value, unit);
    fflush(stdout);
}

/* ---- Lessons written in memory. ---- */

/*
** A lesson of n tokens whose embeddings are `randn n x d`, and one softmax
** stage: self-attention of X with itself, scores scaled by sqrt(d). Token
** names come from words (tokens beyond the list get a number), so labels are
** as wide as real ones.
*/
static Lesson *gen_lesson(int n, int d, const char *title)
{
    static const char *words[] = { "the", "old", "cat", "sat", "on", "my", "mat" };
    const int nwords = (int)(sizeof words / sizeof words[0]);
    Buf b = { 0 };
    buf_printf(&b, "title: %s\n\n[setup: generated]\nseed: 7\ntokens:", title);
    for (int i = 0; i < n; i++) {
        if (n <= nwords) buf_printf(&b, " %s", words[i]);
        else buf_printf(&b, " %s%d", words[i % nwords], i / nwords);
    }
    buf_printf(&b, "\nX = randn %dx%d\n\n[softmax: Attention weights]\n\n"
                   "Each row of weights is a probability distribution over the keys.\n", n, d);
    Error err;
    Lesson *L = lesson_parse(b.s, b.len, title, &err);
    if (!L) die("generated lesson: %s", errline(&err));
    buf_free(&b);
    return L;
}

/* ---- frame_ms_NxN ---- */

typedef struct FrameRun {
    const View *v;
    LayoutCache *lc;
    LayoutOpts lo;
    DrawList *d;
    Offscreen *o;
} FrameRun;

/* One frame: lay the view out and draw it. */
static double frame_once(void *ctx)
{
    FrameRun *f = ctx;
    double t0 = bench_now_ms();
    layout_view(f->lc, f->v, &f->lo, f->d);
    render_drawlist(f->o->render, f->d, NULL);
    return bench_now_ms() - t0;
}

/* Stage k of L cut into pages as the program cuts them (B's pager). */
static View *bench_view(Bench *B, const Lesson *L, const Trace *T, int k)
{
    StageOpts o = { 0, 0, false, B->pager };
    return stage_view_with(L, T, k, &o);
}

/* The frame figure for an n x n softmax stage. */
static void bench_frame(Bench *B, int n)
{
    Lesson *L = gen_lesson(n, n >= 64 ? 16 : 8, "frame benchmark");
    Error err;
    Trace *T = attn_run(L, &err);
    if (!T) die("generated lesson: %s", errline(&err));
    View *v = bench_view(B, L, T, 0);
    Theme th = layout_theme(false);
    FrameRun f = { v, layout_cache_create(), layout_defaults(FRAME_W, FRAME_H, &th, font_measure, B->fonts),
                   draw_create(FRAME_W, FRAME_H), render_offscreen_create(FRAME_W, FRAME_H, B->fonts, &rerr) };
    if (!f.o) die("offscreen: %s", errline(&rerr));
    double m = measure(frame_once, &f, 5, B->quick ? 5 : 30, B->quick ? 10 : 400,
                       B->quick ? 100 : 1500);
    char name[32];
    snprintf(name, sizeof name, "frame_ms_%dx%d", n, n);
    figure(name, m, "ms");
    if (B->detail) {
        /* Split the median frame into its two halves. */
        double lay[64], drw[64];
        for (int i = 0; i < 64; i++) {
            double t0 = bench_now_ms();
            layout_view(f.lc, f.v, &f.lo, f.d);
            double t1 = bench_now_ms();
            render_drawlist(f.o->render, f.d, NULL);
            lay[i] = t1 - t0;
            drw[i] = bench_now_ms() - t1;
        }
        fprintf(stderr, "  %s: layout %.3f ms, draw %.3f ms, %d commands\n", name,
                bench_median(lay, 64), bench_median(drw, 64), f.d->n);
    }
    render_offscreen_free(f.o);
    draw_free(f.d);
    layout_cache_free(f.lc);
    stage_view_free(v);
    trace_free(T);
    lesson_free(L);
}

/* ---- stage_switch_ms ---- */

typedef struct SwitchRun {
    Bench *B;
    const Lesson *L;
    int k;                      /* the next stage to show */
    Theme th;
    LayoutCache *lc;
    LayoutOpts lo;
    DrawList *d;
    Offscreen *o;
} SwitchRun;

/* Move to the next stage the way a fresh computation would: trace, view,
** layout, draw. */
static double switch_once(void *ctx)
{
    SwitchRun *s = ctx;
    double t0 = bench_now_ms();
    Error err;
    Trace *T = attn_run(s->L, &err);
    if (!T) die("tour: %s", errline(&err));
    View *v = bench_view(s->B, s->L, T, s->k);
    layout_view(s->lc, v, &s->lo, s->d);
    render_drawlist(s->o->render, s->d, NULL);
    stage_view_free(v);
    trace_free(T);
    double t = bench_now_ms() - t0;
    s->k = (s->k + 1) % s->L->nstages;
    return t;
}

/* The stage-switch figure on the tour lesson, at the frame canvas size. */
static void bench_switch(Bench *B)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/01-tour.lesson", B->lessons);
    Error err;
    Lesson *L = lesson_load(path, &err);
    if (!L) die("%s", errline(&err));
    SwitchRun s = { B, L, 0, layout_theme(false), layout_cache_create(), { 0 }, draw_create(FRAME_W, FRAME_H),
                    render_offscreen_create(FRAME_W, FRAME_H, B->fonts, &rerr) };
    if (!s.o) die("offscreen: %s", errline(&rerr));
    s.lo = layout_defaults(FRAME_W, FRAME_H, &s.th, font_measure, B->fonts);
    /* Whole laps, so every stage counts equally in the median. */
    int lap = L->nstages;
    int laps = B->quick ? 2 : 30;
    double m = measure(switch_once, &s, 2 * lap, laps * lap, laps * lap, 0);
    figure("stage_switch_ms", m, "ms");
    if (B->detail) {
        for (int k = 0; k < lap; k++) {
            double t[15];
            for (int i = 0; i < 15; i++) {
                s.k = k;
                t[i] = switch_once(&s);
            }
            fprintf(stderr, "  stage_switch %2d %-16s %.3f ms\n", k + 1,
                    lesson_stage_name(L->stages[k].id), bench_median(t, 15));
        }
    }
    render_offscreen_free(s.o);
    draw_free(s.d);
    layout_cache_free(s.lc);
    lesson_free(L);
}

/* ---- export_png_ms ---- */

typedef struct ExportRun {
    FontSet *fonts;
    LayoutCache *lc;
    const Lesson *L;
    const Trace *T;
    ShotOpts opts;
    char path[128];
} ExportRun;

/* One PNG export, exactly as `attnlab --export` does a stage. */
static double export_once(void *ctx)
{
    ExportRun *e = ctx;
    Error err;
    double t0 = bench_now_ms();
    if (app_shot_write(e->fonts, e->lc, e->L, e->T, 0, &e->opts, e->path, &err) != 0)
        die("export: %s", errline(&err));
    return bench_now_ms() - t0;
}

/* Median time of each piece of the export path, on stderr. */
static void export_detail(ExportRun *e)
{
    enum { N = 21 };
    double lay[N], off[N], drw[N], enc[N], wr[N];
    size_t bytes = 0;
    DrawList *d = draw_create(EXPORT_W, EXPORT_H);
    for (int i = 0; i < N; i++) {
        double t0 = bench_now_ms();
        app_shot_layout(font_measure, e->fonts, e->lc, e->L, e->T, 0, &e->opts, d);
        double t1 = bench_now_ms();
        Offscreen *o = render_offscreen_create(EXPORT_W, EXPORT_H, e->fonts, &rerr);
        double t2 = bench_now_ms();
        render_drawlist(o->render, d, NULL);
        double t3 = bench_now_ms();
        Buf b = { 0 };
        ExportMeta meta = { e->L->title, "softmax: Attention weights" };
        export_png_encode(o->canvas, &meta, &b, &xerr);
        double t4 = bench_now_ms();
        Error err;
        if (fileio_write_atomic(e->path, b.s, b.len, false, &err) != 0) die("%s", errline(&err));
        double t5 = bench_now_ms();
        bytes = b.len;
        buf_free(&b);
        render_offscreen_free(o);
        lay[i] = t1 - t0; off[i] = t2 - t1; drw[i] = t3 - t2; enc[i] = t4 - t3; wr[i] = t5 - t4;
    }
    fprintf(stderr, "  export: view+layout %.3f, offscreen %.3f, draw %.3f, png encode %.3f, "
                    "write %.3f ms; %zu bytes\n",
            bench_median(lay, N), bench_median(off, N), bench_median(drw, N), bench_median(enc, N), bench_median(wr, N), bytes);
    draw_free(d);
}

/* ---- the baselines' figure descriptions ---- */

/* The colour scale attnlab gives a panel: [0, 1] for weights, symmetric
** about 0 for signed values, the finite range otherwise. */
static void panel_scale(const Panel *p, double *lo, double *hi)
{
    double a = INFINITY, b = -INFINITY;
    for (long i = 0; i < (long)p->m->rows * p->m->cols; i++) {
        double x = p->m->data[i];
        if (isfinite(x)) { a = fmin(a, x); b = fmax(b, x); }
    }
    if (!(b >= a)) { a = 0; b = 1; }
    if (p->probabilities) { a = 0; b = 1; }
    else if (p->diverging) { b = fmax(fabs(a), fabs(b)); a = -b; }
    if (!(b > a)) { a -= 0.5; b += 0.5; }
    *lo = a;
    *hi = b;
}

/* A JSON array of n strings (null entries as ""). */
static void spec_strings(Buf *b, char **s, int n)
{
    buf_puts(b, "[");
    for (int i = 0; i < n; i++) {
        if (i) buf_puts(b, ", ");
        dump_string(b, s && s[i] ? s[i] : "");
    }
    buf_puts(b, "]");
}

/* One panel of a view, everything the baseline needs to draw it. */
static void spec_panel(Buf *b, const Panel *p)
{
    const Mat *m = p->m;
    double lo, hi;
    panel_scale(p, &lo, &hi);
    buf_printf(b, "{\"kind\": \"%s\", \"title\": ", p->kind == PANEL_PLOT ? "plot" : "heatmap");
    dump_string(b, p->title ? p->title : "");
    buf_puts(b, ", \"row_labels\": ");
    spec_strings(b, p->row_labels, m->rows);
    buf_puts(b, ", \"col_labels\": ");
    spec_strings(b, p->col_labels, m->cols);
    buf_puts(b, ", \"row_axis\": ");
    dump_string(b, p->row_axis ? p->row_axis : "");
    buf_puts(b, ", \"col_axis\": ");
    dump_string(b, p->col_axis ? p->col_axis : "");
    buf_puts(b, ", \"y_axis\": ");
    dump_string(b, p->y_axis ? p->y_axis : "");
    buf_puts(b, ", \"series\": ");
    if (p->series) spec_strings(b, p->series, m->cols);
    else buf_puts(b, "null");
    if (p->bounds) {                            /* one per row: a step line */
        buf_puts(b, ", \"bounds\": [");
        for (int r = 0; r < m->rows; r++)
            buf_printf(b, isfinite(p->bounds[r]) ? "%s%.6g" : "%snull", r ? ", " : "", p->bounds[r]);
        buf_puts(b, "]");
    }
    buf_puts(b, ", \"bound_label\": ");
    dump_string(b, p->bound_label ? p->bound_label : "");
    buf_puts(b, ", \"cmap\": ");
    dump_string(b, p->cmap ? p->cmap : "viridis");
    buf_printf(b, ", \"lo\": %.9g, \"hi\": %.9g, \"decimals\": %d, \"data\": [", lo, hi,
               p->decimals >= 0 ? p->decimals : 2);
    for (int r = 0; r < m->rows; r++) {
        buf_puts(b, r ? ", [" : "[");
        for (int c = 0; c < m->cols; c++) {
            double x = m->data[(long)r * m->cols + c];
            if (isfinite(x)) buf_printf(b, c ? ", %.6g" : "%.6g", x);
            else buf_puts(b, c ? ", null" : "null");
        }
        buf_puts(b, "]");
    }
    buf_puts(b, "]}");
}

/*
** Describe stages [k0, k1) of L as attnlab lays them out, for
** bench/baseline.py: header, formula, panels, paragraphs, canvas size. The
** baselines draw from this, so both sides show the same content.
*/
static void write_spec(Bench *B, const char *path, const Lesson *L, const Trace *T, int k0, int k1, int w, int h)
{
    Buf b = { 0 };
    buf_printf(&b, "{\"width\": %d, \"height\": %d, \"stages\": [\n", w, h);
    for (int k = k0; k < k1; k++) {
        View *v = bench_view(B, L, T, k);
        char meta[512];
        snprintf(meta, sizeof meta, "%s  \xc2\xb7  stage %d / %d", L->title ? L->title : "", k + 1, L->nstages);
        buf_puts(&b, k > k0 ? ",\n{\"title\": " : "{\"title\": ");
        dump_string(&b, v->title ? v->title : "");
        buf_puts(&b, ", \"meta\": ");
        dump_string(&b, meta);
        buf_puts(&b, ", \"formula\": ");
        dump_string(&b, v->formula ? v->formula : "");
        buf_puts(&b, ", \"paras\": ");
        spec_strings(&b, v->paras, v->npara);
        buf_puts(&b, ", \"panels\": [");
        for (int i = 0; i < v->npanels; i++) {
            if (i) buf_puts(&b, ",\n  ");
            spec_panel(&b, &v->panels[i]);
        }
        buf_puts(&b, "]}");
        stage_view_free(v);
    }
    buf_puts(&b, "]}\n");
    write_file(path, b.s, b.len);
    buf_free(&b);
}

/* ---- the baseline as a server: one figure per request ---- */

typedef struct Py {
    pid_t pid;
    FILE *to, *from;            /* its stdin and stdout */
    const char *style;
} Py;

/* A pipe whose ends are not inherited by later children. */
static void cloexec_pipe(int fd[2])
{
    if (pipe(fd) != 0) die("pipe: %s", strerror(errno));
    fcntl(fd[0], F_SETFD, FD_CLOEXEC);
    fcntl(fd[1], F_SETFD, FD_CLOEXEC);
}

/* Start bench/baseline.py --serve on a spec and wait for its "ready" (it
** has imported everything and drawn its warm-up figures by then). */
static void py_start(Py *py, const Bench *B, const char *spec, const char *style, const char *out)
{
    int in[2], outp[2];
    cloexec_pipe(in);
    cloexec_pipe(outp);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
    char *argv[] = { (char *)B->python, (char *)B->script, "--serve", (char *)spec, "--style",
                     (char *)style, "--out", (char *)out, "--warmup", B->quick ? "1" : "3", NULL };
    int rc = posix_spawn(&py->pid, B->python, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) die("cannot start %s: %s", B->python, strerror(rc));
    close(in[0]);
    close(outp[1]);
    py->to = fdopen(in[1], "w");
    py->from = fdopen(outp[0], "r");
    py->style = style;
    char line[256];
    if (!fgets(line, sizeof line, py->from) || strncmp(line, "ready", 5) != 0)
        die("%s --style %s did not start (are python3-matplotlib and python3-seaborn installed?)",
            B->script, style);
    if (B->detail) fprintf(stderr, "  baseline: %s", line);
}

/* One figure drawn and saved by the baseline; its own in-process time. */
static double py_draw(Py *py)
{
    char line[256];
    double ms;
    fputs("draw\n", py->to);
    fflush(py->to);
    if (!fgets(line, sizeof line, py->from) || sscanf(line, "ms %lf", &ms) != 1)
        die("the %s baseline stopped", py->style);
    return ms;
}

/* Ask the baseline to quit and reap it. */
static void py_stop(Py *py)
{
    fputs("quit\n", py->to);
    fclose(py->to);
    fclose(py->from);
    int st;
    waitpid(py->pid, &st, 0);
}

/* Width and height from a PNG file's IHDR; dies if it cannot be read. */
static void png_size(const char *path, int *w, int *h)
{
    unsigned char b[24];
    FILE *f = fopen(path, "rb");
    if (!f || fread(b, 1, 24, f) != 24) die("%s: cannot read", path);
    fclose(f);
    *w = b[16] << 24 | b[17] << 16 | b[18] << 8 | b[19];
    *h = b[20] << 24 | b[21] << 16 | b[22] << 8 | b[23];
}

/*
** The matched figures: attnlab's export of the 7-token softmax stage and the
** same stage drawn by matplotlib and by seaborn, each in batches of BATCH as
** a deck of slides or a notebook's figures are made, the batches in turn
** (exports, matplotlib, exports, seaborn, ...) so that a load change on the
** machine hits both sides alike. Medians of each side; ratios of medians;
** and the first export of each batch alone (export_after_python_ms), which
** pays for the caches and the idle CPU the Python side leaves.
*/
static void bench_matched(Bench *B)
{
    Lesson *L = gen_lesson(7, 8, "Attention weights");
    Error err;
    Trace *T = attn_run(L, &err);
    if (!T) die("export lesson: %s", errline(&err));
    char spec[128], out_m[128], out_s[128];
    snprintf(spec, sizeof spec, "%s/matched.json", B->tmp);
    snprintf(out_m, sizeof out_m, "%s/matched-matplotlib.png", B->tmp);
    snprintf(out_s, sizeof out_s, "%s/matched-seaborn.png", B->tmp);
    write_spec(B, spec, L, T, 0, 1, EXPORT_W, EXPORT_H);
    Py mpl, sns;
    if (!B->loop) {
        py_start(&mpl, B, spec, "matplotlib", out_m);
        py_start(&sns, B, spec, "seaborn", out_s);
    }
    ExportRun e = { B->fonts, layout_cache_create(), L, T, app_shot_defaults(), "" };
    e.opts.pager = B->pager;
    e.opts.width = EXPORT_W;
    e.opts.height = EXPORT_H;
    snprintf(e.path, sizeof e.path, "%s/export.png", B->tmp);
    for (int i = 0; i < 5; i++) export_once(&e);
    if (B->loop > 0) {
        double *t = xmalloc(sizeof *t * (size_t)B->loop);
        for (int i = 0; i < B->loop; i++) t[i] = export_once(&e);
        figure("export_png_ms", bench_median(t, B->loop), "ms");
        free(t);
        if (B->detail) export_detail(&e);
        layout_cache_free(e.lc);
        trace_free(T);
        lesson_free(L);
        return;
    }
    enum { BATCH = 5, ROUNDS = 5 };
    int n = B->quick ? 1 : ROUNDS, ne = 0, nc = 0, np = 0;
    double ex[2 * ROUNDS * BATCH], cold[2 * ROUNDS], tm[ROUNDS * BATCH], ts[ROUNDS * BATCH];
    for (int i = 0; i < n; i++)
        for (int side = 0; side < 2; side++) {          /* a batch of exports, then one of figures */
            for (int j = 0; j < BATCH; j++) {
                ex[ne] = export_once(&e);
                if (j == 0) cold[nc++] = ex[ne];
                ne++;
            }
            for (int j = 0; j < BATCH; j++) (side ? ts : tm)[np + j] = py_draw(side ? &sns : &mpl);
            if (side) np += BATCH;
        }
    py_stop(&mpl);
    py_stop(&sns);
    int w, h;
    png_size(out_m, &w, &h);
    if (w != EXPORT_W || h != EXPORT_H) die("matplotlib drew %dx%d, not %dx%d", w, h, EXPORT_W, EXPORT_H);
    png_size(out_s, &w, &h);
    if (w != EXPORT_W || h != EXPORT_H) die("seaborn drew %dx%d, not %dx%d", w, h, EXPORT_W, EXPORT_H);
    double me = bench_median(ex, ne), mm = bench_median(tm, np), ms = bench_median(ts, np);
    figure("export_png_ms", me, "ms");
    figure("export_after_python_ms", bench_median(cold, nc), "ms");
    figure("matched_matplotlib_ms", mm, "ms");
    figure("matched_seaborn_ms", ms, "ms");
    figure("export_vs_matplotlib_matched", mm / me, "x");
    figure("export_vs_seaborn_matched", ms / me, "x");
    if (B->detail) export_detail(&e);
    layout_cache_free(e.lc);
    trace_free(T);
    lesson_free(L);
}

/* ---- the process figures ---- */

/* Start argv[0], its output to /dev/null; see bench.h. */
double run_child(char **argv, ChildUse *use)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    double t0 = bench_now_ms();
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) die("cannot start %s: %s", argv[0], strerror(rc));
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) die("wait4: %s", strerror(errno));
    double t = bench_now_ms() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("%s exited with status %d", argv[0], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    if (use) {
        use->rss_kb = ru.ru_maxrss;
        use->faults = ru.ru_minflt + ru.ru_majflt;
    }
    return t;
}

/* Write a file whole, or stop. */
void write_file(const char *path, const char *data, size_t len)
{
    Error err;
    if (fileio_write_atomic(path, data, len, false, &err) != 0) die("%s", errline(&err));
}

/*
** Peak memory of exporting every bundled lesson in one process, in MiB.
** Measured before the benchmark allocates anything: Linux records the
** spawning process's own high-water RSS into the child's ru_maxrss when the
** child calls exec (the old mm, shared by vfork or copied by fork, is the
** parent's), so a big parent would report its own peak instead.
*/
static double bench_rss(Bench *B)
{
    char pat[4096], dir[128];
    snprintf(pat, sizeof pat, "%s/*.lesson", B->lessons);
    snprintf(dir, sizeof dir, "%s/all", B->tmp);
    glob_t g;
    if (glob(pat, 0, NULL, &g) != 0 || g.gl_pathc == 0) die("no lessons match %s", pat);
    char **argv = xcalloc(g.gl_pathc + 4, sizeof *argv);
    argv[0] = (char *)B->attnlab;
    argv[1] = "--export";
    argv[2] = dir;
    for (size_t i = 0; i < g.gl_pathc; i++) argv[3 + i] = g.gl_pathv[i];
    /* The peak barely moves between runs; three give a stable median. */
    double ms;
    double mb = rss_of(argv, &ms);
    if (B->detail) fprintf(stderr, "  export of all %zu lessons: %.1f ms wall\n", g.gl_pathc, ms);
    free(argv);
    globfree(&g);
    return mb;
}

/*
** The whole process: `attnlab --export DIR lessons/01-tour.lesson` (ten
** stages to PNG files) against `baseline.py --lesson` drawing the same ten
** stages with matplotlib, each from spawn to exit, alternated. The script
** reads the stages' matrices from a JSON file written beforehand (untimed),
** so it computes nothing: a slight advantage to the baseline.
*/
static void bench_lesson(Bench *B)
{
    char path[4096], spec[128], dir_a[128], dir_p[128];
    snprintf(path, sizeof path, "%s/01-tour.lesson", B->lessons);
    snprintf(spec, sizeof spec, "%s/tour.json", B->tmp);
    snprintf(dir_a, sizeof dir_a, "%s/tour-attnlab", B->tmp);
    snprintf(dir_p, sizeof dir_p, "%s/tour-matplotlib", B->tmp);
    Error err;
    Lesson *L = lesson_load(path, &err);
    if (!L) die("%s", errline(&err));
    Trace *T = attn_run(L, &err);
    if (!T) die("%s", errline(&err));
    ShotOpts d = app_shot_defaults();
    write_spec(B, spec, L, T, 0, L->nstages, d.width, d.height);
    trace_free(T);
    lesson_free(L);
    char *a[] = { (char *)B->attnlab, "--export", dir_a, path, NULL };
    char *p[] = { (char *)B->python, (char *)B->script, "--lesson", spec, "--style", "matplotlib",
                  "--out", dir_p, NULL };
    run_child(a, NULL);
    run_child(p, NULL);
    enum { N = 7 };
    int n = B->quick ? 1 : N;
    double ta[N], tp[N];
    for (int i = 0; i < n; i++) {
        ta[i] = run_child(a, NULL);
        tp[i] = run_child(p, NULL);
    }
    double ma = bench_median(ta, n), mp = bench_median(tp, n);
    figure("lesson_export_ms", ma, "ms");
    figure("lesson_matplotlib_script_ms", mp, "ms");
    figure("lesson_vs_matplotlib_script", mp / ma, "x");
}

/* ---- the largest lesson within the limits ---- */

/* Its shape: tokens and model width. The work limit (536870912 multiply-adds
** and computed numbers) allows three 1024x1024 projections of 128 tokens,
** not of 256; the inputs (3.28 million numbers) are within the 4194304 of
** all matrices, and each W is at the 1024 rows/columns and 1048576 cells
** limits. */
#define LARGE_N 128
#define LARGE_D 1024

/* Write the largest lesson: six stages over X (n x d) and three d x d
** projections. */
static void write_large_lesson(const char *path)
{
    static const char *words[] = { "the", "old", "cat", "sat", "on", "my", "mat" };
    Buf b = { 0 };
    buf_printf(&b, "title: Largest lesson within the limits\n\n[setup: %d tokens, d = %d]\nseed: 7\ntokens:",
               LARGE_N, LARGE_D);
    for (int i = 0; i < LARGE_N; i++) buf_printf(&b, " %s%d", words[i % 7], i / 7);
    buf_printf(&b, "\nX = randn %dx%d\n", LARGE_N, LARGE_D);
    for (int i = 0; i < 3; i++) buf_printf(&b, "W_%c = randn %dx%d * 0.03\n", "qkv"[i], LARGE_D, LARGE_D);
    buf_puts(&b, "queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\n\n");
    static const char *stages[] = { "embeddings", "qkv_projection", "raw_scores", "scaled_scores",
                                    "softmax", "weighted_sum" };
    for (int i = 0; i < 6; i++)
        buf_printf(&b, "[%s: Stage %d]\n\nOne paragraph of prose under the panels.\n\n", stages[i], i + 1);
    write_file(path, b.s, b.len);
    buf_free(&b);
}

/* One copy of every matrix the largest lesson needs, in MiB: the inputs
** (X, W_q, W_k, W_v), Q, K, V, the raw and scaled scores, the weights and
** the output. */
static double large_matrices_mb(void)
{
    double n = LARGE_N, d = LARGE_D;
    double cells = n * d + 3 * d * d + 3 * n * d + 3 * n * n + n * d;
    return cells * sizeof(double) / (1024.0 * 1024.0);
}

/* Median peak memory of three runs of argv; see bench.h. */
double rss_of(char **argv, double *ms_out)
{
    double kb[3], ms[3];
    for (int i = 0; i < 3; i++) {
        ChildUse u;
        ms[i] = run_child(argv, &u);
        kb[i] = (double)u.rss_kb;
    }
    if (ms_out) *ms_out = bench_median(ms, 3);
    return bench_median(kb, 3) / 1024.0;
}

/* ---- layout_ms_max ---- */

typedef struct LayoutRun {
    const View *v;
    LayoutCache *lc;
    LayoutOpts lo;
    DrawList *d;
    bool plan;                  /* plan the page every time (the cache keeps none) */
} LayoutRun;

/* One layout of a view. */
static double layout_once(void *ctx)
{
    LayoutRun *r = ctx;
    if (r->plan) layout_cache_forget_page(r->lc);
    double t0 = bench_now_ms();
    layout_view(r->lc, r->v, &r->lo, r->d);
    return bench_now_ms() - t0;
}

/* The slowest stage layout of one lesson at 1280x720; *worst is raised,
** and *first by the first layout of each stage's new view (before the
** layout has remembered anything of its matrices). */
static void layout_lesson(Bench *B, const char *path, double *worst, char *worst_name, size_t n, double *first,
                          double *plan)
{
    Error err;
    Lesson *L = lesson_load(path, &err);
    if (!L) die("%s", errline(&err));
    Trace *T = attn_run(L, &err);
    if (!T) die("%s", errline(&err));
    Theme th = layout_theme(false);
    LayoutRun r = { NULL, layout_cache_create(), layout_defaults(1280, 720, &th, font_measure, B->fonts),
                    draw_create(1280, 720), false };
    for (int k = 0; k < L->nstages; k++) {
        View *v = bench_view(B, L, T, k);
        r.v = v;
        double f = layout_once(&r);
        if (f > *first) *first = f;
        double m = measure(layout_once, &r, 2, B->quick ? 3 : 7, B->quick ? 3 : 60, B->quick ? 0 : 150);
        r.plan = true;
        double pl = measure(layout_once, &r, 1, B->quick ? 3 : 7, B->quick ? 3 : 30, B->quick ? 0 : 150);
        r.plan = false;
        if (pl > *plan) *plan = pl;
        if (B->detail)
            fprintf(stderr, "  layout %s stage %d %s: %.3f ms (planned %.3f ms, first %.3f ms)\n", L->name, k + 1,
                    lesson_stage_name(L->stages[k].id), m, pl, f);
        if (m > *worst) {
            *worst = m;
            snprintf(worst_name, n, "%s stage %d (%s)", L->name, k + 1, lesson_stage_name(L->stages[k].id));
        }
        stage_view_free(v);
    }
    draw_free(r.d);
    layout_cache_free(r.lc);
    trace_free(T);
    lesson_free(L);
}

/* layout_ms_max: the largest lesson, a 256-token sixteen-head lesson and
** every bundled one, each stage at 1280x720. */
static void bench_layout(Bench *B, const char *large)
{
    char wide[128];
    snprintf(wide, sizeof wide, "%s/wide.lesson", B->tmp);
    Buf b = { 0 };
    buf_puts(&b, "title: Many tokens, many heads\n\n[setup: 256 tokens, 16 heads]\nseed: 7\nheads: 16\n"
                 "mask: causal\ntokens:");
    for (int i = 0; i < 256; i++) buf_printf(&b, " w%d", i);
    buf_puts(&b, "\nX = randn 256x256\nW_q = randn 256x256 * 0.06\nW_k = randn 256x256 * 0.06\n"
                 "W_v = randn 256x256 * 0.06\nW_o = randn 256x256 * 0.06\nqueries: X @ W_q\n"
                 "keys: X @ W_k\nvalues: X @ W_v\noutput: W_o\n\n[multi_head: Heads]\n\n"
                 "[causal_mask: Mask]\n\n[entropy: Entropy]\n");
    write_file(wide, b.s, b.len);
    buf_free(&b);
    double worst = 0, first = 0, plan = 0;
    char name[256] = "";
    layout_lesson(B, large, &worst, name, sizeof name, &first, &plan);
    layout_lesson(B, wide, &worst, name, sizeof name, &first, &plan);
    char pat[4096];
    snprintf(pat, sizeof pat, "%s/*.lesson", B->lessons);
    glob_t g;
    if (glob(pat, 0, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++)
            layout_lesson(B, g.gl_pathv[i], &worst, name, sizeof name, &first, &plan);
        globfree(&g);
    }
    figure("layout_ms_max", worst, "ms");
    figure("layout_ms_first_max", first, "ms");
    figure("layout_ms_plan_max", plan, "ms");
    if (B->detail) fprintf(stderr, "  slowest layout: %s\n", name);
}

/* ---- scratch directory and main ---- */

/* Remove a directory tree of plain files and directories. */
static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char sub[4096];
            snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
            struct stat st;
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) remove_tree(sub);
            else unlink(sub);
        }
        closedir(d);
    }
    rmdir(path);
}

/* Read the options; anything unknown is a usage error. */
static void parse_args(Bench *B, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--quick")) B->quick = 1;
        else if (!strcmp(a, "--detail")) B->detail = 1;
        else if (!strcmp(a, "--keep")) B->keep = 1;
        else if (next && !strcmp(a, "--attnlab")) { B->attnlab = next; i++; }
        else if (next && !strcmp(a, "--lessons")) { B->lessons = next; i++; }
        else if (next && !strcmp(a, "--script")) { B->script = next; i++; }
        else if (next && !strcmp(a, "--python")) { B->python = next; i++; }
        else if (next && !strcmp(a, "--only")) { B->only = next; i++; }
        else if (next && !strcmp(a, "--loop") && atoi(next) > 0) { B->loop = atoi(next); B->only = "export_png_ms"; i++; }
        else {
            fprintf(stderr, "usage: bench [--attnlab PATH] [--lessons DIR] [--script PATH] "
                            "[--python PATH] [--quick] [--detail] [--keep] [--only PREFIX] [--loop N]\n");
            exit(2);
        }
    }
}

/* Whether the figure called name is wanted (--only). */
int wanted(const Bench *B, const char *name)
{
    return !B->only || strncmp(name, B->only, strlen(B->only)) == 0;
}

/* Every figure, in the documented order. */
int main(int argc, char **argv)
{
    Bench B = { "build/attnlab", "lessons", "bench/baseline.py", "/usr/bin/python3",
                0, 0, 0, NULL, "/tmp/attnlab-bench-XXXXXX", NULL, NULL, NULL, 0 };
    parse_args(&B, argc, argv);
    if (access(B.attnlab, X_OK) != 0) die("%s: not an executable (build it first)", B.attnlab);
    if (!mkdtemp(B.tmp)) die("mkdtemp: %s", strerror(errno));
    scratch = B.tmp;
    char large[128], large_dir[128];
    snprintf(large, sizeof large, "%s/largest.lesson", B.tmp);
    snprintf(large_dir, sizeof large_dir, "%s/largest", B.tmp);
    write_large_lesson(large);
    /* The memory figures first, while the benchmark is small: see bench_rss. */
    double rss = wanted(&B, "peak_rss_mb") ? bench_rss(&B) : -1;
    double rss_large = -1, large_ms = 0;
    if (wanted(&B, "peak_rss_mb_largest")) {
        char *argv_large[] = { (char *)B.attnlab, "--export", large_dir, large, NULL };
        rss_large = rss_of(argv_large, &large_ms);
    }
    if (wanted(&B, "model_layer_rss_mb")) bench_model_rss(&B);
    if (wanted(&B, "start_")) bench_start_use(&B);
    B.fonts = font_create(NULL, &ferr);
    if (!B.fonts) die("%s", errline(&ferr));
    B.fitter = layout_fitter_create(font_measure, B.fonts);
    B.pager = stage_pager_create(layout_fitter_fits, B.fitter);
    font_warm(B.fonts);                 /* as the window does: fontconfig ready before a script needs it */

    static const int sizes[] = { 8, 16, 64, 256 };
    for (int i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "frame_ms_%dx%d", sizes[i], sizes[i]);
        if (wanted(&B, name)) bench_frame(&B, sizes[i]);
    }
    if (wanted(&B, "stage_switch_ms")) bench_switch(&B);
    if (wanted(&B, "layout_ms_max")) bench_layout(&B, large);
    if (wanted(&B, "export_png_ms") || wanted(&B, "matched") || wanted(&B, "export_vs_")) bench_matched(&B);
    if (wanted(&B, "lesson_")) bench_lesson(&B);
    if (wanted(&B, "start_")) bench_start(&B);
    if (rss >= 0) figure("peak_rss_mb", rss, "MB");
    if (rss_large >= 0) {
        figure("peak_rss_mb_largest", rss_large, "MB");
        figure("largest_matrices_mb", large_matrices_mb(), "MB");
        if (B.detail) fprintf(stderr, "  largest lesson: %d tokens, d = %d, exported in %.1f ms\n",
                              LARGE_N, LARGE_D, large_ms);
    }
    /* Last: it holds about 400 MB of matrices for a while. */
    if (wanted(&B, "model_layer_")) bench_model(&B);

    app_shot_release();
    stage_pager_free(B.pager);
    layout_fitter_free(B.fitter);
    font_free(B.fonts);
    if (B.keep) fprintf(stderr, "bench: kept %s\n", B.tmp);
    else remove_tree(B.tmp);
    return 0;
}
