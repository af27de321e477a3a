/*
** tlayout.h: what the layout suites (test_layout.c, test_layout_limits.c,
** test_layout_large.c) share: tokens and dimension names, hand-made views
** and heatmap panels, laying out with the fixed-width measure, and finding
** and checking the commands of a laid-out page.
*/
#ifndef ATTNLAB_TLAYOUT_H
#define ATTNLAB_TLAYOUT_H

#include "suites.h"
#include "core/compute/mat.h"
#include "view/layout.h"

/* Eight and three tokens, four dimension names, the views' two paragraphs. */
extern char *tl_tok8[8], *tl_tok3[3], *tl_dims4[4], *tl_paras[2];

/* Where a text's glyphs land, as a box. */
typedef struct Box { float x0, y0, x1, y1; } Box;

/* A heatmap panel over m. */
Panel tl_heat(const char *title, const Mat *m, char **rl, char **cl, const char *cmap, bool diverging, bool prob,
              int decimals);
/* A view with a title, a formula, two paragraphs and no panels yet, with
** room for VIEW_MAX_PANELS of them (tl_panels'). */
View tl_view(const char *title);
/* Room for VIEW_MAX_PANELS panels, zeroed, for a view made by hand: one of
** eight static arrays in turn (a test holds at most eight such views). */
Panel *tl_panels(void);
/* rows x cols values spread over [lo, hi] in a fixed pattern (caller frees). */
Mat *tl_pattern(int rows, int cols, double lo, double hi);
/* Rows that are probability distributions, each summing to 1 (caller frees). */
Mat *tl_distributions(int rows, int cols);
/* v laid out with options o into a new list, with a fresh cache (caller frees). */
DrawList *tl_lay_with(const View *v, const LayoutOpts *o);
/* v laid out at w x h with the fixed measure, light or dark (caller frees). */
DrawList *tl_lay(const View *v, int w, int h, bool dark);
/* Where a text command's glyphs land, measured with the fixed-width
** measure, or with measure (and its ctx). */
Box tl_ink(const DrawList *d, const DrawCmd *c);
Box tl_ink_with(const DrawList *d, const DrawCmd *c, MeasureFn measure, void *ctx);
/* What any command covers, strokes included, text measured with measure. */
Box tl_extent_with(const DrawList *d, const DrawCmd *c, MeasureFn measure, void *ctx);
/* True when two boxes share more than a sliver. */
bool tl_overlap(Box a, Box b);
/* Fail unless everything is inside the canvas, no two texts overlap and
** every cell's number is inside its cell; what names the page. */
void tl_assert_page_clean(const DrawList *d, const char *what);
/* The filled cell rectangle of (panel, row, col), or NULL. */
const DrawCmd *tl_find_cell(const DrawList *d, int panel, int row, int col);
/* How many commands have this kind and role (on a panel, or any when -1). */
int tl_count(const DrawList *d, DrawKind kind, DrawRole role, int panel);
/* The first text command whose string is s, or NULL. */
const DrawCmd *tl_find_text(const DrawList *d, const char *s);
/* True when two colours are the same. */
bool tl_same_color(Color a, Color b);
/* Stage k of a bundled lesson laid out at w x h with the fixed measure
** (caller frees). */
DrawList *tl_lay_lesson_stage(const char *file, int k, int w, int h);
/* The layout suite's hang-limited cases of limits, memos and caches. */
TCase *layout_limits_tcase(void);
/* Its case of lessons of up to 1,024 tokens, laid out with the real font. */
TCase *layout_large_tcase(void);

#endif
