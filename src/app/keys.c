/*
** keys.c: the key table of both editions and the actions it names (keys.h).
*/
#include "keys.h"
#include "cells.h"
#include "nav.h"
#include "predict.h"
#include "prompt.h"
#include "sorter.h"
#include "zoom.h"
#include "core/text/i18n.h"

#include <assert.h>
#include <string.h>

#define B(k) { (unsigned short)(k), 0 }
#define CTRL(k) { (unsigned short)(k), KEYMOD_CTRL }
#define CTRL_SHIFT(k) { (unsigned short)(k), KEYMOD_CTRL | KEYMOD_SHIFT }
#define SHIFT(k) { (unsigned short)(k), KEYMOD_SHIFT }

/*
** The table. Main rows are listed by the help overlay in this order (those
** with keys to show); rows of one action for both editions with different
** words come as a pair, one per edition. Rows without bindings are help
** lines (the mouse, touch) or name the page's buttons: the first main row
** of an action names its button (app_action_row).
*/
static const KeyRow rows[] = {
    /* what the program asks (prompt.h): only these keys while it asks */
    { ACT_ASK_CANCEL, KEYS_ASK, EDITION_BOTH, NULL, NULL, { B(KEY_ESCAPE) } },
    { ACT_ASK_ACCEPT, KEYS_ASK, EDITION_BOTH, NULL, NULL, { B(KEY_ENTER) } },
    { ACT_ASK_BACKSPACE, KEYS_ASK, EDITION_BOTH, NULL, NULL, { B(KEY_BACKSPACE) } },
    { ACT_ASK_CLEAR, KEYS_ASK, EDITION_DESKTOP, NULL, NULL, { CTRL('u') } },
    { ACT_ASK_QUIT, KEYS_ASK, EDITION_DESKTOP, NULL, NULL, { B('q') } },
    { ACT_ASK_SAVE, KEYS_ASK, EDITION_DESKTOP, NULL, NULL, { CTRL('s') } },
    { ACT_ASK_COMPLETE, KEYS_ASK, EDITION_DESKTOP, NULL, NULL, { B(KEY_TAB) } },
    /* the lesson picker takes the arrows and digits while it is open */
    { ACT_PICKER_UP, KEYS_PICKER, EDITION_BOTH, NULL, NULL, { B(KEY_UP) } },
    { ACT_PICKER_DOWN, KEYS_PICKER, EDITION_BOTH, NULL, NULL, { B(KEY_DOWN) } },
    { ACT_PICKER_OPEN, KEYS_PICKER, EDITION_BOTH, NULL, NULL, { B(KEY_ENTER), B(' '), B(KEY_RIGHT) } },
    { ACT_PICKER_DIGIT, KEYS_PICKER, EDITION_BOTH, NULL, NULL, { B(KEY_DIGIT) } },
    /* the slide sorter takes every key while it is open: these only */
    { ACT_SORTER_LEFT, KEYS_SORTER, EDITION_BOTH, NULL, NULL, { B(KEY_LEFT) } },
    { ACT_SORTER_RIGHT, KEYS_SORTER, EDITION_BOTH, NULL, NULL, { B(KEY_RIGHT) } },
    { ACT_SORTER_UP, KEYS_SORTER, EDITION_BOTH, NULL, NULL, { B(KEY_UP) } },
    { ACT_SORTER_DOWN, KEYS_SORTER, EDITION_BOTH, NULL, NULL, { B(KEY_DOWN) } },
    { ACT_SORTER_PAGE_UP, KEYS_SORTER, EDITION_BOTH, NULL, NULL, { B(KEY_PAGEUP) } },
    { ACT_SORTER_PAGE_DOWN, KEYS_SORTER, EDITION_BOTH, NULL, NULL, { B(KEY_PAGEDOWN) } },
    { ACT_SORTER_FIRST, KEYS_SORTER, EDITION_BOTH, NULL, NULL, { B(KEY_HOME) } },
    { ACT_SORTER_LAST, KEYS_SORTER, EDITION_BOTH, NULL, NULL, { B(KEY_END) } },
    { ACT_SORTER_GO, KEYS_SORTER, EDITION_BOTH, NULL, NULL, { B(KEY_ENTER), B(' ') } },
    { ACT_SORTER, KEYS_SORTER, EDITION_BOTH, NULL, NULL, { B('g') } },
    { ACT_ESCAPE, KEYS_SORTER, EDITION_BOTH, NULL, NULL, { B(KEY_ESCAPE) } },
    { ACT_FULLSCREEN, KEYS_SORTER, EDITION_BOTH, NULL, NULL, { B('f'), B(KEY_F11) } },
    { ACT_QUIT, KEYS_SORTER, EDITION_DESKTOP, NULL, NULL, { B('q'), CTRL('q') } },
    /* the cell cursor (cells.h) takes these while it is on; the other keys are the main ones */
    { ACT_CELL_LEFT, KEYS_CELLS, EDITION_BOTH, NULL, NULL, { B(KEY_LEFT) } },
    { ACT_CELL_RIGHT, KEYS_CELLS, EDITION_BOTH, NULL, NULL, { B(KEY_RIGHT) } },
    { ACT_CELL_UP, KEYS_CELLS, EDITION_BOTH, NULL, NULL, { B(KEY_UP) } },
    { ACT_CELL_DOWN, KEYS_CELLS, EDITION_BOTH, NULL, NULL, { B(KEY_DOWN) } },
    { ACT_CELL_PANEL_NEXT, KEYS_CELLS, EDITION_BOTH, NULL, NULL, { B(KEY_TAB) } },
    { ACT_CELL_PANEL_PREV, KEYS_CELLS, EDITION_BOTH, NULL, NULL, { SHIFT(KEY_TAB) } },
    { ACT_INCREASE, KEYS_CELLS, EDITION_BOTH, NULL, NULL, { B('+'), B('=') } },
    { ACT_DECREASE, KEYS_CELLS, EDITION_BOTH, NULL, NULL, { B('-') } },
    { ACT_CELL_PRESS, KEYS_CELLS, EDITION_BOTH, NULL, NULL, { B(KEY_ENTER), B(' ') } },
    { ACT_CELLS_LEAVE, KEYS_CELLS, EDITION_BOTH, NULL, NULL, { B(KEY_ESCAPE) } },
    /* the main keys, in the help's order (Esc is in the fullscreen row's words) */
    { ACT_ESCAPE, KEYS_MAIN, EDITION_BOTH, NULL, NULL, { B(KEY_ESCAPE) } },
    { ACT_NEXT, KEYS_MAIN, EDITION_BOTH, N_("\xe2\x86\x92  Space  PgDn"), N_("next stage (or sub-step)"),
      { B(KEY_RIGHT), B(' '), B(KEY_PAGEDOWN) } },
    { ACT_PREV, KEYS_MAIN, EDITION_BOTH, N_("\xe2\x86\x90  Backspace  PgUp"), N_("previous stage (or sub-step)"),
      { B(KEY_LEFT), B(KEY_BACKSPACE), B(KEY_PAGEUP) } },
    { ACT_STAGE_NEXT, KEYS_MAIN, EDITION_BOTH, N_("Shift+\xe2\x86\x92  Shift+\xe2\x86\x90"),
      N_("next, previous stage, on its first page (skips the pages left)"), { SHIFT(KEY_RIGHT) } },
    { ACT_STAGE_PREV, KEYS_MAIN, EDITION_BOTH, NULL, NULL, { SHIFT(KEY_LEFT) } },
    { ACT_FIRST, KEYS_MAIN, EDITION_BOTH, N_("Home  End"), N_("first, last stage"), { B(KEY_HOME) } },
    { ACT_LAST, KEYS_MAIN, EDITION_BOTH, NULL, NULL, { B(KEY_END) } },
    { ACT_STAGE_DIGIT, KEYS_MAIN, EDITION_BOTH, "1 \xe2\x80\xa6 9, 10 \xe2\x80\xa6", N_("jump to a stage"), { B(KEY_DIGIT) } },
    { ACT_HEAD_NEXT, KEYS_MAIN, EDITION_BOTH, ".  ,", N_("next, previous head's pages (or a click on a head shown side by side)"),
      { B('.') } },
    { ACT_HEAD_PREV, KEYS_MAIN, EDITION_BOTH, NULL, NULL, { B(',') } },
    { ACT_TOKEN_NEXT, KEYS_MAIN, EDITION_BOTH, N_("J  Shift+J"), N_("next, previous token a K/V cache decodes"),
      { B('j') } },
    { ACT_TOKEN_PREV, KEYS_MAIN, EDITION_BOTH, NULL, NULL, { SHIFT('j') } },
    { ACT_CELLS, KEYS_MAIN, EDITION_BOTH, N_("Enter"),
      N_("step through the cells by keyboard: arrows, Tab, + and \xe2\x88\x92, Esc leaves"), { B(KEY_ENTER) } },
    { ACT_SORTER, KEYS_MAIN, EDITION_BOTH, "G",
      N_("the stage's pages as a grid: arrows or the mouse pick, Enter goes, Esc leaves"), { B('g') } },
    { ACT_PICKER, KEYS_MAIN, EDITION_BOTH, "L", N_("lesson picker"), { B('l') } },
    { ACT_OPEN, KEYS_MAIN, EDITION_DESKTOP, N_("O  Ctrl+O"), N_("open a lesson file (or drop one on the window)"),
      { B('o'), CTRL('o') } },
    { ACT_OPEN, KEYS_MAIN, EDITION_WEB, N_("O  Ctrl+O"), N_("open a lesson file (or drop one on the page)"),
      { B('o'), CTRL('o') } },
    { ACT_FULLSCREEN, KEYS_MAIN, EDITION_BOTH, "F  F11", N_("fullscreen (Esc leaves)"), { B('f'), B(KEY_F11) } },
    { ACT_BIGGER, KEYS_MAIN, EDITION_WEB, NULL, N_("bigger text"), { B(0) } },        /* the button's name */
    { ACT_ZOOM_IN, KEYS_MAIN, EDITION_DESKTOP, "+  \xe2\x88\x92",
      N_("over a heatmap: zoom in, out (Esc: all of it); elsewhere: text size"), { B('+'), B('=') } },
    { ACT_ZOOM_OUT, KEYS_MAIN, EDITION_DESKTOP, NULL, NULL, { B('-') } },
    { ACT_BIGGER, KEYS_MAIN, EDITION_DESKTOP, N_("Ctrl++  Ctrl+\xe2\x88\x92"), N_("text size"),
      { CTRL('+'), CTRL('=') } },
    { ACT_SMALLER, KEYS_MAIN, EDITION_DESKTOP, NULL, NULL, { CTRL('-') } },
    { ACT_BIGGER, KEYS_MAIN, EDITION_WEB, "+  \xe2\x88\x92", N_("text size"), { B('+'), B('=') } },
    { ACT_SMALLER, KEYS_MAIN, EDITION_WEB, NULL, N_("smaller text"), { B('-') } },
    { ACT_THEME, KEYS_MAIN, EDITION_BOTH, "T", N_("light / dark"), { B('t') } },
    { ACT_CMAP, KEYS_MAIN, EDITION_BOTH, "C", N_("cycle colormap"), { B('c') } },
    { ACT_BLACK, KEYS_MAIN, EDITION_BOTH, "B", N_("black screen"), { B('b') } },
    { ACT_HEAD, KEYS_MAIN, EDITION_BOTH, "H", N_("next head"), { B('h') } },
    { ACT_MASK, KEYS_MAIN, EDITION_BOTH, "M", N_("causal mask on / off"), { B('m') } },
    { ACT_SCALING, KEYS_MAIN, EDITION_BOTH, "K", N_("\xe2\x88\x9a" "d_k scaling on / off"), { B('k') } },
    { ACT_ABLATE, KEYS_MAIN, EDITION_BOTH, "A", N_("switch the head shown (or under the pointer) off: its output to 0, to its mean, and on"),
      { B('a') } },
    { ACT_COLDER, KEYS_MAIN, EDITION_WEB, NULL, N_("temperature down"), { B(0) } },   /* the button's name */
    { ACT_COLDER, KEYS_MAIN, EDITION_BOTH, "[  ]", N_("temperature down / up"), { B('[') } },
    { ACT_WARMER, KEYS_MAIN, EDITION_BOTH, NULL, N_("temperature up"), { B(']') } },
    { ACT_PREDICT, KEYS_MAIN, EDITION_BOTH, "P", N_("predict the largest weights, then reveal"), { B('p') } },
    { ACT_SENTENCE, KEYS_MAIN, EDITION_BOTH, "I", N_("a lesson that reads a model: type the sentence it reads"),
      { B('i') } },
    { ACT_SHOT, KEYS_MAIN, EDITION_DESKTOP, "S", N_("save this stage as PNG"), { B('s') } },
    { ACT_SHOT, KEYS_MAIN, EDITION_WEB, "S", N_("download this stage as PNG"), { B('s') } },
    { ACT_PDF, KEYS_MAIN, EDITION_DESKTOP, N_("Ctrl+P  Ctrl+E"), N_("save the lesson as a PDF handout, a page per stage"),
      { CTRL('p'), CTRL('e') } },
    { ACT_SVG, KEYS_MAIN, EDITION_WEB, N_("Shift+S"), N_("download this stage as SVG"), { SHIFT('s') } },
    { ACT_SAVE, KEYS_MAIN, EDITION_DESKTOP, N_("Ctrl+S"), N_("save the edited lesson (only the edited numbers change)"),
      { CTRL('s') } },
    { ACT_SAVE, KEYS_MAIN, EDITION_WEB, N_("Ctrl+S"), N_("download the edited lesson"), { CTRL('s') } },
    { ACT_SAVE_AS, KEYS_MAIN, EDITION_DESKTOP, N_("Ctrl+Shift+S"), N_("save the lesson under another name"),
      { CTRL_SHIFT('s') } },
    { ACT_UNDO, KEYS_MAIN, EDITION_BOTH, N_("Ctrl+Z"), N_("undo the last edit"), { CTRL('z') } },
    { ACT_REDO, KEYS_MAIN, EDITION_BOTH, N_("Ctrl+Shift+Z  Ctrl+Y"), N_("redo"), { CTRL_SHIFT('z'), CTRL('y') } },
    { ACT_RESET, KEYS_MAIN, EDITION_BOTH, "R", N_("back to the file as loaded"), { B('r') } },
    { ACT_NONE, KEYS_MAIN, EDITION_DESKTOP, N_("mouse"),
      N_("hover: explain a cell; click: pin; scroll: edit an input (Shift: finer); "
         "Ctrl+scroll: zoom; drag: move a zoomed heatmap"), { B(0) } },
    { ACT_NONE, KEYS_MAIN, EDITION_WEB, N_("mouse"), N_("hover: explain a cell; click: pin; scroll: edit an input (Shift: finer)"),
      { B(0) } },
    { ACT_NONE, KEYS_MAIN, EDITION_WEB, N_("touch"), N_("tap: explain and pin; swipe: next / previous; pinch: text size"),
      { B(0) } },
    { ACT_HELP, KEYS_MAIN, EDITION_BOTH, "?", N_("this help"), { B('?') } },
    { ACT_QUIT, KEYS_MAIN, EDITION_DESKTOP, N_("Q  Ctrl+Q"), N_("quit (asks first if edits are not saved)"),
      { B('q'), CTRL('q') } },
    { ACT_NONE, KEYS_MAIN, EDITION_WEB, "?lesson=URL", N_("after the page's address: open a lesson from the same web site"),
      { B(0) } },
    /* the page's buttons without a key */
    { ACT_LINK, KEYS_MAIN, EDITION_WEB, NULL, N_("copy a link to this slide"), { B(0) } },
    { ACT_UNPIN, KEYS_MAIN, EDITION_WEB, NULL, N_("unpin the cell"), { B(0) } },
    { ACT_INCREASE, KEYS_MAIN, EDITION_WEB, NULL, N_("the pinned input one step up"), { B(0) } },
    { ACT_DECREASE, KEYS_MAIN, EDITION_WEB, NULL, N_("the pinned input one step down"), { B(0) } },
};

