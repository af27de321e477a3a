/*
** library.c: the picker's list, recent files, path completion and dropped
** files (library.h).
*/
#define _DEFAULT_SOURCE
#include "library.h"
#include "paths.h"
#include "prompt.h"
#include "core/io/fileio.h"
#include "core/text/i18n.h"
#include "core/util.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define RECENT_MAX_BYTES (64 * 1024)

/* ------------------------------------------------------------ recent files */

/* The file that lists them. */
static int recent_path(bool create, char *out, size_t n)
{
    char dir[PATH_MAX];
    if (app_xdg_dir("XDG_STATE_HOME", ".local/state", "attnlab", create, dir, sizeof dir) != 0) return -1;
    int w = snprintf(out, n, "%s/recent", dir);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

/* Whether path is a regular file now. */
static bool is_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Every line of the list, whether the file is there or not (at most
** APP_RECENT_MAX), NULL-terminated. */
static char **recent_lines(void)
{
    char **list = xcalloc(APP_RECENT_MAX + 1, sizeof *list), path[PATH_MAX];
    if (recent_path(false, path, sizeof path) != 0) return list;
    Error err;
    size_t len;
    char *text = fileio_read(path, RECENT_MAX_BYTES, &len, &err);
    int n = 0;
    for (char *line = text; line && *line && n < APP_RECENT_MAX;) {
        char *end = strchr(line, '\n');
        if (end) *end = '\0';
        if (line[0] == '/') list[n++] = xstrdup(line);
        line = end ? end + 1 : NULL;
    }
    free(text);
    return list;
}

/* The recent files still there. */
char **app_recent_list(void)
{
    char **list = recent_lines();
    int n = 0;
    for (int i = 0; list[i]; i++) {
        if (is_file(list[i])) list[n++] = list[i];
        else free(list[i]);
    }
    list[n] = NULL;
    return list;
}

/* path first, the rest after it. */
int app_recent_add(const char *path)
{
    char real[PATH_MAX], file[PATH_MAX];
    Error err;
    if (!strcmp(path, FILEIO_STDIN) || !realpath(path, real) || !is_file(real)) return 0;
    if (recent_path(true, file, sizeof file) != 0) return -1;
    char **old = recent_lines();
    Buf b = { 0 };
    buf_printf(&b, "%s\n", real);
    for (int i = 0, kept = 1; old[i] && kept < APP_RECENT_MAX; i++)
        if (strcmp(old[i], real) && !strchr(old[i], '\n')) {
            buf_printf(&b, "%s\n", old[i]);
            kept++;
        }
    app_free_list(old);
    int r = strchr(real, '\n') ? 0 : fileio_write_atomic(file, b.s, b.len, false, &err);
    buf_free(&b);
    return r;
}

/* ------------------------------------------------------------ the picker */

/* Free the list. */
void app_library_free(AppState *a)
{
    for (int i = 0; i < a->picker_n; i++) {
        free(a->picker_items[i]);
        free(a->picker_titles[i]);
        free(a->picker_where[i]);
    }
    free(a->picker_items);
    free(a->picker_titles);
    free(a->picker_where);
    a->picker_items = a->picker_titles = a->picker_where = NULL;
    a->picker_n = 0;
}

/* The list being filled, and the real paths in it (each file once). */
typedef struct Fill {
    AppState *a;
    char **real;
} Fill;

/* Add path from where, unless it is listed already or the list is full. */
static void add(Fill *f, const char *path, const char *where)
{
    AppState *a = f->a;
    char real[PATH_MAX];
    if (a->picker_n >= APP_LIBRARY_MAX || !realpath(path, real)) return;
    for (int i = 0; i < a->picker_n; i++)
        if (!strcmp(f->real[i], real)) return;
    Error err;
    Lesson *L = lesson_load(path, &err);
    int i = a->picker_n++;
    f->real[i] = xstrdup(real);
    a->picker_items[i] = xstrdup(path);
    a->picker_titles[i] = xstrdup(L ? L->title : _("(cannot be read)"));
    a->picker_where[i] = xstrdup(where);
    lesson_free(L);
}

/* Every .lesson file of dir. */
static void add_dir(Fill *f, const char *dir, const char *where)
{
    char **list = app_list_lessons(dir);
    for (char **p = list; p && *p; p++) add(f, *p, where);
    app_free_list(list);
}

/* The last part of a folder's name ("week3" for "course/week3/"). */
static char *folder_name(const char *dir)
{
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/') n--;
    const char *s = dir + n;
    while (s > dir && s[-1] != '/') s--;
    return xstrndup(s, (size_t)(dir + n - s));
}

/* Fill the list: recent, folders, the user's, bundled. */
void app_library_fill(AppState *a)
{
    app_library_free(a);
    a->picker_items = xcalloc(APP_LIBRARY_MAX + 1, sizeof *a->picker_items);
    a->picker_titles = xcalloc(APP_LIBRARY_MAX + 1, sizeof *a->picker_titles);
    a->picker_where = xcalloc(APP_LIBRARY_MAX + 1, sizeof *a->picker_where);
    Fill f = { a, xcalloc(APP_LIBRARY_MAX + 1, sizeof *f.real) };
    char **recent = app_recent_list();
    for (char **p = recent; *p; p++) add(&f, *p, _("recent"));
    app_free_list(recent);
    for (int i = 0; i < a->nfolders; i++) {
        char *name = folder_name(a->folders[i]);
        add_dir(&f, a->folders[i], name);
        free(name);
    }
    char dir[PATH_MAX];
    if (app_xdg_dir("XDG_DATA_HOME", ".local/share", "attnlab/lessons", false, dir, sizeof dir) == 0)
        add_dir(&f, dir, _("your lessons"));
    if (app_data_dir("lessons", dir, sizeof dir) == 0) add_dir(&f, dir, _("bundled"));
    char real[PATH_MAX];
    a->picker_sel = 0;
    if (a->doc && realpath(a->doc->path, real))
        for (int i = 0; i < a->picker_n; i++)
            if (!strcmp(f.real[i], real)) a->picker_sel = i;
    for (int i = 0; i < a->picker_n; i++) free(f.real[i]);
    free(f.real);
}

/* ------------------------------------------------------------ completion */

/* Whether a directory entry can be offered: a folder, or a .lesson file. */
static bool offered(const char *dir, const char *name, bool *is_dir)
{
    char path[PATH_MAX];
    struct stat st;
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path || stat(path, &st) != 0) return false;
    *is_dir = S_ISDIR(st.st_mode);
    size_t l = strlen(name);
    return *is_dir || (S_ISREG(st.st_mode) && l > 7 && !strcmp(name + l - 7, ".lesson"));
}

