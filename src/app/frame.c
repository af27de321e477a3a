/*
** frame.c: composing a frame: the stage's layout plus the program's overlays.
*/
#include "frame.h"
#include "keys.h"
#include "predict.h"
#include "prompt.h"
#include "sorter.h"
#include "core/text/i18n.h"
#include "core/util.h"
#include "view/cmap.h"
#include "view/text.h"

#include <assert.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Layout options from the state: the focused cell and its outlines as the
** state worked them out (marks.h). */
static LayoutOpts opts_from_state(const AppState *a, int w, int h, const Theme *theme, MeasureFn measure, void *ctx)
{
    LayoutOpts o = layout_defaults(w, h, theme, measure, ctx);
    o.text_scale = a->text_scale * a->text_base;
    o.legible_scale = a->text_base;
    o.cmap = a->cmap >= 0 ? cmap_names()[a->cmap] : NULL;
    int p, r, c;
    if (app_focus_cell(a, &p, &r, &c)) {
        o.hover_panel = p;
        o.hover_row = r;
        o.hover_col = c;
        o.nmarks = a->explained.nmarks;
        memcpy(o.marks, a->explained.marks, sizeof *o.marks * (size_t)o.nmarks);
    }
    o.hidden = a->hidden;
    o.keep_first = true;        /* a frame is laid out again at once: the cell under the pointer, a shot */
    return o;
}

/* Shade a colour toward opaque. */
static Color with_alpha(Color c, uint8_t alpha)
{
    c.a = alpha;
    return c;
}

/*
** Predict mode on one weights cell (of any head's panel): while guessing,
** the guess is outlined;
** after the reveal, the true largest weight of each row is framed in the
** accent colour, a right guess gets a green frame and a check mark, a wrong
** one a red frame and a cross.
*/
static void predict_mark(const AppState *a, const Theme *th, const DrawCmd *c, DrawList *out)
{
    const Mat *m = a->view->panels[c->panel].m;
    bool guessed = app_guess(a, c->panel, c->row) == c->col;
    Rect in = { c->r.x + 2, c->r.y + 2, c->r.w - 4, c->r.h - 4 };
    if (a->predict == PREDICT_GUESSING) {
        if (guessed) draw_frame(out, in, th->highlight, 4.0f, ROLE_OVERLAY);
        return;
    }
    bool best = app_row_best(m, c->row) == c->col;
    if (best) draw_frame(out, (Rect){ c->r.x - 2, c->r.y - 2, c->r.w + 4, c->r.h + 4 }, th->accent, 3.0f, ROLE_OVERLAY);
    if (!guessed) return;
    bool right = mat_get(m, c->row, c->col) == mat_get(m, c->row, app_row_best(m, c->row));
    Color col = right ? (Color){ 22, 163, 74, 255 } : (Color){ 220, 38, 38, 255 };
    draw_frame(out, in, col, 4.0f, ROLE_OVERLAY);
    float s = fminf(c->r.w, c->r.h) * 0.45f;
    Rect badge = { c->r.x + c->r.w - s, c->r.y, s, s };
    draw_rect(out, badge, col, ROLE_OVERLAY);
    draw_text(out, badge, right ? "\xe2\x9c\x93" : "\xe2\x9c\x97", s * 0.8f, (Color){ 255, 255, 255, 255 },
              ALIGN_CENTER, VALIGN_MIDDLE, ROLE_OVERLAY);
}

/* What marking one cell needs. */
typedef struct {
    const AppState *a;
    const Theme *th;
    DrawList *out;
} MarkCtx;

/* Mark one cell (a rectangle, or a block of an image as its rectangle):
** an edited input, a predict-mode guess. */
static void mark_cell(void *ctx, const DrawCmd *c)
{
    const MarkCtx *m = ctx;
    const AppState *a = m->a;
    if (c->panel < 0 || c->panel >= a->view->npanels) return;
    if (marks_is_edited(&a->edited, c->panel, c->row, c->col)) {
        float s = fminf(c->r.w, c->r.h) * 0.28f;
        draw_rect(m->out, (Rect){ c->r.x + c->r.w - s, c->r.y, s, s }, m->th->accent, ROLE_OVERLAY);
        draw_frame(m->out, c->r, m->th->accent, 2.0f, ROLE_OVERLAY);
    }
    if (app_guess_panel(a, c->panel) && c->row >= 0 && c->row < a->view->panels[c->panel].m->rows)
        predict_mark(a, m->th, c, m->out);      /* every head's weights */
}

