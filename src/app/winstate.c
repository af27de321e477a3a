/*
** winstate.c: the window's remembered size, position and hint (winstate.h).
*/
#define _POSIX_C_SOURCE 200809L
#include "winstate.h"
#include "paths.h"
#include "core/io/fileio.h"
#include "core/util.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STATE_MAX_BYTES 4096        /* the file is a few lines */
#define COORD_MAX 100000            /* no screen is this large */

/* The file. */
int winstate_path(char *out, size_t n)
{
    char dir[PATH_MAX];
    if (app_xdg_dir("XDG_STATE_HOME", ".local/state", "attnlab", false, dir, sizeof dir) != 0) return -1;
    int w = snprintf(out, n, "%s/window", dir);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

/* The value of "key=N" on line, within ±COORD_MAX; false if line is not that key. */
static bool number(const char *line, const char *key, int *v)
{
    size_t k = strlen(key);
    if (strncmp(line, key, k) || line[k] != '=') return false;
    char *end;
    long x = strtol(line + k + 1, &end, 10);
    if (end == line + k + 1 || (*end && *end != '\n') || x < -COORD_MAX || x > COORD_MAX) return false;
    *v = (int)x;
    return true;
}

/* Read the file. */
void winstate_load(WinState *s)
{
    memset(s, 0, sizeof *s);
    char path[PATH_MAX];
    if (winstate_path(path, sizeof path) != 0) return;
    Error err;
    size_t len;
    char *text = fileio_read(path, STATE_MAX_BYTES, &len, &err);
    if (!text) return;
    int got = 0, v;
    for (char *line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
        if (number(line, "x", &v)) { s->place.x = v; got |= 1; }
        else if (number(line, "y", &v)) { s->place.y = v; got |= 2; }
        else if (number(line, "width", &v) && v >= WIN_MIN_W) { s->place.w = v; got |= 4; }
        else if (number(line, "height", &v) && v >= WIN_MIN_H) { s->place.h = v; got |= 8; }
        else if (number(line, "hinted", &v)) s->hinted = v != 0;
    }
    s->have_place = got == 15;
    free(text);
}

/* Write the file. */
int winstate_save(const WinState *s)
{
    char path[PATH_MAX], dir[PATH_MAX];
    Error err;
    if (app_xdg_dir("XDG_STATE_HOME", ".local/state", "attnlab", true, dir, sizeof dir) != 0
        || winstate_path(path, sizeof path) != 0)
        return -1;
    Buf b = { 0 };
    if (s->have_place)
        buf_printf(&b, "x=%d\ny=%d\nwidth=%d\nheight=%d\n", s->place.x, s->place.y, s->place.w, s->place.h);
    buf_printf(&b, "hinted=%d\n", s->hinted ? 1 : 0);
    int r = fileio_write_atomic(path, b.s, b.len, false, &err);
    buf_free(&b);
    return r;
}

/* v within [lo, hi] (lo when the range is empty). */
static int clamp(int v, int lo, int hi)
{
    return v > hi ? (hi > lo ? hi : lo) : v < lo ? lo : v;
}

/* Place and fit. */
WinRect winstate_fit(WinRect usable, WinFrame frame, const WinRect *last, int want_w, int want_h)
{
    int room_w = usable.w - frame.left - frame.right, room_h = usable.h - frame.top - frame.bottom;
    WinRect r;
    r.w = last ? last->w : want_w;
    r.h = last ? last->h : want_h;
    r.w = clamp(r.w, room_w < WIN_MIN_W ? room_w : WIN_MIN_W, room_w);
    r.h = clamp(r.h, room_h < WIN_MIN_H ? room_h : WIN_MIN_H, room_h);
    if (r.w < 1) r.w = 1;
    if (r.h < 1) r.h = 1;
    int x0 = usable.x + frame.left, y0 = usable.y + frame.top;
    r.x = last ? last->x : x0 + (room_w - r.w) / 2;
    r.y = last ? last->y : y0 + (room_h - r.h) / 2;
    r.x = clamp(r.x, x0, x0 + room_w - r.w);
    r.y = clamp(r.y, y0, y0 + room_h - r.h);
    return r;
}