/* The actions' names, for the page's buttons (app_action_named). */
static const char *const names[ACT_COUNT] = {
    [ACT_NONE] = "", [ACT_NEXT] = "next", [ACT_PREV] = "prev", [ACT_FIRST] = "first", [ACT_LAST] = "last",
    [ACT_STAGE_DIGIT] = "stage", [ACT_PICKER] = "picker", [ACT_FULLSCREEN] = "fullscreen",
    [ACT_ESCAPE] = "escape", [ACT_BIGGER] = "bigger", [ACT_SMALLER] = "smaller", [ACT_ZOOM_IN] = "zoom-in",
    [ACT_ZOOM_OUT] = "zoom-out", [ACT_THEME] = "theme",
    [ACT_CMAP] = "cmap", [ACT_BLACK] = "black", [ACT_HEAD] = "head", [ACT_MASK] = "mask",
    [ACT_SCALING] = "scaling", [ACT_ABLATE] = "ablate", [ACT_COLDER] = "colder", [ACT_WARMER] = "warmer", [ACT_PREDICT] = "predict",
    [ACT_UNDO] = "undo", [ACT_REDO] = "redo", [ACT_RESET] = "reset", [ACT_HELP] = "help", [ACT_QUIT] = "quit",
    [ACT_SAVE_AS] = "save-as", [ACT_SENTENCE] = "sentence", [ACT_UNPIN] = "unpin", [ACT_INCREASE] = "increase", [ACT_DECREASE] = "decrease",
    [ACT_PICKER_UP] = "picker-up", [ACT_PICKER_DOWN] = "picker-down", [ACT_PICKER_OPEN] = "picker-open",
    [ACT_PICKER_DIGIT] = "picker-digit", [ACT_ASK_ACCEPT] = "ask-accept", [ACT_ASK_CANCEL] = "ask-cancel",
    [ACT_ASK_BACKSPACE] = "ask-backspace", [ACT_ASK_CLEAR] = "ask-clear", [ACT_ASK_QUIT] = "ask-quit", [ACT_ASK_SAVE] = "ask-save",
    [ACT_ASK_COMPLETE] = "ask-complete", [ACT_SHOT] = "png", [ACT_SVG] = "svg", [ACT_SAVE] = "save",
    [ACT_OPEN] = "open", [ACT_LINK] = "link", [ACT_PDF] = "pdf",
    [ACT_STAGE_NEXT] = "stage-next", [ACT_STAGE_PREV] = "stage-prev", [ACT_HEAD_NEXT] = "head-next",
    [ACT_HEAD_PREV] = "head-prev", [ACT_TOKEN_NEXT] = "token-next", [ACT_TOKEN_PREV] = "token-prev",
    [ACT_SORTER] = "sorter", [ACT_SORTER_LEFT] = "sorter-left", [ACT_SORTER_RIGHT] = "sorter-right",
    [ACT_SORTER_UP] = "sorter-up", [ACT_SORTER_DOWN] = "sorter-down", [ACT_SORTER_PAGE_UP] = "sorter-page-up",
    [ACT_SORTER_PAGE_DOWN] = "sorter-page-down", [ACT_SORTER_FIRST] = "sorter-first", [ACT_SORTER_LAST] = "sorter-last",
    [ACT_SORTER_GO] = "sorter-go", [ACT_CELLS] = "cells", [ACT_CELL_LEFT] = "cell-left", [ACT_CELL_RIGHT] = "cell-right",
    [ACT_CELL_UP] = "cell-up", [ACT_CELL_DOWN] = "cell-down", [ACT_CELL_PANEL_NEXT] = "cell-panel-next",
    [ACT_CELL_PANEL_PREV] = "cell-panel-prev", [ACT_CELL_PRESS] = "cell-press", [ACT_CELLS_LEAVE] = "cells-leave",
};

