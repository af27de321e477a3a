/*
** paths.c: finding bundled lessons and assets, and the user's lesson
** directory.
*/
#define _GNU_SOURCE                     /* dladdr */
#include "paths.h"
#include "core/util.h"

#include <dirent.h>
#ifndef __EMSCRIPTEN__
#include <dlfcn.h>
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef ATTNLAB_DATADIR
#define ATTNLAB_DATADIR "/usr/local/share/attnlab"
#endif

/* True if path is a directory. */
static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The directory of the running program, or of libattnlab when this code
** runs in the library (a Python process's executable is python3's: the
** library's catalogues and lessons are found beside the library, as the
** program's are beside the program). */
int app_exe_dir(char *out, size_t n)
{
    char exe[PATH_MAX];
    ssize_t len = -1;
#ifndef __EMSCRIPTEN__
    static const char here = 0;         /* an address in this object: the program's or the library's */
    Dl_info di;
    if (dladdr(&here, &di) && di.dli_fname && di.dli_fname[0] == '/'
        && strlen(di.dli_fname) < sizeof exe && strstr(di.dli_fname, "/libattnlab.so")) {
        snprintf(exe, sizeof exe, "%s", di.dli_fname);
        len = (ssize_t)strlen(exe);
    }
#endif
    if (len <= 0) len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0) return -1;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash) return -1;
    *slash = '\0';
    if ((size_t)snprintf(out, n, "%s", exe) >= n) return -1;
    return 0;
}

/* Next to the executable, one level up, then the installed data directory. */
int app_data_dir(const char *sub, char *out, size_t n)
{
    char exe[PATH_MAX];
    if (app_exe_dir(exe, sizeof exe) == 0) {
        const char *rel[] = { "%s/%s", "%s/../%s", "%s/../../%s", "%s/../share/attnlab/%s" };
        for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
            snprintf(out, n, rel[i], exe, sub);
            if (is_dir(out)) return 0;
        }
    }
    snprintf(out, n, "%s/%s", ATTNLAB_DATADIR, sub);
    return is_dir(out) ? 0 : -1;
}

/* qsort comparator for strings. */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted .lesson files of a directory. */
char **app_list_lessons(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return NULL;
    char **list = NULL;
    size_t count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 8 || strcmp(e->d_name + l - 7, ".lesson") || e->d_name[0] == '.') continue;
        list = xrealloc(list, sizeof *list * (count + 2));
        size_t need = strlen(dir) + l + 2;
        list[count] = xmalloc(need);
        snprintf(list[count], need, "%s/%s", dir, e->d_name);
        count++;
    }
    closedir(d);
    if (!list) list = xcalloc(1, sizeof *list);
    qsort(list, count, sizeof *list, cmp_str);
    list[count] = NULL;
    return list;
}

/* Free a list of paths. */
void app_free_list(char **list)
{
    if (!list) return;
    for (char **p = list; *p; p++) free(*p);
    free(list);
}

/* mkdir -p. */
int app_make_dirs(const char *path)
{
    char *p = xstrdup(path);
    int r = 0;
    for (char *c = p + 1; *c && r == 0; c++) {
        if (*c != '/') continue;
        *c = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) r = -1;
        *c = '/';
    }
    if (r == 0 && mkdir(p, 0755) != 0 && errno != EEXIST) r = -1;
    free(p);
    return r;
}

/* $ENV/sub or $HOME/fallback/sub. */
int app_xdg_dir(const char *env, const char *fallback, const char *sub, bool create, char *out, size_t n)
{
    const char *xdg = getenv(env), *home = getenv("HOME");
    int w;
    if (xdg && xdg[0] == '/') w = snprintf(out, n, "%s/%s", xdg, sub);
    else if (home && home[0]) w = snprintf(out, n, "%s/%s/%s", home, fallback, sub);
    else return -1;
    if (w < 0 || (size_t)w >= n) return -1;
    return create ? app_make_dirs(out) : 0;
}

/* $XDG_DATA_HOME/attnlab/lessons or ~/.local/share/attnlab/lessons. */
int app_user_lesson_dir(char *out, size_t n)
{
    return app_xdg_dir("XDG_DATA_HOME", ".local/share", "attnlab/lessons", true, out, n);
}
