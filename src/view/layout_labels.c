/*
** layout_labels.c: the labels along one side of a grid (a heatmap's row
** and column tokens, a plot's categories). Planning picks a size, which
** labels to show when the cells are too small for all, and for columns
** whether they stay level (each may use what its neighbours leave free)
** or turn to read upward; drawing places them as planned.
*/
#include "layout_int.h"
#include "core/text/utf8.h"

/* Labels stacked one per cell across the axis: as large as the cell allows,
** at least the least font (least), then every step-th label when cells are
** too small for all of them; band is the room the widest one needs. */
static void fit_across(const Page *p, AxisPlan *a, char **labels, int n, float cell, float fs_max, float cap, float least)
{
    a->fs = fminf(fs_max, lay_px(cell / LH));
    if (a->fs < least) {
        a->fs = least;
        a->step = (int)ceilf(LH * a->fs / cell);
    }
    a->band = fminf(lay_widest(p, labels, n, a->step, a->fs), cap);
}

/* Row labels: one per row at a size the rows can hold (at most fs_max), or
** every step-th row at the least size. */
AxisPlan lay_plan_rows(const Page *p, char **labels, int n, float cell, float fs_max, float cap, float least)
{
    AxisPlan a = { 0, 1, false, 0, 0, 0 };
    if (!labels || n <= 0) return a;
    fit_across(p, &a, labels, n, cell, fs_max, cap, least);
    return a;
}

/* Half the width level label i takes: its own half when it fits its
** column, half the column when it is long (it may be cut or spread). */
static float neighbour_half(const LabelTable *t, int i, float cell)
{
    float w = lay_label_w(t, i);
    return w <= cell - 2 * t->p->m.pad ? w / 2 : cell / 2;
}

/*
** How wide level label c of n may be: its column, widened by what its
** neighbours leave free on both sides (a short word leaves half its column
** empty), or at the first and last column by lo_room and hi_room beyond the
** grid. Labels stay centred, so two neighbours never meet.
*/
static float level_room(const LabelTable *t, int n, int c, float cell, float lo_room, float hi_room)
{
    float pad = t->p->m.pad;
    float left = c == 0 ? cell / 2 + lo_room - pad : cell - pad - neighbour_half(t, c - 1, cell);
    float right = c == n - 1 ? cell / 2 + hi_room - pad : cell - pad - neighbour_half(t, c + 1, cell);
    return fmaxf(2 * fminf(left, right), cell - 2 * pad);
}

/* The widest of labels 1 .. n-2 of a table (all measured, once). */
static float inner_widest(const LabelTable *t, int n)
{
    if (*t->inner < 0) {
        float w = 0;
        for (int i = 1; i < n - 1; i++) w = fmaxf(w, lay_label_w(t, i));
        *t->inner = w;
    }
    return *t->inner;
}

/* Whether label c fits its level room (is not wider than it). */
static bool level_fits_at(const LabelTable *t, int n, int c, float cell, float lo, float hi)
{
    return !t->labels[c] || !(lay_label_w(t, c) > level_room(t, n, c, cell, lo, hi));
}

/*
** True when every label fits its level room at a size. Planning asks at
** many cell sizes: narrow cells fail at the first columns; past them, the
** widest inner label decides at once when it fits its own column (every
** inner label then does) or is wider than any room (2 × (cell − pad): it
** cannot fit), so only the cell sizes in between scan every label.
*/
static bool level_fits(const Page *p, char **labels, int n, float size, float cell, float lo, float hi)
{
    LabelTable t = lay_label_table(p, labels, n, size);
    int c = 0;
    for (; c < n && c < 2; c++)
        if (!level_fits_at(&t, n, c, cell, lo, hi)) return false;
    if (n > 8 && t.inner) {             /* worth it past a few labels */
        float inner = inner_widest(&t, n), pad = p->m.pad;
        if (inner > 2 * (cell - pad)) return false;
        if (inner <= cell - 2 * pad) return level_fits_at(&t, n, n - 1, cell, lo, hi);
    }
    for (; c < n; c++)
        if (!level_fits_at(&t, n, c, cell, lo, hi)) return false;
    return true;
}

/*
** Column labels: level when they all fit their room at fs_max or a little
** smaller, never under least; level and cut with "…" when the columns are
** wide anyway; else turned to read upward (at most cap long), every
** step-th when the columns are narrower than a line of the least font.
** With longest (the longest label the side will have, as a K/V cache's
** keys grow; else NULL), planned as they will be then: level only at
** fs_max when it fits its own column, else upright (as big as the columns
** allow, so as the level labels beside) and as long as it.
*/
AxisPlan lay_plan_cols(const Page *p, char **labels, int n, float cell, float fs_max, float cap, float lo_room,
                       float hi_room, float least, const char *longest)
{
    AxisPlan a = { 0, 1, false, 0, lo_room, hi_room };
    if (!labels || n <= 0) return a;
    float sizes[3] = { fs_max, lay_px(fs_max * LEVEL_SHRINK_1), lay_px(fs_max * LEVEL_SHRINK_2) };
    for (int i = 0; i < 3; i++) {
        if (sizes[i] < least) break;
        if (longest && (i > 0 || lay_width(p, longest, sizes[i], 0) > cell - 2 * p->m.pad)) break;
        if (level_fits(p, labels, n, sizes[i], cell, lo_room, hi_room)) {
            a.fs = sizes[i];
            a.band = LH * a.fs;
            return a;
        }
    }
    if (cell - 2 * p->m.pad >= LEVEL_CUT_EMS * sizes[1] && sizes[1] >= least && !longest) {
        a.fs = sizes[1];
        a.band = LH * a.fs;
        return a;
    }
    a.rot = true;
    fit_across(p, &a, labels, n, cell, fs_max, cap, least);
    if (longest) a.band = fminf(fmaxf(a.band, lay_width(p, longest, a.fs, 0)), cap);
    return a;
}

