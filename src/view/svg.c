/*
** svg.c: writing a DrawList as SVG 1.1 markup.
**
** One element per command, in list order, so later commands paint over
** earlier ones exactly as in the window. Text is XML-escaped; bytes that
** are not valid UTF-8, and control characters XML 1.0 forbids, become
** U+FFFD so that the document always parses.
*/
#include "svg.h"
#include "core/io/fileio.h"
#include "core/text/utf8.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ASCENT  0.928f      /* DejaVu Sans, in em */
#define DESCENT 0.236f
#define DIGIT   0.729f      /* height of the digits */

/* Numbers that were not finite when written (see svg.h). */
static long nonfinite_count;

/* How many non-finite numbers svg_write has replaced by 0 so far. */
long svg_nonfinite_count(void)
{
    return nonfinite_count;
}

/* A coordinate with two decimals, trailing zeros and "-0" dropped; a value
** that is not finite is written as 0 and counted: the last line of defence,
** since the layout must never produce one. */
static void put_num(Buf *b, float v)
{
    char s[48];
    if (!isfinite(v)) {
        nonfinite_count++;
        v = 0;
    }
    snprintf(s, sizeof s, "%.2f", (double)v);
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == '0') n--;
    if (n > 0 && s[n - 1] == '.') n--;
    s[n] = '\0';
    if (strcmp(s, "-0") == 0) strcpy(s, "0");
    buf_puts(b, s);
}

/* name="value" for a number, with a leading space. */
static void put_attr(Buf *b, const char *name, float v)
{
    buf_printf(b, " %s=\"", name);
    put_num(b, v);
    buf_puts(b, "\"");
}

/* A paint attribute: name="#rrggbb", plus name-opacity when translucent. */
static void put_paint(Buf *b, const char *name, Color c)
{
    buf_printf(b, " %s=\"#%02x%02x%02x\"", name, c.r, c.g, c.b);
    if (c.a != 255) {
        buf_printf(b, " %s-opacity=\"", name);
        put_num(b, c.a / 255.0f);
        buf_puts(b, "\"");
    }
}

/* Text content or an attribute value, escaped and made valid. */
static void put_escaped(Buf *b, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        switch (*s) {
        case '&': buf_puts(b, "&amp;"); s++; continue;
        case '<': buf_puts(b, "&lt;"); s++; continue;
        case '>': buf_puts(b, "&gt;"); s++; continue;
        case '"': buf_puts(b, "&quot;"); s++; continue;
        case '\'': buf_puts(b, "&apos;"); s++; continue;
        default: break;
        }
        if (*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r') {
            buf_puts(b, "\xef\xbf\xbd");
            s++;
            continue;
        }
        uint32_t cp = 0;
        size_t n = utf8_seq_len((const char *)s, 4) ? utf8_decode((const char *)s, 4, &cp) : 0;
        if (n == 0 || cp == 0xFFFE || cp == 0xFFFF) {     /* malformed, or not an XML character */
            buf_puts(b, "\xef\xbf\xbd");
            s += n ? n : 1;
            continue;
        }
        buf_append(b, (const char *)s, n);
        s += n;
    }
}

/* A filled rectangle or an outline. */
static void put_rect(Buf *b, const DrawCmd *c)
{
    buf_puts(b, "<rect");
    put_attr(b, "x", c->r.x);
    put_attr(b, "y", c->r.y);
    put_attr(b, "width", c->r.w > 0 ? c->r.w : 0);
    put_attr(b, "height", c->r.h > 0 ? c->r.h : 0);
    if (c->width > 0) {
        buf_puts(b, " fill=\"none\"");
        put_paint(b, "stroke", c->color);
        put_attr(b, "stroke-width", c->width);
    } else {
        put_paint(b, "fill", c->color);
    }
    buf_puts(b, "/>\n");
}

/* One block of an image as a rectangle (draw_image_each): an image is
** written as the rectangles its blocks stand for, so the document is the
** one the blocks made before there were images. */
static void image_block(void *b, const DrawCmd *rect)
{
    put_rect(b, rect);
}

/* A line; dashes are draw.h's pattern, in stroke widths. */
static void put_line(Buf *b, const DrawCmd *c)
{
    float w = c->width > 0 ? c->width : 1;
    buf_puts(b, "<line");
    put_attr(b, "x1", c->r.x);
    put_attr(b, "y1", c->r.y);
    put_attr(b, "x2", c->r.x + c->r.w);
    put_attr(b, "y2", c->r.y + c->r.h);
    put_paint(b, "stroke", c->color);
    put_attr(b, "stroke-width", w);
    if (c->dashed) {
        buf_puts(b, " stroke-dasharray=\"");
        put_num(b, DRAW_DASH_ON * w);
        buf_puts(b, " ");
        put_num(b, DRAW_DASH_OFF * w);
        buf_puts(b, "\"");
    }
    buf_puts(b, "/>\n");
}

