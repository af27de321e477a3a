/*
** fileio.c: reading regular files with a cap, writing files atomically.
** See fileio.h for the rules both follow.
*/
#define _POSIX_C_SOURCE 200809L
#include "fileio.h"
#include "core/text/utf8.h"
#include "core/util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef NAME_MAX
#define NAME_MAX 255
#endif

/* What the temporaries' names end in: TEMP_TAG and TEMP_RAND characters,
** TEMP_CHECK of which check the rest of the name (see temp_check). */
#define TEMP_TAG ".attnlab-"
#define TEMP_RAND 6
#define TEMP_CHECK 2
_Static_assert(TEMP_RAND == FILEIO_TEMP_RANDOM + TEMP_CHECK, "six characters: the random ones and the check");

static const char temp_digits[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
static struct timespec run_start;   /* zero until fileio_start */
static char *cleaned_dir;           /* the last directory swept for stale temporaries */

/* The temporary being written, which a SIGINT, SIGTERM or SIGHUP removes
** before the program dies (remove_inflight). */
static char inflight[PATH_MAX + 1];
static volatile sig_atomic_t inflight_set;
static const int fatal_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NFATAL ((int)(sizeof fatal_signals / sizeof fatal_signals[0]))

/* Note the start of the run. */
void fileio_start(void)
{
    clock_gettime(CLOCK_REALTIME, &run_start);
}

/* The start of the run, noted now if nobody did. */
static const struct timespec *started(void)
{
    if (run_start.tv_sec == 0 && run_start.tv_nsec == 0) fileio_start();
    return &run_start;
}

/* ------------------------------------------------------------------ reading */

/* What a file that is not a regular one is, for the message. */
static const char *kind_name(mode_t m)
{
    if (S_ISDIR(m)) return "a directory";
    if (S_ISFIFO(m)) return "a named pipe (FIFO)";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISSOCK(m)) return "a socket";
    return "a special file";
}

/* Fill err about path (as messages show it) and return NULL. */
static char *read_fail(Error *err, ErrorKind kind, const char *path, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static char *read_fail(Error *err, ErrorKind kind, const char *path, const char *fmt, ...)
{
    char what[300], *shown = util_shown(path);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    error_set(err, kind, shown, 0, 0, "%s", what);
    free(shown);
    return NULL;
}

/* Read from fd until EOF or more than max bytes; NULL with err on failure. */
static char *read_capped(const char *path, int fd, size_t max, size_t hint, size_t *len, Error *err)
{
    size_t cap = (hint < max ? hint : max) + 1;
    if (cap < 4096) cap = 4096 <= max + 1 ? 4096 : max + 1;
    char *b = xmalloc(cap + 1);
    size_t n = 0;
    for (;;) {
        if (n == cap) {
            if (cap > max) break;                       /* read max + 1 bytes: too big */
            cap = cap > (max + 1) / 2 ? max + 1 : cap * 2;
            b = xrealloc(b, cap + 1);
        }
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            free(b);
            return read_fail(err, ERR_IO, path, "cannot read: %s", strerror(errno));
        }
        if (r == 0) break;
        n += (size_t)r;
    }
    if (n > max) {
        free(b);
        return read_fail(err, ERR_LIMIT, path, "file is over the limit of %zu bytes", max);
    }
    b[n] = '\0';
    *len = n;
    return b;
}

