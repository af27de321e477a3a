/*
** draw.c: the display list: a growable array of commands, a string arena
** and an image arena.
*/
#include "draw.h"
#include "core/util.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* An empty list. */
DrawList *draw_create(int width, int height)
{
    DrawList *d = xcalloc(1, sizeof *d);
    d->width = width;
    d->height = height;
    d->background = (Color){ 255, 255, 255, 255 };
    return d;
}

/* Release a list. */
void draw_free(DrawList *d)
{
    if (!d) return;
    free(d->cmds);
    free(d->text);
    free(d->pix);
    free(d);
}

/* Reset for a new frame; memory is kept. */
void draw_clear(DrawList *d, int width, int height, Color background)
{
    d->n = 0;
    d->tlen = 0;
    d->plen = 0;
    d->width = width;
    d->height = height;
    d->background = background;
    d->npanels = 0;
}

/* Grow d's commands to hold at least n. */
static void cmds_reserve(DrawList *d, int n)
{
    if (n <= d->cap) return;
    int cap = d->cap ? d->cap : 256;
    while (cap < n) cap *= 2;
    d->cmds = xrealloc(d->cmds, sizeof *d->cmds * (size_t)cap);
    d->cap = cap;
}

/* src's canvas, panels and arenas into dst, which gets no commands. */
void draw_copy_base(DrawList *dst, const DrawList *src)
{
    assert(dst != src);
    draw_clear(dst, src->width, src->height, src->background);
    if (src->tlen > dst->tcap) {
        dst->text = xrealloc(dst->text, src->tlen);
        dst->tcap = src->tlen;
    }
    if (src->plen > dst->pcap) {
        dst->pix = xrealloc(dst->pix, src->plen);
        dst->pcap = src->plen;
    }
    if (src->tlen) memcpy(dst->text, src->text, src->tlen);
    if (src->plen) memcpy(dst->pix, src->pix, src->plen);
    dst->tlen = src->tlen;
    dst->plen = src->plen;
    memcpy(dst->panels, src->panels, sizeof dst->panels);
    dst->npanels = src->npanels;
}

/* Commands [from, to) of src appended to dst as they are. */
void draw_copy_cmds(DrawList *dst, const DrawList *src, int from, int to)
{
    assert(dst != src && 0 <= from && from <= to && to <= src->n);
    cmds_reserve(dst, dst->n + (to - from));
    if (to > from) memcpy(dst->cmds + dst->n, src->cmds + from, sizeof *src->cmds * (size_t)(to - from));
    dst->n += to - from;
}

/* Append a command, copying its text into the arena. */
int draw_push(DrawList *d, const DrawCmd *c, const char *text)
{
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 256;
        d->cmds = xrealloc(d->cmds, sizeof *d->cmds * (size_t)d->cap);
    }
    DrawCmd *slot = &d->cmds[d->n];
    *slot = *c;
    if (c->kind == DRAW_TEXT) {
        size_t len = strlen(text ? text : "");
        if (d->tlen + len + 1 > d->tcap) {
            size_t cap = d->tcap ? d->tcap : 4096;
            while (cap < d->tlen + len + 1) cap *= 2;
            d->text = xrealloc(d->text, cap);
            d->tcap = cap;
        }
        memcpy(d->text + d->tlen, text ? text : "", len + 1);
        slot->text = (uint32_t)d->tlen;
        d->tlen += len + 1;
    }
    return d->n++;
}

/* A command with the common fields set. */
static DrawCmd base_cmd(DrawKind kind, Rect r, Color c, DrawRole role)
{
    DrawCmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.kind = kind;
    cmd.r = r;
    cmd.color = c;
    cmd.role = role;
    cmd.panel = cmd.row = cmd.col = -1;
    return cmd;
}

/* Filled rectangle. */
int draw_rect(DrawList *d, Rect r, Color c, DrawRole role)
{
    DrawCmd cmd = base_cmd(DRAW_RECT, r, c, role);
    return draw_push(d, &cmd, NULL);
}