/* Mark edited cells and predict guesses on top of the cells they belong to. */
static void mark_cells(const AppState *a, const Theme *th, DrawList *out)
{
    MarkCtx m = { a, th, out };
    if (a->edited.n == 0 && a->predict == PREDICT_OFF) return;
    int n = out->n;
    for (int i = 0; i < n; i++) {
        DrawCmd c = out->cmds[i];                   /* a copy: marks are appended to out */
        if (c.role != ROLE_CELL) continue;
        if (c.kind == DRAW_IMAGE) draw_image_each(out, &c, mark_cell, &m);
        else if (c.kind == DRAW_RECT && c.width == 0) mark_cell(&m, &c);
    }
}

#define BOX_LINES 24

/* What text_wrap measures with in an overlay: the window's font at one size. */
typedef struct {
    MeasureFn measure;
    void *ctx;
    float size;
} BoxFont;

/* Width of len bytes of s for text_wrap; more than 200 bytes is too wide. */
static float box_measure(void *ctx, const char *s, size_t len)
{
    const BoxFont *f = ctx;
    char buf[256];
    if (len > 200) return FLT_MAX;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return f->measure(f->ctx, buf, f->size, 0);
}

/* text cut to maxw. */
void app_fit_text(const char *text, float size, float maxw, MeasureFn measure, void *ctx, char *out, size_t n)
{
    BoxFont f = { measure, ctx, size };
    if (measure(ctx, text, size, 0) <= maxw) snprintf(out, n, "%s", text);
    else text_fit(text, maxw, box_measure, &f, out, n);
}

/* Text broken into lines no wider than maxw: at newlines, and where
** text_wrap breaks a line that is too long (continuations are indented).
** Returns the number of lines written to lines (each NUL-terminated, at
** most 256 bytes). */
static int wrap_lines(const char *text, float size, float maxw, MeasureFn measure, void *ctx,
                      char lines[][256], int max_lines)
{
    BoxFont f = { measure, ctx, size };
    float indent = measure(ctx, "    ", size, 0);
    int n = 0;
    const char *s = text;
    while (*s && n < max_lines) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) : strlen(s);
        TextLine part[BOX_LINES];
        int k = text_wrap(s, len, maxw, maxw - indent, box_measure, &f, part, BOX_LINES);
        for (int i = 0; i < k && i < BOX_LINES && n < max_lines; i++)
            snprintf(lines[n++], 256, "%s%.*s", i ? "    " : "", (int)(part[i].end - part[i].start), s + part[i].start);
        s = e ? e + 1 : s + len;
    }
    return n;
}

/* Draw lines in a framed box at (x, y) of size bw x bh. */
static void text_box(DrawList *out, char lines[][256], int n, float x, float y, float bw, float bh, float size,
                     const Theme *th)
{
    float lh = size * 1.35f, pad = size * 0.7f;
    draw_rect(out, (Rect){ x, y, bw, bh }, with_alpha(th->panel_bg, 245), ROLE_OVERLAY);
    draw_frame(out, (Rect){ x, y, bw, bh }, th->accent, 2.0f, ROLE_OVERLAY);
    for (int i = 0; i < n; i++)
        draw_text(out, (Rect){ x + pad, y + pad + i * lh, bw - 2 * pad, lh }, lines[i], size, th->fg,
                  ALIGN_LEFT, VALIGN_MIDDLE, ROLE_OVERLAY);
}

/* The explain panel beside the focused cell, kept on the canvas. */
static void explain_panel(const AppState *a, const Theme *th, int w, int h, float size,
                          MeasureFn measure, void *ctx, DrawList *out)
{
    if (!a->explained.on) return;
    const char *text = a->explained.ex.text;
    int p, r, c;
    app_focus_cell(a, &p, &r, &c);
    Rect cell = { (float)w / 2, (float)h / 2, 0, 0 };
    draw_cell_rect(out, p, r, c, &cell);
    static char lines[BOX_LINES][256];
    float pad = size * 0.7f, maxw = fminf((float)w * 0.7f, size * 52);
    int n = wrap_lines(text, size, maxw - 2 * pad, measure, ctx, lines, BOX_LINES);
    float tw = 0;
    for (int i = 0; i < n; i++) tw = fmaxf(tw, measure(ctx, lines[i], size, 0));
    float bw = tw + 2 * pad, bh = n * size * 1.35f + 2 * pad;
    float x = cell.x + cell.w + size, y = cell.y + cell.h + size * 0.5f;
    if (x + bw > w - 8) x = cell.x - bw - size;
    if (x < 8) x = 8;
    if (y + bh > h - 8) y = cell.y - bh - size * 0.5f;
    if (y < 8) y = 8;
    text_box(out, lines, n, x, y, bw, bh, size, th);
}