/* A regular file, whole, at most max bytes. */
int fileio_open(const char *path, size_t max, size_t *size, Error *err)
{
    error_clear(err);
    started();
    /* Look before opening: opening a device can have effects of its own. */
    struct stat st;
    if (stat(path, &st) != 0) return read_fail(err, ERR_IO, path, "cannot open: %s", strerror(errno)), -1;
    if (!S_ISREG(st.st_mode))
        return read_fail(err, ERR_IO, path, "cannot read: %s, not a regular file", kind_name(st.st_mode)), -1;
    /* O_NONBLOCK: if the path was swapped for a pipe meanwhile, open must not wait. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return read_fail(err, ERR_IO, path, "cannot open: %s", strerror(errno)), -1;
    if (fstat(fd, &st) != 0) {
        read_fail(err, ERR_IO, path, "cannot read: %s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        read_fail(err, ERR_IO, path, "cannot read: %s, not a regular file", kind_name(st.st_mode));
    } else if (st.st_size > 0 && (uintmax_t)st.st_size > max) {
        read_fail(err, ERR_LIMIT, path, "file is %lld bytes, over the limit of %zu bytes", (long long)st.st_size, max);
    } else {
        int fl = fcntl(fd, F_GETFL);
        if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
        *size = (size_t)st.st_size;
        return fd;
    }
    close(fd);
    return -1;
}

/*
** Standard input, the file "-" names: read whole the first time it is
** asked for (at most that caller's max bytes, from a pipe, a terminal or a
** file alike), then kept, since it cannot be read twice; later calls get a
** copy of the same bytes, or the same error. Messages name it
** FILEIO_STDIN_SHOWN.
*/
static struct { bool read; char *text; size_t len; Error err; } std_in;

/* The bytes of standard input, capped (a copy the caller frees). */
static char *read_stdin(size_t max, size_t *len, Error *err)
{
    if (!std_in.read) {
        std_in.read = true;
        error_clear(&std_in.err);
        std_in.text = read_capped(FILEIO_STDIN_SHOWN, STDIN_FILENO, max, 0, &std_in.len, &std_in.err);
    }
    if (!std_in.text) {
        *err = std_in.err;
        return NULL;
    }
    if (std_in.len > max)
        return read_fail(err, ERR_LIMIT, FILEIO_STDIN_SHOWN, "file is %zu bytes, over the limit of %zu bytes", std_in.len, max);
    *len = std_in.len;
    char *copy = xmalloc(std_in.len + 1);
    memcpy(copy, std_in.text, std_in.len + 1);
    return copy;
}

/* Give standard input's bytes instead of reading them. */
void fileio_set_stdin(const char *text, size_t len)
{
    free(std_in.text);
    std_in.read = true;
    error_clear(&std_in.err);
    std_in.text = xmalloc(len + 1);
    memcpy(std_in.text, text, len);
    std_in.text[len] = '\0';
    std_in.len = len;
}

/* The bytes of a regular file (or of standard input for "-"), capped. */
char *fileio_read(const char *path, size_t max, size_t *len, Error *err)
{
    error_clear(err);
    if (!strcmp(path, FILEIO_STDIN)) return read_stdin(max, len, err);
    size_t size;
    int fd = fileio_open(path, max, &size, err);
    if (fd < 0) return NULL;
    char *b = read_capped(path, fd, max, size, len, err);
    close(fd);
    return b;
}

/* ------------------------------------------------------------------ writing */

/* The check characters of a temporary's name: FNV-1a of its first len
** bytes, as two of temp_digits, into out. */
static void temp_check(const char *name, size_t len, char out[TEMP_CHECK])
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)name[i]) * 16777619u;
    for (int i = 0; i < TEMP_CHECK; i++, h /= sizeof temp_digits - 1) out[i] = temp_digits[h % (sizeof temp_digits - 1)];
}

/* Whether name is ".<something>.attnlab-XXXXXX": XXXXXX letters and digits
** whose last two check the rest of the name (a name a person gave a file
** of theirs passes one time in 3844). */
bool fileio_is_temp_name(const char *name)
{
    size_t n = strlen(name), t = strlen(TEMP_TAG);
    if (n < 2 + t + TEMP_RAND || name[0] != '.') return false;
    if (memcmp(name + n - TEMP_RAND - t, TEMP_TAG, t)) return false;
    for (size_t i = n - TEMP_RAND; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))) return false;
    }
    char check[TEMP_CHECK];
    temp_check(name, n - TEMP_CHECK, check);
    return !memcmp(check, name + n - TEMP_CHECK, TEMP_CHECK);
}

