/*
** platform.c: the browser edition's platform layer, compiled to WebAssembly
** together with src/core, src/view and the app's state, actions and frame.
**
** It plays the part src/app/window.c plays on the desktop: it owns one
** AppState and one DrawList, turns key, pointer and wheel events (passed in
** from web/attnlab.js) into the same actions through the same key table
** (src/app/keys.c), and composes frames with app_frame; a stage's picture
** is laid out, described and named as the desktop's (src/app/picture.c),
** and the page downloads it. Text is measured by
** the page's canvas (js_measure below), the same font stack that draws it,
** so layout and drawing agree. The script reads the DrawList straight out
** of linear memory, using the field offsets web_layout reports, and draws
** it on a canvas.
**
** The page carries one zip archive, its bundle: the bundled lessons (and
** the files they load) and the message catalogues, deflated. The lessons
** are extracted into the in-memory file system at start; a catalogue only
** when the program looks for it (app_catalogue_source), so only the one in
** use is ever inflated.
**
** Usage from JavaScript (all functions are exported as Module._web_*):
**   _web_init(); _web_open(path);             bundled lessons live in WEB_LESSONS
**   d = _web_frame(w, h, now);                 a DrawList* for the canvas
**   _web_key(key, ctrl, shift, now); _web_action(name, now); _web_hover(x, y); ...
*/
#include "platform.h"
#include "app/cells.h"
#include "app/describe.h"
#include "app/frame.h"
#include "app/keys.h"
#include "app/lang.h"
#include "app/link.h"
#include "app/nav.h"
#include "app/paths.h"
#include "app/picture.h"
#include "app/prompt.h"
#include "app/sorter.h"
#include "app/state.h"
#include "core/text/i18n.h"
#include "core/lesson/lesson_model.h"
#include "core/stage/stage.h"
#include "core/util.h"
#include "core/io/zipread.h"
#include "view/cmap.h"
#include "view/layout.h"
#include "view/svg.h"
#include "view/text.h"

#include <emscripten.h>
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define WEB_DATA    ATTNLAB_DATADIR
#define WEB_LESSONS ATTNLAB_DATADIR "/lessons"
#define WEB_BUNDLE  ATTNLAB_DATADIR "/bundle.zip"

static AppState *web_app;
static DrawList *web_list;      /* the last frame: hit-testing reads it */
static DrawList *web_shot_list; /* the last export layout */
static int web_w = 1280, web_h = 800;
static unsigned char *bundle_bytes;   /* the page's bundle, read once */
static ZipArchive *bundle;

/* Text width from the canvas, in the font the canvas draws with. */
EM_JS(float, js_measure, (const char *text, float size, int bold), {
    return Module.attnlabMeasure(text, size, bold);
})

/* MeasureFn over js_measure. */
static float web_measure(void *ctx, const char *text, float size, int bold)
{
    (void)ctx;
    return js_measure(text, size, bold);
}

/* mkdir -p of the directories above path. */
static void make_parents(const char *path)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        mkdir(dir, 0755);
        *p = '/';
    }
}

/* Member name of the bundle written to path (owner-writable only, as the
** program wants a catalogue); 0, or -1 when it is not in the bundle. */
static int bundle_extract(const char *name, const char *path)
{
    int i = bundle ? zip_read_find(bundle, name) : -1;
    if (i < 0) return -1;
    size_t len;
    Error why, err;
    unsigned char *data = zip_read_extract(bundle, i, &len, NULL, &why);
    if (!data) {
        error_set(&err, why.kind, NULL, 0, 0, "the page's bundle is damaged: %s: %.200s", name, why.msg);
        error_print(&err, stderr);
        return -1;
    }
    make_parents(path);
    FILE *f = fopen(path, "wb");
    int r = f && fwrite(data, 1, len, f) == len ? 0 : -1;
    if (f && fclose(f) != 0) r = -1;
    if (r == 0) chmod(path, 0644);             /* writable by its owner only: lang.c trusts nothing else */
    free(data);
    return r;
}

