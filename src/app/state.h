/*
** state.h: the interactive program's state and the actions that change it.
**
** The event loop (src/app/window.c) turns keys and mouse events into calls of
** these functions; each is plain C with no SDL, so tests drive them directly.
** A frame is drawn from the state alone (app_frame). The state stands on the
** document (doc.h: the lesson file, its lesson and trace, edits, undo,
** saving, reload) and adds what belongs to the screen: the stage shown and
** its view, display settings, the pointer, messages. It calls the document
** and follows what each call reports (DocEvent, app_follow): a new trace
** or lesson rebuilds the view, an error or a message goes on screen. What a
** frame draws over the cells (the focused cell's explanation and outlines,
** the edited cells, marks.h) is worked out here when the pointer, the pin,
** the view or predict mode change, not while drawing.
**
** Rooms of their own act on the same state: predict mode (predict.h), live
** reload (watch.h), the zoom (zoom.h), the lesson picker's list
** (library.h), the questions asked (prompt.h), the head, token and stage
** keys (nav.h), the slide sorter (sorter.h). predict.h and watch.h are
** included here (AppState holds predict mode's phase), so that whoever
** uses the state has their actions too.
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
#include "doc.h"
#include "marks.h"
#include "predict.h"
#include "watch.h"
#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"
#include "view/layout.h"

#define APP_DIGIT_SECONDS 1.0   /* digits typed closer than this make one stage number */

/* What the window is asking (src/app/prompt.c). */
typedef enum AppAsk { ASK_NONE, ASK_QUIT, ASK_OPEN, ASK_SAVE_AS, ASK_OVERWRITE, ASK_OPEN_FILE, ASK_SENTENCE } AppAsk;

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
    Doc *doc;               /* the open lesson, NULL when none is: its file, lesson, trace, edits */
    View *view;             /* the current stage */
    int stage;
    LayoutCache *layout;    /* what layout keeps from frame to frame (app_frame) */
    LayoutFitter *fitter;   /* the layout's answer to where a stage's pages are cut (app_set_measure) */
    StagePager *pager;      /* the views' pages, cut with it */
    MeasureFn measure;      /* the platform's text measure (app_set_measure), and its context */
    void *measure_ctx;

    /* display settings */
    bool dark;
    bool fullscreen;
    bool black;             /* B: a blank screen */
    bool help;              /* ?: the key overlay */
    bool web;               /* the browser edition: its keys in the overlay */
    bool picker;            /* L: the lesson picker */
    bool sorter;            /* G: the slide sorter, the stage's pages as a grid (sorter.h) */
    int sorter_sel;         /* the page it has selected (0-based) */
    struct AppSorter *thumbs;   /* its pages laid out (the state owns it) */
    int picker_sel;
    char **picker_items;    /* lesson paths (library.h: recent, folders, the user's, bundled) */
    char **picker_titles;
    char **picker_where;    /* where each comes from ("recent", a folder's name, "bundled") */
    int picker_n;
    char **folders;         /* folders named on the command line, listed by the picker (the state owns them) */
    int nfolders;
    bool first_hint;        /* the first-run hint of → and ? is shown (the window clears it at a key) */
    int cmap;               /* -1: the lesson's colormaps, else an index into cmap names */
    float text_scale;       /* A+ and A−: the user's */
    float text_base;        /* what it is multiplied by: 1, more in the browser's phone layout (app_set_page_shape) */
    float page_aspect;      /* the phone layout's screen, height / width, that pages are cut for (0: the slide's) */
    int head;               /* H: 0 = the stage's own choice, else a head to show */
    int step;               /* the sub-step of stages that have them (kv_cache, online_softmax) */
    AppZoom zoom;           /* + -, Ctrl+wheel, drag: one heatmap in part */
    int digits;             /* the stage number being typed (app_type_digit) */
    double digits_at;       /* when its last digit came (app clock) */

    /* pointer */
    int hover_panel, hover_row, hover_col;
    int nav_point;          /* the head whose panel of the comparison page it is over (nav.h), or 0 */
    bool pinned;
    int pin_panel, pin_row, pin_col;
    bool cells;             /* the cell cursor (cells.h) is the pinned cell: the arrows move it */

    /* what a frame draws over the cells, worked out when it changes (marks.h) */
    MarksHover explained;   /* the focused cell's explanation and the operands to outline */
    MarksEdited edited;     /* the view's edited input cells */
    unsigned long long hidden;   /* panels predict mode hides now (app_hidden_panels, predict.h) */

    /* asking: a confirmation or the save-as text field */
    AppAsk ask;
    char ask_text[1024];    /* the file name (or a model's sentence) being typed */
    char ask_note[512];     /* under it: what Tab found (ASK_OPEN_FILE) */
    char *ask_path;         /* the lesson to open (ASK_OPEN) or the file to replace (ASK_OVERWRITE) */

    /* live reload (watch.h) */
    double watch_next;      /* when to look at the file again (app clock) */

    /* predict mode (predict.h) */
    PredictPhase predict;
    int predict_panel;      /* the first weights panel of the view (-1: none, predict mode is off here) */
    int guesses[LESSON_MAX_HEADS + 1][LESSON_MAX_TOKENS];   /* guessed column per head (0: none) and
                                                               row of the whole matrix, -1 = none yet */
    TraceKind guess_kind[LESSON_MAX_HEADS + 1];   /* per head: the weights guessed on (TK_WEIGHTS,
                                                     ** TK_KV_WEIGHTS), TK_COUNT: no guess yet */
    int predict_right;      /* after reveal: rows guessed right, every head's */

    /* messages */
    char toast[512];        /* shown for two seconds */
    double toast_until;     /* in seconds, app clock */
    double now;             /* the app clock, set by the event loop */
    int saved_mask[LESSON_MAX_SETUPS];   /* M remembers the mask it turned off */
    char *saved_mask_matrix[LESSON_MAX_SETUPS];
    char error[ERROR_LINE_MAX];     /* a lesson that failed to load, or the file on disk that does not,
                                    ** as one line (kept on screen) */
    int error_code;         /* its exit status (error_exit_code): 1 I/O, 2 invalid */
    char *shots_dir;        /* S writes here */
    bool quit;
} AppState;