/*
** Where label i of n cells of size cell goes when every step-th is shown:
** the middle of its block of cells, kept so that a label ext long stays
** within the grid when the grid is long enough.
*/
static float label_centre(int i, int n, int step, float cell, float ext)
{
    int k = n - i < step ? n - i : step;
    float c = (i + k / 2.0f) * cell, len = n * cell;
    if (len >= ext) {
        if (c < ext / 2) c = ext / 2;
        if (c > len - ext / 2) c = len - ext / 2;
    }
    return c;
}

/* The row labels planned by lay_plan_rows, right-aligned against the grid
** at x1, for n rows of size cell from y0 (never closer than a line). */
void lay_draw_rows(Page *p, int k, char **labels, int n, const AxisPlan *a, float cell, float x1, float y0)
{
    char buf[256];
    float fs = a->fs, lh = LH * fs, last = -INFINITY;
    for (int r = 0; r < n; r += a->step) {
        float c = label_centre(r, n, a->step, cell, lh);
        if (!labels[r] || c - last < lh - 0.01f) continue;
        last = c;
        lay_fit(p, labels[r], fs, 0, a->band, buf, sizeof buf);
        Rect b = { x1 - p->m.gs - a->band, y0 + c - lh / 2, a->band, lh };
        lay_tag(p, lay_text(p, b, buf, fs, p->th->fg, ALIGN_RIGHT, VALIGN_MIDDLE, ROLE_ROW_LABEL, 0, 0), k, r, -1);
    }
}

/* Whether a label is one character: turned on its side, "I" or "l" would
** read as a dash. */
static bool one_char(const char *s)
{
    return s && *s && (utf8_next(&s), !*s);
}

/*
** The labels of a side planned by lay_plan_cols, along n cells of size cell
** from x0, in the band above the grid edge at y (below false: a heatmap's
** columns) or under it (a plot's categories). Upright labels start at the
** grid and read away from it, never closer than a line to each other; a
** label of one character that fits its cell stays level among them, next
** to the grid. Level ones are centred on their cell, each cut to the room
** its neighbours leave.
*/
void lay_draw_cols(Page *p, int k, char **labels, int n, const AxisPlan *a, float cell, float x0, float y,
                   bool below, DrawRole role)
{
    char buf[256];
    float fs = a->fs, lh = LH * fs, band = a->band, last = -INFINITY;
    float top = below ? y + p->m.gs : y - p->m.gs - band;
    for (int i = 0; i < n; i += a->step) {
        float mid = label_centre(i, n, a->step, cell, a->rot ? lh : cell);
        if (!labels[i] || (a->rot && mid - last < lh - 0.01f)) continue;
        last = mid;
        float cx = x0 + mid;
        Rect b;
        if (a->rot && one_char(labels[i]) && lay_width(p, labels[i], fs, 0) <= cell) {
            b = (Rect){ x0 + i * cell, top, cell, band };
            int c = lay_text(p, b, labels[i], fs, p->th->fg, ALIGN_CENTER, below ? VALIGN_TOP : VALIGN_BOTTOM, role, 0, 0);
            if (role == ROLE_COL_LABEL) lay_tag(p, c, k, -1, i);
            else lay_tag(p, c, k, i, -1);
            continue;
        }
        if (a->rot) {
            lay_fit(p, labels[i], fs, 0, band, buf, sizeof buf);
            b = (Rect){ cx - lh / 2, top, lh, band };
        } else {
            LabelTable t = lay_label_table(p, labels, n, fs);
            float room = level_room(&t, n, i, cell, a->lo_room, a->hi_room);
            lay_fit(p, labels[i], fs, 0, room, buf, sizeof buf);
            b = (Rect){ cx - room / 2, top, room, band };
        }
        HAlign ha = !a->rot ? ALIGN_CENTER : below ? ALIGN_RIGHT : ALIGN_LEFT;
        if (i == 0 && b.x < x0 - a->lo_room) {      /* the first label keeps within its room (cells narrower than it) */
            if (!a->rot) ha = ALIGN_LEFT;
            b.x = x0 - a->lo_room;
        }
        VAlign va = below && !a->rot ? VALIGN_TOP : VALIGN_MIDDLE;
        int c = lay_text(p, b, buf, fs, p->th->fg, ha, va, role, 0, a->rot);
        if (role == ROLE_COL_LABEL) lay_tag(p, c, k, -1, i);
        else lay_tag(p, c, k, i, -1);
    }
}