/* app_catalogue_source: the catalogue of code, out of the bundle, the
** first time the program looks for it. */
static int bundle_catalogue(const char *code)
{
    char name[64], path[256];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s/LC_MESSAGES/attnlab.mo", ATTNLAB_LOCALEDIR, code);
    if (stat(path, &st) == 0) return 0;
    snprintf(name, sizeof name, "locale/%s.mo", code);
    return bundle_extract(name, path);
}

/* The bundle's lessons (and the files they load) into WEB_LESSONS. */
static void bundle_lessons(void)
{
    for (int i = 0; bundle && i < zip_read_count(bundle); i++) {
        const char *name = zip_read_entry(bundle, i)->name;
        if (strncmp(name, "lessons/", 8) || name[strlen(name) - 1] == '/') continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", WEB_DATA, name);
        bundle_extract(name, path);
    }
}

/* Open the bundle the page wrote to WEB_BUNDLE. */
static void bundle_open(void)
{
    FILE *f = fopen(WEB_BUNDLE, "rb");
    if (!f) return;
    long len = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (len > 0 && fseek(f, 0, SEEK_SET) == 0) {
        bundle_bytes = xmalloc((size_t)len);
        Error why, err;
        error_set(&why, ERR_IO, NULL, 0, 0, "cannot read");
        if (fread(bundle_bytes, 1, (size_t)len, f) == (size_t)len)
            bundle = zip_read_open(bundle_bytes, (size_t)len, &why);
        if (!bundle) {
            error_set(&err, why.kind, NULL, 0, 0, "the page's bundle cannot be read: %.200s", why.msg);
            error_print(&err, stderr);
        }
    }
    fclose(f);
}

/* Create the state (once): the bundle's lessons in place, the catalogues
** on demand, the browser's language until a lesson says. */
EMSCRIPTEN_KEEPALIVE int web_init(void)
{
    if (!web_app) {
        bundle_open();
        bundle_lessons();
        app_catalogue_source(bundle_catalogue);
        web_app = app_create();
        web_app->web = true;
        app_set_measure(web_app, web_measure, NULL);    /* pages cut as the page's canvas lays them out */
        web_list = draw_create(web_w, web_h);
        web_shot_list = draw_create(web_w, web_h);
        app_use_language(NULL);          /* LANGUAGE and LANG, set by the page */
    }
    return 0;
}

