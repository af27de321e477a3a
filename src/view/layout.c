/*
** layout.c: a View on a canvas, as a DrawList: the page.
**
** The page is built top to bottom: a header (stage title, lesson and
** position), the formula on a tinted strip, the panels, and the explanation.
** Only the panels and the explanation compete for room, and they are placed
** one of two ways: the explanation under the panels across the full width,
** or in a column at the right with the panels beside it. Both are planned
** without drawing (layout_plan.c); the column wins when its cells come out
** a quarter bigger (a wide window showing one square matrix), the strip
** otherwise. If the panels still do not fit (a tiny window, a huge text
** scale) the page is laid out again with smaller fonts.
**
** A run with rotate = 90 is aligned in its box in the turned frame, as the
** backends draw it: halign along the text (LEFT starts at the box's bottom),
** valign across it (TOP puts the glyphs' tops at the box's left side).
**
** Text never overlaps: every text run is placed in a band reserved for it,
** fonts are chosen so the text fits its band (ink height is INK times the
** font size for DejaVu Sans), and what still does not fit is cut with an
** ellipsis or, for cell values, hidden. Nothing here allocates except the
** DrawList growing and the block colours of huge heatmaps, kept in the
** LayoutCache for the view's next layout; scratch strings live on the
** stack, and the planning memos in the LayoutCache.
*/
#include "layout_int.h"
#include "core/text/i18n.h"
#include "core/text/utf8.h"
#include "core/util.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the slide reads right to left: its stage title is in a
** right-to-left script (the header, the formula, the notes line and the
** panel titles then stand on the right). */
static bool slide_rtl(const View *v)
{
    return v && v->title && text_rtl(v->title);
}

/* The panel title at the top of box, at the page's one title font
** (even_titles), cut to the panel's width only if the panel is narrower
** than the title at the smallest title font (the solver keeps it wider);
** at the box's left, or its right on a right-to-left slide. */
void lay_panel_title(Page *p, const Panel *pn, int k, Rect box)
{
    char buf[256];
    if (!pn->title || !pn->title[0]) return;
    float fs = p->title_fs > 0 ? p->title_fs : p->m.ptitle;
    lay_fit(p, pn->title, fs, 1, box.w, buf, sizeof buf);
    int i = lay_text(p, (Rect){ box.x, box.y, box.w, LH * p->m.ptitle }, buf, fs, p->th->fg,
                     slide_rtl(p->v) ? ALIGN_RIGHT : ALIGN_LEFT, VALIGN_MIDDLE, ROLE_PANEL_TITLE, 1, 0);
    lay_tag(p, i, k, -1, -1);
}

/* A panel with nothing to draw: its title and a short note. */
static void draw_empty(Page *p, const View *v, int k, const PanelPlan *pp)
{
    lay_panel_title(p, &v->panels[k], k, pp->box);
    Rect b = { pp->box.x, pp->box.y + LH * p->m.ptitle + p->m.gs, pp->box.w, LH * p->m.axis };
    char buf[64];
    lay_fit(p, _("(no values)"), p->m.axis, 0, b.w, buf, sizeof buf);
    lay_tag(p, lay_text(p, b, buf, p->m.axis, p->th->muted, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_DECOR, 0, 0), k, -1, -1);
}

/* Copy line l of s into buf as a string, cut at a character
** boundary when it is too long. */
static void line_copy(const char *s, TextLine l, char *buf, size_t cap)
{
    size_t len = l.end - l.start;
    if (len >= cap) len = utf8_floor(s + l.start, l.end - l.start, cap - 1);
    memcpy(buf, s + l.start, len);
    buf[len] = '\0';
}

/* Text s wrapped at width w and drawn a line under another from y at font
** fs (LH * fs apart), each aligned by ha in [x, x + w]; returns how many
** lines it took. */
static int draw_wrapped(Page *p, const char *s, float fs, float x, float y, float w, Color c, HAlign ha, DrawRole role,
                        int bold)
{
    char buf[600];
    TextLine *lines = NULL;
    int n = lay_wrap(p, s, fs, w, &lines);
    for (int i = 0; i < n; i++) {
        line_copy(s, lines[i], buf, sizeof buf);
        lay_text(p, (Rect){ x, y + i * LH * fs, w, LH * fs }, buf, fs, c, ha, VALIGN_MIDDLE, role, bold, 0);
    }
    free(lines);
    return n;
}

/*
** The explanation paragraphs in a column of width w from y, within max_h
** pixels (0 = unlimited). Returns the height used. A paragraph that would
** not fit whole is cut with "…" on its last line and nothing follows it.
*/
static float body_block(Page *p, const View *v, float size, float x, float y, float w, float max_h, bool draw)
{
    float lh = BODY_LH * size, para_gap = PARA_GAP * lh, h = 0;
    for (int i = 0; i < v->npara; i++) {
        if (!v->paras[i] || !v->paras[i][0]) continue;
        float top = h > 0 ? h + para_gap : 0;
        int max_lines = 0;
        if (max_h > 0) {
            max_lines = (int)((max_h - top + (lh - INK * size) / 2) / lh);
            if (max_lines <= 0) break;
        }
        TextLine *lines = NULL;
        int all = draw ? lay_wrap(p, v->paras[i], size, w, &lines) : lay_para_lines(p, v->paras[i], size, w);
        int n = all;
        if (max_lines > 0 && all > max_lines) n = max_lines;
        bool rtl = draw && text_rtl(v->paras[i]);       /* Arabic, Hebrew: lines end on the left */
        for (int k = 0; draw && k < n; k++) {
            char line[1024];
            if (k == n - 1 && n < all)                  /* the last line there is room for: "…" */
                lay_fit(p, v->paras[i] + lines[k].start, size, 0, w, line, sizeof line);
            else
                line_copy(v->paras[i], lines[k], line, sizeof line);
            lay_text(p, (Rect){ x, y + top + k * lh, w, lh }, line, size, p->th->fg, rtl ? ALIGN_RIGHT : ALIGN_LEFT,
                     VALIGN_MIDDLE, ROLE_BODY, 0, 0);
        }
        free(lines);
        h = top + n * lh;
        if (draw) {
            p->prose_fs = size;
            p->prose_cut |= n < all;
        }
        if (n < all) break;
    }
    return h;
}

