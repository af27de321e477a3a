/*
** icon.c: the window icon. Each row of the 4x4 grid is one query's weights:
** most of it on one key (yellow), a little on its neighbours, none on the
** rest, as in assets/attnlab.svg.
*/
#include "icon.h"
#include "view/cmap.h"
#include "sdl_dyn.h"

/* Weights per cell, row by row, mapped through viridis. */
static const double icon_weights[4][4] = {
    { 1.00, 0.25, 0.00, 0.00 },
    { 0.50, 1.00, 0.25, 0.00 },
    { 0.25, 0.75, 1.00, 0.00 },
    { 0.00, 0.50, 0.75, 1.00 },
};

/* Draw the icon. */
SDL_Surface *icon_create(int size)
{
    SDL_Surface *s = SDL_CreateRGBSurfaceWithFormat(0, size, size, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!s) return NULL;
    SDL_FillRect(s, NULL, SDL_MapRGBA(s->format, 0, 0, 0, 0));
    int r = size / 5, m = size / 8, cell = (size - 2 * m) / 4, gap = size >= 48 ? 2 : 1;
    Uint32 tile = SDL_MapRGBA(s->format, 0x1b, 0x1f, 0x2b, 255);
    /* a rounded tile: a cross of two rectangles and four filled corners */
    SDL_Rect a = { r, 0, size - 2 * r, size }, b = { 0, r, size, size - 2 * r };
    SDL_FillRect(s, &a, tile);
    SDL_FillRect(s, &b, tile);
    for (int y = 0; y < r; y++)
        for (int x = 0; x < r; x++) {
            int dx = r - x, dy = r - y;
            if (dx * dx + dy * dy > r * r) continue;
            SDL_Rect px[4] = { { x, y, 1, 1 }, { size - 1 - x, y, 1, 1 }, { x, size - 1 - y, 1, 1 }, { size - 1 - x, size - 1 - y, 1, 1 } };
            for (int k = 0; k < 4; k++) SDL_FillRect(s, &px[k], tile);
        }
    const Cmap *viridis = cmap_get("viridis");
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++) {
            Color c = cmap_at(viridis, icon_weights[i][j]);
            SDL_Rect q = { m + j * cell + gap / 2, m + i * cell + gap / 2, cell - gap, cell - gap };
            SDL_FillRect(s, &q, SDL_MapRGBA(s->format, c.r, c.g, c.b, 255));
        }
    return s;
}
