/*
** start.c: the start of `attnlab --export DIR LESSON` for a lesson of one
** stage (the tour cut after its first stage: one 1280x720 PNG), what a
** user feels most:
**
**   start_to_png_ms       wall clock from posix_spawn to exit, median of 15
**   start_peak_rss_mb     its peak resident set (ru_maxrss), median of 3
**   start_page_faults     its page faults, minor and major (getrusage)
**   start_instructions_m  millions of instructions it runs, user space
**                         (dynamic loading included): `perf stat` where the
**                         CPU counts them, else callgrind, which runs it on
**                         a simulated CPU (the same count on any machine)
**
** The page faults and the instructions do not depend on how fast the
** machine is or how busy: a regression shows in them on any machine, where
** the time moves with the load and with what a page fault costs.
*/
#define _DEFAULT_SOURCE
#include "bench.h"
#include "timing.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

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
    FILE *f = fopen(src, "rb");
    if (!f) die("%s: %s", src, strerror(errno));
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(&b, chunk, n);
    fclose(f);
    int stages = 0;
    size_t cut = b.len;
    for (size_t i = 0; i < b.len; i++) {
        if ((i == 0 || b.s[i - 1] == '\n') && is_stage_header(b.s + i) && ++stages == 2) {
            cut = i;
            break;
        }
    }
    if (stages < 1) die("%s: no stage found", src);
    write_file(dst, b.s, cut);
    buf_free(&b);
}

/* The command: attnlab --export DIR one-stage.lesson (written once). */
static char **start_argv(Bench *B)
{
    static char lesson[128], dir[128];
    static char *argv[5];
    if (!argv[0]) {
        char src[4096];
        snprintf(src, sizeof src, "%s/01-tour.lesson", B->lessons);
        snprintf(lesson, sizeof lesson, "%s/tour-first-stage.lesson", B->tmp);
        snprintf(dir, sizeof dir, "%s/start", B->tmp);
        write_one_stage(src, lesson);
        argv[0] = (char *)B->attnlab;
        argv[1] = "--export";
        argv[2] = dir;
        argv[3] = lesson;
    }
    return argv;
}

