/*
** draw.h: the display list every backend draws from.
**
** layout_view fills a DrawList with filled rectangles, lines and text runs in
** pixel coordinates (origin top-left). The SDL backend draws it on a window or
** an offscreen surface, the SVG writer turns it into vector markup, and tests
** inspect it directly. A DrawList is reused frame after frame: draw_clear keeps
** its memory, so steady-state layout allocates nothing.
**
** Commands carry what they mean (role, panel, row, col) besides how they look,
** so hit-testing a cell under the mouse and checking "every cell has a label"
** need no second source of truth.
*/
#ifndef ATTNLAB_DRAW_H
#define ATTNLAB_DRAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Color { uint8_t r, g, b, a; } Color;
typedef struct Rect { float x, y, w, h; } Rect;

typedef enum DrawKind { DRAW_RECT, DRAW_LINE, DRAW_TEXT, DRAW_IMAGE } DrawKind;
typedef enum HAlign { ALIGN_LEFT, ALIGN_CENTER, ALIGN_RIGHT } HAlign;
typedef enum VAlign { VALIGN_TOP, VALIGN_MIDDLE, VALIGN_BOTTOM } VAlign;

/* What a command is part of (for tests, hit-testing and highlights). */
typedef enum DrawRole {
    ROLE_DECOR,         /* backgrounds, frames, grid */
    ROLE_CELL,          /* a heatmap cell (panel, row, col set) */
    ROLE_CELL_TEXT,     /* the value printed in a cell */
    ROLE_MASKED,        /* a masked cell's fill or its "−∞" */
    ROLE_ROW_LABEL,     /* a token on the row axis (row set) */
    ROLE_COL_LABEL,     /* a token on the column axis (col set) */
    ROLE_AXIS_TITLE,
    ROLE_PANEL_TITLE,
    ROLE_COLORBAR,
    ROLE_TICK_LABEL,
    ROLE_TITLE,         /* the stage title */
    ROLE_FORMULA,
    ROLE_BODY,          /* explanation text */
    ROLE_PLOT,          /* plot lines, markers, legend */
    ROLE_CELL_MARK,     /* a mark on a cell (Panel.cell_marks: a frame, a diamond; panel, row, col set) */
    ROLE_OVERLAY        /* app overlays: help, explain panel, toasts */
} DrawRole;

typedef struct DrawCmd {
    DrawKind kind;
    DrawRole role;
    Color color;
    Rect r;             /* RECT: the area. LINE: from (x, y) to (x+w, y+h).
                           TEXT: the box the text is aligned in.
                           IMAGE: the grid (x, y: its first cell's corner) */
    float width;        /* LINE: stroke width; RECT: 0 = filled, else outline width */
    uint32_t text;      /* TEXT: offset of the NUL-terminated UTF-8 string in DrawList.text;
                           IMAGE: offset of its DrawImage in DrawList.pix */
    float size;         /* TEXT: font size in pixels */
    uint8_t halign, valign;
    uint8_t bold;
    uint8_t rotate;     /* TEXT: 0, or 90 = reads bottom to top; then halign runs
                           along the text (LEFT = the box's bottom) and valign
                           across it (TOP = the box's left side) */
    uint8_t dashed;     /* LINE: dashed stroke (DRAW_DASH_ON, DRAW_DASH_OFF) */
    int16_t panel, row, col;   /* -1 when not applicable */
} DrawCmd;

/* The one dash pattern of dashed lines, in stroke widths: DRAW_DASH_ON
** drawn, then DRAW_DASH_OFF skipped, starting with a dash at the line's
** start. The window and PNG (src/sdl/render.c), SVG (svg.c) and the
** browser's canvas (web/paint.js, which reads it from web_layout)
** all draw this pattern. */
#define DRAW_DASH_ON  5
#define DRAW_DASH_OFF 4

/*
** DRAW_IMAGE: a heatmap too fine for a command per cell, as one command. Its
** cells (rows x cols, each cw x ch pixels, cell (r, c) at x + c·cw,
** y + r·ch) are drawn in blocks of rstep x cstep cells (cut at the grid's
** edge), block (i, j) in colour px[i·bcols + j], exactly as one filled
** rectangle per block would be: draw_image_block gives that rectangle,
** and the backends draw it with their rectangle code. The header and the
** colours follow each other in DrawList.pix (4-byte fields, then RGBA).
*/
typedef struct DrawImage {
    int32_t rows, cols;         /* cells */
    int32_t rstep, cstep;       /* cells per block, down and across */
    float cw, ch;               /* a cell's size in pixels */
} DrawImage;

