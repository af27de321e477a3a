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
**   export_png_ms        app_shot_write of a 7-token softmax stage to a PNG
**                        file in /tmp at 1200x800 (the whole path, fsync too)
**   matplotlib_png_ms    the seeds' matplotlib heatmap of the same weights,
**                        saved at 1200x800 by bench/matplotlib_baseline.py
**   export_vs_matplotlib_ratio   matplotlib_png_ms / export_png_ms
**   start_to_png_ms      a new `attnlab --export` process on the tour's first
**                        stage, from spawn to exit
**   peak_rss_mb          ru_maxrss of `attnlab --export DIR` on every bundled lesson
**
** Usage: bench [--attnlab PATH] [--lessons DIR] [--script PATH]
**              [--python PATH] [--quick] [--detail] [--only PREFIX]
** --quick takes fewer samples (a smoke test); --detail adds a breakdown of
** the export path and every stage's switch time on stderr; --only runs the
** figures whose names start with PREFIX (for profiling one of them).
**
** Lessons for the frame and export figures are written in memory and go
** through lesson_parse, so the benchmark depends on no file but the tour.
*/
#define _DEFAULT_SOURCE     /* wait4, mkdtemp, popen, clock_gettime (glibc) */
#include "core/lesson.h"
#include "core/stage.h"
#include "core/trace.h"
#include "core/fileio.h"
#include "core/util.h"
#include "app/shot.h"
#include "sdl/export.h"
#include "sdl/font.h"
#include "sdl/render.h"
#include "view/draw.h"
#include "view/layout.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
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

/* Settings from the command line, and the scratch directory. */
typedef struct Bench {
    const char *attnlab;        /* the program, for the process figures */
    const char *lessons;        /* the bundled lessons */
    const char *script;         /* the matplotlib baseline */
    const char *python;         /* Debian's interpreter */
    int quick;                  /* fewer samples */
    int detail;                 /* breakdowns on stderr */
    const char *only;           /* run only the figures starting with this */
    char tmp[64];               /* mkdtemp directory, removed at exit (and by die) */
    FontSet *fonts;
} Bench;

/* One timed run of something; returns its duration in milliseconds. */
typedef double (*RunFn)(void *ctx);

/* The scratch directory once made, for die() to remove. */
static const char *scratch;

/* Remove a directory tree (defined with main, below). */
static void remove_tree(const char *path);

/* Print a message, remove the scratch directory and stop. */
static void die(const char *fmt, ...)
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

/* Wall-clock milliseconds from an arbitrary origin (monotonic). */
static double now_ms(void)
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
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
** Run fn `warm` times untimed, then keep timing it until it has at least
** min_runs samples and budget_ms of total time, or max_runs samples.
** Returns the median.
*/
static double measure(RunFn fn, void *ctx, int warm, int min_runs, int max_runs, double budget_ms)
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
    return median(s, n);
}

/* Print one figure, the program's whole output format. */
static void figure(const char *name, double value, const char *unit)
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
    LessonError err;
    Lesson *L = lesson_parse(b.s, b.len, title, &err);
    if (!L) die("generated lesson: %s", err.msg);
    buf_free(&b);
    return L;
}

/* Read a whole file into a Buf. */
static void read_text(const char *path, Buf *b)
{
    FILE *f = fopen(path, "rb");
    if (!f) die("%s: %s", path, strerror(errno));
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(b, chunk, n);
    fclose(f);
}

/* Whether the line at s starts a stage section ("[x" but not "[setup"). */
static int is_stage_header(const char *s)
{
    return s[0] == '[' && strncmp(s, "[setup", 6) != 0;
}

/*
** The tour lesson cut after its first stage: everything up to the second
** stage header. The format allows a lesson of one stage, so this exports
** exactly one PNG while loading what the real tour loads.
*/
static void write_one_stage(const char *src, const char *dst)
{
    Buf b = { 0 };
    read_text(src, &b);
    int stages = 0;
    size_t cut = b.len;
    for (size_t i = 0; i < b.len; i++) {
        if ((i == 0 || b.s[i - 1] == '\n') && is_stage_header(b.s + i) && ++stages == 2) {
            cut = i;
            break;
        }
    }
    if (stages < 1) die("%s: no stage found", src);
    FILE *f = fopen(dst, "wb");
    if (!f || fwrite(b.s, 1, cut, f) != cut || fclose(f) != 0) die("%s: cannot write", dst);
    buf_free(&b);
}