/* A text run at its anchor and baseline (see svg.h for rotated runs). */
static void put_text(Buf *b, const DrawList *d, const DrawCmd *c)
{
    static const char *const anchors[3] = { "start", "middle", "end" };
    int rot = c->rotate == 90, anchor = c->halign <= ALIGN_RIGHT ? c->halign : 0;
    float s = c->size;
    /* along the text: from the left of r, or upward from its bottom */
    float along0 = rot ? c->r.y + c->r.h : c->r.x, along_len = rot ? c->r.h : c->r.w;
    float along = anchor == ALIGN_CENTER ? along_len / 2 : anchor == ALIGN_RIGHT ? along_len : 0;
    /* across it: the baseline, from the top of r, or from its left side */
    float across0 = rot ? c->r.x : c->r.y, across_len = rot ? c->r.w : c->r.h;
    float base = c->valign == VALIGN_TOP ? ASCENT * s
               : c->valign == VALIGN_BOTTOM ? across_len - DESCENT * s
               : (across_len + DIGIT * s) / 2;
    float x = rot ? across0 + base : along0 + along;
    float y = rot ? along0 - along : across0 + base;
    buf_puts(b, "<text");
    put_attr(b, "x", x);
    put_attr(b, "y", y);
    put_attr(b, "font-size", s);
    if (anchor) buf_printf(b, " text-anchor=\"%s\"", anchors[anchor]);
    if (c->bold) buf_puts(b, " font-weight=\"bold\"");
    put_paint(b, "fill", c->color);
    if ((c->role == ROLE_CELL_TEXT || c->role == ROLE_MASKED) && c->row >= 0 && c->col >= 0)
        buf_printf(b, " data-row=\"%d\" data-col=\"%d\"", c->row, c->col);
    if (c->rotate == 90) {
        buf_puts(b, " transform=\"rotate(-90 ");
        put_num(b, x);
        buf_puts(b, " ");
        put_num(b, y);
        buf_puts(b, ")\"");
    }
    buf_puts(b, ">");
    put_escaped(b, draw_str(d, c));
    buf_puts(b, "</text>\n");
}

/* The whole document, text in the default font list. */
char *svg_write(const DrawList *d, const char *title, const char *desc, size_t *len)
{
    return svg_write_fonts(d, title, desc, NULL, len);
}

/* The whole document. */
char *svg_write_fonts(const DrawList *d, const char *title, const char *desc, const char *families, size_t *len)
{
    Buf b = { 0 };
    buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    buf_printf(&b, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
               "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" xml:space=\"preserve\">\n",
               d->width, d->height, d->width, d->height);
    if (title) { buf_puts(&b, "<title>"); put_escaped(&b, title); buf_puts(&b, "</title>\n"); }
    if (desc) { buf_puts(&b, "<desc>"); put_escaped(&b, desc); buf_puts(&b, "</desc>\n"); }
    buf_printf(&b, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\"", d->width, d->height);
    put_paint(&b, "fill", d->background);
    buf_puts(&b, "/>\n<g font-family=\"");
    put_escaped(&b, families && *families ? families : SVG_FAMILIES);
    buf_puts(&b, "\">\n");
    int open = -1;              /* the panel whose <g> is open */
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        int k = c->panel >= 0 && c->panel < d->npanels && d->panels[c->panel].matrix[0] ? c->panel : -1;
        if (k != open && !(k < 0 && c->role != ROLE_OVERLAY && open >= 0)) {
            if (open >= 0) buf_puts(&b, "</g>\n");
            if (k >= 0) {
                buf_puts(&b, "<g data-matrix=\"");
                put_escaped(&b, d->panels[k].matrix);
                buf_printf(&b, "\" data-panel=\"%d\"", k);
                if (d->panels[k].head > 0) buf_printf(&b, " data-head=\"%d\"", d->panels[k].head);
                if (d->panels[k].row0 > 0) buf_printf(&b, " data-first-row=\"%d\"", d->panels[k].row0);
                buf_puts(&b, ">\n");
            }
            open = k;
        }
        if (c->color.a == 0) continue;          /* an invisible hover area (plot points) */
        if (c->kind == DRAW_RECT) put_rect(&b, c);
        else if (c->kind == DRAW_LINE) put_line(&b, c);
        else if (c->kind == DRAW_TEXT) put_text(&b, d, c);
        else if (c->kind == DRAW_IMAGE) draw_image_each(d, c, image_block, &b);
    }
    if (open >= 0) buf_puts(&b, "</g>\n");
    buf_puts(&b, "</g>\n</svg>\n");
    if (len) *len = b.len;
    return buf_take(&b);
}

/* Write the document to a file, atomically. */
int svg_save(const DrawList *d, const char *path, const char *title, const char *desc,
             const char *families, Error *err)
{
    size_t len = 0;
    char *s = svg_write_fonts(d, title, desc, families, &len);
    int rc = fileio_write_atomic(path, s, len, false, err);
    free(s);
    return rc;
}
