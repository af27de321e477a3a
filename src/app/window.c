/*
** window.c: the event loop. Events map to actions (state.c); a frame is
** drawn from the state (frame.c) only when something changed, so an idle
** window blocks in SDL_WaitEvent and uses no CPU. Drawing happens at the
** renderer's output size, so high-DPI screens get sharp text; mouse
** positions are scaled from window points to those pixels.
**
** With ATTNLAB_READY_FD=N in the environment, the window says on file
** descriptor N when a frame is on screen and nothing is waiting: one line
**     frame=F keys=K reloads=R toast=T key=NAME
** F frames drawn so far, K key presses handled, R changes of the lesson file
** picked up, T 1 while a passing message (a toast) is shown and 0 when not
** (its end draws a frame of its own), NAME the last key pressed (SDL's name,
** "-" before any). Before it come the words on screen that changed since
** the line before: "said toast=TEXT" for a new toast, "said note=TEXT"
** for the line under the slide (empty: none), on one line each. When the
** window closes, the last line is "quit". A
** program driving the window (tests/e2e.sh) waits for that line instead of
** sleeping: after its input it presses a key nothing is bound to (F12) and
** waits for a line that names it with a higher K, so the picture it then
** takes is the frame that follows all of its input.
**
** The pointer goes through the state too: a cell hovered or clicked, a
** head's panel of the comparison page (nav.h: a click shows its pages), a
** page of the slide sorter (sorter.h: picked, and a click goes there).
**
** Beyond the state's own keys the window opens files (O: the desktop's
** dialog, filedlg.h, else the program's path field; files dropped on it,
** library.h), saves pictures (S) and handouts (Ctrl+P, handout.h), and
** remembers its size, its place and the first-run hint (winstate.h).
*/
#define _POSIX_C_SOURCE 200809L
#include "window.h"
#include "filedlg.h"
#include "frame.h"
#include "handout.h"
#include "keys.h"
#include "lang.h"
#include "library.h"
#include "nav.h"
#include "paths.h"
#include "prompt.h"
#include "shot.h"
#include "sorter.h"
#include "state.h"
#include "watch.h"
#include "winstate.h"
#include "zoom.h"
#include "core/text/i18n.h"
#include "core/util.h"
#include "sdl/export.h"
#include "sdl/font.h"
#include "sdl/icon.h"
#include "sdl/render.h"
#include "view/cmap.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sdl/sdl_dyn.h"

#define FRAME_MS 16         /* at most about 60 frames a second */
#define DRAG_PX 4           /* a press that moves this far is a drag, not a click */
#define DIALOG_MS 50        /* how often an open file dialog is looked at */
#define DEFAULT_W 1280      /* the first window, when it fits */
#define DEFAULT_H 800

/* Everything the loop holds besides the state. */
typedef struct Win {
    SDL_Window *win;
    SDL_Renderer *ren;
    Render *rd;
    FontSet *fonts;
    DrawList *list;
    AppState *a;
    int out_w, out_h;       /* renderer output in pixels */
    float sx, sy;           /* pixels per window point */
    /* a press of the left button on a zoomed heatmap: a click, or a drag
    ** that moves the part once the pointer has gone DRAG_PX away */
    bool pressed, dragging;
    Uint16 mods;            /* Ctrl, Shift ... as of the last key event handled, in event order
                            ** (SDL_GetModState is the state after every event queued so far) */
    int press_x, press_y;   /* where it was pressed, window points */
    float drag_x, drag_y;   /* the pointer's last position while dragging, pixels */
    bool redraw;
    Uint32 last_frame;
    /* ATTNLAB_READY_FD (see the top of the file) */
    int ready_fd;           /* -1: nobody listens */
    bool unsaid;            /* a frame drawn since the last line */
    unsigned long frames, keys, reloads;
    char last_key[32];
    double said_toast;      /* the toast_until of the toast last said, and the note last said */
    char *said_note;
    WinState state;         /* what the next run remembers */
    FileDialog *dialog;     /* the desktop's file dialog while it is open */
    bool field_key;         /* the last key opened a text field: its typed character is not typed there */
    char **dropped;         /* files of a drop in progress */
    int ndropped;
    bool dropping;
    char *last_path;        /* the lesson last put in the recent files */
    int export_w, export_h; /* the handout's page size (--size, else the export default) */
    int want_w, want_h;     /* --size, or 0 */
    bool framed;            /* the window's frame was known and fitted in (fit_frame) */
} Win;