/* ---- frame_ms_NxN ---- */

typedef struct FrameRun {
    const View *v;
    LayoutOpts lo;
    DrawList *d;
    Offscreen *o;
} FrameRun;

/* One frame: lay the view out and draw it. */
static double frame_once(void *ctx)
{
    FrameRun *f = ctx;
    double t0 = now_ms();
    layout_view(f->v, &f->lo, f->d);
    render_drawlist(f->o->render, f->d);
    return now_ms() - t0;
}

/* The frame figure for an n x n softmax stage. */
static void bench_frame(Bench *B, int n)
{
    Lesson *L = gen_lesson(n, n >= 64 ? 16 : 8, "frame benchmark");
    LessonError err;
    Trace *T = attn_run(L, &err);
    if (!T) die("generated lesson: %s", err.msg);
    View *v = stage_view(L, T, 0);
    Theme th = layout_theme(false);
    FrameRun f = { v, layout_defaults(FRAME_W, FRAME_H, &th, font_measure, B->fonts),
                   draw_create(FRAME_W, FRAME_H), render_offscreen_create(FRAME_W, FRAME_H, B->fonts) };
    if (!f.o) die("offscreen: %s", render_error());
    double m = measure(frame_once, &f, 5, B->quick ? 5 : 30, B->quick ? 10 : 400,
                       B->quick ? 100 : 1500);
    char name[32];
    snprintf(name, sizeof name, "frame_ms_%dx%d", n, n);
    figure(name, m, "ms");
    if (B->detail) {
        /* Split the median frame into its two halves. */
        double lay[64], drw[64];
        for (int i = 0; i < 64; i++) {
            double t0 = now_ms();
            layout_view(f.v, &f.lo, f.d);
            double t1 = now_ms();
            render_drawlist(f.o->render, f.d);
            lay[i] = t1 - t0;
            drw[i] = now_ms() - t1;
        }
        fprintf(stderr, "  %s: layout %.3f ms, draw %.3f ms, %d commands\n", name,
                median(lay, 64), median(drw, 64), f.d->n);
    }
    render_offscreen_free(f.o);
    draw_free(f.d);
    stage_view_free(v);
    trace_free(T);
    lesson_free(L);
}

/* ---- stage_switch_ms ---- */

typedef struct SwitchRun {
    const Lesson *L;
    int k;                      /* the next stage to show */
    Theme th;
    LayoutOpts lo;
    DrawList *d;
    Offscreen *o;
} SwitchRun;

/* Move to the next stage the way a fresh computation would: trace, view,
** layout, draw. */
static double switch_once(void *ctx)
{
    SwitchRun *s = ctx;
    double t0 = now_ms();
    LessonError err;
    Trace *T = attn_run(s->L, &err);
    if (!T) die("tour: %s", err.msg);
    View *v = stage_view(s->L, T, s->k);
    layout_view(v, &s->lo, s->d);
    render_drawlist(s->o->render, s->d);
    stage_view_free(v);
    trace_free(T);
    double t = now_ms() - t0;
    s->k = (s->k + 1) % s->L->nstages;
    return t;
}

/* The stage-switch figure on the tour lesson, at the frame canvas size. */
static void bench_switch(Bench *B)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/01-tour.lesson", B->lessons);
    LessonError err;
    Lesson *L = lesson_load(path, &err);
    if (!L) die("%s", err.msg);
    SwitchRun s = { L, 0, layout_theme(false), { 0 }, draw_create(FRAME_W, FRAME_H),
                    render_offscreen_create(FRAME_W, FRAME_H, B->fonts) };
    if (!s.o) die("offscreen: %s", render_error());
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
                    lesson_stage_name(L->stages[k].id), median(t, 15));
        }
    }
    render_offscreen_free(s.o);
    draw_free(s.d);
    lesson_free(L);
}

/* ---- export_png_ms ---- */

typedef struct ExportRun {
    FontSet *fonts;
    const Lesson *L;
    const Trace *T;
    ShotOpts opts;
    char path[128];
} ExportRun;