/* The name of a temporary for base with random characters rnd. */
void fileio_temp_name(const char *base, const char rnd[FILEIO_TEMP_RANDOM], char *out, size_t n)
{
    int w = snprintf(out, n, ".%s%s%.*s", base, TEMP_TAG, FILEIO_TEMP_RANDOM, rnd);
    if (w < 0 || (size_t)w + TEMP_CHECK >= n) {
        if (n) out[0] = '\0';
        return;
    }
    temp_check(out, (size_t)w, out + w);
    out[w + TEMP_CHECK] = '\0';
}

/* Whether a file last changed at m is older than the run (less the margin). */
static bool before_run(const struct timespec *m)
{
    const struct timespec *s = started();
    time_t limit = s->tv_sec - FILEIO_STALE_MARGIN;
    return m->tv_sec < limit || (m->tv_sec == limit && m->tv_nsec < s->tv_nsec);
}

/*
** Remove the temporaries a killed run left in dir: regular files of this
** user, with one link, named like ours (their check characters included)
** and last changed before this run began. A live writer keeps changing its
** temporary, so it is never taken for a stale one; a file of another user,
** or one a person named by hand, is never ours. Done once per directory in
** a row of writes (an export writes every stage into one).
*/
static void sweep_stale(const char *dir)
{
    if (cleaned_dir && !strcmp(cleaned_dir, dir)) return;
    free(cleaned_dir);
    cleaned_dir = xstrdup(dir);
    DIR *d = opendir(dir);
    if (!d) return;
    int dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (!fileio_is_temp_name(e->d_name)) continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        if (st.st_uid != getuid() || st.st_nlink != 1) continue;
        if (before_run(&st.st_mtim)) unlinkat(dfd, e->d_name, 0);
    }
    closedir(d);
}

/* A new temporary beside path: its name in tmp (size PATH_MAX + 1); an fd or -1. */
static int open_temp(const char *dir, const char *base, char *tmp, size_t n)
{
    static uint64_t counter;
    /* Keep ".BASE" + TEMP_TAG + XXXXXX within NAME_MAX, cutting BASE at a
    ** character boundary. */
    size_t room = NAME_MAX - 1 - strlen(TEMP_TAG) - TEMP_RAND, bl = strlen(base);
    if (bl > room) bl = utf8_floor(base, bl, room);
    char *cut = xstrndup(base, bl), name[NAME_MAX + 1];
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t x = (uint64_t)now.tv_nsec ^ ((uint64_t)now.tv_sec << 20) ^ ((uint64_t)getpid() << 40);
    int fd = -1;
    for (int attempt = 0; attempt < 100; attempt++) {
        x ^= ++counter * 0x9e3779b97f4a7c15ULL;
        char rnd[FILEIO_TEMP_RANDOM];
        uint64_t y = x;
        for (int i = 0; i < FILEIO_TEMP_RANDOM; i++) {
            y ^= y << 13; y ^= y >> 7; y ^= y << 17;
            rnd[i] = temp_digits[y % (sizeof temp_digits - 1)];
        }
        x = y;
        fileio_temp_name(cut, rnd, name, sizeof name);
        int w = snprintf(tmp, n, "%s/%s", dir, name);
        if (!name[0] || w < 0 || (size_t)w >= n) {
            errno = ENAMETOOLONG;
            break;
        }
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOCTTY, 0666);
        if (fd >= 0 || errno != EEXIST) break;
    }
    int e = errno;
    free(cut);
    errno = e;
    return fd;
}