/* The descriptor ATTNLAB_READY_FD names, or -1 (unset, not a number, or
** not open: then a warning). A reader that goes away must not end the
** window with SIGPIPE: writes then fail with EPIPE instead. */
static int ready_fd_from_env(void)
{
    const char *v = getenv("ATTNLAB_READY_FD");
    if (!v || !*v) return -1;
    char *end;
    long fd = strtol(v, &end, 10);
    if (*end || fd < 0 || fd > INT_MAX || fcntl((int)fd, F_GETFD) < 0) {
        Error warn;
        error_set(&warn, ERR_INVALID, NULL, 0, 0, "ATTNLAB_READY_FD=%s is not an open file descriptor; ignored", v);
        error_warn(&warn, stderr);
        return -1;
    }
    signal(SIGPIPE, SIG_IGN);
    return (int)fd;
}

/* One line to the ATTNLAB_READY_FD reader. A failed write (the reader is
** gone) ends the announcements. */
static void say_line(Win *w, const char *line)
{
    if (w->ready_fd < 0) return;
    const char *p = line;
    size_t left = strlen(line);
    while (left > 0) {
        ssize_t k = write(w->ready_fd, p, left);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) {
            w->ready_fd = -1;
            break;
        }
        p += k;
        left -= (size_t)k;
    }
}

/* "said WHAT=TEXT" to the ATTNLAB_READY_FD reader, the text on one line. */
static void say_words(Win *w, const char *what, const char *text)
{
    char line[1200];
    snprintf(line, sizeof line, "said %s=%s\n", what, text);
    for (char *c = line; c[0] && c[1]; c++)
        if (*c == '\n') *c = ' ';
    say_line(w, line);
}

/* Tell the ATTNLAB_READY_FD reader that the last frame is on screen, after
** the words on it that changed: a new toast, the slide's note. */
static void say_ready(Win *w)
{
    char line[128];
    bool toast = w->a->toast[0] && w->a->toast_until > w->a->now;
    if (toast && w->a->toast_until != w->said_toast) say_words(w, "toast", w->a->toast);
    w->said_toast = w->a->toast_until;
    const char *note = w->a->view && w->a->view->note ? w->a->view->note : "";
    if (!w->said_note || strcmp(note, w->said_note)) {
        say_words(w, "note", note);
        free(w->said_note);
        w->said_note = xstrdup(note);
    }
    snprintf(line, sizeof line, "frame=%lu keys=%lu reloads=%lu toast=%d key=%s\n", w->frames, w->keys,
             w->reloads, toast ? 1 : 0, w->last_key[0] ? w->last_key : "-");
    say_line(w, line);
    w->unsaid = false;
}

/* Without a display: say so, and what works without one. */
static int no_display(const char *reason)
{
    Error err;
    error_set(&err, ERR_RUNTIME, NULL, 0, 0, _("no display (%s): the window cannot open; "
                                              "attnlab --export DIR LESSON writes the pictures without one"), reason);
    error_print(&err, stderr);
    return error_exit_code(&err);
}

/*
** Choose SDL's video driver from the environment, so that a display that
** cannot be reached is said as such: with WAYLAND_DISPLAY unset, X11 only
** (a broken DISPLAY would otherwise make SDL try Wayland too, whose library
** prints its own complaint about XDG_RUNTIME_DIR). SDL_VIDEODRIVER set by
** the user wins.
*/
static void choose_driver(void)
{
    if (getenv("SDL_VIDEODRIVER")) return;
    const char *wl = getenv("WAYLAND_DISPLAY");
    SDL_SetHint(SDL_HINT_VIDEODRIVER, wl && *wl ? "wayland,x11" : "x11");
}

/* SDL falls back to drivers that draw nowhere (offscreen, dummy) when there
** is no display; unless the user asked for one by name, that is no display. */
static bool real_display(void)
{
    const char *drv = SDL_GetCurrentVideoDriver();
    if (!drv) return false;
    if (strcmp(drv, "offscreen") && strcmp(drv, "dummy")) return true;
    const char *asked = SDL_getenv("SDL_VIDEODRIVER");
    if (asked && !strcmp(asked, drv)) return true;
    SDL_SetError("only the %s video driver is available", drv);
    return false;
}