/* One PNG export, exactly as `attnlab --export` does a stage. */
static double export_once(void *ctx)
{
    ExportRun *e = ctx;
    char err[700];
    double t0 = now_ms();
    if (app_shot_write(e->fonts, e->L, e->T, 0, &e->opts, e->path, err, sizeof err) != 0)
        die("export: %s", err);
    return now_ms() - t0;
}

/* Median time of each piece of the export path, on stderr. */
static void export_detail(ExportRun *e)
{
    enum { N = 21 };
    double lay[N], off[N], drw[N], enc[N], wr[N];
    size_t bytes = 0;
    DrawList *d = draw_create(EXPORT_W, EXPORT_H);
    for (int i = 0; i < N; i++) {
        double t0 = now_ms();
        app_shot_layout(e->fonts, e->L, e->T, 0, &e->opts, d);
        double t1 = now_ms();
        Offscreen *o = render_offscreen_create(EXPORT_W, EXPORT_H, e->fonts);
        double t2 = now_ms();
        render_drawlist(o->render, d);
        double t3 = now_ms();
        Buf b = { 0 };
        ExportMeta meta = { e->L->title, "softmax: Attention weights" };
        export_png_encode(o->surface, &meta, &b);
        double t4 = now_ms();
        char msg[600];
        if (fileio_write_atomic(e->path, b.s, b.len, false, msg, sizeof msg) != 0) die("%s", msg);
        double t5 = now_ms();
        bytes = b.len;
        buf_free(&b);
        render_offscreen_free(o);
        lay[i] = t1 - t0; off[i] = t2 - t1; drw[i] = t3 - t2; enc[i] = t4 - t3; wr[i] = t5 - t4;
    }
    fprintf(stderr, "  export: view+layout %.3f, offscreen %.3f, draw %.3f, png encode %.3f, "
                    "write+fsync %.3f ms; %zu bytes\n",
            median(lay, N), median(off, N), median(drw, N), median(enc, N), median(wr, N), bytes);
    draw_free(d);
}

/* The export figure; returns it for the ratio. */
static double bench_export(Bench *B)
{
    Lesson *L = gen_lesson(7, 8, "Attention weights");
    LessonError err;
    Trace *T = attn_run(L, &err);
    if (!T) die("export lesson: %s", err.msg);
    ExportRun e = { B->fonts, L, T, app_shot_defaults(), "" };
    e.opts.width = EXPORT_W;
    e.opts.height = EXPORT_H;
    snprintf(e.path, sizeof e.path, "%s/export.png", B->tmp);
    double m = measure(export_once, &e, 3, B->quick ? 5 : 30, B->quick ? 5 : 200,
                       B->quick ? 50 : 1500);
    figure("export_png_ms", m, "ms");
    if (B->detail) export_detail(&e);
    trace_free(T);
    lesson_free(L);
    return m;
}

/* ---- matplotlib_png_ms ---- */

/* Run the baseline script and read the median it prints; -1 if it fails. */
static double bench_matplotlib(Bench *B)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' '%s' --runs %d --warmup %d --out '%s/matplotlib.png'",
             B->python, B->script, B->quick ? 3 : 15, B->quick ? 1 : 3, B->tmp);
    FILE *p = popen(cmd, "r");
    if (!p) die("cannot run %s: %s", B->python, strerror(errno));
    char line[512];
    double m = -1;
    while (fgets(line, sizeof line, p)) {
        double v;
        if (sscanf(line, "median_ms %lf", &v) == 1) m = v;
        else if (B->detail) fprintf(stderr, "  matplotlib: %s", line);
    }
    int st = pclose(p);
    if (st != 0 || m < 0) {
        fprintf(stderr, "bench: %s failed (status %d); is python3-matplotlib installed?\n", B->script, st);
        return -1;
    }
    figure("matplotlib_png_ms", m, "ms");
    return m;
}

/* ---- the process figures ---- */

/*
** Start argv[0] with argv, stdout and stderr to /dev/null, wait for it and
** return the wall-clock milliseconds from spawn to exit; *rss_kb gets its
** peak resident set (ru_maxrss, in KiB on Linux). A failed exit stops the
** benchmark: a figure for a program that failed means nothing.
*/
static double run_child(char **argv, long *rss_kb)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid;
    double t0 = now_ms();
    int rc = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) die("cannot start %s: %s", argv[0], strerror(rc));
    int status;
    struct rusage ru;
    if (wait4(pid, &status, 0, &ru) != pid) die("wait4: %s", strerror(errno));
    double t = now_ms() - t0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        die("%s exited with status %d", argv[0], WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    if (rss_kb) *rss_kb = ru.ru_maxrss;
    return t;
}

