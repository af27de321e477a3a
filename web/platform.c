/*
** platform.c: the browser edition's platform layer, compiled to WebAssembly
** together with src/core, src/view and the app's state, actions and frame.
**
** It plays the part src/app/window.c plays on the desktop: it owns one
** AppState and one DrawList, turns key, pointer and wheel events (passed in
** from web/attnlab.js) into the same actions, and composes frames with
** app_frame. Text is measured by the page's canvas (js_measure below), the
** same font stack that draws it, so layout and drawing agree. The script
** reads the DrawList straight out of linear memory, using the field offsets
** web_cmd_layout reports, and draws it on a canvas.
**
** Usage from JavaScript (all functions are exported as Module._web_*):
**   _web_init(); _web_open(path);            bundled lessons live in /attnlab/lessons
**   d = _web_frame(w, h, now);                 a DrawList* for the canvas
**   _web_key(keyname, ctrl, shift); _web_hover(x, y); _web_click(x, y); ...
*/
#include "platform.h"
#include "app/frame.h"
#include "app/lang.h"
#include "app/prompt.h"
#include "app/state.h"
#include "core/i18n.h"
#include "core/stage.h"
#include "core/util.h"
#include "view/cmap.h"
#include "view/layout.h"
#include "view/svg.h"

#include <emscripten.h>
#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static AppState *web_app;
static DrawList *web_list;      /* the last frame: hit-testing reads it */
static DrawList *web_shot_list; /* the last export layout */
static int web_w = 1280, web_h = 800;

/* Text width from the canvas, in the font the canvas draws with. */
EM_JS(float, js_measure, (const char *text, float size, int bold), {
    return Module.attnlabMeasure(UTF8ToString(text), size, bold);
})

/* MeasureFn over js_measure. */
static float web_measure(void *ctx, const char *text, float size, int bold)
{
    (void)ctx;
    return js_measure(text, size, bold);
}

/* Create the state (once). */
EMSCRIPTEN_KEEPALIVE int web_init(void)
{
    if (!web_app) {
        web_app = app_create();
        web_app->web = true;
        web_list = draw_create(web_w, web_h);
        web_shot_list = draw_create(web_w, web_h);
        app_use_language(NULL);          /* the browser's (LANG, set by the page), until a lesson says */
    }
    return 0;
}

/* The page's own words, marked here so that they are in the catalogues:
** its buttons and the toasts attnlab.js shows (web_tr translates them). */
static const char *const page_words[] = {
    N_("Lessons"), N_("Open\xe2\x80\xa6"), N_("open a lesson first"), N_("downloaded %s"),
};

/* msgid in the interface's language now (the page's button labels and
** titles, its toasts): a translation, or msgid itself. */
EMSCRIPTEN_KEEPALIVE const char *web_tr(const char *msgid)
{
    (void)page_words;
    return _(msgid);
}

/* The interface's language now ("ja", "zh_CN"), or "en" without a catalogue. */
EMSCRIPTEN_KEEPALIVE const char *web_language(void)
{
    const char *l = i18n_language();
    return l && *l ? l : "en";
}

/* Open a lesson file of the in-memory file system; 0, or -1 (see web_error). */
EMSCRIPTEN_KEEPALIVE int web_open(const char *path)
{
    int r = app_open(web_app, path);
    if (r == 0) web_app->picker = false;
    return r;
}

/* The load error on screen ("" if none). */
EMSCRIPTEN_KEEPALIVE const char *web_error(void)
{
    return web_app->error;
}

/* Put an error on screen the way a failed load does (a lesson URL that
** cannot be fetched, a file that cannot be read). */
EMSCRIPTEN_KEEPALIVE void web_set_error(const char *msg)
{
    snprintf(web_app->error, sizeof web_app->error, "%s", msg);
}

/* Show a toast for two seconds: msg in the interface's language, with arg
** for its %s (NULL: none). */
EMSCRIPTEN_KEEPALIVE void web_toast(const char *msg, const char *arg, double now)
{
    web_app->now = now;
    const char *t = _(msg);
    if (arg && strstr(t, "%s") && !strchr(strstr(t, "%s") + 2, '%')) app_toast(web_app, t, arg);
    else app_toast(web_app, "%s", t);
}

