/*
** draw.c: the display list: a growable array of commands and a string arena.
*/
#include "draw.h"
#include "core/util.h"

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
    free(d);
}

/* Reset for a new frame; memory is kept. */
void draw_clear(DrawList *d, int width, int height, Color background)
{
    d->n = 0;
    d->tlen = 0;
    d->width = width;
    d->height = height;
    d->background = background;
    d->npanels = 0;
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

/* Last-drawn cell under a point. */
int draw_hit_cell(const DrawList *d, float x, float y)
{
    for (int i = d->n - 1; i >= 0; i--) {
        const DrawCmd *c = &d->cmds[i];
        if (c->role != ROLE_CELL || c->kind != DRAW_RECT || c->width != 0) continue;
        if (x >= c->r.x && x < c->r.x + c->r.w && y >= c->r.y && y < c->r.y + c->r.h) return i;
    }
    return -1;
}