typedef struct StartRun {
    char *argv[5];
} StartRun;

/* One `attnlab --export DIR one-stage.lesson`. */
static double start_once(void *ctx)
{
    StartRun *s = ctx;
    return run_child(s->argv, NULL);
}

/* Process start to PNG written, for the tour's first stage. */
static void bench_start(Bench *B)
{
    char src[4096], lesson[128], dir[128];
    snprintf(src, sizeof src, "%s/01-tour.lesson", B->lessons);
    snprintf(lesson, sizeof lesson, "%s/tour-first-stage.lesson", B->tmp);
    snprintf(dir, sizeof dir, "%s/start", B->tmp);
    write_one_stage(src, lesson);
    StartRun s = { { (char *)B->attnlab, "--export", dir, lesson, NULL } };
    double m = measure(start_once, &s, 2, B->quick ? 3 : 15, B->quick ? 3 : 15, 0);
    figure("start_to_png_ms", m, "ms");
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
    double kb[3], ms[3];
    for (int i = 0; i < 3; i++) {
        long r = 0;
        ms[i] = run_child(argv, &r);
        kb[i] = (double)r;
    }
    if (B->detail)
        fprintf(stderr, "  export of all %zu lessons: %.1f ms wall\n", g.gl_pathc, median(ms, 3));
    free(argv);
    globfree(&g);
    return median(kb, 3) / 1024.0;
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
        else if (next && !strcmp(a, "--attnlab")) { B->attnlab = next; i++; }
        else if (next && !strcmp(a, "--lessons")) { B->lessons = next; i++; }
        else if (next && !strcmp(a, "--script")) { B->script = next; i++; }
        else if (next && !strcmp(a, "--python")) { B->python = next; i++; }
        else if (next && !strcmp(a, "--only")) { B->only = next; i++; }
        else {
            fprintf(stderr, "usage: bench [--attnlab PATH] [--lessons DIR] [--script PATH] "
                            "[--python PATH] [--quick] [--detail] [--only PREFIX]\n");
            exit(2);
        }
    }
}

/* Whether the figure called name is wanted (--only). */
static int wanted(const Bench *B, const char *name)
{
    return !B->only || strncmp(name, B->only, strlen(B->only)) == 0;
}

/* Every figure, in the documented order. */
int main(int argc, char **argv)
{
    Bench B = { "build/attnlab", "lessons", "bench/matplotlib_baseline.py", "/usr/bin/python3",
                0, 0, NULL, "/tmp/attnlab-bench-XXXXXX", NULL };
    parse_args(&B, argc, argv);
    if (access(B.attnlab, X_OK) != 0) die("%s: not an executable (build it first)", B.attnlab);
    if (!mkdtemp(B.tmp)) die("mkdtemp: %s", strerror(errno));
    scratch = B.tmp;
    double rss = wanted(&B, "peak_rss_mb") ? bench_rss(&B) : -1;   /* first: see bench_rss */
    B.fonts = font_create(NULL);
    if (!B.fonts) die("%s", font_error());

    static const int sizes[] = { 8, 16, 64, 256 };
    for (int i = 0; i < 4; i++) {
        char name[32];
        snprintf(name, sizeof name, "frame_ms_%dx%d", sizes[i], sizes[i]);
        if (wanted(&B, name)) bench_frame(&B, sizes[i]);
    }
    if (wanted(&B, "stage_switch_ms")) bench_switch(&B);
    int both = wanted(&B, "export_vs_matplotlib_ratio");
    double ex = both || wanted(&B, "export_png_ms") ? bench_export(&B) : 0;
    double mpl = both || wanted(&B, "matplotlib_png_ms") ? bench_matplotlib(&B) : 0;
    if (mpl > 0 && ex > 0) figure("export_vs_matplotlib_ratio", mpl / ex, "x");
    if (wanted(&B, "start_to_png_ms")) bench_start(&B);
    if (rss >= 0) figure("peak_rss_mb", rss, "MB");

    font_free(B.fonts);
    remove_tree(B.tmp);
    return mpl < 0 ? 1 : 0;
}