/* The table. */
const KeyRow *app_key_rows(int *n)
{
    *n = (int)(sizeof rows / sizeof *rows);
    return rows;
}

/* Whether binding b takes key with mods; *arg gets a KEY_DIGIT's digit. */
static bool binds(const KeyBind *b, int key, unsigned mods, int *arg)
{
    if (b->mods != mods) return false;
    if (b->key == KEY_DIGIT && key >= '0' && key <= '9') {
        *arg = key - '0';
        return true;
    }
    return b->key == key;
}

/* The first row of context ctx and edition taking key with exactly mods. */
static const KeyRow *find(KeyContext ctx, unsigned edition, int key, unsigned mods, int *arg)
{
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        const KeyRow *r = &rows[i];
        if (r->ctx != ctx || !(r->editions & edition)) continue;
        for (int k = 0; k < KEY_MAX_BINDS && r->bind[k].key; k++)
            if (binds(&r->bind[k], key, mods, arg)) return r;
    }
    return NULL;
}

/* The row of a press in one context: exact modifiers, else without Shift. */
static const KeyRow *find_loose(KeyContext ctx, unsigned edition, int key, unsigned mods, int *arg)
{
    const KeyRow *r = find(ctx, edition, key, mods, arg);
    if (!r && (mods & KEYMOD_SHIFT)) r = find(ctx, edition, key, mods & ~KEYMOD_SHIFT, arg);
    return r;
}