/* A new state with nothing open; its pages are cut for the fixed text
** measure until app_set_measure gives it the platform's. */
AppState *app_create(void);
/* Cut stages into pages as text measured by measure (with ctx) lays them
** out: the window's fonts, the page's canvas (the view is built again). */
void app_set_measure(AppState *a, MeasureFn measure, void *ctx);
/* Pages cut for a screen of aspect height / width with text scaled by
** text_base (the browser's phone layout), or, with text_base 1, for the
** projector slide; the view is built again when that changes. */
void app_set_page_shape(AppState *a, float aspect, float text_base);
/* Release everything. */
void app_free(AppState *a);
/* Put e on the screen as a->error (with its exit code), or clear it (NULL). */
void app_set_error(AppState *a, const Error *e);
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
/* A digit key: stage d, or, typed within APP_DIGIT_SECONDS of the digits
** before it, the stage they make together when the lesson has it (1 then
** 3: stage 13). */
void app_type_digit(AppState *a, int d);

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
/* Close the innermost thing the state has open: the key overlay, else the
** picker, else the slide sorter, else the black screen, else the zoom (zoom.h), else fullscreen,
** else the pin. (Escape
** cancels a question first: app_escape, prompt.h.) */
void app_close_overlay(AppState *a);

/* Settings that recompute the trace. When the recompute fails (a toast
** says why), each leaves its setting, and the trace, as they were. */
void app_toggle_mask(AppState *a);
void app_toggle_scaling(AppState *a);
/* A head switched off and on again: on -> its output replaced by 0 -> by
** its mean over the tokens -> on (the A key; `ablate:` in a lesson). The
** head is the one the page shows, else (a page of several heads, the
** comparison page) the one under the pointer; with none, a toast asks. */
void app_cycle_ablation(AppState *a);
/* Head h (1-based) of setup s (0-based) on (how 0), switched off (1) or
** replaced by its mean over the tokens (2): false (a toast says why when
** computing failed) if the setup has no such head to switch. */
bool app_set_ablation(AppState *a, int s, int h, int how);
/* Temperature down (-1) or up (+1) by a factor of 1.25, within 0.1 .. 10. */
void app_temperature(AppState *a, int dir);
/* The temperature of the current stage's setup set to t, within 0.1 .. 10. */
void app_set_temperature(AppState *a, double t);
/* Show sub-step step (0-based) of the current stage and head head (0:
** all, or the stage's own), each clamped to what the stage has. */
void app_show(AppState *a, int step, int head);