/* The text scale asked for, within TEXT_SCALE_MIN … TEXT_SCALE_MAX. */
static float text_scale_of(const LayoutOpts *o)
{
    float ts = o->text_scale > 0 ? o->text_scale : 1;
    return ts < TEXT_SCALE_MIN ? TEXT_SCALE_MIN : ts > TEXT_SCALE_MAX ? TEXT_SCALE_MAX : ts;
}

/*
** Sizes for the canvas: the design sizes below, in pixels at 1280x800, all
** scaled by u (the smaller of the canvas's ratios to it), fonts also by the
** text scale (labels and titles by label_scale at most) and by shrink
** (below 1 only when the page did not fit). The header's fonts (the stage
** title, the lesson and the stage counter) do not shrink: the header is
** the same on every slide of a lesson, whatever its matrices; what gives
** way to the panels is below it. Nor does the explanation shrink under
** BODY_FLOOR, nor a grid's labels under LABEL_FLOOR (LABEL_GLANCE on the
** page of every head side by side: glance), both at the slide's size on
** canvases bigger than it.
*/
static Metrics metrics(const LayoutOpts *o, float shrink, float label_scale, bool glance)
{
    Metrics m;
    float u = fminf(o->width / DESIGN_W, o->height / DESIGN_H);
    if (u < U_MIN) u = U_MIN;
    float ts = text_scale_of(o);
    float sh = u * fminf(ts, label_scale), s = sh * shrink, sv = u * ts * shrink;
    m.u = u;
    m.margin = SIZE_MARGIN * u;
    m.gap = SIZE_GAP * u;
    m.gs = SIZE_GS * u;
    m.pad = SIZE_PAD * u;
    m.title = lay_px(FONT_TITLE * sh);
    m.meta = lay_px(FONT_META * sh);
    m.note = lay_px(FONT_META * s);
    m.formula = lay_px(FONT_FORMULA * s);
    m.body_min = lay_px(BODY_FLOOR * u * ts);
    m.body = fmaxf(lay_px(FONT_BODY * s), m.body_min);
    m.ptitle = lay_px(FONT_PTITLE * s);
    m.axis = lay_px(FONT_AXIS * s);
    m.label = lay_px(FONT_LABEL * s);
    m.value = lay_px(FONT_VALUE * sv);   /* cell numbers, at most */
    m.tick = lay_px(FONT_TICK * s);
    m.legend = lay_px(FONT_LEGEND * s);
    float legible = o->legible_scale >= 1 && o->legible_scale <= TEXT_SCALE_MAX ? o->legible_scale : 1;
    m.legible = legible;
    m.min_font = lay_px(FONT_MIN * fmaxf(1, u) * legible);
    float lu = fminf(u, SLIDE_H / DESIGN_H) * legible;  /* the labels' floors are the slide's on bigger canvases */
    m.label_min = fmaxf(m.min_font, lay_px(LABEL_FLOOR * lu));
    m.label_glance = glance ? fmaxf(m.min_font, lay_px(LABEL_GLANCE * lu)) : m.label_min;
    m.read_min = legible > 1 ? fmaxf(m.min_font, m.body_min) : 0;
    m.meta = fmaxf(m.meta, m.read_min);
    m.note = fmaxf(m.note, m.read_min);
    m.formula = fmaxf(m.formula, m.read_min);
    m.max_cell = 100 * sv;              /* the largest cell side */
    m.bar_w = SIZE_BAR * u;
    return m;
}