/* The cell under a window point, in pixels of the last frame. */
static void cell_at(const Win *w, int x, int y, int *panel, int *row, int *col)
{
    draw_cell_at(w->list, (float)x * w->sx, (float)y * w->sy, panel, row, col);
}

/* The panel whose cell or title is under a window point (draw_panel_at). */
static int panel_at(const Win *w, int x, int y)
{
    return draw_panel_at(w->list, (float)x * w->sx, (float)y * w->sy);
}

/* The slide sorter's page under a window point, or -1. */
static int sorter_at(const Win *w, int x, int y)
{
    return app_sorter_at(w->a, w->out_w, w->out_h, (float)x * w->sx, (float)y * w->sy);
}

/* Drag the zoomed part with the pointer: the cells under it follow it. */
static void drag_to(Win *w, float x, float y)
{
    Rect cell;
    if (!draw_cell_rect(w->list, 0, 0, 0, &cell) || !(cell.w > 0) || !(cell.h > 0)) return;
    app_zoom_pan(w->a, -(y - w->drag_y) / cell.h, -(x - w->drag_x) / cell.w);
    w->drag_x = x;
    w->drag_y = y;
}

/* Make the window follow the state's fullscreen flag. */
static void sync_fullscreen(Win *w)
{
    bool is = (SDL_GetWindowFlags(w->win) & SDL_WINDOW_FULLSCREEN_DESKTOP) != 0;
    if (is != w->a->fullscreen) SDL_SetWindowFullscreen(w->win, w->a->fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP : 0);
}

/* S: the current stage (its sub-step) as a PNG, as the class sees it: the
** window's size, text scale, theme, colormap, head, toggles and pinned
** explanation (the frame without its toast), in the shots directory,
** created when missing. */
static void save_shot(Win *w)
{
    AppState *a = w->a;
    if (!a->doc) return;
    const Lesson *L = a->doc->L;
    Error err;
    if (app_shot_ensure_dir(a->shots_dir, &err) != 0) {
        char why[ERROR_LINE_MAX];
        error_brief(&err, why, sizeof why);
        app_toast(a, "%s", why);
        return;
    }
    char *path = app_shot_slide_path(a, a->shots_dir, false);
    double until = a->toast_until;
    a->toast_until = 0;                     /* the frame as it is, without the toast */
    app_frame(a, w->out_w, w->out_h, font_measure, w->fonts, w->list);
    a->toast_until = until;
    Canvas *c = canvas_create(w->out_w, w->out_h);
    if (c && render_drawlist(w->rd, w->list, NULL) == 0
        && SDL_RenderReadPixels(w->ren, NULL, SDL_PIXELFORMAT_ARGB8888, c->pixels, (int)(c->stride * sizeof *c->pixels)) == 0) {
        char desc[300], why[ERROR_LINE_MAX];
        app_shot_desc(L, a->stage, desc, sizeof desc);
        ExportMeta meta = { L->title, desc };
        if (export_png(c, path, &meta, &err) == 0) {
            app_toast(a, _("saved %s"), path);
        } else {
            error_brief(&err, why, sizeof why);
            app_toast(a, "%s", why);
        }
    } else {
        app_toast(a, _("cannot read the window's pixels: %s"), c ? SDL_GetError() : "no memory");
    }
    canvas_free(c);
    w->redraw = true;
    free(path);
}

/* Ctrl+P: the lesson as a PDF handout in the shots folder, as the window
** shows it (its edits, theme and colormap). */
static void save_handout(Win *w)
{
    AppState *a = w->a;
    if (!a->doc) return;
    ShotOpts o = app_shot_defaults();
    o.width = w->export_w;
    o.height = w->export_h;
    o.dark = a->dark;
    o.cmap = a->cmap >= 0 ? cmap_names()[a->cmap] : NULL;
    o.pager = a->pager;                     /* the pages the window shows */
    LayoutCache *lc = layout_cache_create();
    char *path = app_handout_path(a->shots_dir, a->doc->L), why[ERROR_LINE_MAX];
    int pages;
    Error err;
    ExportBudget budget;
    if (cli_export_begin(&budget, NULL, a->doc->L, a->doc->T, a->pager, &err)
        && app_handout_write(w->fonts, lc, a->doc->L, a->doc->T, &o, &budget, path, &pages, &err) == 0) {
        app_toast(a, _("saved %s (%d pages)"), path, pages);
    } else {
        error_brief(&err, why, sizeof why);
        app_toast(a, "%s", why);
    }
    layout_cache_free(lc);
    free(path);
}