/* Compose a frame of w x h pixels at app time now (seconds). */
EMSCRIPTEN_KEEPALIVE DrawList *web_frame(int w, int h, double now)
{
    web_w = w;
    web_h = h;
    web_app->now = now;
    app_frame(web_app, w, h, web_measure, NULL, web_list);
    return web_list;
}

/* How many ints web_cmd_layout writes: the length of WEB_LAYOUT_FIELDS in
** attnlab.js, which passes its own count so that a page and a module that
** disagree fail at once instead of reading offsets off by one field. */
#define WEB_LAYOUT_COUNT 35

/* Byte offsets of DrawCmd and DrawList fields the enum values and the
** dash pattern the script draws by, so it needs no copy of them: out receives the
** WEB_LAYOUT_COUNT ints in the order attnlab.js reads them
** (WEB_LAYOUT_FIELDS there), when n, the script's count, is the same.
** Returns WEB_LAYOUT_COUNT; out is left alone when n differs. */
EMSCRIPTEN_KEEPALIVE int web_cmd_layout(int *out, int n)
{
    int v[WEB_LAYOUT_COUNT];
    int i = 0;
    v[i++] = (int)sizeof(DrawCmd);
    v[i++] = (int)offsetof(DrawCmd, kind);
    v[i++] = (int)offsetof(DrawCmd, role);
    v[i++] = (int)offsetof(DrawCmd, color);
    v[i++] = (int)offsetof(DrawCmd, r);
    v[i++] = (int)offsetof(DrawCmd, width);
    v[i++] = (int)offsetof(DrawCmd, text);
    v[i++] = (int)offsetof(DrawCmd, size);
    v[i++] = (int)offsetof(DrawCmd, halign);
    v[i++] = (int)offsetof(DrawCmd, valign);
    v[i++] = (int)offsetof(DrawCmd, bold);
    v[i++] = (int)offsetof(DrawCmd, rotate);
    v[i++] = (int)offsetof(DrawCmd, dashed);
    v[i++] = (int)offsetof(DrawCmd, panel);
    v[i++] = (int)offsetof(DrawCmd, row);
    v[i++] = (int)offsetof(DrawCmd, col);
    v[i++] = (int)offsetof(DrawList, cmds);
    v[i++] = (int)offsetof(DrawList, n);
    v[i++] = (int)offsetof(DrawList, text);
    v[i++] = (int)offsetof(DrawList, background);
    v[i++] = DRAW_RECT;
    v[i++] = DRAW_LINE;
    v[i++] = DRAW_TEXT;
    v[i++] = ALIGN_CENTER;
    v[i++] = ALIGN_RIGHT;
    v[i++] = VALIGN_TOP;
    v[i++] = VALIGN_BOTTOM;
    v[i++] = ROLE_CELL;
    v[i++] = ROLE_CELL_TEXT;
    v[i++] = ROLE_TITLE;
    v[i++] = ROLE_OVERLAY;
    v[i++] = (int)offsetof(DrawList, pix);
    v[i++] = DRAW_IMAGE;
    v[i++] = DRAW_DASH_ON;
    v[i++] = DRAW_DASH_OFF;
    assert(i == WEB_LAYOUT_COUNT);
    if (n == WEB_LAYOUT_COUNT) memcpy(out, v, sizeof v);
    return WEB_LAYOUT_COUNT;
}

/* The pointer moved to (x, y); 1 if the hovered cell changed. */
EMSCRIPTEN_KEEPALIVE int web_hover(float x, float y)
{
    AppState *a = web_app;
    int p, r, c;
    draw_cell_at(web_list, x, y, &p, &r, &c);
    if (p == a->hover_panel && r == a->hover_row && c == a->hover_col) return 0;
    app_hover(a, p, r, c);
    return 1;
}

/* The pointer left the canvas. */
EMSCRIPTEN_KEEPALIVE void web_leave(void)
{
    app_hover(web_app, -1, -1, -1);
}