#define HELP_MAX_ROWS 100

/* A two-column overlay of the window's keys, the main rows of the key
** table that have keys to show, scaled down to fit the window when it
** must (the page shows the browser's as HTML: web_help_rows). */
static void help_overlay(const Theme *th, int w, int h, float size, MeasureFn measure, void *ctx, DrawList *out)
{
    int nrows;
    const KeyRow *all = app_key_rows(&nrows), *rows[HELP_MAX_ROWS];
    int n = 0;
    assert(nrows <= HELP_MAX_ROWS);
    for (int i = 0; i < nrows; i++)
        if (all[i].keys && all[i].ctx == KEYS_MAIN && (all[i].editions & EDITION_DESKTOP))
            rows[n++] = &all[i];
    float kw = 0, dw = 0;
    for (int i = 0; i < n; i++) {
        kw = fmaxf(kw, measure(ctx, _(rows[i]->keys), size, 1));
        dw = fmaxf(dw, measure(ctx, _(rows[i]->help), size, 0));
    }
    float fit = fminf(((float)w - 16) / (kw + dw + size * 4), ((float)h - 16) / (size * 1.5f * (n + 2)));
    if (fit < 1) {                                   /* text scales with its size: scale once */
        float k = fmaxf(fit * size, 1.0f) / size;    /* a window too small for even 1 px text: 1 px */
        size *= k;
        kw *= k;
        dw *= k;
    }
    float lh = size * 1.5f, bw = kw + dw + size * 4, bh = lh * (n + 2);
    float x = ((float)w - bw) / 2, y = ((float)h - bh) / 2;
    draw_rect(out, (Rect){ 0, 0, (float)w, (float)h }, (Color){ 0, 0, 0, 120 }, ROLE_OVERLAY);
    draw_rect(out, (Rect){ x, y, bw, bh }, th->panel_bg, ROLE_OVERLAY);
    draw_frame(out, (Rect){ x, y, bw, bh }, th->accent, 2.0f, ROLE_OVERLAY);
    int t = draw_text(out, (Rect){ x, y + lh * 0.3f, bw, lh }, _("Keys"), size * 1.1f, th->fg, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_OVERLAY);
    out->cmds[t].bold = 1;
    for (int i = 0; i < n; i++) {
        float ty = y + lh * (i + 1.4f);
        int k = draw_text(out, (Rect){ x + size * 1.5f, ty, kw, lh }, _(rows[i]->keys), size, th->accent, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_OVERLAY);
        out->cmds[k].bold = 1;
        draw_text(out, (Rect){ x + size * 2.5f + kw, ty, dw, lh }, _(rows[i]->help), size, th->fg, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_OVERLAY);
    }
}