/* The page's own words, marked here so that they are in the catalogues:
** its labels, its messages and the toasts attnlab.js shows (web_tr
** translates them). */
static const char *const page_words[] = {
    N_("Lessons"), N_("Open\xe2\x80\xa6"), N_("open a lesson first"), N_("downloaded %s"), N_("More"),
    N_("more controls"), N_("Numbers"), N_("the numbers of this stage, as tables"), N_("link copied"),
    N_("copy this link:"), N_("Close"), N_("Choose a lesson"), N_("controls"),
    N_("%s: a NumPy file: open it together with the lesson that loads it"), N_("hidden until the guesses are revealed"),
    N_("this link names no lesson: choose one"),
    N_("this link carries a lesson that does not unpack (cut short when it was copied?)"),
    N_("this lesson loads NumPy files, which a link cannot carry: send the files with it"),
    N_("this lesson is too long to carry in a link (%s KB packed): send the file with it"),
    N_("copy this embed code:"), N_("embed code copied"), N_("copy code to show this slide on a course page"),
    N_("Model folder\xe2\x80\xa6"), N_("Read it"),
    N_("open a downloaded GPT-2 or BERT folder: config.json, model.safetensors and its tokenizer's files (up to 1 GB)"),
    N_("cannot open: its files are %s MB, over the browser edition's limit of 1024 MB (the desktop program opens any size)"),
    N_("cannot open: a model folder needs config.json and model.safetensors"),
    N_("this lesson reads a model's folder, which a link cannot carry: send the folder with it"),
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

/* Open a lesson file of the in-memory file system, asking first when the
** open one has unsaved edits: 0 opened, 1 asked (the answer opens it), -1
** failed (see web_error). */
EMSCRIPTEN_KEEPALIVE int web_open(const char *path)
{
    app_set_error(web_app, NULL);
    app_request_open(web_app, path);
    if (web_app->ask == ASK_OPEN) return 1;
    if (web_app->error[0]) return -1;
    web_app->picker = false;
    return 0;
}

/* The lesson of a model folder the page wrote at dir (lesson_model.h: the
** sentence a trained GPT-2 answers with its heads; its messages name no
** line of it). The caller frees it with web_free. */
EMSCRIPTEN_KEEPALIVE char *web_model_text(const char *dir)
{
    return lml_default_text(dir, NULL);
}

/* The sentence the open lesson's model reads, for the page's field (the
** caller frees it with web_free), or NULL when it reads none (a toast
** says so). */
EMSCRIPTEN_KEEPALIVE char *web_sentence(void)
{
    return app_sentence_now(web_app);
}

/* The model reads sentence, on the same stage and head: 1, or 0 with the
** message on screen and the lesson as it was. */
EMSCRIPTEN_KEEPALIVE int web_read_sentence(const char *sentence)
{
    return app_read_sentence(web_app, sentence) ? 1 : 0;
}

/* The load error on screen ("" if none). */
EMSCRIPTEN_KEEPALIVE const char *web_error(void)
{
    return web_app->error;
}

/* Put an I/O error about file on screen the way a failed load does (a
** lesson URL that cannot be fetched, a file that cannot be read): msg says
** what failed ("cannot open: HTTP 404"); an empty msg clears it. */
EMSCRIPTEN_KEEPALIVE void web_set_error(const char *file, const char *msg)
{
    Error err;
    if (*msg) error_set(&err, ERR_IO, file, 0, 0, "%s", msg);
    app_set_error(web_app, *msg ? &err : NULL);
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

/* The toast on screen ("" when none is shown at now). */
EMSCRIPTEN_KEEPALIVE const char *web_toast_text(double now)
{
    return web_app->toast[0] && now < web_app->toast_until ? web_app->toast : "";
}

/* Compose a frame of w x h pixels at app time now (seconds). */
/* The phone layout the page picks by the viewport (attnlab.js: resize):
** text scaled by base (1: the projector's slide, scaled to the window),
** pages cut for a screen of aspect height / width. A+ and A− scale from it. */
EMSCRIPTEN_KEEPALIVE void web_set_page_shape(float aspect, float base)
{
    app_set_page_shape(web_app, aspect, base);
}

EMSCRIPTEN_KEEPALIVE DrawList *web_frame(int w, int h, double now)
{
    web_w = w;
    web_h = h;
    web_app->now = now;
    app_frame(web_app, w, h, web_measure, NULL, web_list);
    return web_list;
}

/*
** What the script needs to read a DrawList out of memory: the byte offsets
** of DrawCmd's and DrawList's fields, the enum values it draws by and the
** dash pattern. One list makes both the values and their names, so the
** script reads the names from the module instead of keeping a copy, and
** the count is checked on both sides (web_layout).
*/
#define WEB_LAYOUT(X) \
    X(size, sizeof(DrawCmd)) X(kind, offsetof(DrawCmd, kind)) X(role, offsetof(DrawCmd, role)) \
    X(color, offsetof(DrawCmd, color)) X(r, offsetof(DrawCmd, r)) X(width, offsetof(DrawCmd, width)) \
    X(text, offsetof(DrawCmd, text)) X(fsize, offsetof(DrawCmd, size)) X(halign, offsetof(DrawCmd, halign)) \
    X(valign, offsetof(DrawCmd, valign)) X(bold, offsetof(DrawCmd, bold)) X(rotate, offsetof(DrawCmd, rotate)) \
    X(dashed, offsetof(DrawCmd, dashed)) X(panel, offsetof(DrawCmd, panel)) X(row, offsetof(DrawCmd, row)) \
    X(col, offsetof(DrawCmd, col)) X(cmds, offsetof(DrawList, cmds)) X(n, offsetof(DrawList, n)) \
    X(arena, offsetof(DrawList, text)) X(pix, offsetof(DrawList, pix)) X(background, offsetof(DrawList, background)) \
    X(DRAW_RECT, DRAW_RECT) X(DRAW_LINE, DRAW_LINE) X(DRAW_TEXT, DRAW_TEXT) X(DRAW_IMAGE, DRAW_IMAGE) \
    X(ALIGN_CENTER, ALIGN_CENTER) X(ALIGN_RIGHT, ALIGN_RIGHT) X(VALIGN_TOP, VALIGN_TOP) \
    X(VALIGN_BOTTOM, VALIGN_BOTTOM) X(ROLE_CELL, ROLE_CELL) X(ROLE_CELL_TEXT, ROLE_CELL_TEXT) \
    X(ROLE_MASKED, ROLE_MASKED) X(ROLE_TITLE, ROLE_TITLE) X(ROLE_BODY, ROLE_BODY) \
    X(ROLE_OVERLAY, ROLE_OVERLAY) X(ROLE_ROW_LABEL, ROLE_ROW_LABEL) X(ROLE_COL_LABEL, ROLE_COL_LABEL) \
    X(ROLE_PANEL_TITLE, ROLE_PANEL_TITLE) X(ROLE_AXIS_TITLE, ROLE_AXIS_TITLE) X(DRAW_DASH_ON, DRAW_DASH_ON) X(DRAW_DASH_OFF, DRAW_DASH_OFF) \
    X(image_rows, offsetof(DrawImage, rows)) X(image_cols, offsetof(DrawImage, cols)) \
    X(image_rstep, offsetof(DrawImage, rstep)) X(image_cstep, offsetof(DrawImage, cstep)) \
    X(image_cw, offsetof(DrawImage, cw)) X(image_ch, offsetof(DrawImage, ch)) X(image_size, sizeof(DrawImage))

#define LAYOUT_NAME(name, value) #name ","
#define LAYOUT_ONE(name, value) +1
#define LAYOUT_VALUE(name, value) (int)(value),
enum { WEB_LAYOUT_COUNT = 0 WEB_LAYOUT(LAYOUT_ONE) };

/* The names of the layout's values, comma-separated, in web_layout's order. */
EMSCRIPTEN_KEEPALIVE const char *web_layout_names(void)
{
    return WEB_LAYOUT(LAYOUT_NAME);
}

/* The layout's values into out, when n (the script's count of the names)
** is WEB_LAYOUT_COUNT; returns WEB_LAYOUT_COUNT, so that a page and a
** module that disagree stop at once instead of reading the wrong fields. */
EMSCRIPTEN_KEEPALIVE int web_layout(int *out, int n)
{
    static const int v[] = { WEB_LAYOUT(LAYOUT_VALUE) };
    static_assert(sizeof v / sizeof *v == WEB_LAYOUT_COUNT, "one value per name");
    if (n == WEB_LAYOUT_COUNT) memcpy(out, v, sizeof v);
    return WEB_LAYOUT_COUNT;
}

/* The pointer moved to (x, y); 1 if the hovered cell changed. */
EMSCRIPTEN_KEEPALIVE int web_hover(float x, float y)
{
    AppState *a = web_app;
    int p, r, c;
    if (a->sorter) {                            /* the page under the pointer is the one picked */
        p = app_sorter_at(a, web_w, web_h, x, y);
        if (p < 0 || p == a->sorter_sel) return 0;
        app_sorter_select(a, p);
        return 1;
    }
    int point = a->nav_point;
    app_nav_point(a, draw_panel_at(web_list, x, y));   /* a head of the comparison page: says so */
    draw_cell_at(web_list, x, y, &p, &r, &c);
    if (p == a->hover_panel && r == a->hover_row && c == a->hover_col) return point != a->nav_point;
    app_hover(a, p, r, c);
    return 1;
}

/* The pointer left the canvas. */
EMSCRIPTEN_KEEPALIVE void web_leave(void)
{
    app_hover(web_app, -1, -1, -1);
}

/* A click (or a tap) at (x, y): pin or unpin, or a guess in predict mode; on
** the comparison page a head's panel, in the slide sorter a page, goes there. */
EMSCRIPTEN_KEEPALIVE void web_click(float x, float y)
{
    int p, r, c;
    if (web_app->sorter) {                      /* a page of the sorter: go there */
        p = app_sorter_at(web_app, web_w, web_h, x, y);
        if (p >= 0) {
            app_sorter_select(web_app, p);
            app_sorter_go(web_app);
        }
        return;
    }
    if (app_nav_click(web_app, draw_panel_at(web_list, x, y))) return;   /* a head of the comparison page */
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

/* A KeyboardEvent.key as the key table's code (keys.h). */
static int key_code(const char *k)
{
    static const struct { const char *name; int key; } special[] = {
        { "Enter", KEY_ENTER }, { "Escape", KEY_ESCAPE }, { "Esc", KEY_ESCAPE }, { "Backspace", KEY_BACKSPACE },
        { "ArrowLeft", KEY_LEFT }, { "ArrowRight", KEY_RIGHT }, { "ArrowUp", KEY_UP }, { "ArrowDown", KEY_DOWN },
        { "Home", KEY_HOME }, { "End", KEY_END }, { "PageUp", KEY_PAGEUP }, { "PageDown", KEY_PAGEDOWN },
        { "F11", KEY_F11 }, { "Spacebar", ' ' }, { "Tab", KEY_TAB },
    };
    if (k[0] && !k[1] && (unsigned char)k[0] >= 0x20 && (unsigned char)k[0] < 0x7f) return tolower((unsigned char)k[0]);
    for (size_t i = 0; i < sizeof special / sizeof *special; i++)
        if (!strcmp(special[i].name, k)) return special[i].key;
    return KEY_NONE;
}

/* The modifiers of a press. */
static unsigned key_mods(int ctrl, int shift)
{
    return (ctrl ? KEYMOD_CTRL : 0) | (shift ? KEYMOD_SHIFT : 0);
}

/* The name of the action a key (KeyboardEvent.key; ctrl also for ⌘)
** stands for now, "" for none: the page does the platform's actions
** itself (app_action_platform) and hands the others to web_key. */
EMSCRIPTEN_KEEPALIVE const char *web_key_action(const char *key, int ctrl, int shift)
{
    int arg;
    const KeyRow *r = app_key_lookup(web_app, EDITION_WEB, key_code(key), key_mods(ctrl, shift), &arg);
    return r ? app_action_name(r->act) : "";
}

/* A key press at app time now, through the key table: 1 if it meant
** something (while a question is asked, every key does). */
EMSCRIPTEN_KEEPALIVE int web_key(const char *key, int ctrl, int shift, double now)
{
    web_app->now = now;
    bool asking = web_app->ask != ASK_NONE;
    return app_key(web_app, EDITION_WEB, key_code(key), key_mods(ctrl, shift)) != ACT_NONE || asking;
}

/* A named action (the page's buttons and gestures: "next", "mask") at app
** time now: 1 if the program did it, 0 if it is the page's or unknown. */
EMSCRIPTEN_KEEPALIVE int web_action(const char *name, double now)
{
    web_app->now = now;
    return app_do(web_app, app_action_named(name), -1) ? 1 : 0;
}

/* The help's rows for the page (the key table's main rows for the browser
** that list keys, as the desktop's overlay shows its own), in the interface's
** language: "Keys", then each row's keys, a tab and its words, a line each.
** The page shows them as HTML, so the canvas draws no overlay of them. */
EMSCRIPTEN_KEEPALIVE const char *web_help_rows(void)
{
    static Buf b;
    buf_clear(&b);
    buf_printf(&b, "%s\n", _("Keys"));
    int n;
    const KeyRow *rows = app_key_rows(&n);
    for (int i = 0; i < n; i++)
        if (rows[i].keys && rows[i].ctx == KEYS_MAIN && (rows[i].editions & EDITION_WEB))
            buf_printf(&b, "%s\t%s\n", _(rows[i].keys), _(rows[i].help));
    return buf_str(&b);
}

/* The words of an action's button in the interface's language: what it
** does, then a tab and the keys that do the same ("" when none). */
EMSCRIPTEN_KEEPALIVE const char *web_action_words(const char *name)
{
    static char words[400];
    AppAction act = app_action_named(name);
    const KeyRow *r = app_action_row(act, EDITION_WEB);
    const char *keys = app_action_keys(act, EDITION_WEB);
    snprintf(words, sizeof words, "%s\t%s", r && r->help ? _(r->help) : "", keys ? _(keys) : "");
    return words;
}

/* State the page follows, as bits: 0 fullscreen, 1 dark, 2 a lesson is
** open, 3 the picker is up, 4 unsaved edits, 5 the keys are shown, 6 a
** question is asked, 7 the pinned cell is an input (its +/- apply), 8
** predict mode, 9 the black screen, 10 the stage's setup has a mask, 11
** its scores are scaled by √d_k, 12 some edit to undo, 13 some to redo,
** 14 the cell cursor is on (Tab is its). */
EMSCRIPTEN_KEEPALIVE int web_flags(void)
{
    AppState *a = web_app;
    const Doc *d = a->doc;
    bool input = false, mask = false, scaled = false;
    if (a->pinned && a->view && a->pin_panel >= 0 && a->pin_panel < a->view->npanels)
        input = a->view->panels[a->pin_panel].editable;
    if (d) {
        const Setup *su = &d->L->setups[d->L->stages[a->stage].setup];
        mask = su->mask != MASK_NONE;
        scaled = su->score == SCORE_SCALED_DOT;
    }
    return (a->fullscreen ? 1 : 0) | (a->dark ? 2 : 0) | (d ? 4 : 0) | (a->picker ? 8 : 0) | (d && d->dirty ? 16 : 0)
         | (a->help ? 32 : 0) | (a->ask ? 64 : 0) | (input ? 128 : 0) | (a->predict != PREDICT_OFF ? 256 : 0)
         | (a->black ? 512 : 0) | (mask ? 1024 : 0) | (scaled ? 2048 : 0) | (d && d->nedits ? 4096 : 0)
         | (app_cells_on(a) ? 16384 : 0)
         | (d && d->nredo ? 8192 : 0);
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

/* The bundled lessons: how many (the picker's list), and lesson i's title
** and file name. */
EMSCRIPTEN_KEEPALIVE int web_picker_count(void)
{
    return web_app->picker_n;
}

/* Title of bundled lesson i. */
EMSCRIPTEN_KEEPALIVE const char *web_picker_title(int i)
{
    return i >= 0 && i < web_app->picker_n ? web_app->picker_titles[i] : "";
}

/* File name of bundled lesson i ("01-tour.lesson"). */
EMSCRIPTEN_KEEPALIVE const char *web_picker_file(int i)
{
    if (i < 0 || i >= web_app->picker_n) return "";
    const char *s = strrchr(web_app->picker_items[i], '/');
    return s ? s + 1 : web_app->picker_items[i];
}

/* The picker's selected lesson. */
EMSCRIPTEN_KEEPALIVE int web_picker_selected(void)
{
    return web_app->picker_sel;
}

/* Select lesson i in the picker (the page's list follows its focus). */
EMSCRIPTEN_KEEPALIVE void web_picker_select(int i)
{
    if (i >= 0 && i < web_app->picker_n) web_app->picker_sel = i;
}

/* The question asked now, as a dialog shows it: which field (0 the
** question, 1 the keys' hint, 2 the yes button, 3 the no button). */
EMSCRIPTEN_KEEPALIVE const char *web_ask_words(int which)
{
    static char title[1200];
    const char *hint, *yes, *no;
    app_ask_words(web_app, title, sizeof title, &hint, &yes, &no);
    const char *w[4] = { title, hint, yes ? yes : "", no ? no : "" };
    return which >= 0 && which < 4 ? w[which] : "";
}

/* The file name a picture of the slide downloads under, the name the
** desktop's --export and S give the same page (picture.h:
** "<lesson>-<NN>-<stage>[-<SS>-<step>].<png|svg>"); NULL with no lesson.
** The caller frees it with web_free. */
EMSCRIPTEN_KEEPALIVE char *web_shot_name(int svg)
{
    return app_shot_slide_path(web_app, NULL, svg != 0);
}

/* The current stage as S exports it: laid out alone (no overlays) on a
** w x h canvas in the current theme and colormap, as the desktop lays out
** a picture (app_shot_layout_view). NULL with no lesson.
** It is laid out with a layout cache of its own, made for it and freed
** after: a picture is a function of the slide, its size and its theme,
** whatever frames or pictures came before it, and it leaves the window's
** cache (its kept page) as the frames left it. */
EMSCRIPTEN_KEEPALIVE DrawList *web_shot(int w, int h)
{
    AppState *a = web_app;
    if (!a->view) return NULL;
    ShotOpts o = app_shot_defaults();
    o.width = w;
    o.height = h;
    o.dark = a->dark;
    o.cmap = a->cmap >= 0 ? cmap_names()[a->cmap] : NULL;
    LayoutCache *lc = layout_cache_create();
    app_shot_layout_view(web_measure, NULL, lc, a->view, &o, web_shot_list);
    layout_cache_free(lc);
    return web_shot_list;
}

/* The last web_shot as an SVG document (the caller frees it with web_free). */
EMSCRIPTEN_KEEPALIVE char *web_shot_svg(void)
{
    AppState *a = web_app;
    if (!a->doc) return NULL;
    char desc[300];
    app_shot_desc(a->doc->L, a->stage, desc, sizeof desc);
    return svg_write(web_shot_list, a->doc->L->title, desc, NULL);
}

/* The edited lesson as Ctrl+S saves it, for the page to download (the
** caller frees it with web_free): the file's text with only the edited
** numbers changed, which from now on is the lesson's file. NULL with the
** toast saying why. */
EMSCRIPTEN_KEEPALIVE char *web_save(double now)
{
    web_app->now = now;
    size_t len;
    return app_save_text(web_app, &len);
}

/* The explanation of the focused cell (caller frees with web_free), or NULL. */
EMSCRIPTEN_KEEPALIVE char *web_explain(void)
{
    return app_explain(web_app);
}

/* Where the pinned cell is drawn in the last frame: x, y, w, h into out;
** 0 when no cell is pinned (or it is not drawn). */
EMSCRIPTEN_KEEPALIVE int web_pinned_rect(float *out)
{
    AppState *a = web_app;
    Rect r;
    if (!a->pinned || !draw_cell_rect(web_list, a->pin_panel, a->pin_row, a->pin_col, &r)) return 0;
    out[0] = r.x;
    out[1] = r.y;
    out[2] = r.w;
    out[3] = r.h;
    return 1;
}

/* The slide as a link's fields (link.h; the caller frees with web_free). */
EMSCRIPTEN_KEEPALIVE char *web_link(void)
{
    return app_link_fields(web_app);
}

/* Show the slide a link's fields describe. */
EMSCRIPTEN_KEEPALIVE void web_apply_link(const char *fields)
{
    app_link_apply(web_app, fields);
}

/* The slide as text (describe.h; the caller frees with web_free), with
** each panel's numbers when numbers is set. */
EMSCRIPTEN_KEEPALIVE char *web_describe(int numbers)
{
    return app_describe(web_app, web_list, numbers != 0);
}

/* Rows r0 to r1 of panel k's numbers (describe.h; the caller frees with
** web_free), or NULL. */
EMSCRIPTEN_KEEPALIVE char *web_describe_rows(int k, int r0, int r1)
{
    return app_describe_rows(web_app, web_list, k, r0, r1);
}

/* What the slide shows, as a number that changes whenever it does: the
** view's serial (a new view for every change of stage, setting or value),
** with predict mode's phase, or 0 with no lesson. */
EMSCRIPTEN_KEEPALIVE double web_view_serial(void)
{
    const AppState *a = web_app;
    return a->view ? (double)a->view->serial * 4 + a->predict : 0;
}

/* Whether a text run reads right to left (its first strong character, as
** the desktop's shaper decides a run's direction). */
EMSCRIPTEN_KEEPALIVE int web_text_rtl(const char *s)
{
    return text_rtl(s);
}

/* Free memory the module handed out. */
EMSCRIPTEN_KEEPALIVE void web_free(void *p)
{
    free(p);
}