/*
** The header, on one line in the same place on every slide: the stage
** title at the left, "lesson · stage k / n" small at the right, and the
** page of a stage split in pages ("· page 2 of 9 · head 2 of 4"). No
** title is cut: the stage title shrinks (to TITLE_SHRINK) to leave room
** for the rest; when that is not enough, it has the first line to itself
** (shrunk to the width, or wrapped at TITLE_SHRINK) and the rest goes on a
** line of its own under it, shrunk to the width if it must (cut only past
** the smallest font, a lesson title of hundreds of characters). What the
** page holds ("head 2 of 4 · Q, K") is said in the room left, the line
** shrunk for it down to META_SHRINK, then cut with "…" or left out when
** there is no room. A title in a right-to-left script mirrors it: the
** title at the right, the rest at the left (and the formula and the notes
** line follow it).
*/
static float draw_header(Page *p, const View *v, float x0, float x1, float y)
{
    const Metrics *m = &p->m;
    char count[160], label[300], meta[700], reserve[700];
    const char *title = v->title ? v->title : "", *lesson = v->lesson_title ? v->lesson_title : "";
    const char *sep = "  \xc2\xb7  ";
    count[0] = label[0] = '\0';
    if (v->nstages > 0) snprintf(count, sizeof count, _("stage %d / %d"), v->stage + 1, v->nstages);
    if (v->nsteps > 1 && count[0])                      /* the page of a stage split in pages */
        snprintf(count + strlen(count), sizeof count - strlen(count), _("  \xc2\xb7  page %d of %d"), v->step + 1, v->nsteps);
    if (v->step_label && v->step_label[0] && count[0])  /* and what it holds */
        snprintf(label, sizeof label, "%s%s", sep, v->step_label);
    /* one line or two is decided on what the stage pager's page knows too (the titles, the stage, room for
    ** "page 88 of 88"), so that a page is laid out as the pager asked; what it holds gives way */
    snprintf(reserve, sizeof reserve, "%s%s%s", lesson, lesson[0] && count[0] ? sep : "", count[0] ? count : "");
    if (count[0] && v->nsteps <= 1)
        snprintf(reserve + strlen(reserve), sizeof reserve - strlen(reserve), _("  \xc2\xb7  page %d of %d"), 88, 88);
    snprintf(meta, sizeof meta, "%s%s%s", lesson, lesson[0] && count[0] ? sep : "", count);
    float w = x1 - x0, th = LH * m->title, fs = m->title, least = lay_px(TITLE_SHRINK * m->title);
    float reserve_w = reserve[0] ? lay_width(p, reserve, m->meta, 0) : 0, room = w - (reserve[0] ? m->gap + reserve_w : 0);
    while (fs > least && lay_width(p, title, fs, 1) > room) fs -= 1;
    float mfs = m->meta, mh = 0, title_w = lay_width(p, title, fs, 1), meta_room;
    bool one = title_w <= room;
    float least_meta = fmaxf(fmaxf(m->min_font, lay_px(META_SHRINK * m->meta)), m->read_min);
    if (one && (v->compare || m->read_min) && label[0]) {   /* a comparison page (not one the pager plans), or a
                                                        ** phone's: two lines rather than a place cut short */
        char line[1000];
        snprintf(line, sizeof line, "%s%s", meta, label);
        one = lay_width(p, line, least_meta, 0) <= w - title_w - m->gap;
    }
    bool rtl = slide_rtl(v);                            /* an Arabic or Hebrew title: the header mirrored */
    HAlign start = rtl ? ALIGN_RIGHT : ALIGN_LEFT;
    if (one) {                                          /* one line */
        lay_text(p, (Rect){ rtl ? x1 - title_w - 1 : x0, y, title_w + 1, th }, title, fs, p->th->fg, start, VALIGN_MIDDLE,
                 ROLE_TITLE, 1, 0);
        meta_room = w - title_w - m->gap;
        mh = th;
    } else {                                            /* the title on its own line(s), the rest under it */
        for (fs = m->title; fs > least && lay_width(p, title, fs, 1) > w; fs -= 1) {}
        y += draw_wrapped(p, title, fs, x0, y, w, p->th->fg, start, ROLE_TITLE, 1) * LH * fs;
        while (mfs > fmaxf(m->min_font, m->read_min) && lay_width(p, meta, mfs, 0) > w) mfs -= 1;
        meta_room = w;
        mh = LH * mfs;
    }
    char whole[1000];
    snprintf(whole, sizeof whole, "%s%s", meta, label);
    if (!one && m->read_min && (meta[0] || label[0])) { /* a phone: the rest wrapped under the title, never cut */
        while (mfs > least_meta && lay_width(p, whole, mfs, 0) > meta_room) mfs -= 1;
        int n = draw_wrapped(p, whole, mfs, x0, y, w, p->th->muted, rtl ? ALIGN_LEFT : ALIGN_RIGHT, ROLE_TITLE, 0);
        mh = (n < 1 ? 1 : n) * LH * mfs;
    } else if (meta[0] || label[0]) {                   /* lesson · stage · page, then what the page holds, cut last */
        while (mfs > least_meta && lay_width(p, whole, mfs, 0) > meta_room) mfs -= 1;   /* shrunk before it is cut */
        float left = meta_room - lay_width(p, meta, mfs, 0);
        if (label[0] && lay_width(p, label, mfs, 0) > left) {   /* then what it holds loses its last items */
            char base[300];
            size_t cuts[32], place = strlen(sep), n = 0;            /* after the place ("  ·  head 2 of 4") */
            snprintf(base, sizeof base, "%s", label);
            const char *q = strstr(base + place, sep);
            if (q) cuts[n++] = (size_t)(q - base);
            for (q = q ? strstr(q, ", ") : NULL; q && n < 32; q = strstr(q + 2, ", ")) cuts[n++] = (size_t)(q - base);
            for (size_t k = n; k-- > 0 && lay_width(p, label, mfs, 0) > left;)
                snprintf(label, sizeof label, "%.*s%s", (int)cuts[k], base, k > 0 ? ", \xe2\x80\xa6" : "");
        }
        char held[300] = "";
        if (label[0] && left >= LESSON_MIN_EMS * mfs) lay_fit(p, label, mfs, 0, left, held, sizeof held);
        char line[1000], cut[1000];
        snprintf(line, sizeof line, "%s%s", meta, held);
        float lw = lay_fit(p, line, mfs, 0, meta_room, cut, sizeof cut);
        lay_text(p, (Rect){ rtl ? x0 : x1 - lw, y, lw, mh }, cut, mfs, p->th->muted, rtl ? ALIGN_LEFT : ALIGN_RIGHT,
                 VALIGN_MIDDLE, ROLE_TITLE, 0, 0);
    }
    y += mh;
    draw_line(p->d, x0, y + RULE_DROP * m->gs, x1, y + RULE_DROP * m->gs, p->th->frame, fmaxf(1, m->u), ROLE_DECOR);
    return y + RULE_AFTER * m->gs;
}