/* qsort comparator for names. */
static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Complete text. */
int app_complete_path(char *text, size_t n, char *note, size_t nn)
{
    note[0] = '\0';
    char full[PATH_MAX];
    const char *home = getenv("HOME");
    if (text[0] == '~' && text[1] == '/' && home) snprintf(full, sizeof full, "%s%s", home, text + 1);
    else snprintf(full, sizeof full, "%s", text);
    char *slash = strrchr(full, '/');
    char dir[PATH_MAX];
    const char *prefix;
    if (slash) {
        snprintf(dir, sizeof dir, "%.*s", slash == full ? 1 : (int)(slash - full), full);
        prefix = slash + 1;
    } else {
        snprintf(dir, sizeof dir, ".");
        prefix = full;
    }
    DIR *d = opendir(dir);
    if (!d) return 0;
    size_t pl = strlen(prefix);
    char **names = NULL;            /* what matches, folders with their "/" */
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        bool isd;
        if (strncmp(e->d_name, prefix, pl) || !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        if ((e->d_name[0] == '.' && pl == 0) || !offered(dir, e->d_name, &isd)) continue;
        names = xrealloc(names, sizeof *names * (size_t)(count + 1));
        Buf b = { 0 };
        buf_printf(&b, "%s%s", e->d_name, isd ? "/" : "");
        names[count++] = buf_take(&b);
    }
    closedir(d);
    if (count == 0) {
        snprintf(note, nn, "%s", _("no folder or lesson starts so"));
        return 0;
    }
    qsort(names, (size_t)count, sizeof *names, by_name);
    /* as far as they agree (a lone folder with its "/": walk in) */
    size_t common = strlen(names[0]);
    for (int i = 1; i < count; i++) {
        size_t k = 0;
        while (k < common && names[i][k] == names[0][k]) k++;
        common = k;
    }
    if (count > 1 && common > 0 && names[0][common - 1] == '/') common--;
    size_t typed_dir = strlen(text) - pl;           /* the text before the prefix, "~/" kept as typed */
    snprintf(text + typed_dir, n - typed_dir, "%.*s", (int)common, names[0]);
    Buf b = { 0 };
    for (int i = 0; i < count; i++) {
        if (count > 1 && b.len < nn) buf_printf(&b, "%s%s", b.len ? "  " : "", names[i]);
        free(names[i]);
    }
    free(names);
    snprintf(note, nn, "%s", b.s ? b.s : "");
    buf_free(&b);
    return count;
}

