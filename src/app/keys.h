/*
** keys.h: every key of both editions, in one table (keys.c).
**
** A row of the table binds keys to an action for the desktop window, the
** browser edition or both, and carries the help overlay's words for it
** (the keys as shown, and what they do). The window maps SDL's key codes
** to the KeyCode values below, the page maps KeyboardEvent.key names to
** them (web/platform.c), and both hand the press to app_key; the help
** overlay (frame.c) lists the rows of its edition; the page's buttons name
** their actions (app_action_named) and take their tooltips from the rows.
**
** A press is looked up in its context: while the program asks something
** (prompt.h) only the question's keys count; while the slide sorter is
** open (sorter.h) only its own; while the lesson picker is open its keys
** come first; then the main keys. A binding matches the modifiers
** exactly; failing that, a press with Shift held matches the binding
** without Shift ('?' is Shift+/ on many keyboards, Shift+PgDn is PgDn;
** Shift+→ has a row of its own: the next stage).
**
** Actions the state does itself are done by app_key; the others (saving a
** picture, opening a file, downloads: app_action_platform) are returned for
** the window or the page to do.
**
**   AppAction act = app_key(a, EDITION_DESKTOP, 's', 0);   // ACT_SHOT: the window's to do
*/
#ifndef ATTNLAB_KEYS_H
#define ATTNLAB_KEYS_H

#include "state.h"

/* A key, as both editions name it: printable keys are their ASCII code
** (letters lower case: 'a', '1', '+', '[', '?', ' '), the others below. */
typedef enum KeyCode {
    KEY_NONE = 0,
    KEY_ENTER = 0x100, KEY_ESCAPE, KEY_BACKSPACE, KEY_LEFT, KEY_RIGHT, KEY_UP, KEY_DOWN,
    KEY_HOME, KEY_END, KEY_PAGEUP, KEY_PAGEDOWN, KEY_F11, KEY_TAB,
    KEY_DIGIT,          /* in a binding: any of '0' … '9' (the action gets the digit) */
} KeyCode;

/* Modifiers of a press. The browser passes ⌘ (Meta) as Ctrl. */
#define KEYMOD_CTRL  1u
#define KEYMOD_SHIFT 2u

/* Where a row counts. */
#define EDITION_DESKTOP 1u
#define EDITION_WEB     2u
#define EDITION_BOTH    3u

/* What a key or a button does. */
typedef enum AppAction {
    ACT_NONE,
    ACT_NEXT, ACT_PREV, ACT_FIRST, ACT_LAST, ACT_STAGE_DIGIT,
    ACT_PICKER, ACT_FULLSCREEN, ACT_ESCAPE, ACT_BIGGER, ACT_SMALLER,
    ACT_ZOOM_IN, ACT_ZOOM_OUT,      /* over a heatmap or while one is zoomed (zoom.h), else the text size */
    ACT_THEME, ACT_CMAP, ACT_BLACK, ACT_HEAD, ACT_MASK, ACT_SCALING, ACT_COLDER, ACT_WARMER, ACT_ABLATE,
    ACT_PREDICT, ACT_UNDO, ACT_REDO, ACT_RESET, ACT_HELP, ACT_QUIT, ACT_SAVE_AS, ACT_UNPIN, ACT_SENTENCE,
    ACT_INCREASE, ACT_DECREASE,     /* the pinned input cell, one step up or down */
    ACT_STAGE_NEXT, ACT_STAGE_PREV, ACT_HEAD_NEXT, ACT_HEAD_PREV, ACT_TOKEN_NEXT, ACT_TOKEN_PREV,   /* nav.h */
    ACT_SORTER,                     /* the slide sorter (sorter.h), and its keys: */
    ACT_SORTER_LEFT, ACT_SORTER_RIGHT, ACT_SORTER_UP, ACT_SORTER_DOWN, ACT_SORTER_PAGE_UP, ACT_SORTER_PAGE_DOWN,
    ACT_SORTER_FIRST, ACT_SORTER_LAST, ACT_SORTER_GO,
    ACT_CELLS,                      /* the cell cursor (cells.h), and its keys: */
    ACT_CELL_LEFT, ACT_CELL_RIGHT, ACT_CELL_UP, ACT_CELL_DOWN, ACT_CELL_PANEL_NEXT, ACT_CELL_PANEL_PREV,
    ACT_CELL_PRESS, ACT_CELLS_LEAVE,
    ACT_PICKER_UP, ACT_PICKER_DOWN, ACT_PICKER_OPEN, ACT_PICKER_DIGIT,
    ACT_ASK_ACCEPT, ACT_ASK_CANCEL, ACT_ASK_BACKSPACE, ACT_ASK_CLEAR, ACT_ASK_QUIT, ACT_ASK_SAVE, ACT_ASK_COMPLETE,
    /* the platform's (app_action_platform): the window or the page does them */
    ACT_SHOT, ACT_SVG, ACT_SAVE, ACT_OPEN, ACT_LINK, ACT_PDF,
    ACT_COUNT
} AppAction;

/* The context a row counts in. */
typedef enum KeyContext { KEYS_MAIN, KEYS_PICKER, KEYS_SORTER, KEYS_ASK, KEYS_CELLS } KeyContext;

/* One key and its modifiers. */
typedef struct KeyBind {
    unsigned short key;         /* a KeyCode, or an ASCII character */
    unsigned char mods;         /* KEYMOD_* */
} KeyBind;

#define KEY_MAX_BINDS 5

/* A row: keys, action, help words, editions. */
typedef struct KeyRow {
    AppAction act;
    KeyContext ctx;
    unsigned editions;          /* EDITION_* */
    const char *keys;           /* the keys as the help lists them (a message), NULL: not listed */
    const char *help;           /* what the row does (a message) */
    KeyBind bind[KEY_MAX_BINDS];    /* up to KEY_MAX_BINDS; key 0 ends the list */
} KeyRow;

/* The table and its length. */
const KeyRow *app_key_rows(int *n);
/* The row a press matches in a's current context for an edition, and in
** *arg the digit of a KEY_DIGIT binding (-1 otherwise); NULL if none. */
const KeyRow *app_key_lookup(const AppState *a, unsigned edition, int key, unsigned mods, int *arg);
/* A key press: its action, done when it is the state's own. Returns the
** action matched (ACT_NONE: the key means nothing here; while asking, every
** key is taken and ACT_NONE returned for those that mean nothing). */
AppAction app_key(AppState *a, unsigned edition, int key, unsigned mods);
/* Do a state action with its argument (a digit; -1 when none). False for
** ACT_NONE and the platform's actions, which it leaves alone. */
bool app_do(AppState *a, AppAction act, int arg);
/* Whether the window or the page, not the state, does act. */
bool app_action_platform(AppAction act);
/* The action called name ("next", "mask", "svg": the page's buttons and
** gestures), or ACT_NONE. */
AppAction app_action_named(const char *name);
/* The name of an action ("" for ACT_NONE). */
const char *app_action_name(AppAction act);
/* The first row of an edition for act in the main context (its help words
** name the page's buttons), or NULL. */
const KeyRow *app_action_row(AppAction act, unsigned edition);
/* The keys of act as the help lists them (a message), or NULL. */
const char *app_action_keys(AppAction act, unsigned edition);

#endif
