/*
** winstate.h: what the window remembers from one run to the next, and
** where it opens.
**
** The window's last size and position, and whether the first-run hint
** ("→ next stage   ? all keys") has been seen, are kept in
** $XDG_STATE_HOME/attnlab/window (by default ~/.local/state/attnlab), one
** "key=value" line each. The file is the program's own: a line it does not
** know, or a number out of range, is ignored.
**
** winstate_fit places a window of a wanted size in a screen's usable area
** (the screen less its panels): never larger, never outside, centred when
** no position is known. Plain numbers, no SDL: the window calls it with
** what SDL says of the screen, and the tests with any screen they like.
**
**   WinState s;
**   winstate_load(&s);                       // defaults when there is no file
**   WinRect r = winstate_fit(usable, frame, s.have_place ? &s.place : NULL, 1280, 800);
**   ...
**   winstate_save(&s);
*/
#ifndef ATTNLAB_WINSTATE_H
#define ATTNLAB_WINSTATE_H

#include <stdbool.h>
#include <stddef.h>

/* A rectangle in screen pixels. */
typedef struct WinRect { int x, y, w, h; } WinRect;

/* The window's decorations: how far the frame reaches past the window's
** own area on each side. */
typedef struct WinFrame { int top, left, bottom, right; } WinFrame;

typedef struct WinState {
    bool have_place;        /* place holds the last size and position */
    WinRect place;          /* the window's own area (without its frame) */
    bool hinted;            /* the first-run hint has been seen */
} WinState;

/* The smallest window (its own area). */
#define WIN_MIN_W 640
#define WIN_MIN_H 400

/* The remembered state, or the defaults (nothing placed, not hinted). */
void winstate_load(WinState *s);
/* Write it (atomically); 0, or -1 when it cannot be written (the window
** goes on: the next run opens at the default size). */
int winstate_save(const WinState *s);
/* The path of the state file into out (size n); 0 or -1 (no home). */
int winstate_path(char *out, size_t n);

/* Where a window goes in usable (the screen's usable area) with frame
** around it: at last (its last place) when given, else centred at want_w x
** want_h; in both cases made to fit: no larger than the area less the frame,
** no smaller than WIN_MIN_W x WIN_MIN_H unless the area is, and moved
** inside it. */
WinRect winstate_fit(WinRect usable, WinFrame frame, const WinRect *last, int want_w, int want_h);

#endif