/* The formula on a tinted strip, shrunk (then cut) to the width, on the
** title's side. Returns the next y. */
static float draw_formula(Page *p, const View *v, float x0, float x1, float y)
{
    if (!v->formula || !v->formula[0]) return y;
    const Metrics *m = &p->m;
    float padx = FORMULA_PAD * m->gs, pady = 0.5f * m->gs, room = x1 - x0 - 2 * padx;
    float fs = m->formula, least = fmaxf(lay_px(SHRINK_BEFORE_CUT * m->formula), m->read_min);
    while (fs > least && lay_width(p, v->formula, fs, 0) > room) fs -= 1;
    char buf[512];
    TextLine *lines = NULL;
    int n = 1;
    float w;
    if (m->read_min && lay_width(p, v->formula, fs, 0) > room) {   /* a phone: wrapped, never cut */
        n = lay_wrap(p, v->formula, fs, room, &lines);
        w = 0;
        for (int i = 0; i < n; i++) {
            line_copy(v->formula, lines[i], buf, sizeof buf);
            w = fmaxf(w, lay_width(p, buf, fs, 0));
        }
        w = fminf(w, room);
    } else w = lay_fit(p, v->formula, fs, 0, room, buf, sizeof buf);
    bool rtl = slide_rtl(v);                            /* it follows the title's side (draw_header) */
    float bar = fmaxf(2, 4 * m->u), sx = rtl ? x1 - (w + 2 * padx) : x0;
    Rect strip = { sx, y, w + 2 * padx, n * LH * fs + 2 * pady };
    draw_rect(p->d, strip, p->th->panel_bg, ROLE_DECOR);
    draw_rect(p->d, (Rect){ rtl ? x1 - bar : x0, y, bar, strip.h }, p->th->accent, ROLE_DECOR);
    if (lines) draw_wrapped(p, v->formula, fs, sx + padx, y + pady, w, p->th->fg, rtl ? ALIGN_RIGHT : ALIGN_LEFT,
                            ROLE_FORMULA, 0);
    else lay_text(p, (Rect){ sx + padx, y + pady, w, LH * fs }, buf, fs, p->th->fg, rtl ? ALIGN_RIGHT : ALIGN_LEFT,
                  VALIGN_MIDDLE, ROLE_FORMULA, 0, 0);
    free(lines);
    return y + strip.h + m->gap * FORMULA_AFTER;
}

/* The notes line at the bottom: the view's own note (a row that sees no
** key) and, when some numbers were too small to print, where to read them:
** hovering a cell explains it with its value, whatever the text size (on
** a phone's page, tapping it, or the page's Numbers). Into line (size n). */
static void footer_text(const Page *p, const View *v, bool hidden_values, char *line, size_t n)
{
    const char *hidden = !hidden_values ? ""
                         : p->m.read_min ? _("too many cells to print their numbers: tap one, or open Numbers")
                         : _("a panel has too many cells to print their numbers: hover a cell to read it and its "
                             "arithmetic");
    snprintf(line, n, "%s%s%s", v->note ? v->note : "", v->note && hidden_values ? "   \xc2\xb7   " : "", hidden);
}

/* How many lines the notes line takes at width w: one, cut to it, but on a
** page for a phone (read_min) as many as its words need, with the sentence
** on numbers not printed when its room holds it (Page.foot_hidden). */
static int footer_lines(const Page *p, const View *v, float w)
{
    if (!p->m.read_min) return 1;
    char line[600];
    footer_text(p, v, p->foot_hidden, line, sizeof line);
    TextLine *lines = NULL;
    int n = lay_wrap(p, line, p->m.note, w, &lines);
    free(lines);
    return n < 1 ? 1 : n;
}

/* The notes line (footer_text) from y, on the title's side (draw_header). */
static void draw_footer(Page *p, const View *v, float x0, float x1, float y)
{
    char line[600], buf[600];
    footer_text(p, v, p->hidden_values, line, sizeof line);
    bool rtl = slide_rtl(v);
    HAlign side = rtl ? ALIGN_RIGHT : ALIGN_LEFT;
    float lh = LH * p->m.note;
    if (p->m.read_min) {                                /* a phone: wrapped, never cut */
        draw_wrapped(p, line, p->m.note, x0, y, x1 - x0, p->th->muted, side, ROLE_BODY, 0);
        return;
    }
    lay_fit(p, line, p->m.note, 0, x1 - x0, buf, sizeof buf);
    lay_text(p, (Rect){ x0, y, x1 - x0, lh }, buf, p->m.note, p->th->muted, side, VALIGN_MIDDLE, ROLE_BODY, 0, 0);
}

/* The light or dark theme. Text colours reach 4.5:1 on their backgrounds. */
Theme layout_theme(bool dark)
{
    Theme t;
    t.dark = dark;
    if (!dark) {
        t.bg = (Color){ 252, 252, 250, 255 };
        t.fg = (Color){ 22, 24, 29, 255 };
        t.muted = (Color){ 84, 89, 99, 255 };
        t.panel_bg = (Color){ 238, 240, 244, 255 };
        t.frame = (Color){ 196, 200, 208, 255 };
        t.masked_bg = (Color){ 204, 206, 212, 255 };
        t.masked_fg = (Color){ 40, 42, 48, 255 };
        t.accent = (Color){ 37, 99, 235, 255 };
        t.highlight = (Color){ 220, 38, 38, 255 };
    } else {
        t.bg = (Color){ 24, 26, 31, 255 };
        t.fg = (Color){ 236, 238, 241, 255 };
        t.muted = (Color){ 168, 173, 183, 255 };
        t.panel_bg = (Color){ 38, 41, 49, 255 };
        t.frame = (Color){ 74, 80, 92, 255 };
        t.masked_bg = (Color){ 64, 67, 76, 255 };
        t.masked_fg = (Color){ 232, 232, 236, 255 };
        t.accent = (Color){ 96, 165, 250, 255 };
        t.highlight = (Color){ 250, 204, 21, 255 };
    }
    return t;
}