/* What panel k of the list shows, for scripts reading an exported figure. */
#define DRAW_MAX_PANELS 40
typedef struct DrawPanel {
    char matrix[48];    /* the matrix's name as in --dump ("head2.weights"); "" for none */
    int head;           /* its head, or 0 */
    int row0;           /* its first row is this row of the matrix (one-row panels) */
    int decimals;       /* digits after the point of the numbers it prints */
} DrawPanel;

typedef struct DrawList {
    DrawCmd *cmds;
    int n, cap;
    char *text;         /* string arena */
    size_t tlen, tcap;
    unsigned char *pix; /* image arena: DrawImage headers and their colours */
    size_t plen, pcap;
    int width, height;  /* canvas size in pixels */
    Color background;
    DrawPanel panels[DRAW_MAX_PANELS];  /* set by layout_view */
    int npanels;
} DrawList;

/* An empty list for a width x height canvas. */
DrawList *draw_create(int width, int height);
/* Release it. */
void draw_free(DrawList *d);
/* Empty it for a new frame, keeping its memory; sets the canvas size. */
void draw_clear(DrawList *d, int width, int height, Color background);
/* Make dst a list of src's canvas, background, panels and arenas (strings,
** images), without commands: src's commands copied into it with
** draw_copy_cmds then read the same. */
void draw_copy_base(DrawList *dst, const DrawList *src);
/* Append commands [from, to) of src to dst, made with draw_copy_base from
** src (or from a list whose arenas src's commands read alike). */
void draw_copy_cmds(DrawList *dst, const DrawList *src, int from, int to);
/* Append a command (text is copied into the arena when kind is DRAW_TEXT);
** returns its index. */
int draw_push(DrawList *d, const DrawCmd *c, const char *text);
/* A filled rectangle. */
int draw_rect(DrawList *d, Rect r, Color c, DrawRole role);
/* A rectangle outline of the given stroke width. */
int draw_frame(DrawList *d, Rect r, Color c, float width, DrawRole role);
/* A line from (x0, y0) to (x1, y1). */
int draw_line(DrawList *d, float x0, float y0, float x1, float y1, Color c, float width, DrawRole role);
/* A text run aligned in box r. */
int draw_text(DrawList *d, Rect r, const char *text, float size, Color c,
              HAlign ha, VAlign va, DrawRole role);
/* The string of a text command. */
const char *draw_str(const DrawList *d, const DrawCmd *c);
/* A grid of cells drawn in blocks (DrawImage above) with its corner at
** (x, y). Its colours, one per block row by row, are for the caller to
** fill in *px (in the list's arena: valid until the next image). Returns
** the command's index. */
int draw_image(DrawList *d, float x, float y, const DrawImage *im, DrawRole role, Color **px);
/* The header of an image command (NULL for other kinds); *px gets its colours. */
const DrawImage *draw_image_of(const DrawList *d, const DrawCmd *c, const Color **px);
/* Blocks of an image down (*brows) and across (*bcols). */
void draw_image_size(const DrawImage *im, int *brows, int *bcols);
/* The shapes d draws: a command each, an image as its blocks (what an SVG
** writes an element for, and what a picture costs to draw). */
int64_t draw_shapes(const DrawList *d);
/* The rectangle of the block whose first cell, (row, col) of grid g
** (g's rows, cols and steps; its cell size is cell's), is drawn at cell:
** rstep x cstep cells, fewer at the grid's edge. The layout's blocks of
** rectangles and the image blocks both come from here. */
Rect draw_block_rect(Rect cell, int row, int col, const DrawImage *g);
/* Block (i, j) of image command c as the filled rectangle it stands for:
** colour, area, and the panel, row and column of its first cell. */
DrawCmd draw_image_block(const DrawList *d, const DrawCmd *c, int i, int j);
/* Call fn with each block of image command c, as a filled rectangle
** (draw_image_block), skipping transparent ones: how backends draw it. */
void draw_image_each(const DrawList *d, const DrawCmd *c, void (*fn)(void *ctx, const DrawCmd *rect), void *ctx);
/* The cell under (x, y): the last-drawn ROLE_CELL rectangle or image
** containing it (an image answers with the first cell of the block under
** the point, the cell whose colour the block shows). False if none. */
bool draw_cell_at(const DrawList *d, float x, float y, int *panel, int *row, int *col);
/* The panel whose cell (draw_cell_at) or title is under (x, y), or -1. */
int draw_panel_at(const DrawList *d, float x, float y);
/* Where cell (row, col) of a panel is drawn (its rectangle, or its block
** in an image); false when it is not drawn. */
bool draw_cell_rect(const DrawList *d, int panel, int row, int col, Rect *out);

/* How wide text is at a size, in pixels: supplied by the caller of layout
** (the width of the shaped run the SDL side will draw, font_measure, in the
** program; a fixed-width stand-in in tests). */
typedef float (*MeasureFn)(void *ctx, const char *text, float size, int bold);

#endif
