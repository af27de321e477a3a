/*
** save.c: Ctrl+S and Save as (see save.h).
*/
#define _POSIX_C_SOURCE 200809L
#include "save.h"
#include "edits.h"
#include "paths.h"
#include "reload.h"
#include "core/fileio.h"
#include "core/lessonsave.h"
#include "core/i18n.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The file's text from now on. */
void app_disk_set(AppState *a, const char *text, size_t len)
{
    LessonError err;
    free(a->disk);
    lesson_free(a->disk_L);
    a->disk = xstrndup(text, len);
    a->disk_len = len;
    a->disk_L = lesson_parse(text, len, a->path, &err);
    a->disk_bad = false;
    a->watch_sig = app_file_sig(a->path);
    app_update_dirty(a);
}

/* $XDG_DATA_HOME/attnlab/lessons or ~/.local/share/attnlab/lessons. */
int app_user_lesson_dir(char *out, size_t n)
{
    return app_xdg_dir("XDG_DATA_HOME", ".local/share", "attnlab/lessons", true, out, n);
}

/* dir/name.lesson -> dir/name-edited.lesson */
void app_save_as_default(const AppState *a, char *out, size_t n)
{
    const char *p = a->path ? a->path : "lesson.lesson";
    size_t len = strlen(p);
    if (len > 7 && !strcmp(p + len - 7, ".lesson")) len -= 7;
    snprintf(out, n, "%.*s-edited.lesson", (int)len, p);
}

/* The disk text with the edits made in place; NULL with the toast set. */
char *app_saved_text(AppState *a, size_t *len)
{
    if (!a->disk_L) {
        app_toast(a, _("not saved: the file as read does not load"));
        return NULL;
    }
    LsaveEdit *e;
    int n = lsave_diff(a->disk_L, a->L, &e);
    if (n < 0) {
        app_toast(a, _("not saved: the lesson no longer matches its file"));
        return NULL;
    }
    char msg[700];
    char *text = lsave_apply(a->disk, a->disk_len, a->disk_L, e, n, len, msg, sizeof msg);
    free(e);
    if (!text) app_toast(a, _("not saved: %s"), msg);
    return text;
}

/* Write text to path, keeping what was there as path~ the first time. */
static int write_with_backup(AppState *a, const char *path, const char *text, size_t len, bool *backed_up)
{
    char err[700];
    size_t old_len;
    LessonError rerr;
    char *old = *backed_up ? NULL : lesson_read(path, &old_len, &rerr);
    if (old) {
        char bak[PATH_MAX + 2];
        snprintf(bak, sizeof bak, "%s~", path);
        int r = fileio_write_atomic(bak, old, old_len, true, err, sizeof err);
        free(old);
        if (r != 0) {
            app_toast(a, _("not saved: cannot keep the previous version: %s"), err);
            return -1;
        }
        *backed_up = true;
    }
    if (fileio_write_atomic(path, text, len, true, err, sizeof err) != 0) {
        app_toast(a, "%s", err);
        return -1;
    }
    return 0;
}

/* Can path be replaced where it is? Not when the file is read-only, or
** when its directory does not take a new file (the atomic write needs one):
** that is tried, since access() says yes to root even on a read-only mount. */
static bool read_only(const char *path)
{
    if (access(path, F_OK) == 0 && access(path, W_OK) != 0) return true;
    char probe[PATH_MAX];
    const char *slash = strrchr(path, '/');
    int w = slash ? snprintf(probe, sizeof probe, "%.*s/.attnlab-probe-%ld", (int)(slash - path), path, (long)getpid())
                  : snprintf(probe, sizeof probe, ".attnlab-probe-%ld", (long)getpid());
    if (w < 0 || (size_t)w >= sizeof probe) return false;
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd >= 0) {
        close(fd);
        unlink(probe);
        return false;
    }
    return errno == EACCES || errno == EROFS || errno == EPERM;
}

/* A free NAME-edited[-N].lesson in the user directory. */
static int user_copy_path(const AppState *a, char *out, size_t n)
{
    char dir[PATH_MAX];
    if (app_user_lesson_dir(dir, sizeof dir) != 0) return -1;
    const char *name = a->L && a->L->name ? a->L->name : "lesson";
    for (int k = 1; k < 1000; k++) {
        int w = k == 1 ? snprintf(out, n, "%s/%s-edited.lesson", dir, name)
                       : snprintf(out, n, "%s/%s-edited-%d.lesson", dir, name, k);
        if (w < 0 || (size_t)w >= n) return -1;
        if (access(out, F_OK) != 0) return 0;
    }
    return -1;
}

/* Start using path as the lesson's file, holding text. */
static void switch_file(AppState *a, const char *path, const char *text, size_t len)
{
    if (!a->path || strcmp(a->path, path)) {
        free(a->path);
        a->path = xstrdup(path);
    }
    app_disk_set(a, text, len);
}

/* Ctrl+S. */
int app_save_lesson(AppState *a)
{
    if (!a->L || !a->path) return -1;
    app_reload_check(a);                       /* changed on disk? take that first */
    if (a->disk_bad) {
        app_toast(a, _("not saved: the file on disk does not load (see above); fix it, or save under another name with Ctrl+Shift+S"));
        return -1;
    }
    if (!a->dirty) {
        app_toast(a, _("nothing to save: %s already holds these numbers"), a->path);
        return 0;
    }
    size_t len;
    char *text = app_saved_text(a, &len);
    if (!text) return -1;
    int r;
    if (read_only(a->path)) {
        char dest[PATH_MAX];
        if (user_copy_path(a, dest, sizeof dest) != 0) {
            app_toast(a, _("not saved: %s is read-only and there is no user lesson directory"), a->path);
            free(text);
            return -1;
        }
        bool none = true;                      /* a new file: nothing to keep */
        r = write_with_backup(a, dest, text, len, &none);
        if (r == 0) {
            app_toast(a, _("%s is read-only: saved as %s"), a->path, dest);
            switch_file(a, dest, text, len);
            a->backed_up = true;
        }
    } else {
        bool first = !a->backed_up;
        r = write_with_backup(a, a->path, text, len, &a->backed_up);
        if (r == 0) {
            if (first && a->backed_up) app_toast(a, _("saved %s (the previous version is %s~)"), a->path, a->path);
            else app_toast(a, _("saved %s"), a->path);
            switch_file(a, a->path, text, len);
        }
    }
    free(text);
    return r;
}

/* Save as. */
int app_save_as(AppState *a, const char *path)
{
    if (!a->L) return -1;
    if (!a->disk_bad) app_reload_check(a);
    size_t len;
    char *text = app_saved_text(a, &len);
    if (!text) return -1;
    bool backed = a->path && !strcmp(path, a->path) ? a->backed_up : false;
    char *dest = xstrdup(path);
    int r = write_with_backup(a, dest, text, len, &backed);
    if (r == 0) {
        switch_file(a, dest, text, len);
        a->backed_up = true;
        app_toast(a, _("saved as %s"), dest);
    }
    free(dest);
    free(text);
    return r;
}