/* Run argv prefixed by a counting tool, its own output (stderr) to path;
** false when the tool cannot be started or fails. */
static bool run_counted(char *const *tool, int ntool, char **argv, const char *path)
{
    char *all[16];
    int n = 0;
    for (int i = 0; i < ntool; i++) all[n++] = tool[i];
    for (int i = 0; argv[i] && n < 15; i++) all[n++] = argv[i];
    all[n] = NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    int rc = posix_spawnp(&pid, all[0], &fa, NULL, all, environ);
    posix_spawn_file_actions_destroy(&fa);
    int status;
    return rc == 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* The number on the line of the file at path that holds key: the line's
** first field for perf (-x, writes "N,,instructions:u,..."), what follows
** key for callgrind ("==PID== Collected : N"); -1 when there is none. */
static double count_in(const char *path, const char *key, bool after)
{
    FILE *f = fopen(path, "r");
    char line[512];
    double v = -1;
    while (f && fgets(line, sizeof line, f)) {
        char *k = strstr(line, key);
        if (!k) continue;
        const char *p = after ? k + strlen(key) : line;
        char *end;
        double x = strtod(p, &end);
        if (end > p) v = x;
        break;
    }
    if (f) fclose(f);
    return v;
}

/* Instructions of one run of argv: perf's count, else callgrind's; -1 when
** neither can count. *how names the tool. */
static double instructions(Bench *B, char **argv, const char **how)
{
    char out[160];
    snprintf(out, sizeof out, "%s/count.txt", B->tmp);
    char *perf[] = { "perf", "stat", "-x,", "-e", "instructions:u", "--" };
    double n;
    if (run_counted(perf, 6, argv, out) && (n = count_in(out, "instructions", false)) > 0) {
        *how = "perf stat";
        return n;
    }
    char *cg[] = { "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null" };
    if (run_counted(cg, 3, argv, out)) {
        *how = "callgrind";
        return count_in(out, "Collected :", true);
    }
    return -1;
}

/*
** --detail: the parts of the start (bench_start_parts, beside attnlab),
** medians of 15 new processes, and what the exit takes after them.
*/
static void start_parts(Bench *B, char **argv)
{
    char prog[4096];
    snprintf(prog, sizeof prog, "%s", B->attnlab);
    char *slash = strrchr(prog, '/');
    snprintf(slash ? slash + 1 : prog, sizeof prog - (size_t)(slash ? slash + 1 - prog : 0), "bench_start_parts");
    if (access(prog, X_OK) != 0) return;
    enum { N = 15, PARTS = 8 };
    static const char *names[PARTS + 1] = { "exec and dynamic loading", "fonts", "lesson read and computed",
                                            "glyph check", "layout", "draw", "PNG encode and write", "free", "exit" };
    double v[PARTS + 1][N];
    for (int i = 0; i < N; i++) {
        int fd[2];
        if (pipe(fd) != 0) die("pipe: %s", strerror(errno));
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        char env[64];
        snprintf(env, sizeof env, "ATTNLAB_SPAWNED_NS=%lld", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
        char *envp[] = { env, NULL };
        char *args[] = { prog, argv[2], argv[3], NULL };
        posix_spawn_file_actions_t fa;
        posix_spawn_file_actions_init(&fa);
        posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
        posix_spawn_file_actions_addclose(&fa, fd[0]);
        pid_t pid;
        double t0 = bench_now_ms();
        int rc = posix_spawn(&pid, prog, &fa, NULL, args, envp);
        posix_spawn_file_actions_destroy(&fa);
        close(fd[1]);
        if (rc != 0) die("cannot start %s: %s", prog, strerror(rc));
        char line[256] = "";
        ssize_t got = read(fd[0], line, sizeof line - 1);
        close(fd[0]);
        int status;
        waitpid(pid, &status, 0);
        double total = bench_now_ms() - t0, sum = 0;
        if (got <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) die("%s failed", prog);
        line[got] = '\0';
        char *p = line;
        for (int k = 0; k < PARTS; k++) {
            v[k][i] = strtod(p, &p);
            sum += v[k][i];
        }
        v[PARTS][i] = total - sum;
    }
    fprintf(stderr, "  a one-stage export, part by part (median of %d new processes):\n", N);
    for (int k = 0; k <= PARTS; k++) fprintf(stderr, "    %-26s %6.2f ms\n", names[k], bench_median(v[k], N));
}

/* Memory, page faults and instructions. */
void bench_start_use(Bench *B)
{
    char **argv = start_argv(B);
    double kb[3], faults[3];
    for (int i = 0; i < 3; i++) {
        ChildUse u;
        run_child(argv, &u);
        kb[i] = (double)u.rss_kb;
        faults[i] = (double)u.faults;
    }
    figure("start_peak_rss_mb", bench_median(kb, 3) / 1024.0, "MB");
    figure("start_page_faults", bench_median(faults, 3), "faults");
    const char *how = "";
    double n = instructions(B, argv, &how);
    if (n > 0) figure("start_instructions_m", n / 1e6, "M");
    if (B->detail) {
        fprintf(stderr, "  instructions counted by %s\n", n > 0 ? how : "nothing (no perf counters, no valgrind)");
        start_parts(B, argv);
    }
}

typedef struct StartRun {
    char **argv;
} StartRun;

/* One `attnlab --export DIR one-stage.lesson`. */
static double start_once(void *ctx)
{
    StartRun *s = ctx;
    return run_child(s->argv, NULL);
}

/* Process start to PNG written. */
void bench_start(Bench *B)
{
    StartRun s = { start_argv(B) };
    double m = measure(start_once, &s, 2, B->quick ? 3 : 15, B->quick ? 3 : 15, 0);
    figure("start_to_png_ms", m, "ms");
}