/* ------------------------------------------------------------ dropped files */

/* Whether a path names a NumPy file. */
static bool numpy_file(const char *path)
{
    size_t l = strlen(path);
    return l > 4 && (!strcmp(path + l - 4, ".npy") || !strcmp(path + l - 4, ".npz"));
}

/* The base name of a path. */
static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/*
** Whether the open lesson reads the NumPy file at path: one of its load
** lines ("load \"FILE\"") names a file whose base name is path's, and that
** is the same file once resolved beside the lesson. *named is set when a
** load line names the base name at all.
*/
static bool lesson_reads(const AppState *a, const char *path, bool *named)
{
    *named = false;
    if (!a->doc) return false;
    const char *lesson = a->doc->path, *text = a->doc->disk;
    char want[PATH_MAX];
    if (!text || !realpath(path, want)) return false;
    const char *slash = strrchr(lesson, '/');
    for (const char *s = strstr(text, "load"); s; s = strstr(s + 4, "load")) {
        const char *q = s + 4;
        while (*q == ' ' || *q == '\t') q++;
        const char *end = *q == '"' ? strchr(q + 1, '"') : NULL;
        if (!end || memchr(q, '\n', (size_t)(end - q))) continue;
        char file[PATH_MAX], real[PATH_MAX];
        snprintf(file, sizeof file, "%.*s", (int)(end - q - 1), q + 1);
        if (strcmp(base_name(file), base_name(path))) continue;
        *named = true;
        char at[PATH_MAX * 2];
        if (file[0] == '/' || !slash) snprintf(at, sizeof at, "%s", file);
        else snprintf(at, sizeof at, "%.*s/%s", (int)(slash - lesson), lesson, file);
        if (realpath(at, real) && !strcmp(real, want)) return true;
    }
    return false;
}

/* Read the open lesson again from its file, on the stage it shows. */
static void read_again(AppState *a, const char *numpy)
{
    if (a->doc->dirty) {
        app_toast(a, _("%s: the lesson reads it again once its edits are saved or undone"), base_name(numpy));
        return;
    }
    int stage = a->stage;
    char *path = xstrdup(a->doc->path);
    if (app_open(a, path) == 0) {
        app_goto(a, stage + 1);
        app_toast(a, _("read %s again, with %s"), base_name(path), base_name(numpy));
    }
    free(path);
}

/* Dropped files. */
void app_open_dropped(AppState *a, char **paths, int n)
{
    for (int i = 0; i < n; i++)
        if (!numpy_file(paths[i])) {
            app_request_open(a, paths[i]);
            return;
        }
    if (n == 0) return;
    bool named = false;
    for (int i = 0; i < n; i++)
        if (lesson_reads(a, paths[i], &named)) {
            read_again(a, paths[i]);
            return;
        }
    if (named) app_toast(a, _("%s: the lesson reads the file of that name beside it, not this one"), base_name(paths[0]));
    else app_toast(a, _("%s: a NumPy file: drop it together with the lesson that loads it"), base_name(paths[0]));
}