/* A click (or a tap) at (x, y): pin or unpin, or a guess in predict mode. */
EMSCRIPTEN_KEEPALIVE void web_click(float x, float y)
{
    int p, r, c;
    draw_cell_at(web_list, x, y, &p, &r, &c);
    app_hover(web_app, p, r, c);
    app_click(web_app, p, r, c);
}

/* The wheel over (x, y): steps up (positive) or down; 1 if an input changed. */
EMSCRIPTEN_KEEPALIVE int web_wheel(float x, float y, int steps, int fine)
{
    int p, r, c;
    draw_cell_at(web_list, x, y, &p, &r, &c);
    if (p < 0 || steps == 0) return 0;
    return app_scroll_edit(web_app, p, r, c, steps, fine != 0);
}

/* A key of the picker; true if it took it. */
static bool picker_key(AppState *a, const char *k)
{
    if (!strcmp(k, "ArrowUp")) app_picker_move(a, -1);
    else if (!strcmp(k, "ArrowDown")) app_picker_move(a, +1);
    else if (!strcmp(k, "Enter") || !strcmp(k, " ") || !strcmp(k, "ArrowRight")) app_picker_open(a);
    else if (k[0] >= '1' && k[0] <= '9' && !k[1] && k[0] - '1' < a->picker_n) {
        a->picker_sel = k[0] - '1';
        app_picker_open(a);
    } else return false;
    return true;
}

/* One key (KeyboardEvent.key) mapped to the actions window.c maps it to.
** S, Shift+S, Ctrl+S and O belong to the page (downloads, the file
** picker) and are handled in attnlab.js.
** Returns 1 if the key did something. */
EMSCRIPTEN_KEEPALIVE int web_key(const char *key, int ctrl, int shift)
{
    AppState *a = web_app;
    (void)shift;
    if (a->picker && picker_key(a, key)) return 1;
    if (ctrl) return 0;                    /* leave the browser's own shortcuts alone */
    char k = key[0] && !key[1] ? key[0] : 0;
    if (k >= 'A' && k <= 'Z') k = (char)(k - 'A' + 'a');
    if (!strcmp(key, "ArrowRight") || !strcmp(key, " ") || !strcmp(key, "PageDown") || !strcmp(key, "Enter")) app_next(a);
    else if (!strcmp(key, "ArrowLeft") || !strcmp(key, "Backspace") || !strcmp(key, "PageUp")) app_prev(a);
    else if (!strcmp(key, "Home")) app_first(a);
    else if (!strcmp(key, "End")) app_last(a);
    else if (!strcmp(key, "F11")) app_toggle_fullscreen(a);
    else if (!strcmp(key, "Escape")) app_escape(a);
    else switch (k) {
    case 'l': app_toggle_picker(a); break;
    case 'f': app_toggle_fullscreen(a); break;
    case '+': case '=': app_text_size(a, +1); break;
    case '-': app_text_size(a, -1); break;
    case 't': app_toggle_theme(a); break;
    case 'c': app_cycle_cmap(a); break;
    case 'b': app_toggle_black(a); break;
    case 'h': app_next_head(a); break;
    case 'm': app_toggle_mask(a); break;
    case 'k': app_toggle_scaling(a); break;
    case '[': app_temperature(a, -1); break;
    case ']': app_temperature(a, +1); break;
    case 'p': app_predict(a); break;
    case 'r': app_undo_all(a); break;
    case '?': app_toggle_help(a); break;
    default:
        if (k >= '1' && k <= '9') app_goto(a, k - '0');
        else return 0;
    }
    return 1;
}

/* Named actions for the page's buttons and touch gestures. */
EMSCRIPTEN_KEEPALIVE void web_action(const char *name)
{
    AppState *a = web_app;
    if (!strcmp(name, "next")) app_next(a);
    else if (!strcmp(name, "prev")) app_prev(a);
    else if (!strcmp(name, "bigger")) app_text_size(a, +1);
    else if (!strcmp(name, "smaller")) app_text_size(a, -1);
    else if (!strcmp(name, "picker")) app_toggle_picker(a);
    else if (!strcmp(name, "theme")) app_toggle_theme(a);
    else if (!strcmp(name, "fullscreen")) app_toggle_fullscreen(a);
    else if (!strcmp(name, "unpin")) app_click(a, -1, -1, -1);
    else if (!strcmp(name, "help")) app_toggle_help(a);
}