/* Defaults: nothing hovered or hidden, scale 1, the fixed measure if none. */
LayoutOpts layout_defaults(int width, int height, const Theme *theme, MeasureFn measure, void *ctx)
{
    LayoutOpts o;
    memset(&o, 0, sizeof o);
    o.width = width;
    o.height = height;
    o.text_scale = 1;
    o.legible_scale = 1;
    o.theme = theme;
    o.measure = measure ? measure : layout_measure_fixed;
    o.measure_ctx = ctx;
    o.cmap = NULL;
    o.focus_panel = -1;
    o.hover_panel = o.hover_row = o.hover_col = -1;
    o.nmarks = 0;
    o.hidden = 0;
    return o;
}

/* 0.55 x size per character (utf8_count). */
float layout_measure_fixed(void *ctx, const char *text, float size, int bold)
{
    (void)ctx;
    (void)bold;
    return 0.55f * size * (float)utf8_count(text);
}

/* One font for every panel title of the page: the largest (at most the
** metrics' title font, and the page's cap) with which each fits its
** panel, never under the smallest title font the solver kept room for
** (lay_plan_prints) unless the cap says so. */
static float even_titles(const Page *p, const View *v, const PanelPlan *plans)
{
    float least = fmaxf(p->m.min_font, lay_px(SHRINK_BEFORE_CUT * p->m.ptitle)), fs = p->m.ptitle;
    if (p->title_cap > 0 && p->title_cap < fs) fs = least = p->title_cap;
    for (int k = 0; k < v->npanels; k++) {
        const char *t = v->panels[k].title;
        if (!t || !t[0]) continue;
        while (fs > least && lay_width(p, t, fs, 1) > plans[k].box.w + 0.01f) fs -= 1;
    }
    return fs;
}

/* True when s is as good as the panels need: it fits if the whole height
** fits them, prints as many numbers, and at least at font want. */
static bool good_enough(PlanScore s, PlanScore whole, float want)
{
    return (s.fits || !whole.fits) && s.printed >= whole.printed && s.font >= want;
}

