/*
** reload.c: following the lesson file on disk (see reload.h).
*/
#define _POSIX_C_SOURCE 200809L
#include "reload.h"
#include "edits.h"
#include "save.h"
#include "core/i18n.h"
#include "core/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* stat's view of the file. */
AppFileSig app_file_sig(const char *path)
{
    AppFileSig s;
    memset(&s, 0, sizeof s);
    struct stat st;
    if (!path || stat(path, &st) != 0) return s;
    s.exists = true;
    s.dev = (long long)st.st_dev;
    s.ino = (long long)st.st_ino;
    s.size = (long long)st.st_size;
    s.mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
    return s;
}

/* Time to the next look. */
int app_watch_due_ms(const AppState *a)
{
    if (!a->path || !a->L) return -1;
    double left = a->watch_next - a->now;
    return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* A look, when due. */
bool app_watch_poll(AppState *a)
{
    if (!a->path || !a->L || a->now < a->watch_next) return false;
    a->watch_next = a->now + APP_WATCH_PERIOD;
    AppFileSig s = app_file_sig(a->path);
    if (!memcmp(&s, &a->watch_sig, sizeof s)) return false;
    return app_reload_check(a);
}

/* The toggles of the old lesson (what M, K, [ ] changed from the file) on
** the new one, setup by setup, where they still make sense. */
static void keep_toggles(const AppState *a, Lesson *L)
{
    if (!a->disk_L || a->disk_L->nsetups != a->L->nsetups) return;
    for (int s = 0; s < L->nsetups && s < a->L->nsetups; s++) {
        const Setup *now = &a->L->setups[s], *file = &a->disk_L->setups[s];
        Setup *to = &L->setups[s];
        if (now->temperature != file->temperature) to->temperature = now->temperature;
        if (now->score != file->score && to->score != SCORE_ADDITIVE && now->score != SCORE_ADDITIVE) to->score = now->score;
        if (now->mask != file->mask && (now->mask == MASK_NONE || now->mask == MASK_CAUSAL)) {
            free(to->mask_matrix);
            to->mask_matrix = NULL;
            to->mask = now->mask;
        }
    }
}

/* Parse and show new text from the file; false if it does not load. */
static bool take_new_text(AppState *a, const char *text, size_t len)
{
    Error err;
    Lesson *L = lesson_parse(text, len, a->path, &err);
    Trace *T = L ? attn_run(L, &err) : NULL;
    if (!T) {
        lesson_free(L);
        app_set_error(a, &err);
        a->disk_bad = true;
        return false;
    }
    keep_toggles(a, L);
    Trace *T2 = attn_run(L, &err);           /* the toggles may not compute: then the file's settings */
    if (T2) {
        trace_free(T);
        T = T2;
    } else {
        lesson_free(L);
        L = lesson_parse(text, len, a->path, &err);
    }
    app_adopt(a, L, T);
    free(a->source);
    a->source = xstrndup(text, len);         /* R now returns to this version */
    app_set_error(a, NULL);
    app_disk_set(a, text, len);
    app_edits_replay(a);
    return true;
}

/* Read and compare. */
bool app_reload_check(AppState *a)
{
    if (!a->path || !a->L) return false;
    Error err;
    size_t len;
    a->watch_sig = app_file_sig(a->path);
    char *text = lesson_read(a->path, &len, &err);
    if (!text) {
        if (err.kind == ERR_IO) return false;       /* gone for a moment (an editor renaming): look again later */
        app_set_error(a, &err);                     /* too large */
        a->disk_bad = true;
        return true;
    }
    bool changed = false;
    if (a->disk && len == a->disk_len && !memcmp(text, a->disk, len)) {
        if (a->disk_bad) {                    /* back to the version on screen */
            a->disk_bad = false;
            app_set_error(a, NULL);
            changed = true;
        }
    } else if (take_new_text(a, text, len)) {
        app_toast(a, _("reloaded %s"), a->path);
        changed = true;
    } else {
        changed = true;
    }
    free(text);
    return changed;
}