/* The folder of the open lesson, else the current one, into out (size n). */
static void lesson_folder(const AppState *a, char *out, size_t n)
{
    const char *path = a->doc ? a->doc->path : NULL, *slash = path ? strrchr(path, '/') : NULL;
    if (slash) snprintf(out, n, "%.*s", slash == path ? 1 : (int)(slash - path), path);
    else if (!getcwd(out, n)) snprintf(out, n, ".");
}

/* O: the desktop's file dialog when there is one, else the path field. */
static void open_file(Win *w)
{
    char dir[PATH_MAX];
    if (w->dialog) return;                  /* one is open already */
    lesson_folder(w->a, dir, sizeof dir);
    w->dialog = filedlg_start(dir, _("Open a lesson"));
    if (!w->dialog) app_open_file_start(w->a, dir);
}

/* An open dialog: done yet? Then open what was chosen. */
static void poll_dialog(Win *w)
{
    char *path;
    if (!w->dialog || !filedlg_poll(w->dialog, &path)) return;
    filedlg_free(w->dialog);
    w->dialog = NULL;
    if (path) app_request_open(w->a, path);
    free(path);
    w->redraw = true;
}

/* Files dropped on the window: collected from the start of a drop to its
** end (SDL reports each file), then opened. */
static void on_drop(Win *w, const SDL_DropEvent *d)
{
    if (d->type == SDL_DROPBEGIN) {
        w->dropping = true;
    } else if (d->type == SDL_DROPFILE && d->file) {
        w->dropped = xrealloc(w->dropped, sizeof *w->dropped * (size_t)(w->ndropped + 1));
        w->dropped[w->ndropped++] = xstrdup(d->file);
    }
    if (d->type == SDL_DROPCOMPLETE || (d->type == SDL_DROPFILE && !w->dropping)) {
        app_open_dropped(w->a, w->dropped, w->ndropped);
        for (int i = 0; i < w->ndropped; i++) free(w->dropped[i]);
        free(w->dropped);
        w->dropped = NULL;
        w->ndropped = 0;
        w->dropping = false;
        w->redraw = true;
    }
    if (d->file) SDL_free(d->file);
}

/* SDL's key code as the key table's (keys.h): printable keys are their
** characters already; the others by this list. */
static int key_code(SDL_Keycode sym, bool shift)
{
    static const struct { SDL_Keycode sdl; int key; } special[] = {
        { SDLK_RETURN, KEY_ENTER }, { SDLK_KP_ENTER, KEY_ENTER }, { SDLK_ESCAPE, KEY_ESCAPE },
        { SDLK_BACKSPACE, KEY_BACKSPACE }, { SDLK_LEFT, KEY_LEFT }, { SDLK_RIGHT, KEY_RIGHT },
        { SDLK_UP, KEY_UP }, { SDLK_DOWN, KEY_DOWN }, { SDLK_HOME, KEY_HOME }, { SDLK_END, KEY_END },
        { SDLK_PAGEUP, KEY_PAGEUP }, { SDLK_PAGEDOWN, KEY_PAGEDOWN }, { SDLK_F11, KEY_F11 },
        { SDLK_KP_PLUS, '+' }, { SDLK_KP_MINUS, '-' }, { SDLK_TAB, KEY_TAB },
    };
    if (sym == SDLK_SLASH && shift) return '?';
    for (size_t i = 0; i < sizeof special / sizeof *special; i++)
        if (special[i].sdl == sym) return special[i].key;
    return sym >= 0x20 && sym < 0x7f ? (int)sym : KEY_NONE;
}