/* Rectangle outline. */
int draw_frame(DrawList *d, Rect r, Color c, float width, DrawRole role)
{
    DrawCmd cmd = base_cmd(DRAW_RECT, r, c, role);
    cmd.width = width;
    return draw_push(d, &cmd, NULL);
}

/* Line segment. */
int draw_line(DrawList *d, float x0, float y0, float x1, float y1, Color c, float width, DrawRole role)
{
    DrawCmd cmd = base_cmd(DRAW_LINE, (Rect){ x0, y0, x1 - x0, y1 - y0 }, c, role);
    cmd.width = width;
    return draw_push(d, &cmd, NULL);
}

/* Text aligned in a box. */
int draw_text(DrawList *d, Rect r, const char *text, float size, Color c,
              HAlign ha, VAlign va, DrawRole role)
{
    DrawCmd cmd = base_cmd(DRAW_TEXT, r, c, role);
    cmd.size = size;
    cmd.halign = (uint8_t)ha;
    cmd.valign = (uint8_t)va;
    return draw_push(d, &cmd, text);
}

/* The string of a text command. */
const char *draw_str(const DrawList *d, const DrawCmd *c)
{
    return c->kind == DRAW_TEXT ? d->text + c->text : "";
}

/* A grid drawn in blocks: header and colours into the image arena. */
int draw_image(DrawList *d, float x, float y, const DrawImage *im, DrawRole role, Color **px)
{
    int br, bc;
    draw_image_size(im, &br, &bc);
    size_t need = sizeof *im + sizeof **px * (size_t)br * (size_t)bc;
    if (d->plen + need > d->pcap) {
        size_t cap = d->pcap ? d->pcap : 65536;
        while (cap < d->plen + need) cap *= 2;
        d->pix = xrealloc(d->pix, cap);
        d->pcap = cap;
    }
    memcpy(d->pix + d->plen, im, sizeof *im);
    *px = (Color *)(void *)(d->pix + d->plen + sizeof *im);
    DrawCmd cmd = base_cmd(DRAW_IMAGE, (Rect){ x, y, im->cw * (float)im->cols, im->ch * (float)im->rows },
                           (Color){ 0, 0, 0, 255 }, role);
    cmd.text = (uint32_t)d->plen;
    d->plen += need;
    return draw_push(d, &cmd, NULL);
}

/* An image command's header and colours. */
const DrawImage *draw_image_of(const DrawList *d, const DrawCmd *c, const Color **px)
{
    if (c->kind != DRAW_IMAGE) return NULL;
    const DrawImage *im = (const DrawImage *)(const void *)(d->pix + c->text);
    if (px) *px = (const Color *)(const void *)(d->pix + c->text + sizeof *im);
    return im;
}

/* Blocks down and across. */
void draw_image_size(const DrawImage *im, int *brows, int *bcols)
{
    *brows = (im->rows + im->rstep - 1) / im->rstep;
    *bcols = (im->cols + im->cstep - 1) / im->cstep;
}

/* The shapes of a list: its commands, images counted block by block. */
int64_t draw_shapes(const DrawList *d)
{
    int64_t n = 0;
    for (int i = 0; i < d->n; i++) {
        const DrawImage *im = draw_image_of(d, &d->cmds[i], NULL);
        int brows = 1, bcols = 1;
        if (im) draw_image_size(im, &brows, &bcols);
        n += (int64_t)brows * bcols;
    }
    return n;
}

/* A block's rectangle from its first cell's: steps of cells, cut at the grid's edge. */
Rect draw_block_rect(Rect cell, int row, int col, const DrawImage *g)
{
    cell.w *= (float)(col + g->cstep <= g->cols ? g->cstep : g->cols - col);
    cell.h *= (float)(row + g->rstep <= g->rows ? g->rstep : g->rows - row);
    return cell;
}