/*
** A fatal signal during a write: remove the temporary in flight, then die
** of the signal as the program would have without this handler. Only
** async-signal-safe calls: unlink, sigaction, raise.
*/
static void remove_inflight(int sig)
{
    if (inflight_set) unlink(inflight);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

/* Take over the fatal signals that would kill the program as it is (those
** still at their default action: a window that handles SIGINT itself keeps
** its handler); which were taken, in taken. */
static void catch_fatal(bool taken[NFATAL])
{
    struct sigaction h, cur;
    memset(&h, 0, sizeof h);
    h.sa_handler = remove_inflight;
    sigemptyset(&h.sa_mask);
    for (int i = 0; i < NFATAL; i++) sigaddset(&h.sa_mask, fatal_signals[i]);
    for (int i = 0; i < NFATAL; i++) {
        taken[i] = sigaction(fatal_signals[i], NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL;
        if (taken[i]) sigaction(fatal_signals[i], &h, NULL);
    }
}

/* Give the fatal signals taken back their default action. */
static void release_fatal(const bool taken[NFATAL])
{
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    for (int i = 0; i < NFATAL; i++)
        if (taken[i]) sigaction(fatal_signals[i], &dfl, NULL);
}

/* Block (or unblock, restoring old) the fatal signals around a change of
** what is in flight, so the handler never sees half of one. */
static void block_fatal(bool block, sigset_t *old)
{
    if (!block) {
        sigprocmask(SIG_SETMASK, old, NULL);
        return;
    }
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < NFATAL; i++) sigaddset(&set, fatal_signals[i]);
    sigprocmask(SIG_BLOCK, &set, old);
}

/* Write all of data to fd; 0 or an errno value. */
static int write_all(int fd, const char *data, size_t len)
{
    while (len > 0) {
        ssize_t w = write(fd, data, len);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        if (w == 0) return EIO;
        data += w;
        len -= (size_t)w;
    }
    return 0;
}

/* Flush the directory entry of a rename to disk (best effort). */
static void sync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    fsync(fd);
    close(fd);
}

/* Fill the temporary at fd; 0 or an errno value. */
static int fill_temp(int fd, const char *path, const void *data, size_t len, bool durable)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && fchmod(fd, st.st_mode & 07777) != 0) return errno;
    int e = write_all(fd, data, len);
    if (!e && durable && fsync(fd) != 0) e = errno;
    return e;
}

/*
** Temporary beside the target, then rename. SIGXFSZ is ignored for the
** duration, so a write past `ulimit -f` fails with EFBIG instead of killing
** the program with half a temporary on disk; SIGINT, SIGTERM and SIGHUP
** remove the temporary before they kill it. The temporary is in flight
** from the moment it is created to the moment it is renamed or removed,
** both done with those signals blocked.
*/
int fileio_write_atomic(const char *path, const void *data, size_t len, bool durable, Error *err_out)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
    if (slash == path) { free(dir); dir = xstrdup("/"); }
    if (!*base) {
        read_fail(err_out, ERR_IO, path, "cannot write: no file name");
        free(dir);
        return -1;
    }
    sweep_stale(dir);
    char *tmp = xmalloc(PATH_MAX + 1);
    int err = 0;
    bool taken[NFATAL];
    sigset_t mask;
    catch_fatal(taken);
    block_fatal(true, &mask);
    int fd = open_temp(dir, base, tmp, PATH_MAX + 1);
    if (fd < 0) {
        err = errno;
        block_fatal(false, &mask);
    } else {
        snprintf(inflight, sizeof inflight, "%s", tmp);
        inflight_set = 1;
        block_fatal(false, &mask);
        struct sigaction ign, old;
        memset(&ign, 0, sizeof ign);
        ign.sa_handler = SIG_IGN;
        sigemptyset(&ign.sa_mask);
        sigaction(SIGXFSZ, &ign, &old);
        err = fill_temp(fd, path, data, len, durable);
        if (close(fd) != 0 && !err) err = errno;
        sigaction(SIGXFSZ, &old, NULL);
        block_fatal(true, &mask);
        if (!err && rename(tmp, path) != 0) err = errno;
        if (err) unlink(tmp);
        inflight_set = 0;
        block_fatal(false, &mask);
        if (!err && durable) sync_dir(dir);
    }
    release_fatal(taken);
    if (err) read_fail(err_out, ERR_IO, path, "cannot write: %s", strerror(err));
    else error_clear(err_out);
    free(tmp);
    free(dir);
    return err ? -1 : 0;
}