/* One key press: the key table's action, and the window's own (S, Ctrl+S,
** O, Ctrl+P). A key that opens a text field brings its own character as
** typed text next: that one is not typed into the field. */
static void on_key(Win *w, const SDL_KeyboardEvent *k)
{
    bool shift = (k->keysym.mod & KMOD_SHIFT) != 0, asked = w->a->ask != ASK_NONE;
    unsigned mods = ((k->keysym.mod & KMOD_CTRL) ? KEYMOD_CTRL : 0) | (shift ? KEYMOD_SHIFT : 0);
    switch (app_key(w->a, EDITION_DESKTOP, key_code(k->keysym.sym, shift), mods)) {
    case ACT_SHOT: save_shot(w); break;
    case ACT_SAVE: app_save_lesson(w->a); break;
    case ACT_OPEN: open_file(w); break;
    case ACT_PDF: save_handout(w); break;
    default: break;
    }
    w->field_key = !asked && w->a->ask != ASK_NONE;
}

/*
** Where the window goes: the last place when no size was asked for, else
** the size asked (or 1280x800) centred, in both cases within the usable
** area of the display (the screen less its panels), its frame too.
*/
static WinRect placement(const Win *w, int display, WinFrame frame, int want_w, int want_h)
{
    SDL_Rect u;
    if (SDL_GetDisplayUsableBounds(display, &u) != 0 && SDL_GetDisplayBounds(display, &u) != 0)
        u = (SDL_Rect){ 0, 0, want_w ? want_w : DEFAULT_W, want_h ? want_h : DEFAULT_H };
    WinRect usable = { u.x, u.y, u.w, u.h };
    bool remembered = !want_w && w->state.have_place;
    return winstate_fit(usable, frame, remembered ? &w->state.place : NULL, want_w ? want_w : DEFAULT_W,
                        want_h ? want_h : DEFAULT_H);
}

/*
** The window within the usable area with its frame too. The frame is known
** only once the window manager has framed the window (after it is shown,
** when SDL has read _NET_FRAME_EXTENTS): until then each window event tries
** again; the first time it is known, the window is made smaller or moved if
** the frame reaches past the area, once.
*/
static void fit_frame(Win *w)
{
    WinFrame f;
    if (w->framed || SDL_GetWindowBordersSize(w->win, &f.top, &f.left, &f.bottom, &f.right) != 0
        || !(f.top || f.left || f.bottom || f.right))
        return;
    w->framed = true;
    if (SDL_GetWindowFlags(w->win) & (SDL_WINDOW_FULLSCREEN | SDL_WINDOW_MAXIMIZED)) return;
    int display = SDL_GetWindowDisplayIndex(w->win);
    WinRect now, g = placement(w, display < 0 ? 0 : display, f, w->want_w, w->want_h);
    SDL_GetWindowSize(w->win, &now.w, &now.h);
    SDL_GetWindowPosition(w->win, &now.x, &now.y);
    if (g.w != now.w || g.h != now.h) SDL_SetWindowSize(w->win, g.w, g.h);
    if (g.x != now.x || g.y != now.y) SDL_SetWindowPosition(w->win, g.x, g.y);
}