/*
** The page. Header and formula first; then the panels and the explanation,
** which compete for the height. Numbers come first, all that the panels
** can print (lay_printable), up to the goal font
** (lay_value_goal, or what the panels print with the whole height when
** that is less): the explanation gets the height the panels leave at that
** font, at its own size, or shrunk down to its floor (Metrics.body_min).
** It is not cut: when even that is too tall, the panels get what it
** leaves, and print smaller (the stage pager, asking layout_fit.c, cuts
** such a page further); only on a canvas too small for both (the panels
** would not fit at all) is it cut with "…" after the lines that fit. Past
** the goal the explanation keeps its room, and the panels grow into what
** it leaves. The explanation may instead
** stand whole in a column at the right when the panels beside it do
** better: bigger numbers, or cells BESIDE_GAIN bigger, or as many numbers
** as big as below where the text below had to give way (but on the pages
** of panels that grow, a K/V cache's, where it stays below on every page). Returns false
** when the panels did not find room.
*/
static bool layout_page(Page *p, const View *v)
{
    const Metrics *m = &p->m;
    DrawList *out = p->d;
    float x0 = m->margin, x1 = p->o.width - m->margin;
    float foot_h = p->foot ? footer_lines(p, v, x1 - x0) * LH * m->note + 0.5f * m->gs : 0;
    float y1 = p->o.height - m->margin - foot_h;
    float y = draw_header(p, v, x0, x1, m->margin);
    y = draw_formula(p, v, x0, x1, y);
    float avail = y1 - y, W = x1 - x0;
    int np = v->npanels < 0 ? 0 : v->npanels > VIEW_MAX_PANELS ? VIEW_MAX_PANELS : v->npanels;
    View vv = *v;
    vv.npanels = np;
    bool has_body = false;
    for (int i = 0; i < v->npara; i++) if (v->paras[i] && v->paras[i][0]) has_body = true;
    p->title_fs = 0;
    lay_outlines_reset(p->lc);

    p->printed = 0;
    if (np == 0) {
        body_block(p, v, m->body, x0, y, W, avail, true);
        return true;
    }
    lay_plan_prints(p, &vv, W, avail);
    if (p->o.probe && lay_probe_hopeless(p, &vv, W, avail)) return false;

    /* arrangement A: text across the bottom, at its size if the numbers reach the goal; on the pages of panels
    ** that grow (a K/V cache's, planned at their last size) at its floor on every one, so that their cells stay */
    PanelPlan below[VIEW_MAX_PANELS], beside[VIEW_MAX_PANELS];
    bool growing = false;
    for (int k = 0; k < np; k++) growing |= v->panels[k].full_rows > 0 || v->panels[k].full_cols > 0;
    float fs = growing ? m->body_min : m->body, min_fs = m->body_min;
    float body_h = has_body ? body_block(p, v, fs, x0, 0, W, 0, false) : 0;
    float panels_h = has_body ? fmaxf(avail - body_h - m->gap, 0) : avail;
    PlanScore sa = lay_plan_best(p, &vv, (Rect){ x0, y, W, panels_h }, below);
    float goal = lay_value_goal(p);
    bool squeezed = false;
    if (has_body && !growing && panels_h < avail && (!sa.fits || sa.font < goal || sa.printed < lay_printable(p, &vv))) {
        PlanScore whole = lay_plan_best(p, &vv, (Rect){ x0, y, W, avail }, beside);
        float want = fminf(goal, whole.font);
        if (!good_enough(sa, whole, want)) {
            float lo = panels_h, hi = avail;           /* the least height that is good enough */
            for (int it = 0; it < TEXT_FIT_STEPS && hi - lo > 1; it++) {
                float mid = (lo + hi) / 2;
                if (good_enough(lay_plan_best(p, &vv, (Rect){ x0, y, W, mid }, below), whole, want)) hi = mid;
                else lo = mid;
            }
            panels_h = hi;
            sa = lay_plan_best(p, &vv, (Rect){ x0, y, W, panels_h }, below);
            float room = avail - panels_h - m->gap;
            while (fs > min_fs && body_block(p, v, fs, x0, 0, W, 0, false) > room) fs -= 1;
            float need = body_block(p, v, fs, x0, 0, W, 0, false);
            if (need > room) {                          /* whole, at its floor: the panels give way, if they fit */
                PanelPlan less[VIEW_MAX_PANELS];
                float h = fmaxf(avail - need - m->gap, 0);
                PlanScore sl = lay_plan_best(p, &vv, (Rect){ x0, y, W, h }, less);
                if (sl.fits || !sa.fits) {              /* (else a canvas too small for both: the text is cut) */
                    panels_h = h;
                    sa = sl;
                    memcpy(below, less, sizeof below[0] * (size_t)np);
                }
            }
            squeezed = true;
        }
    }

    /* arrangement B: text in a column at the right, when it fits there whole; not on the pages of panels that
    ** grow (a K/V cache's, planned at their last size): the text below on every one, so their cells stay */
    PlanScore sb = { false, -1, -1, -1, 0 };
    float col_w = fminf(fmaxf(COLUMN_SHARE * W, COLUMN_MIN * m->u), COLUMN_MAX * m->u);
    if (has_body && !growing && col_w < COLUMN_LIMIT * W && body_block(p, v, m->body, 0, 0, col_w, 0, false) <= avail)
        sb = lay_plan_best(p, &vv, (Rect){ x0, y, W - col_w - m->gap * COLUMN_GAP, avail }, beside);

    PanelPlan *plans = below;
    bool fits = sa.fits, take_b = sb.fits && (lay_score_better(sb, sa, BESIDE_GAIN)
                                              || (squeezed && sb.printed >= sa.printed && sb.font >= fminf(sa.font, goal)));
    if (!take_b && !fits && !p->draw_unfit) {       /* a try page_fit throws away: what it reads, nothing drawn */
        for (int k = 0; k < np; k++)
            p->hidden_values |= lay_is_heat(&v->panels[k]) && below[k].value_fs <= 0 && !(k < 64 && (p->o.hidden >> k) & 1);
        return false;
    }
    p->printed = take_b ? sb.printed : sa.printed;
    if (p->o.probe) {                   /* the pager's question: what the plans say, nothing drawn */
        for (int k = 0; k < np; k++) p->probe_fs[k] = lay_is_heat(&v->panels[k]) ? plans[k].value_fs : 0;
        if (take_b) {
            for (int k = 0; k < np; k++) p->probe_fs[k] = lay_is_heat(&v->panels[k]) ? beside[k].value_fs : 0;
            p->prose_fs = m->body;
        } else if (has_body) {
            float room = y1 - (y + sa.used_h + m->gap);
            p->prose_fs = fs;
            p->prose_cut = room < 1 || body_block(p, v, fs, x0, 0, W, 0, false) > room + 0.5f;
        }
        p->probed = true;
        return fits;
    }
    if (take_b) {
        plans = beside;
        fits = sb.fits;
        float bx = x1 - col_w;
        draw_line(out, bx - COLUMN_RULE * m->gap, y, bx - COLUMN_RULE * m->gap, y + avail, p->th->frame,
                  fmaxf(1, m->u), ROLE_DECOR);
        body_block(p, v, m->body, bx, y, col_w, avail, true);
    } else if (has_body) {
        float by = y + sa.used_h + m->gap;
        if (y1 - by >= 1) body_block(p, v, fs, x0, by, W, y1 - by, true);     /* (0 would mean: no limit) */
    }
    p->title_fs = even_titles(p, &vv, plans);
    for (int k = 0; k < np; k++) {
        const Panel *pn = &v->panels[k];
        if (k < DRAW_MAX_PANELS)            /* the digits its numbers are printed with, plots' as they print them */
            out->panels[k].decimals = lay_is_heat(pn) ? plans[k].decimals : pn->decimals >= 0 ? pn->decimals : 2;
        if (lay_is_heat(pn)) lay_draw_heat(p, v, k, &plans[k]);
        else if (pn->kind == PANEL_PLOT && pn->m && pn->m->rows > 0 && pn->m->cols > 0)
            lay_draw_plot(p, v, k, &plans[k]);
        else draw_empty(p, v, k, &plans[k]);
    }
    if (p->foot) draw_footer(p, v, x0, x1, y1 + 0.5f * m->gs);
    return fits;
}