/* State the page follows: bit 0 fullscreen, bit 1 dark, bit 2 a lesson is
** open, bit 3 the picker is up, bit 4 the lesson has unsaved edits, bit 5
** the keys are shown. */
EMSCRIPTEN_KEEPALIVE int web_flags(void)
{
    AppState *a = web_app;
    return (a->fullscreen ? 1 : 0) | (a->dark ? 2 : 0) | (a->doc ? 4 : 0) | (a->picker ? 8 : 0)
         | (a->doc && a->doc->dirty ? 16 : 0)
         | (a->help ? 32 : 0);
}

/* The browser entered or left fullscreen on its own (Esc, a gesture). */
EMSCRIPTEN_KEEPALIVE void web_set_fullscreen(int on)
{
    web_app->fullscreen = on != 0;
}

/* Set the theme (the page follows prefers-color-scheme at start). */
EMSCRIPTEN_KEEPALIVE void web_set_dark(int on)
{
    web_app->dark = on != 0;
}

/* When the toast disappears, in app seconds (0: none). */
EMSCRIPTEN_KEEPALIVE double web_toast_until(void)
{
    return web_app->toast[0] ? web_app->toast_until : 0;
}

/* The open lesson's path in the in-memory file system, or "". */
EMSCRIPTEN_KEEPALIVE const char *web_path(void)
{
    return web_app->doc ? web_app->doc->path : "";
}

/* "<lesson>-<NN>-<stage>", the base name exports get, or "" with no lesson. */
EMSCRIPTEN_KEEPALIVE const char *web_shot_name(void)
{
    static char name[LESSON_MAX_NAME + 128];
    AppState *a = web_app;
    if (!a->doc) return "";
    const Lesson *L = a->doc->L;
    snprintf(name, sizeof name, "%s-%02d-%s", L->name, a->stage + 1, lesson_stage_name(L->stages[a->stage].id));
    return name;
}

/* The current stage as S exports it: laid out alone (no overlays) on a
** w x h canvas in the current theme and colormap. NULL with no lesson. */
EMSCRIPTEN_KEEPALIVE DrawList *web_shot(int w, int h)
{
    AppState *a = web_app;
    if (!a->view) return NULL;
    Theme th = layout_theme(a->dark);
    LayoutOpts lo = layout_defaults(w, h, &th, web_measure, NULL);
    lo.cmap = a->cmap >= 0 ? cmap_names()[a->cmap] : NULL;
    layout_view(a->layout, a->view, &lo, web_shot_list);
    return web_shot_list;
}

/* The last web_shot as an SVG document (the caller frees it with web_free). */
EMSCRIPTEN_KEEPALIVE char *web_shot_svg(void)
{
    AppState *a = web_app;
    if (!a->doc) return NULL;
    const Lesson *L = a->doc->L;
    const Stage *st = &L->stages[a->stage];
    char desc[300];
    snprintf(desc, sizeof desc, "%s: %s", lesson_stage_name(st->id), st->title ? st->title : stage_default_title(st->id));
    return svg_write(web_shot_list, L->title, desc, NULL);
}

/* Save the edited lesson into the in-memory file system (the page then
** downloads it). 0 or -1; the toast says what happened. */
EMSCRIPTEN_KEEPALIVE int web_save(double now)
{
    web_app->now = now;
    return app_save_lesson(web_app);
}

/* The explanation of the focused cell (caller frees with web_free), or NULL. */
EMSCRIPTEN_KEEPALIVE char *web_explain(void)
{
    return app_explain(web_app);
}

/* Free memory the module handed out. */
EMSCRIPTEN_KEEPALIVE void web_free(void *p)
{
    free(p);
}
