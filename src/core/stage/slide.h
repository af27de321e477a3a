/*
** slide.h: the sizes a slide is designed at, in one place.
**
** The layout (src/view/layout*.c) scales every size below to the canvas
** it draws on, u = 1 at DESIGN_W x DESIGN_H; the stage pager
** (src/core/stage/stage_pages.c) cuts a stage into sub-steps where the layout
** says (src/view/layout_fit.c) a sub-step no longer prints its numbers at
** VALUE_GOAL on the projector slide, SLIDE_W x SLIDE_H. Fonts are in pixels at u = 1; the shares
** (LH, INK, ...) are in font sizes. Nothing here draws or measures.
*/
#ifndef ATTNLAB_SLIDE_H
#define ATTNLAB_SLIDE_H

/* The canvas every size is designed for (u = 1), and the projector slide
** sub-steps are planned for (u = 0.9: a 16:9 slide in a hall). */
#define DESIGN_W        1280.0f
#define DESIGN_H        800.0f
#define SLIDE_W         1280
#define SLIDE_H         720

/* Room, at u = 1. */
#define SIZE_MARGIN     36      /* around the page */
#define SIZE_GAP        30      /* between panels, and panels and text */
#define SIZE_GS         8       /* between a label and what it names */
#define SIZE_PAD        5       /* inside a cell, around its number */
#define SIZE_BAR        18      /* a colour bar's width */

/* Fonts, at u = 1 and text scale 1. */
#define FONT_TITLE      34      /* the stage title */
#define FONT_META       17      /* "lesson · stage k / n", the notes line */
#define FONT_FORMULA    25
#define FONT_BODY       20      /* the explanation */
#define FONT_PTITLE     22      /* a panel's title */
#define FONT_AXIS       17      /* axis titles */
#define FONT_LABEL      19      /* tokens along the axes, at most */
#define FONT_VALUE      23      /* cell numbers, at most */
#define FONT_TICK       16      /* tick labels */
#define FONT_LEGEND     17

/* The cell font numbers are planned to reach before the explanation gets
** room (14 px on the projector slide), and the smallest legible one (12 px
** there; it scales with the canvas and is never under FONT_MIN). */
#define VALUE_GOAL      16
#define VALUE_FLOOR     13.4f
#define FONT_MIN        9       /* no label, title or cell number below 9 px */
#define BODY_FLOOR      15.6f   /* the explanation is never smaller (14 px on the slide), nor cut: the panels give way */
#define LABEL_FLOOR     13.4f   /* no token along a grid is smaller (12 px on the slide): labels turn upright,
                                   then show every other one, rather than shrink */
#define LABEL_GLANCE    11.2f   /* ... but on the page of every head side by side, where no number is printed,
                                   this (10 px on the slide) */

/* Panels: up to this many are tried in one row (more always go in two). */
#define ONE_ROW_MAX     4
#define ROW_MIN_SHARE   4       /* no row of two holds fewer than a quarter of the panels */
#define MAX_ROWS        4       /* panels go in at most four rows, */
#define MANY_ROWS_MAX   8       /* more than two only for eight panels or fewer */
#define STACK_GAP       0.5f    /* rows of a stack of two to four sit this share of the gap apart */
#define SHARED_GAP      0.6f    /* panels that share labels or a bar sit this share of the gap apart */

/* The explanation beside the panels: this share of the width, within
** 300 .. 470 canvas units. */
#define COLUMN_SHARE    0.3f
#define COLUMN_MIN      300
#define COLUMN_MAX      470

/* Text bands, in font sizes. */
#define LH              1.25f   /* a line band */
#define BODY_LH         1.45f   /* line spacing of the explanation */
#define INK             1.17f   /* height the glyphs of a line really cover (DejaVu Sans) */
#define CELL_INK        0.95f   /* the height a cell's number needs: its digits cover 0.73 of the
                                   font size (no descenders), and this keeps a little above and below */
#define PARA_GAP        0.6f    /* space between paragraphs, in lines */
#define SHRINK_BEFORE_CUT 0.7f  /* a panel title or the formula shrinks to this share before it is cut */

#endif