/* The row of a press in a's context. */
const KeyRow *app_key_lookup(const AppState *a, unsigned edition, int key, unsigned mods, int *arg)
{
    *arg = -1;
    if (key == KEY_NONE) return NULL;
    if (a->ask) return find_loose(KEYS_ASK, edition, key, mods, arg);
    if (a->sorter) return find_loose(KEYS_SORTER, edition, key, mods, arg);
    const KeyRow *r = a->picker ? find_loose(KEYS_PICKER, edition, key, mods, arg) : NULL;
    if (!r && app_cells_on(a)) r = find(KEYS_CELLS, edition, key, mods, arg);
    return r ? r : find_loose(KEYS_MAIN, edition, key, mods, arg);
}

/* A press. */
AppAction app_key(AppState *a, unsigned edition, int key, unsigned mods)
{
    int arg;
    const KeyRow *r = app_key_lookup(a, edition, key, mods, &arg);
    if (!r) return ACT_NONE;
    app_do(a, r->act, arg);
    return r->act;
}

/* Whether the platform does act. */
bool app_action_platform(AppAction act)
{
    return act == ACT_SHOT || act == ACT_SVG || act == ACT_SAVE || act == ACT_OPEN || act == ACT_LINK || act == ACT_PDF;
}

/* The pinned cell moved by one step, when it is an input. */
static void step_pinned(AppState *a, int dir)
{
    if (a->pinned) app_scroll_edit(a, a->pin_panel, a->pin_row, a->pin_col, dir, false);
}

