/*
** state.h: the interactive program's state and the actions that change it.
**
** The event loop (src/app/window.c) turns keys and mouse events into calls of
** these functions; each is plain C with no SDL, so tests drive them directly.
** A frame is drawn from the state alone (app_frame). The state owns the
** lesson, its trace and the view of the current stage, and recomputes them
** whenever an action changes an input or a setting.
**
** Usage:
**   AppState *a = app_create();
**   if (app_open(a, "lessons/01-tour.lesson") != 0) puts(a->error);
**   app_next(a); app_hover(a, 1, 0, 2); ...
**   app_free(a);
*/
#ifndef ATTNLAB_STATE_H
#define ATTNLAB_STATE_H

#include <stdbool.h>
#include "core/lesson.h"
#include "core/stage.h"
#include "core/explain.h"
#include "core/trace.h"
#include "view/layout.h"

#define APP_MAX_EDITS 4096

/* One edit of an input cell, as the undo stack keeps it (src/app/edits.c). */
typedef struct AppEdit {
    int setup;
    char matrix[LESSON_MAX_NAME + 1];
    int row, col;
    double old, now;        /* the value before and after */
} AppEdit;

/* What the window is asking (src/app/prompt.c). */
typedef enum AppAsk { ASK_NONE, ASK_QUIT, ASK_OPEN, ASK_SAVE_AS, ASK_OVERWRITE } AppAsk;

/* What identifies a version of a file on disk (src/app/reload.c). */
typedef struct AppFileSig { long long dev, ino, size, mtime_ns; bool exists; } AppFileSig;

typedef enum PredictPhase { PREDICT_OFF, PREDICT_GUESSING, PREDICT_REVEALED } PredictPhase;

/* The zoom: one heatmap of the stage shown alone, a part of it at a time
** (src/app/zoom.c). */
typedef struct AppZoom {
    bool on;
    TraceRef ref;           /* the matrix zoomed into (found again in every new view) */
    int level;              /* 1, 2, ...: rows and columns shown are the whole's / 2^level */
    double row0, col0;      /* the part's first row and column in the whole (fractional while dragged) */
    int rows, cols;         /* the whole heatmap's size, as the stage shows it */
    int r0, c0;             /* the part the view shows now starts at this cell of the whole */
    bool have_range;        /* lo and hi hold the whole's colour range for this trace */
    double lo, hi;
} AppZoom;

typedef struct AppState {
    char *path;             /* the open lesson's file */
    char *source;           /* its text as loaded (R returns to it, saved since or not) */
    Lesson *L;
    Trace *T;
    View *view;             /* the current stage */
    int stage;
    LayoutCache *layout;    /* what layout keeps from frame to frame (app_frame) */

    /* display settings */
    bool dark;
    bool fullscreen;
    bool black;             /* B: a blank screen */
    bool help;              /* ?: the key overlay */
    bool web;               /* the browser edition: its keys in the overlay */
    bool picker;            /* L: the lesson picker */
    int picker_sel;
    char **picker_items;    /* bundled lesson paths */
    char **picker_titles;
    int picker_n;
    int cmap;               /* -1: the lesson's colormaps, else an index into cmap names */
    float text_scale;
    int head;               /* H: 0 = the stage's own choice, else a head to show */
    int step;               /* the sub-step of stages that have them (kv_cache, online_softmax) */
    AppZoom zoom;           /* + - 0, Ctrl+wheel, drag: one heatmap in part */

    /* pointer */
    int hover_panel, hover_row, hover_col;
    bool pinned;
    int pin_panel, pin_row, pin_col;

    /* edits: an undo stack; edits[0 .. nedits) are applied, the nredo after them can be redone */
    AppEdit edits[APP_MAX_EDITS];
    int nedits, nredo;
    bool dirty;             /* the numbers differ from the file on disk: unsaved edits */
    char *disk;             /* the file's text as last read or written (saves edit it) */
    size_t disk_len;
    Lesson *disk_L;         /* disk, parsed: where each number is in it */
    bool backed_up;         /* FILE~ was written this session for path */

    /* asking: a confirmation or the save-as text field */
    AppAsk ask;
    char ask_text[1024];    /* the file name being typed */
    char *ask_path;         /* the lesson to open (ASK_OPEN) or the file to replace (ASK_OVERWRITE) */

    /* live reload */
    AppFileSig watch_sig;   /* the file as last seen */
    double watch_next;      /* when to look again (app clock) */
    bool disk_bad;          /* the file on disk does not load: a->error says why */

    /* predict mode */
    PredictPhase predict;
    int predict_panel;      /* the hidden weights panel */
    int guesses[LESSON_MAX_TOKENS];   /* guessed column per row, -1 = none yet */
    int predict_right;      /* after reveal: rows guessed right */

    /* messages */
    char toast[512];        /* shown for two seconds */
    double toast_until;     /* in seconds, app clock */
    double now;             /* the app clock, set by the event loop */
    int saved_mask[LESSON_MAX_SETUPS];   /* M remembers the mask it turned off */
    char *saved_mask_matrix[LESSON_MAX_SETUPS];
    char error[700];        /* a lesson that failed to load (kept on screen) */
    int error_code;         /* its exit status (lesson_exit_code): 1 I/O, 2 invalid */
    char *shots_dir;        /* S writes here */
    bool quit;
} AppState;