/* One event; sets w->redraw when the picture may change. */
static void on_event(Win *w, const SDL_Event *e)
{
    AppState *a = w->a;
    int p, r, c;
    switch (e->type) {
    case SDL_QUIT: app_request_quit(a); w->redraw = true; break;
    case SDL_KEYUP:
        w->mods = e->key.keysym.mod;
        break;
    case SDL_KEYDOWN:
        w->mods = e->key.keysym.mod;
        w->keys++;
        snprintf(w->last_key, sizeof w->last_key, "%s", SDL_GetKeyName(e->key.keysym.sym));
        if (a->first_hint) {                 /* the first key: the hint has done its job */
            a->first_hint = false;
            w->state.hinted = true;
        }
        on_key(w, &e->key);
        sync_fullscreen(w);
        w->redraw = true;
        break;
    case SDL_TEXTINPUT:
        if (!w->field_key) app_ask_type(a, e->text.text);
        w->field_key = false;
        w->redraw = true;
        break;
    case SDL_DROPBEGIN: case SDL_DROPFILE: case SDL_DROPTEXT: case SDL_DROPCOMPLETE:
        on_drop(w, &e->drop);
        break;
    case SDL_MOUSEMOTION:
        if (w->pressed && !w->dragging && (abs(e->motion.x - w->press_x) >= DRAG_PX || abs(e->motion.y - w->press_y) >= DRAG_PX)) {
            w->dragging = true;
            w->drag_x = (float)w->press_x * w->sx;
            w->drag_y = (float)w->press_y * w->sy;
        }
        if (w->dragging) {
            drag_to(w, (float)e->motion.x * w->sx, (float)e->motion.y * w->sy);
            w->redraw = true;
            break;
        }
        if (a->sorter) {                       /* the page under the pointer is the one picked */
            p = sorter_at(w, e->motion.x, e->motion.y);
            if (p >= 0 && p != a->sorter_sel) {
                app_sorter_select(a, p);
                w->redraw = true;
            }
            break;
        }
        p = a->nav_point;
        app_nav_point(a, panel_at(w, e->motion.x, e->motion.y));   /* a head of the comparison page: says so */
        if (p != a->nav_point) w->redraw = true;
        cell_at(w, e->motion.x, e->motion.y, &p, &r, &c);
        if (p != a->hover_panel || r != a->hover_row || c != a->hover_col) {
            app_hover(a, p, r, c);
            w->redraw = true;
        }
        break;
    case SDL_MOUSEBUTTONDOWN:
        if (e->button.button != SDL_BUTTON_LEFT || a->ask) break;   /* a question is open: only keys */
        if (a->sorter) {                       /* a page of the sorter: go there */
            p = sorter_at(w, e->button.x, e->button.y);
            if (p >= 0) {
                app_sorter_select(a, p);
                app_sorter_go(a);
                w->redraw = true;
            }
            break;
        }
        if (app_zoomed(a)) {                   /* a click or a drag: the release says */
            w->pressed = true;
            w->dragging = false;
            w->press_x = e->button.x;
            w->press_y = e->button.y;
            break;
        }
        w->redraw = true;
        if (app_nav_click(a, panel_at(w, e->button.x, e->button.y))) break;   /* a head of the comparison page */
        cell_at(w, e->button.x, e->button.y, &p, &r, &c);
        app_click(a, p, r, c);
        break;
    case SDL_MOUSEBUTTONUP:
        if (e->button.button != SDL_BUTTON_LEFT || !w->pressed) break;
        if (!w->dragging) {                    /* it did not move: a click on the zoomed part */
            cell_at(w, w->press_x, w->press_y, &p, &r, &c);
            app_click(a, p, r, c);
        }
        w->pressed = w->dragging = false;
        w->redraw = true;
        break;
    case SDL_MOUSEWHEEL: {
        if (a->sorter) break;                  /* no cell to edit under the sorter */
        int mx, my;
        SDL_GetMouseState(&mx, &my);
        cell_at(w, mx, my, &p, &r, &c);
        int steps = e->wheel.y * (e->wheel.direction == SDL_MOUSEWHEEL_FLIPPED ? -1 : 1);
        if (steps != 0 && !a->ask && (w->mods & KMOD_CTRL)) {         /* Ctrl+wheel: zoom at the pointer */
            app_zoom(a, p, r, c, steps > 0 ? +1 : -1);
            w->redraw = true;
        } else if (p >= 0 && steps != 0 && !a->ask) {
            app_scroll_edit(a, p, r, c, steps, (w->mods & KMOD_SHIFT) != 0);
            w->redraw = true;
        }
        break;
    }
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_LEAVE) app_hover(a, -1, -1, -1);
        if (e->window.event == SDL_WINDOWEVENT_FOCUS_GAINED) w->mods = (Uint16)SDL_GetModState();
        fit_frame(w);
        w->redraw = true;
        break;
    case SDL_RENDER_TARGETS_RESET:             /* textures kept, contents lost */
        render_invalidate(w->rd);
        w->redraw = true;
        break;
    case SDL_RENDER_DEVICE_RESET: {            /* the textures themselves are gone */
        Render *fresh = render_create(w->ren, w->fonts, NULL);      /* else the old one goes on trying */
        if (fresh) {
            render_free(w->rd);
            w->rd = fresh;
        }
        w->redraw = true;
        break;
    }
    default: break;
    }
}