/* The lesson picker: titles with where each comes from, the selected one
** highlighted; as many rows as fit, around the selection. */
static void picker_overlay(const AppState *a, const Theme *th, int w, int h, float size, MeasureFn measure, void *ctx, DrawList *out)
{
    const char *head = _("Choose a lesson (\xe2\x86\x91 \xe2\x86\x93 Enter, Esc)");
    float lh = size * 1.8f, tw = measure(ctx, head, size, 1), ww = 0;
    for (int i = 0; i < a->picker_n; i++) {
        tw = fmaxf(tw, measure(ctx, a->picker_titles[i], size, 0) + size * 3);
        ww = fmaxf(ww, measure(ctx, a->picker_where[i], size * 0.8f, 0));
    }
    int rows = a->picker_n < 1 ? 1 : a->picker_n, fit = (int)(((float)h - 40) / lh) - 2;
    if (fit < 1) fit = 1;
    if (rows > fit) rows = fit;
    int first = a->picker_sel - rows / 2;                /* the selection in the middle, when it can be */
    if (first > a->picker_n - rows) first = a->picker_n - rows;
    if (first < 0) first = 0;
    float bw = fminf(tw + ww + size * 4, (float)w - 40), bh = lh * (rows + 2);
    float x = ((float)w - bw) / 2, y = fmaxf(20, ((float)h - bh) / 2);
    draw_rect(out, (Rect){ 0, 0, (float)w, (float)h }, (Color){ 0, 0, 0, 120 }, ROLE_OVERLAY);
    draw_rect(out, (Rect){ x, y, bw, bh }, th->panel_bg, ROLE_OVERLAY);
    draw_frame(out, (Rect){ x, y, bw, bh }, th->accent, 2.0f, ROLE_OVERLAY);
    int t = draw_text(out, (Rect){ x, y + lh * 0.2f, bw, lh }, head, size, th->fg, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_OVERLAY);
    out->cmds[t].bold = 1;
    if (a->picker_n == 0)
        draw_text(out, (Rect){ x, y + lh * 1.2f, bw, lh }, _("no lessons found"), size, th->muted, ALIGN_CENTER, VALIGN_MIDDLE, ROLE_OVERLAY);
    for (int i = first; i < a->picker_n && i < first + rows; i++) {
        Rect row = { x + size, y + lh * (i - first + 1.2f), bw - 2 * size, lh };
        if (i == a->picker_sel) draw_rect(out, row, th->highlight, ROLE_OVERLAY);
        char label[300];
        snprintf(label, sizeof label, "%d  %s", i + 1, a->picker_titles[i]);
        Color fg = i == a->picker_sel ? cmap_text_for(th->highlight) : th->fg;
        draw_text(out, (Rect){ row.x + size * 0.6f, row.y, row.w - ww - size * 2, row.h }, label, size, fg, ALIGN_LEFT,
                  VALIGN_MIDDLE, ROLE_OVERLAY);
        draw_text(out, (Rect){ row.x + row.w - ww - size * 0.6f, row.y, ww, row.h }, a->picker_where[i], size * 0.8f,
                  i == a->picker_sel ? fg : th->muted, ALIGN_RIGHT, VALIGN_MIDDLE, ROLE_OVERLAY);
    }
}

/* True when r overlaps nothing the slide drew but its backgrounds. */
static bool band_is_free(const DrawList *out, Rect r)
{
    for (int i = 0; i < out->n; i++) {
        const DrawCmd *c = &out->cmds[i];
        if (c->role == ROLE_DECOR || c->role == ROLE_OVERLAY) continue;
        if (c->r.x < r.x + r.w && r.x < c->r.x + c->r.w && c->r.y < r.y + r.h && r.y < c->r.y + c->r.h) return false;
    }
    return true;
}

/* Where a bottom banner of w x bh at x goes: at the bottom when nothing is
** there, else as low as it covers nothing of the slide (the note, the
** explanation), else at the bottom all the same. */
static float banner_y(const DrawList *out, float x, float w, float bh, int h, float size)
{
    float bottom = (float)h - bh - size * 0.8f;
    for (float y = bottom; y > size * 3; y -= size * 0.5f)
        if (band_is_free(out, (Rect){ x, y, w, bh })) return y;
    return bottom;
}

/* A banner (toast or error) at the bottom (where it covers none of the
** slide: banner_y) or top. A text too wide for the canvas is wrapped as
** the window wraps its other text (text_wrap), on up to BANNER_LINES lines;
** one that needs more is drawn smaller, down to BANNER_SHRINK of its size,
** and then its last line ends with "…". */
#define BANNER_LINES 3
#define BANNER_SHRINK 0.6f
static void banner(DrawList *out, const char *text, bool top, bool error, const Theme *th, int w, int h, float size,
                   MeasureFn measure, void *ctx)
{
    float maxw = fmaxf((float)w - 6 * size, size), least = size * BANNER_SHRINK;
    size_t len = strlen(text);
    TextLine lines[BANNER_LINES];
    BoxFont f = { measure, ctx, size };
    int n = text_wrap(text, len, maxw, maxw, box_measure, &f, lines, BANNER_LINES);
    while (n > BANNER_LINES && size > least) {
        size = f.size = fmaxf(size * 0.9f, least);
        n = text_wrap(text, len, maxw, maxw, box_measure, &f, lines, BANNER_LINES);
    }
    bool more = n > BANNER_LINES;                   /* still too long: the last line says it goes on */
    if (more) n = BANNER_LINES;
    char line[BANNER_LINES][512];
    float tw = 0, lh = size * 1.35f;
    for (int i = 0; i < n; i++) {
        char whole[520];
        snprintf(whole, sizeof whole, "%.*s%s", (int)(lines[i].end - lines[i].start), text + lines[i].start,
                 more && i == n - 1 ? " \xe2\x80\xa6" : "");
        app_fit_text(whole, size, maxw, measure, ctx, line[i], sizeof line[i]);
        tw = fmaxf(tw, fminf(measure(ctx, line[i], size, 0), maxw));
    }
    float bh = size * 2.2f + (n - 1) * lh;
    float x = ((float)w - tw) / 2 - size, y = top ? size * 0.6f : banner_y(out, x, tw + 2 * size, bh, h, size);
    Color bg = error ? (Color){ 170, 20, 30, 240 } : with_alpha(th->fg, 230);
    Color fg = error ? (Color){ 255, 255, 255, 255 } : th->bg;
    draw_rect(out, (Rect){ x, y, tw + 2 * size, bh }, bg, ROLE_OVERLAY);
    float ty = y + (bh - n * lh) / 2;
    for (int i = 0; i < n; i++)
        draw_text(out, (Rect){ x + size, ty + i * lh, tw, lh }, line[i], size, fg, ALIGN_CENTER, VALIGN_MIDDLE,
                  ROLE_OVERLAY);
}