/* A new state with nothing open. */
AppState *app_create(void);
/* Release everything. */
void app_free(AppState *a);
/* Open a lesson file. On failure the previous lesson stays and a->error says
** why; returns 0 or -1. */
int app_open(AppState *a, const char *path);
/* Open lesson text already in memory (path names it in messages). */
int app_open_text(AppState *a, const char *path, const char *text, size_t len);

/* Stepping: → and ← move through a stage's sub-steps before leaving it
** (arriving backwards at a stage with sub-steps shows its last one). */
void app_next(AppState *a);
void app_prev(AppState *a);
void app_first(AppState *a);
void app_last(AppState *a);
/* Jump to stage n (1-based); out of range does nothing. */
void app_goto(AppState *a, int n);

/* Display toggles. */
void app_toggle_theme(AppState *a);
void app_cycle_cmap(AppState *a);
void app_toggle_black(AppState *a);
void app_toggle_help(AppState *a);
void app_toggle_fullscreen(AppState *a);
/* Text size: +1 bigger, -1 smaller (within 0.6 .. 2.5). */
void app_text_size(AppState *a, int dir);
/* Show the next head in stages that have several. */
void app_next_head(AppState *a);
/* Escape: close an overlay, else leave fullscreen, else unpin. */
void app_escape(AppState *a);

/* Settings that recompute the trace. When the recompute fails (a toast
** says why), each leaves its setting, and the trace, as they were. */
void app_toggle_mask(AppState *a);
void app_toggle_scaling(AppState *a);
/* Temperature down (-1) or up (+1) by a factor of 1.25, within 0.1 .. 10. */
void app_temperature(AppState *a, int dir);

/* Pointer: which cell is under the mouse (-1s for none). */
void app_hover(AppState *a, int panel, int row, int col);
/* A click on a cell: pin or unpin it (or a guess in predict mode). */
void app_click(AppState *a, int panel, int row, int col);
/* Scroll over an editable cell: change it by steps of 0.1 (fine: 0.01). */
bool app_scroll_edit(AppState *a, int panel, int row, int col, int steps, bool fine);
/* Recompute the trace and view after a change of the lesson; -1 (toast
** says why) if the numbers would overflow. */
int app_recompute(AppState *a);
/* Build the view of the current stage again from the trace (after a change
** of what it shows: the zoom, zoom.h). */
void app_rebuild_view(AppState *a);
/* Put a parsed lesson and its trace in place of the open one (the state
** takes them), keeping the stage and head where they still exist. */
void app_adopt(AppState *a, Lesson *L, Trace *T);

/* Predict mode: off -> guessing -> revealed -> off. */
void app_predict(AppState *a);

/* The cell the explain panel is about (pinned, else hovered); false if none. */
bool app_focus_cell(const AppState *a, int *panel, int *row, int *col);
/* The explanation text of the focused cell (caller frees), or NULL. */
char *app_explain(const AppState *a);
/* The same with its operands (explain_free it); false if nothing is focused. */
bool app_explain_full(const AppState *a, Explain *ex);
/* The operands of the focused cell as outlines on the current view: up to
** max marks in out; returns how many. */
int app_marks(const AppState *a, LayoutMark *out, int max);
/* Panels hidden while the class guesses (bit k = panel k). */
unsigned long long app_hidden_panels(const AppState *a);
/* Set a toast message shown for two seconds from a->now. */
void app_toast(AppState *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The lesson picker. */
void app_toggle_picker(AppState *a);
void app_picker_move(AppState *a, int dir);
/* Open the selected lesson and close the picker. */
void app_picker_open(AppState *a);

#endif