/* Pointer: which cell is under the mouse (-1s for none). */
void app_hover(AppState *a, int panel, int row, int col);
/* A click on a cell: pin or unpin it (or a guess in predict mode). */
void app_click(AppState *a, int panel, int row, int col);

/* Editing inputs, through the document (doc.h); a toast says what happened. */
/* old moved by steps of 0.1 (fine: 0.01). A value written with few
** decimals stays on its decimal grid: 0.9 + 3 steps is 1.2 exactly (as
** strtod reads "1.2"), not 1.2000000000000002. */
double app_edit_step(double old, int steps, bool fine);
/* Scroll over an editable cell: change it by steps of 0.1 (fine: 0.01). */
bool app_scroll_edit(AppState *a, int panel, int row, int col, int steps, bool fine);
/* Build the view of the current stage again from the trace (after a change
** of what it shows: the zoom, zoom.h). */
void app_rebuild_view(AppState *a);
/* Set a cell of an input matrix as setup names it (doc_edit_cell); false if refused. */
bool app_edit_cell(AppState *a, int setup, const char *matrix, int row, int col, double v);
/* Ctrl+Z: step back through the edits (and resets); false if there is none. */
bool app_undo(AppState *a);
/* Ctrl+Shift+Z, Ctrl+Y: step forward again; false if there is nothing to redo. */
bool app_redo(AppState *a);
/* R: back to the file as loaded, every edit and toggle gone, as one step
** that Ctrl+Z undoes (doc_revert); the toast says how many edits. */
void app_undo_all(AppState *a);
/* Ctrl+S: save over the lesson's file (doc_save). 0, or -1 with the toast saying why. */
int app_save_lesson(AppState *a);
/* Save to another file, which becomes the lesson's file. 0 or -1 (toast). */
int app_save_as(AppState *a, const char *path);
/* A save the platform writes (doc_save_text): the text (caller frees; its
** length in *len), or NULL with the toast saying why. */
char *app_save_text(AppState *a, size_t *len);

/* Follow what a call of the document did (ev, its DocEvent): the view
** rebuilt on a new trace or lesson (the old ones released), the file's
** error on screen or off, the message as a toast. Whatever calls the
** document follows it so; returns whether the call did what was asked. */
bool app_follow(AppState *a, DocEvent *ev);
/* Everything a frame draws over the cells (marks.h, a->hidden) worked out
** again: after a change of the view or of predict mode. */
void app_update_marks(AppState *a);

/* The cell the explain panel is about (pinned, else hovered); false if none. */
bool app_focus_cell(const AppState *a, int *panel, int *row, int *col);
/* A copy of the focused cell's explanation (caller frees), or NULL. */
char *app_explain(const AppState *a);
/* Set a toast message shown for two seconds from a->now. */
void app_toast(AppState *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The lesson picker (Enter opens the selection, asking first: app_picker_open, prompt.h). */
void app_toggle_picker(AppState *a);
void app_picker_move(AppState *a, int dir);

#endif