/* Block (i, j) as the rectangle it stands for (draw_block_rect, as the
** layout's blocks of rectangles, so both are the same floats). */
DrawCmd draw_image_block(const DrawList *d, const DrawCmd *c, int i, int j)
{
    const Color *px;
    const DrawImage *im = draw_image_of(d, c, &px);
    int br, bc, r = i * im->rstep, k = j * im->cstep;
    draw_image_size(im, &br, &bc);
    Rect cell = { c->r.x + (float)k * im->cw, c->r.y + (float)r * im->ch, im->cw, im->ch };
    Rect b = draw_block_rect(cell, r, k, im);
    DrawCmd out = base_cmd(DRAW_RECT, b, px[(size_t)i * (size_t)bc + (size_t)j], c->role);
    out.panel = c->panel;
    out.row = (int16_t)r;
    out.col = (int16_t)k;
    return out;
}

/* Every visible block of an image, as its rectangle. */
void draw_image_each(const DrawList *d, const DrawCmd *c, void (*fn)(void *ctx, const DrawCmd *rect), void *ctx)
{
    int br, bc;
    draw_image_size(draw_image_of(d, c, NULL), &br, &bc);
    for (int i = 0; i < br; i++)
        for (int j = 0; j < bc; j++) {
            DrawCmd r = draw_image_block(d, c, i, j);
            if (r.color.a) fn(ctx, &r);
        }
}

/* The cell of an image under a point (false when outside it). */
static bool image_cell_at(const DrawList *d, const DrawCmd *c, float x, float y, int *row, int *col)
{
    const DrawImage *im = draw_image_of(d, c, NULL);
    if (!(x >= c->r.x && x < c->r.x + c->r.w && y >= c->r.y && y < c->r.y + c->r.h)) return false;
    int r = (int)((y - c->r.y) / im->ch), k = (int)((x - c->r.x) / im->cw);
    if (r >= im->rows) r = im->rows - 1;
    if (k >= im->cols) k = im->cols - 1;
    *row = r / im->rstep * im->rstep;
    *col = k / im->cstep * im->cstep;
    return true;
}

/* Last-drawn cell under a point. */
bool draw_cell_at(const DrawList *d, float x, float y, int *panel, int *row, int *col)
{
    *panel = *row = *col = -1;
    for (int i = d->n - 1; i >= 0; i--) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role != ROLE_CELL) continue;
        if (c->kind == DRAW_IMAGE) {
            if (!image_cell_at(d, c, x, y, row, col)) continue;
            *panel = c->panel;
            return true;
        }
        if (c->kind != DRAW_RECT || c->width != 0) continue;
        if (x >= c->r.x && x < c->r.x + c->r.w && y >= c->r.y && y < c->r.y + c->r.h) {
            *panel = c->panel;
            *row = c->row;
            *col = c->col;
            return true;
        }
    }
    return false;
}

/* The panel of the cell or the panel title under a point. */
int draw_panel_at(const DrawList *d, float x, float y)
{
    int panel, row, col;
    if (draw_cell_at(d, x, y, &panel, &row, &col)) return panel;
    for (int i = d->n - 1; i >= 0; i--) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role == ROLE_PANEL_TITLE && c->panel >= 0 && x >= c->r.x && x < c->r.x + c->r.w && y >= c->r.y
            && y < c->r.y + c->r.h)
            return c->panel;
    }
    return -1;
}

/* Where a cell is drawn. */
bool draw_cell_rect(const DrawList *d, int panel, int row, int col, Rect *out)
{
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role != ROLE_CELL || c->panel != panel) continue;
        if (c->kind == DRAW_RECT && c->row == row && c->col == col) {
            *out = c->r;
            return true;
        }
        const DrawImage *im = draw_image_of(d, c, NULL);
        if (im && row >= 0 && col >= 0 && row < im->rows && col < im->cols) {
            *out = draw_image_block(d, c, row / im->rstep, col / im->cstep).r;
            return true;
        }
    }
    return false;
}
