/*
** filedlg.c: kdialog or zenity as a child process (filedlg.h).
*/
#define _DEFAULT_SOURCE
#include "filedlg.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define OUT_MAX (PATH_MAX + 16)     /* a path and its newline */

struct FileDialog {
    const char *program;
    pid_t pid;
    int fd;                 /* the read end of its standard output, -1 at its end */
    char out[OUT_MAX];
    size_t len;
};

/* Whether name is an executable on PATH. */
static bool on_path(const char *name)
{
    const char *path = getenv("PATH");
    for (const char *s = path ? path : ""; *s;) {
        size_t n = strcspn(s, ":");
        char file[PATH_MAX];
        if (n > 0 && (size_t)snprintf(file, sizeof file, "%.*s/%s", (int)n, s, name) < sizeof file
            && access(file, X_OK) == 0)
            return true;
        s += n;
        if (*s) s++;
    }
    return false;
}

/* The dialog program to use, or NULL (see filedlg.h for the order). */
static const char *choose(void)
{
    const char *want = getenv("ATTNLAB_FILE_DIALOG");
    if (want && *want) {                /* "prompt", or anything else: the window's own field */
        if (!strcmp(want, "zenity") && on_path("zenity")) return "zenity";
        if (!strcmp(want, "kdialog") && on_path("kdialog")) return "kdialog";
        return NULL;
    }
    const char *desk = getenv("XDG_CURRENT_DESKTOP");
    if (desk && strstr(desk, "KDE") && on_path("kdialog")) return "kdialog";
    if (on_path("zenity")) return "zenity";
    if (on_path("kdialog")) return "kdialog";
    return NULL;
}

/* Start it. */
FileDialog *filedlg_start(const char *dir, const char *title)
{
    const char *prog = choose();
    if (!prog) return NULL;
    char start[PATH_MAX + 4], titled[512], named[PATH_MAX + 16];
    /* a relative folder whose name starts with '-' would read as an option: ./-course/ */
    snprintf(start, sizeof start, "%s%s/", dir[0] == '-' ? "./" : "", dir);
    snprintf(titled, sizeof titled, "--title=%s", title);
    snprintf(named, sizeof named, "--filename=%s", start);
    char *zenity[] = { "zenity", "--file-selection", titled, named, "--file-filter=*.lesson", "--file-filter=*", NULL };
    char *kdialog[] = { "kdialog", "--title", (char *)title, "--getopenfilename", start, "*.lesson", NULL };
    int fds[2];
    if (pipe(fds) != 0) return NULL;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    posix_spawn_file_actions_addclose(&fa, fds[1]);
    pid_t pid;
    int r = posix_spawnp(&pid, prog, &fa, NULL, !strcmp(prog, "zenity") ? zenity : kdialog, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (r != 0) {
        close(fds[0]);
        return NULL;
    }
    fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    FileDialog *d = xcalloc(1, sizeof *d);
    d->program = prog;
    d->pid = pid;
    d->fd = fds[0];
    return d;
}

/* Read what it wrote so far; true at the end of its output. */
static bool drain(FileDialog *d)
{
    char buf[512];
    for (;;) {
        ssize_t k = read(d->fd, buf, sizeof buf);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return errno != EAGAIN && errno != EWOULDBLOCK;
        if (k == 0) return true;
        size_t take = (size_t)k < sizeof d->out - 1 - d->len ? (size_t)k : sizeof d->out - 1 - d->len;
        memcpy(d->out + d->len, buf, take);
        d->len += take;
    }
}

/* Done yet? */
int filedlg_poll(FileDialog *d, char **path)
{
    *path = NULL;
    if (d->fd >= 0 && drain(d)) {
        close(d->fd);
        d->fd = -1;
    }
    if (d->fd >= 0) return 0;
    int status;
    pid_t w = waitpid(d->pid, &status, WNOHANG);
    if (w == 0) return 0;               /* its output closed, it has not exited yet */
    d->pid = 0;
    d->out[d->len] = '\0';
    size_t n = strcspn(d->out, "\n");
    if (w == (pid_t)-1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 || n == 0) return 1;
    *path = xstrndup(d->out, n);
    return 1;
}

/* Its name. */
const char *filedlg_program(const FileDialog *d)
{
    return d->program;
}

/* End it. */
void filedlg_free(FileDialog *d)
{
    if (!d) return;
    if (d->fd >= 0) close(d->fd);
    if (d->pid > 0) {
        kill(d->pid, SIGTERM);
        waitpid(d->pid, NULL, 0);
    }
    free(d);
}