/* Draw a frame from the state. */
static void draw(Win *w)
{
    int ww, wh;
    SDL_GetRendererOutputSize(w->ren, &w->out_w, &w->out_h);
    SDL_GetWindowSize(w->win, &ww, &wh);
    w->sx = ww > 0 ? (float)w->out_w / (float)ww : 1.0f;
    w->sy = wh > 0 ? (float)w->out_h / (float)wh : 1.0f;
    w->a->now = SDL_GetTicks() / 1000.0;
    /* After a stage change the pointer may rest on a new cell: hover it
    ** without waiting for the mouse to move (the page is planned once). */
    int mx, my;
    SDL_GetMouseState(&mx, &my);
    app_frame_pointer(w->a, w->out_w, w->out_h, font_measure, w->fonts, w->list, SDL_GetMouseFocus() == w->win,
                      (float)mx * w->sx, (float)my * w->sy);
    render_drawlist(w->rd, w->list, NULL);          /* a glyph that cannot be drawn is missing from this frame */
    SDL_RenderPresent(w->ren);
    w->last_frame = SDL_GetTicks();
    w->redraw = false;
    w->frames++;
    w->unsaid = true;
}

/* A lesson opened since the last look goes first in the recent files. */
static void note_recent(Win *w)
{
    const char *p = w->a->doc ? w->a->doc->path : NULL;
    if (!p || (w->last_path && !strcmp(p, w->last_path))) return;
    free(w->last_path);
    w->last_path = xstrdup(p);
    app_recent_add(p);
}

/* The loop: block for events, draw when needed, at most 60 times a second. */
static void run(Win *w)
{
    AppState *a = w->a;
    while (!a->quit) {
        SDL_Event e;
        double now = SDL_GetTicks() / 1000.0;
        int timeout = -1;                        /* nothing scheduled: sleep */
        if (a->toast[0] && a->toast_until > now) timeout = (int)((a->toast_until - now) * 1000) + 20;
        a->now = now;
        int watch = app_watch_due_ms(a);         /* a look at the lesson file twice a second */
        if (watch >= 0 && (timeout < 0 || watch < timeout)) timeout = watch;
        if (w->dialog && (timeout < 0 || timeout > DIALOG_MS)) timeout = DIALOG_MS;
        bool toast_was = a->toast[0] && a->toast_until > now;
        if (w->ready_fd >= 0 && w->unsaid) {
            SDL_PumpEvents();
            if (!SDL_HasEvents(SDL_FIRSTEVENT, SDL_LASTEVENT)) say_ready(w);   /* about to sleep */
        }
        int got = timeout < 0 ? SDL_WaitEvent(&e) : SDL_WaitEventTimeout(&e, timeout);
        a->now = SDL_GetTicks() / 1000.0;
        if (got) {
            on_event(w, &e);
            while (!a->quit && SDL_PollEvent(&e)) on_event(w, &e);
        }
        if (toast_was && a->now >= a->toast_until) w->redraw = true;   /* the toast expired */
        if (app_watch_poll(a)) {
            w->reloads++;
            w->redraw = true;
        }
        poll_dialog(w);
        note_recent(w);
        if (w->redraw && !a->quit) {
            Uint32 since = SDL_GetTicks() - w->last_frame;
            if (since < FRAME_MS) SDL_Delay(FRAME_MS - since);
            draw(w);
        }
    }
}

/* Open the window hidden, where placement says (shown by show_window
** once its renderer is made: making one can make the window anew). */
static SDL_Window *open_window(Win *w, const char *title)
{
    WinFrame none = { 0, 0, 0, 0 };
    WinRect r = placement(w, 0, none, w->want_w, w->want_h);
    w->win = SDL_CreateWindow(title, r.x, r.y, r.w, r.h, SDL_WINDOW_HIDDEN | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    return w->win;
}

/* Show the window and fit its frame in (fit_frame). */
static void show_window(Win *w)
{
    SDL_ShowWindow(w->win);
    SDL_PumpEvents();                   /* the window manager's word on the frame, when it has come */
    fit_frame(w);
}

/* Remember the window's place (not a fullscreen one's) and the hint. */
static void remember(Win *w)
{
    if (!(SDL_GetWindowFlags(w->win) & (SDL_WINDOW_FULLSCREEN | SDL_WINDOW_MAXIMIZED))) {
        SDL_GetWindowPosition(w->win, &w->state.place.x, &w->state.place.y);
        SDL_GetWindowSize(w->win, &w->state.place.w, &w->state.place.h);
        w->state.have_place = true;
    }
    winstate_save(&w->state);
}

/* Open SDL's video; "" in reason (size n), or why there is no display. */
static void start_video(char *reason, size_t n)
{
    reason[0] = '\0';
    if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY") && !getenv("SDL_VIDEODRIVER")) {
        snprintf(reason, n, "%s", _("DISPLAY and WAYLAND_DISPLAY are not set"));
        return;
    }
    /* SDL is loaded here, not when the program starts (sdl/sdl_dyn.h). */
    if (sdl_load(reason, n) != 0) return;
    SDL_SetHint(SDL_HINT_VIDEO_ALLOW_SCREENSAVER, "1");
    choose_driver();
    if (SDL_Init(SDL_INIT_VIDEO) != 0 || !real_display()) {
        const char *d = getenv("DISPLAY");
        if (d && *d && !getenv("WAYLAND_DISPLAY")) snprintf(reason, n, _("cannot connect to DISPLAY=%s"), d);
        else snprintf(reason, n, "%s", SDL_GetError());
        SDL_Quit();
    }
}

