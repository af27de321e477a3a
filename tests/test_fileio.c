/*
** test_fileio.c: the one reader and the one atomic writer. Every refusal is
** checked by its exact reason; writes are checked byte for byte, for the
** temporaries they leave (none) and for the files they must not change.
** Each test works in its own mkdtemp directory.
*/
#define _POSIX_C_SOURCE 200809L
#include "suites.h"
#include "core/io/fileio.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A fresh directory under /tmp; path written to out (size 64). */
static void make_dir(char *out)
{
    snprintf(out, 64, "/tmp/attnlab-fileio-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(out));
}

/* Remove dir and the plain files in it. */
static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    char p[600];
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        if (unlink(p) != 0) rmdir(p);
    }
    closedir(d);
    rmdir(dir);
}

/* Write len bytes of s to path directly (the test's own setup). */
static void put(const char *path, const char *s, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(s, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

/* Whether path holds exactly s. */
static int holds(const char *path, const char *s)
{
    Error e;
    size_t len;
    char *got = fileio_read(path, 1 << 20, &len, &e);
    int same = got && len == strlen(s) && !memcmp(got, s, len);
    free(got);
    return same;
}

/* How many entries of dir have the temporaries' name form. */
static int temps_in(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) n += fileio_is_temp_name(e->d_name);
    closedir(d);
    return n;
}

/* Read path with cap max, expecting failure of kind with reason, about
** path at no line. */
static void expect_refused(const char *path, size_t max, ErrorKind kind, const char *reason)
{
    Error e;
    size_t len = 12345;
    char *got = fileio_read(path, max, &len, &e);
    ck_assert_ptr_null(got);
    ck_assert_int_eq(e.kind, kind);
    ck_assert_str_eq(e.msg, reason);
    ck_assert_str_eq(e.file, path);
    ck_assert_int_eq(e.line, 0);
    ck_assert_uint_eq(len, 12345);      /* untouched on failure */
}

START_TEST(test_read_regular)
{
    char dir[64], p[128];
    make_dir(dir);
    snprintf(p, sizeof p, "%s/a.txt", dir);
    put(p, "line 1\r\nline\0two", 16);
    Error e;
    size_t len = 0;
    char *got = fileio_read(p, 16, &len, &e);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(len, 16);
    ck_assert_mem_eq(got, "line 1\r\nline\0two", 16);
    ck_assert_int_eq(got[16], '\0');
    ck_assert_int_eq(e.kind, ERR_NONE);
    free(got);
    /* an empty file is an empty string, not a failure */
    snprintf(p, sizeof p, "%s/empty", dir);
    put(p, "", 0);
    got = fileio_read(p, 16, &len, &e);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(len, 0);
    ck_assert_str_eq(got, "");
    free(got);
    remove_dir(dir);
}
END_TEST

START_TEST(test_read_cap)
{
    char dir[64], p[128];
    make_dir(dir);
    snprintf(p, sizeof p, "%s/big", dir);
    char data[10000];
    memset(data, 'x', sizeof data);
    put(p, data, sizeof data);
    Error e;
    size_t len;
    char *got = fileio_read(p, 10000, &len, &e);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(len, 10000);
    free(got);
    /* one byte over: refused from the size it reports, which is said */
    expect_refused(p, 9999, ERR_LIMIT, "file is 10000 bytes, over the limit of 9999 bytes");
    remove_dir(dir);
}
END_TEST

START_TEST(test_read_proc_reports_zero)
{
    /* /proc files say they are 0 bytes: the cap must hold while reading */
    struct stat st;
    ck_assert_int_eq(stat("/proc/self/status", &st), 0);
    ck_assert_int_eq(st.st_size, 0);
    Error e;
    size_t len = 0;
    char *got = fileio_read("/proc/self/status", 1 << 20, &len, &e);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_gt(len, 100);
    ck_assert(!strncmp(got, "Name:", 5));
    ck_assert_uint_eq(strlen(got), len);
    free(got);
    /* the size it reports is no use: the message does not give one */
    expect_refused("/proc/self/status", 16, ERR_LIMIT, "file is over the limit of 16 bytes");
}
END_TEST

START_TEST(test_read_refuses_special_files)
{
    char dir[64], p[128], q[128];
    make_dir(dir);
    /* a FIFO with no writer: refused at once (CK_DEFAULT_TIMEOUT catches a hang) */
    snprintf(p, sizeof p, "%s/pipe", dir);
    ck_assert_int_eq(mkfifo(p, 0600), 0);
    expect_refused(p, 1 << 20, ERR_IO, "cannot read: a named pipe (FIFO), not a regular file");
    /* a symbolic link to it: the same */
    snprintf(q, sizeof q, "%s/link", dir);
    ck_assert_int_eq(symlink(p, q), 0);
    expect_refused(q, 1 << 20, ERR_IO, "cannot read: a named pipe (FIFO), not a regular file");
    expect_refused(dir, 1 << 20, ERR_IO, "cannot read: a directory, not a regular file");
    expect_refused("/dev/zero", 1 << 20, ERR_IO, "cannot read: a character device, not a regular file");
    expect_refused("/dev/null", 1 << 20, ERR_IO, "cannot read: a character device, not a regular file");
    snprintf(p, sizeof p, "%s/missing", dir);
    expect_refused(p, 1 << 20, ERR_IO, "cannot open: No such file or directory");
    /* a dangling link */
    snprintf(q, sizeof q, "%s/dangling", dir);
    ck_assert_int_eq(symlink(p, q), 0);
    expect_refused(q, 1 << 20, ERR_IO, "cannot open: No such file or directory");
    remove_dir(dir);
}
END_TEST

START_TEST(test_write_creates_and_replaces)
{
    char dir[64], p[128];
    Error err;
    make_dir(dir);
    snprintf(p, sizeof p, "%s/out.txt", dir);
    ck_assert_int_eq(fileio_write_atomic(p, "first", 5, false, &err), 0);
    ck_assert(holds(p, "first"));
    /* replacing keeps the file's permission bits */
    ck_assert_int_eq(chmod(p, 0640), 0);
    ck_assert_int_eq(fileio_write_atomic(p, "second!", 7, true, &err), 0);
    ck_assert(holds(p, "second!"));
    struct stat st;
    ck_assert_int_eq(stat(p, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0640);
    ck_assert_int_eq(fileio_write_atomic(p, "", 0, false, &err), 0);
    ck_assert(holds(p, ""));
    ck_assert_int_eq(temps_in(dir), 0);
    remove_dir(dir);
}
END_TEST

START_TEST(test_write_long_names)
{
    /* a 255-byte name (the most a directory entry holds) is written, though
    ** its temporary needs a shortened name */
    char dir[64], p[400];
    Error err;
    make_dir(dir);
    char name[256];
    memset(name, 'n', 255);
    name[255] = '\0';
    snprintf(p, sizeof p, "%s/%s", dir, name);
    ck_assert_msg(fileio_write_atomic(p, "long", 4, false, &err) == 0, "%s", eline(&err));
    ck_assert(holds(p, "long"));
    /* with multi-byte characters the cut falls between characters */
    char utf[256] = "";
    for (int i = 0; i < 127; i++) strcat(utf, "\xc3\xa9");      /* 254 bytes */
    snprintf(p, sizeof p, "%s/%s", dir, utf);
    ck_assert_msg(fileio_write_atomic(p, "utf", 3, false, &err) == 0, "%s", eline(&err));
    ck_assert(holds(p, "utf"));
    ck_assert_int_eq(temps_in(dir), 0);
    remove_dir(dir);
}
END_TEST

START_TEST(test_write_failures_change_nothing)
{
    char dir[64], p[128], want[300];
    Error err;
    make_dir(dir);
    /* a directory where the file should go */
    snprintf(p, sizeof p, "%s/sub", dir);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    ck_assert_int_eq(fileio_write_atomic(p, "x", 1, false, &err), -1);
    snprintf(want, sizeof want, "%s: error: cannot write: Is a directory", p);
    ck_assert_str_eq(eline(&err), want);
    struct stat st;
    ck_assert(stat(p, &st) == 0 && S_ISDIR(st.st_mode));
    /* a parent that is a file */
    snprintf(p, sizeof p, "%s/file", dir);
    put(p, "keep", 4);
    snprintf(p, sizeof p, "%s/file/out.png", dir);
    ck_assert_int_eq(fileio_write_atomic(p, "x", 1, false, &err), -1);
    snprintf(want, sizeof want, "%s: error: cannot write: Not a directory", p);
    ck_assert_str_eq(eline(&err), want);
    snprintf(p, sizeof p, "%s/file", dir);
    ck_assert(holds(p, "keep"));
    /* a missing parent */
    snprintf(p, sizeof p, "%s/none/out.png", dir);
    ck_assert_int_eq(fileio_write_atomic(p, "x", 1, false, &err), -1);
    snprintf(want, sizeof want, "%s: error: cannot write: No such file or directory", p);
    ck_assert_str_eq(eline(&err), want);
    /* no name */
    snprintf(p, sizeof p, "%s/", dir);
    ck_assert_int_eq(fileio_write_atomic(p, "x", 1, false, &err), -1);
    snprintf(want, sizeof want, "%s/: error: cannot write: no file name", dir);
    ck_assert_str_eq(eline(&err), want);
    ck_assert_int_eq(temps_in(dir), 0);
    remove_dir(dir);
}
END_TEST

START_TEST(test_write_file_size_limit)
{
    /* past `ulimit -f` the write fails (EFBIG) instead of the process dying
    ** of SIGXFSZ; the old file stays, the temporary goes, the signal's
    ** disposition is given back */
    char dir[64], p[128], want[300];
    Error err;
    make_dir(dir);
    snprintf(p, sizeof p, "%s/out.png", dir);
    put(p, "old", 3);
    struct sigaction before, now;
    ck_assert_int_eq(sigaction(SIGXFSZ, NULL, &before), 0);
    struct rlimit old, lim;
    ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 4096;
    ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
    static char big[100000];
    memset(big, 'b', sizeof big);
    int r = fileio_write_atomic(p, big, sizeof big, false, &err);
    setrlimit(RLIMIT_FSIZE, &old);
    ck_assert_int_eq(r, -1);
    snprintf(want, sizeof want, "%s: error: cannot write: File too large", p);
    ck_assert_str_eq(eline(&err), want);
    ck_assert(holds(p, "old"));
    ck_assert_int_eq(temps_in(dir), 0);
    ck_assert_int_eq(sigaction(SIGXFSZ, NULL, &now), 0);
    ck_assert(now.sa_handler == before.sa_handler);
    remove_dir(dir);
}
END_TEST

/* Create path as an empty file last changed age seconds ago. */
static void put_aged(const char *path, int age)
{
    put(path, "", 0);
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= age;
    t[1] = t[0];
    ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
}

/* A temporary's name as the module makes it, for base with random rnd. */
static const char *temp_name(const char *base, const char *rnd)
{
    static char out[300];
    fileio_temp_name(base, rnd, out, sizeof out);
    return out;
}

START_TEST(test_write_sweeps_stale_temporaries)
{
    char dir[64], p[1000], stale[2][300], live[300], sub[300], other[300], linked[300];
    Error err;
    make_dir(dir);
    fileio_start();
    snprintf(stale[0], sizeof stale[0], "%s", temp_name("out.png", "AbC1"));
    snprintf(stale[1], sizeof stale[1], "%s", temp_name("x", "0000"));
    snprintf(live, sizeof live, "%s", temp_name("live", "Live"));
    snprintf(sub, sizeof sub, "%s", temp_name("d", "dir1"));
    snprintf(other, sizeof other, "%s", temp_name("theirs.png", "Othr"));
    snprintf(linked, sizeof linked, "%s", temp_name("linked.png", "Link"));
    char wrong[300];
    snprintf(wrong, sizeof wrong, "%s", temp_name("mine.png", "Mine"));
    wrong[strlen(wrong) - 1] ^= 1;                          /* a check character off by one */
    const char *kept[] = {
        ".y.attnlab-ZZZZZ",          /* five characters: not ours */
        "z.attnlab-ABCDEF",          /* no leading dot */
        ".w.attnlab-ABC-EF",         /* a character we never use */
        ".v.tmp-1234",               /* someone else's */
        wrong,                       /* our pattern, but a person's name: the check fails */
    };
    int nkept = (int)(sizeof kept / sizeof kept[0]);
    for (int i = 0; i < 2; i++) { snprintf(p, sizeof p, "%s/%s", dir, stale[i]); put_aged(p, 3600); }
    for (int i = 0; i < nkept; i++) { snprintf(p, sizeof p, "%s/%s", dir, kept[i]); put_aged(p, 3600); }
    /* one of ours, but written during this run: a live writer's */
    snprintf(p, sizeof p, "%s/%s", dir, live);
    put(p, "", 0);
    /* a directory with our name form is not touched either */
    snprintf(p, sizeof p, "%s/%s", dir, sub);
    ck_assert_int_eq(mkdir(p, 0700), 0);
    struct timespec t[2] = { { 1000, 0 }, { 1000, 0 } };
    ck_assert_int_eq(utimensat(AT_FDCWD, p, t, 0), 0);
    /* nor a file with a second name (a hard link is a person's doing) */
    snprintf(p, sizeof p, "%s/%s", dir, linked);
    put_aged(p, 3600);
    char p2[1000];
    snprintf(p2, sizeof p2, "%s/keep-link", dir);
    ck_assert_int_eq(link(p, p2), 0);
    /* nor another user's (when the test may give a file away) */
    bool chowned = false;
    if (getuid() == 0) {
        snprintf(p, sizeof p, "%s/%s", dir, other);
        put_aged(p, 3600);
        chowned = lchown(p, 65534, 65534) == 0;
    }

    snprintf(p, sizeof p, "%s/out.png", dir);
    ck_assert_int_eq(fileio_write_atomic(p, "new", 3, false, &err), 0);
    struct stat st;
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, stale[i]);
        ck_assert_msg(stat(p, &st) != 0, "%s was not removed", stale[i]);
    }
    for (int i = 0; i < nkept; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, kept[i]);
        ck_assert_msg(stat(p, &st) == 0, "%s was removed", kept[i]);
    }
    const char *also[] = { live, sub, linked, chowned ? other : live };
    for (int i = 0; i < 4; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, also[i]);
        ck_assert_msg(stat(p, &st) == 0, "%s was removed", also[i]);
    }
    remove_dir(dir);
}
END_TEST