/* One layout of the page at one size of its fonts (shrink), and again with
** a line for notes when some numbers could not be printed; whether
** everything found room. A try that does not fit, and that page_fit will
** throw away (not draw_unfit), is not tried with the note. */
static bool page_try(Page *p, const View *v, float label_scale, float shrink)
{
    DrawList *out = p->d;
    p->lc->shrink = shrink;
    p->m = metrics(&p->o, shrink, label_scale, v && v->compare);
    p->foot = v && v->note;
    p->foot_hidden = false;
    draw_clear(out, p->o.width, p->o.height, p->th->bg);
    p->hidden_values = false;
    p->prose_cut = false;
    p->prose_fs = 0;
    p->probed = false;
    bool ok = !v || layout_page(p, v);
    p->fitted = ok;
    if (!ok && !p->draw_unfit) return false;       /* thrown away, with or without a note */
    if (p->probed) return ok;                       /* planned only: no note to make room for */
    if (v && p->foot && p->hidden_values && p->m.read_min && !p->foot_hidden) {   /* a phone's notes line grew */
        p->foot_hidden = true;
        draw_clear(out, p->o.width, p->o.height, p->th->bg);
        p->prose_cut = false;
        p->hidden_values = false;
        ok = layout_page(p, v);
        p->fitted = ok;
        if (!ok && !p->draw_unfit) return false;
    }
    if (v && p->hidden_values && !p->foot && p->o.height >= FOOT_MIN_H) {   /* again, with room to say so */
        p->foot = true;
        p->foot_hidden = true;
        draw_clear(out, p->o.width, p->o.height, p->th->bg);
        p->prose_cut = false;
        if (!layout_page(p, v)) {                  /* no room for the note: without it */
            p->foot = false;
            draw_clear(out, p->o.width, p->o.height, p->th->bg);
            p->prose_cut = false;
            layout_page(p, v);
        }
    }
    return ok;
}

/*
** A page that fits at shrink but leaves out numbers its panels could print
** (Page.printed under lay_printable: the tour's nine panels of two heads
** at 1280x800, at their full fonts) is tried with smaller fonts, down to
** SHRINK_LAST, and the try that prints the most is kept (of equals, the
** one with the biggest fonts).
*/
static void print_more(Page *p, const View *v, float label_scale, float shrink)
{
    long most = p->printed;
    float best = shrink, last = shrink;
    for (float s = shrink * SHRINK_STEP; most < lay_printable(p, v) && s >= SHRINK_LAST; s *= SHRINK_STEP) {
        last = s;
        if (page_try(p, v, label_scale, s) && p->printed > most) {
            most = p->printed;
            best = s;
        }
    }
    if (best != last) page_try(p, v, label_scale, best);
}

/*
** One layout of the page with labels and titles at label_scale (cell
** numbers at the full text scale): smaller fonts until it fits, and until
** it prints every number it can (print_more). A page
** that does not fit even at the smallest fonts is tried again from the
** full fonts with cells narrower than CELL_MIN (a dozen heatmaps of 1024
** columns side by side), then with its panels in three or four rows
** (eight heatmaps of 512 tokens on a 640x400 window, whose titles alone
** are wider than the canvas four to a row); when that does not fit
** either, it is laid out as before, at the smallest fonts. A try that
** does not fit is not drawn (Page.draw_unfit), but for the last, which is
** kept.
*/
static void page_fit(Page *p, const View *v, float label_scale)
{
    p->cell_min = CELL_MIN;
    p->draw_unfit = false;
    if (p->o.probe) {                   /* at the full fonts, or not at all */
        p->lc->shrink = 1;
        page_try(p, v, label_scale, 1);
        return;
    }
    float shrink = p->shrink_from > 0 ? p->shrink_from : 1;
    for (;; shrink *= SHRINK_STEP) {
        if (page_try(p, v, label_scale, shrink)) {
            print_more(p, v, label_scale, shrink);
            return;
        }
        if (shrink < SHRINK_LAST) break;
    }
    p->cell_min = CELL_FLOOR;
    for (float s = 1; s >= shrink; s *= SHRINK_STEP)
        if (page_try(p, v, label_scale, s)) return;
    p->more_rows = true;
    for (float s = 1; s >= shrink; s *= SHRINK_STEP)
        if (page_try(p, v, label_scale, s)) {
            p->more_rows = false;
            return;
        }
    p->more_rows = false;
    p->cell_min = CELL_MIN;
    p->draw_unfit = true;
    page_try(p, v, label_scale, shrink);
    p->draw_unfit = false;
}

/* What page p, drawn into d, found: kept in its cache for layout_facts. */
static void page_facts(Page *p, const View *v, const DrawList *d)
{
    LayoutFacts *f = &p->lc->facts;
    memset(f, 0, sizeof *f);
    f->fitted = p->fitted;
    f->shrink = p->lc->shrink;
    f->printed = p->printed;
    f->printable = v ? lay_printable(p, v) : 0;
    f->value_goal = lay_value_goal(p);
    int np = v ? (v->npanels < VIEW_MAX_PANELS ? v->npanels : VIEW_MAX_PANELS) : 0;
    if (p->probed) {                    /* planned, not drawn */
        memcpy(f->value_fs, p->probe_fs, sizeof f->value_fs[0] * (size_t)np);
    } else {
        for (int i = 0; i < d->n; i++)
            if (d->cmds[i].role == ROLE_CELL_TEXT && d->cmds[i].panel >= 0 && d->cmds[i].panel < np
                && f->value_fs[d->cmds[i].panel] <= 0)
                f->value_fs[d->cmds[i].panel] = d->cmds[i].size;
    }
    for (int k = 0; k < np; k++)
        if (f->value_fs[k] > 0 && (f->value_min <= 0 || f->value_fs[k] < f->value_min)) f->value_min = f->value_fs[k];
    f->prose_cut = p->prose_cut;
    f->prose_fs = p->prose_fs;
    f->prose_full = p->m.body;
    f->prose_floor = p->m.body_min;
}

/* The font of the numbers of panel k in d, or 0 when none is printed. */
static float cell_font(const DrawList *d, int k)
{
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].role == ROLE_CELL_TEXT && d->cmds[i].panel == k) return d->cmds[i].size;
    return 0;
}