/* Open the window and run. */
int app_window(const WindowArgs *args)
{
    AppState *a = app_create();
    app_use_language(NULL);            /* until a lesson says otherwise */
    if (args->path && app_open(a, args->path) != 0) {
        fprintf(stderr, "%s\n", a->error);
        int code = a->error_code;
        app_free(a);
        return code;
    }
    free(a->shots_dir);
    a->shots_dir = xstrdup(args->shots);
    a->folders = xcalloc((size_t)args->nfolders + 1, sizeof *a->folders);
    for (int i = 0; i < args->nfolders; i++) a->folders[a->nfolders++] = xstrdup(args->folders[i]);
    char reason[300];
    start_video(reason, sizeof reason);
    if (reason[0]) {
        app_free(a);
        return no_display(reason);
    }
    Win w;
    Error err;
    memset(&w, 0, sizeof w);
    w.a = a;
    w.ready_fd = ready_fd_from_env();
    w.export_w = args->width ? args->width : app_shot_defaults().width;
    w.export_h = args->height ? args->height : app_shot_defaults().height;
    winstate_load(&w.state);
    a->first_hint = !w.state.hinted;
    w.fonts = font_create(args->font, &err);
    if (!w.fonts) {
        error_print(&err, stderr);
        app_free(a);
        SDL_Quit();
        return error_exit_code(&err);
    }
    app_set_measure(a, font_measure, w.fonts);      /* pages cut as these fonts lay them out */
    font_warm(w.fonts);                 /* fontconfig starts while the window opens */
    w.want_w = args->width;
    w.want_h = args->height;
    open_window(&w, a->doc ? a->doc->L->title : "attnlab");
    if (w.win) w.ren = SDL_CreateRenderer(w.win, -1, SDL_RENDERER_PRESENTVSYNC);
    if (w.win && !w.ren) w.ren = SDL_CreateRenderer(w.win, -1, SDL_RENDERER_SOFTWARE);
    if (w.ren) w.rd = render_create(w.ren, w.fonts, NULL);
    if (!w.rd) {
        error_set(&err, ERR_RUNTIME, NULL, 0, 0, _("cannot open a window: %s"), SDL_GetError());
        error_print(&err, stderr);
        if (w.ren) SDL_DestroyRenderer(w.ren);
        if (w.win) SDL_DestroyWindow(w.win);
        font_free(w.fonts);
        app_free(a);
        SDL_Quit();
        return 1;
    }
    SDL_SetWindowMinimumSize(w.win, WIN_MIN_W, WIN_MIN_H);
    SDL_Surface *icon = icon_create(64);
    if (icon) {
        SDL_SetWindowIcon(w.win, icon);
        SDL_FreeSurface(icon);
    }
    SDL_SetWindowTitle(w.win, "attnlab");
    show_window(&w);
    w.list = draw_create(DEFAULT_W, DEFAULT_H);
    if (!a->doc) app_toggle_picker(a);
    note_recent(&w);
    w.redraw = true;
    draw(&w);
    run(&w);
    remember(&w);
    say_line(&w, "quit\n");
    filedlg_free(w.dialog);
    for (int i = 0; i < w.ndropped; i++) free(w.dropped[i]);
    free(w.dropped);
    free(w.last_path);
    free(w.said_note);
    draw_free(w.list);
    render_free(w.rd);
    SDL_DestroyRenderer(w.ren);
    SDL_DestroyWindow(w.win);
    font_free(w.fonts);
    app_free(a);
    SDL_Quit();
    return 0;
}