START_TEST(test_temp_names)
{
    char a[300], b[300];
    snprintf(a, sizeof a, "%s", temp_name("a", "abcX"));
    ck_assert_int_eq((int)strlen(a), (int)strlen(".a.attnlab-abcXYZ"));
    ck_assert(!strncmp(a, ".a.attnlab-abcX", 15));
    ck_assert(fileio_is_temp_name(a));
    snprintf(b, sizeof b, "%s", temp_name("a b.png", "0123"));
    ck_assert(fileio_is_temp_name(b));
    b[strlen(b) - 3] = '9';                                 /* a random character changed: the check fails */
    ck_assert(!fileio_is_temp_name(b));
    ck_assert(!fileio_is_temp_name(".attnlab-abcXYZ"));     /* nothing before the tag */
    ck_assert(!fileio_is_temp_name(".a.attnlab-abcXY"));
    ck_assert(!fileio_is_temp_name(".a.attnlab-abcXYZ1"));
    ck_assert(!fileio_is_temp_name(a + 1));                 /* no leading dot */
    ck_assert(!fileio_is_temp_name(".a.attnlab_abcXYZ"));
    ck_assert(!fileio_is_temp_name(""));
}
END_TEST

/* The fileio suite. */
Suite *fileio_suite(void)
{
    Suite *s = suite_create("fileio");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_read_regular);
    tcase_add_test(core, test_write_creates_and_replaces);
    tcase_add_test(core, test_temp_names);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_read_cap);
    tcase_add_test(limits, test_read_proc_reports_zero);
    tcase_add_test(limits, test_read_refuses_special_files);
    tcase_add_test(limits, test_write_long_names);
    tcase_add_test(limits, test_write_failures_change_nothing);
    tcase_add_test(limits, test_write_file_size_limit);
    tcase_add_test(limits, test_write_sweeps_stale_temporaries);
    suite_add_tcase(s, limits);
    return s;
}