/*
** The panel titles' font of every head's page, and the share of the fonts
** it was laid out at, which one head chosen with H keeps: that page laid
** out once for a size, text scale and measure, and both kept in c for the
** next frames (a frame of a 1024-token head would otherwise lay out and
** stat every head again).
*/
static HeadCap head_cap(LayoutCache *c, const View *all, const LayoutOpts *opts)
{
    HeadCap key = { all->serial, opts->width, opts->height, opts->text_scale, opts->measure, opts->measure_ctx, 0, 0 };
    const HeadCap *k = &c->head_cap;
    if (all->serial && k->serial == key.serial && k->width == key.width && k->height == key.height
        && k->text_scale == key.text_scale && k->measure == key.measure && k->measure_ctx == key.measure_ctx)
        return *k;
    DrawList *d = draw_create(opts->width, opts->height);
    layout_view(c, all, opts, d);
    key.shrink = c->shrink;
    for (int i = 0; i < d->n && key.title <= 0; i++)
        if (d->cmds[i].kind == DRAW_TEXT && d->cmds[i].role == ROLE_PANEL_TITLE) key.title = d->cmds[i].size;
    draw_free(d);
    c->head_cap = key;
    return key;
}

/*
** Lay out v. A page whose panels do not find room (a small window, a big
** text scale) is laid out again with every font but the header's
** SHRINK_STEP as big, down to SHRINK_LAST.
** Bigger text (+, for the back row) must never print the numbers in the
** cells smaller: the page is laid out at scale 1 first, and when a panel's
** numbers come out smaller at the scale asked for, titles and labels grow
** only half as much, then not at all, while the numbers keep the full scale;
** a slide where even that shrinks them stays as it was at scale 1.
** One head of a stage whose heads all share a page (H) keeps the panel
** titles' font of that page, which is laid out first, and starts from the
** share of the fonts that page took.
** The next layout of the same page with other outlines (the pointer on
** another cell) copies the page kept in c and draws only the outlines
** (layout_keep.c).
*/
void layout_view(LayoutCache *c, const View *v, const LayoutOpts *opts, DrawList *out)
{
    assert(c && opts && out);
    if (lay_kept_draw(c, v, opts, out)) return;     /* the same page: only its outlines drawn again */
    HeadCap cap = { 0 };
    if (v && v->every_head) cap = head_cap(c, v->every_head, opts);
    Theme light = layout_theme(false);
    Page p;
    p.title_cap = cap.title;
    p.shrink_from = cap.shrink;
    p.more_rows = false;
    p.draw_unfit = true;
    p.cell_ink = INK;
    p.lc = c;
    p.cache = &c->measure;
    p.memo = &c->memo;
    p.gen = ++c->layouts;
    p.o = *opts;
    if (!p.o.measure) p.o.measure = layout_measure_fixed;
    /* Label widths are the view's, the measure's and the canvas's: kept
    ** while all stay (the top bit keeps the key apart from every layout's
    ** number). The canvas counts: a window laid out again at another size
    ** or text scale with its cache measured other labels, and H printed its
    ** panel titles two or three pixels off. */
    p.label_gen = p.gen;
    if (v && v->serial) {
        uint64_t fn = 0;
        uint32_t ts = 0;
        memcpy(&fn, &p.o.measure, sizeof fn < sizeof p.o.measure ? sizeof fn : sizeof p.o.measure);
        memcpy(&ts, &p.o.text_scale, sizeof ts);
        p.label_gen = lay_mix(lay_mix(lay_mix(lay_mix(lay_mix(0x243f6a8885a308d3ULL, v->serial), fn),
                                              (uint64_t)(uintptr_t)p.o.measure_ctx),
                                      (uint64_t)(uint32_t)p.o.width << 32 | (uint32_t)p.o.height),
                              ts) | 1ULL << 63;
    }
    p.th = p.o.theme ? p.o.theme : &light;
    p.d = out;
    p.v = v;
    for (int k = 0; v && k < v->npanels && k < VIEW_MAX_PANELS; k++) {
        const Panel *pn = &v->panels[k];
        p.stats[k] = lay_view_stats(c, v, k);
        p.rows_as_prev[k] = k > 0 && lay_is_heat(pn) && lay_is_heat(pn - 1) && lay_same_rows(pn - 1, pn);
    }
    float ts = text_scale_of(&p.o);
    if (!v || ts <= 1) {
        page_fit(&p, v, ts);
    } else {
        float base[VIEW_MAX_PANELS];
        Page q = p;
        q.o.text_scale = 1;
        page_fit(&q, v, 1);
        for (int k = 0; k < v->npanels && k < VIEW_MAX_PANELS; k++) base[k] = cell_font(out, k);
        const float tries[3] = { ts, 1 + (ts - 1) / 2, 1 };
        bool smaller = true;
        for (int t = 0; t < 3 && smaller; t++) {
            page_fit(&p, v, tries[t]);
            smaller = false;
            for (int k = 0; k < v->npanels && k < VIEW_MAX_PANELS; k++)
                smaller |= base[k] > 0 && cell_font(out, k) < base[k];
        }
        if (smaller) page_fit(&q, v, 1);        /* bigger text does not fit this slide: as it was */
    }
    for (int k = 0; v && k < v->npanels && k < DRAW_MAX_PANELS; k++) {
        snprintf(out->panels[k].matrix, sizeof out->panels[k].matrix, "%s", v->panels[k].matrix);
        out->panels[k].head = v->panels[k].ref.head;
        out->panels[k].row0 = v->panels[k].row_offset;
        out->npanels = k + 1;
    }
    page_facts(&p, v, out);
    lay_kept_store(c, v, opts, out);
}

/* What the last page laid out with c found. */
LayoutFacts layout_facts(const LayoutCache *c)
{
    return c->facts;
}