/* The program's text size. */
float app_frame_size(const AppState *a, int h)
{
    return fmaxf(13.0f, (float)h / 48.0f) * a->text_scale;   /* a tall phone's h/48 is its size already (no text_base) */
}

/* The whole frame. */
void app_frame(const AppState *a, int w, int h, MeasureFn measure, void *ctx, DrawList *out)
{
    Theme th = layout_theme(a->dark);
    float size = app_frame_size(a, h);
    if (a->black) {
        draw_clear(out, w, h, (Color){ 0, 0, 0, 255 });
        return;
    }
    bool toast = a->toast[0] && a->now < a->toast_until, hint = !toast && a->first_hint && !a->help && !a->ask;
    if (a->sorter) {                                 /* the stage's pages in place of the stage */
        draw_clear(out, w, h, th.bg);
        app_sorter_draw(a, &th, w, h, size, measure, ctx, out);
    } else if (a->view) {
        LayoutOpts o = opts_from_state(a, w, h, &th, measure, ctx);
        layout_view(a->layout, a->view, &o, out);
        float band = size * 3.2f;           /* the first-run hint's line at the bottom, and its margin */
        if (hint && !band_is_free(out, (Rect){ 0, (float)h - band, (float)w, band })) {
            o.height = h - (int)band;       /* the slide a line shorter while the hint shows: it covers none of it */
            layout_view(a->layout, a->view, &o, out);
            out->height = h;
        }
        mark_cells(a, &th, out);
        explain_panel(a, &th, w, h, size, measure, ctx, out);
    } else {
        draw_clear(out, w, h, th.bg);
        draw_text(out, (Rect){ 0, 0, (float)w, (float)h * 0.45f }, "attnlab", size * 2.5f, th.fg, ALIGN_CENTER, VALIGN_BOTTOM, ROLE_TITLE);
        draw_text(out, (Rect){ 0, (float)h * 0.5f, (float)w, size * 2 }, _("Press L to choose a lesson"), size, th.muted,
                  ALIGN_CENTER, VALIGN_MIDDLE, ROLE_BODY);
    }
    if (toast) banner(out, a->toast, false, false, &th, w, h, size, measure, ctx);
    else if (hint)
        banner(out, _("\xe2\x86\x92 next stage    ? every key    L lessons    O open a file"), false, false, &th, w, h, size,
               measure, ctx);
    if (a->picker && !a->web) picker_overlay(a, &th, w, h, size, measure, ctx, out);   /* the page lists them itself */
    if (a->help && !a->web) help_overlay(&th, w, h, size * 0.9f, measure, ctx, out);   /* the page's is HTML */
    if (a->error[0] && !a->web)                      /* over everything, never dimmed (the page has its own line) */
        banner(out, a->error, true, true, &th, w, h, size * 0.85f, measure, ctx);
    app_prompt_draw(a, &th, w, h, size, measure, ctx, out);
}

/* The frame, then the cell under the pointer hovered and the frame again
** when it is not the cell explained. */
void app_frame_pointer(AppState *a, int w, int h, MeasureFn measure, void *ctx, DrawList *out, bool pointer, float x,
                       float y)
{
    app_frame(a, w, h, measure, ctx, out);
    if (!pointer || a->pinned) return;
    int p, r, c;
    draw_cell_at(out, x, y, &p, &r, &c);
    if (p == a->hover_panel && r == a->hover_row && c == a->hover_col) return;
    app_hover(a, p, r, c);
    app_frame(a, w, h, measure, ctx, out);
}