/* + and - of the window: zoom the heatmap under the pointer, or the one
** zoomed into; with the pointer elsewhere, the text size (zoom.h). */
static void zoom_or_text(AppState *a, int dir)
{
    int p = a->hover_panel;
    bool heatmap = a->view && p >= 0 && p < a->view->npanels && a->view->panels[p].kind == PANEL_HEATMAP;
    if (heatmap || app_zoomed(a)) app_zoom(a, heatmap ? p : -1, a->hover_row, a->hover_col, dir);
    else app_text_size(a, dir);
}

/* The picker's lesson number d (1-based), opened. */
static void picker_pick(AppState *a, int d)
{
    if (d < 1 || d > a->picker_n) return;
    a->picker_sel = d - 1;
    app_picker_open(a);
}

/* One action. */
bool app_do(AppState *a, AppAction act, int arg)
{
    switch (act) {
    case ACT_NEXT: app_next(a); break;
    case ACT_PREV: app_prev(a); break;
    case ACT_FIRST: app_first(a); break;
    case ACT_LAST: app_last(a); break;
    case ACT_STAGE_DIGIT: app_type_digit(a, arg); break;
    case ACT_PICKER: app_toggle_picker(a); break;
    case ACT_FULLSCREEN: app_toggle_fullscreen(a); break;
    case ACT_ESCAPE: app_escape(a); break;
    case ACT_BIGGER: app_text_size(a, +1); break;
    case ACT_SMALLER: app_text_size(a, -1); break;
    case ACT_ZOOM_IN: zoom_or_text(a, +1); break;
    case ACT_ZOOM_OUT: zoom_or_text(a, -1); break;
    case ACT_THEME: app_toggle_theme(a); break;
    case ACT_CMAP: app_cycle_cmap(a); break;
    case ACT_BLACK: app_toggle_black(a); break;
    case ACT_HEAD: app_next_head(a); break;
    case ACT_MASK: app_toggle_mask(a); break;
    case ACT_SCALING: app_toggle_scaling(a); break;
    case ACT_ABLATE: app_cycle_ablation(a); break;
    case ACT_COLDER: app_temperature(a, -1); break;
    case ACT_WARMER: app_temperature(a, +1); break;
    case ACT_PREDICT: app_predict(a); break;
    case ACT_UNDO: app_undo(a); break;
    case ACT_REDO: app_redo(a); break;
    case ACT_RESET: app_undo_all(a); break;
    case ACT_HELP: app_toggle_help(a); break;
    case ACT_QUIT: app_request_quit(a); break;
    case ACT_SAVE_AS: app_save_as_start(a); break;
    case ACT_SENTENCE: app_sentence_start(a); break;
    case ACT_UNPIN: app_click(a, -1, -1, -1); break;
    case ACT_INCREASE: step_pinned(a, +1); break;
    case ACT_DECREASE: step_pinned(a, -1); break;
    case ACT_STAGE_NEXT: app_nav_stage(a, +1); break;
    case ACT_STAGE_PREV: app_nav_stage(a, -1); break;
    case ACT_HEAD_NEXT: app_nav_head(a, +1); break;
    case ACT_HEAD_PREV: app_nav_head(a, -1); break;
    case ACT_TOKEN_NEXT: app_nav_token(a, +1); break;
    case ACT_TOKEN_PREV: app_nav_token(a, -1); break;
    case ACT_SORTER: app_sorter_toggle(a); break;
    case ACT_SORTER_LEFT: app_sorter_move(a, -1); break;
    case ACT_SORTER_RIGHT: app_sorter_move(a, +1); break;
    case ACT_SORTER_UP: app_sorter_move(a, -SORTER_COLS); break;
    case ACT_SORTER_DOWN: app_sorter_move(a, +SORTER_COLS); break;
    case ACT_SORTER_PAGE_UP: app_sorter_move(a, -SORTER_GRID); break;
    case ACT_SORTER_PAGE_DOWN: app_sorter_move(a, +SORTER_GRID); break;
    case ACT_SORTER_FIRST: app_sorter_select(a, 0); break;
    case ACT_SORTER_LAST: app_sorter_select(a, a->view ? a->view->nsteps - 1 : 0); break;
    case ACT_SORTER_GO: app_sorter_go(a); break;
    case ACT_CELLS: app_cells_start(a); break;
    case ACT_CELL_LEFT: app_cells_move(a, 0, -1); break;
    case ACT_CELL_RIGHT: app_cells_move(a, 0, +1); break;
    case ACT_CELL_UP: app_cells_move(a, -1, 0); break;
    case ACT_CELL_DOWN: app_cells_move(a, +1, 0); break;
    case ACT_CELL_PANEL_NEXT: app_cells_panel(a, +1); break;
    case ACT_CELL_PANEL_PREV: app_cells_panel(a, -1); break;
    case ACT_CELL_PRESS: app_cells_press(a); break;
    case ACT_CELLS_LEAVE: app_cells_stop(a); break;
    case ACT_PICKER_UP: app_picker_move(a, -1); break;
    case ACT_PICKER_DOWN: app_picker_move(a, +1); break;
    case ACT_PICKER_OPEN: app_picker_open(a); break;
    case ACT_PICKER_DIGIT: picker_pick(a, arg); break;
    case ACT_ASK_ACCEPT: app_ask_accept(a); break;
    case ACT_ASK_CANCEL: app_ask_cancel(a); break;
    case ACT_ASK_BACKSPACE: app_ask_backspace(a); break;
    case ACT_ASK_CLEAR: app_ask_clear(a); break;
    case ACT_ASK_QUIT: if (a->ask == ASK_QUIT) app_ask_accept(a); break;
    case ACT_ASK_SAVE: if (a->ask == ASK_QUIT && app_save_lesson(a) == 0) app_ask_cancel(a); break;
    case ACT_ASK_COMPLETE: app_ask_complete(a); break;
    default:
        assert(act == ACT_NONE || app_action_platform(act));
        return false;
    }
    return true;
}

/* The action of a name. */
AppAction app_action_named(const char *name)
{
    for (int i = 1; i < ACT_COUNT; i++)
        if (names[i] && !strcmp(names[i], name)) return (AppAction)i;
    return ACT_NONE;
}

/* The name of an action. */
const char *app_action_name(AppAction act)
{
    assert(act >= 0 && act < ACT_COUNT && names[act]);
    return names[act];
}

/* The first main row of act for an edition (one that lists keys, when
** listed is set), or NULL. */
static const KeyRow *main_row(AppAction act, unsigned edition, bool listed)
{
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++)
        if (rows[i].act == act && rows[i].ctx == KEYS_MAIN && (rows[i].editions & edition) && (!listed || rows[i].keys))
            return &rows[i];
    return NULL;
}

/* The first main row of act for an edition. */
const KeyRow *app_action_row(AppAction act, unsigned edition)
{
    return main_row(act, edition, false);
}

/* The keys of act as the help shows them. */
const char *app_action_keys(AppAction act, unsigned edition)
{
    const KeyRow *r = main_row(act, edition, true);
    return r ? r->keys : NULL;
}
