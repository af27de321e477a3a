/*
** cmap.c: colormap tables and the contrast rule for text on a cell.
**
** The tables are matplotlib's colormaps sampled at 256 points by
** assets/cmaps/make_tables.py; the Makefile turns assets/cmaps/NAME.txt into
** the arrays cmap_tab_NAME in cmap_tables.h, so the program carries them and
** needs no file at run time. Which maps there are, and in what order, is
** the list in src/core/colormaps.h: each of its rows is bound here to its
** table by name.
*/
#include "cmap.h"
#include "cmap_tables.h"
#include "core/colormaps.h"

#include <math.h>
#include <string.h>

#define CMAP_N 256

struct Cmap {
    const char *name;
    const unsigned char (*tab)[3];
    bool diverging;
};

#define MAP(name, diverging) { #name, cmap_tab_##name, diverging },
static const Cmap maps[] = { COLORMAPS(MAP) };
#undef MAP

/* Look a map up by its exact name (colormaps_find: maps[] is in the list's
** order). */
const Cmap *cmap_get(const char *name)
{
    if (!name) return NULL;
    int i = colormaps_find(name, strlen(name));
    return i < 0 ? NULL : &maps[i];
}

/* The names in cycling order: the list's. */
const char *const *cmap_names(void)
{
    return colormaps_names();
}

/* Sample the table the way matplotlib does: t*N, floored, clamped. */
Color cmap_at(const Cmap *c, double t)
{
    int i = 0;
    if (t == t) {                       /* NaN stays at the lowest colour */
        if (t >= 1.0) i = CMAP_N - 1;
        else if (t > 0.0) i = (int)(t * CMAP_N);
        if (i > CMAP_N - 1) i = CMAP_N - 1;
    }
    const unsigned char *p = c->tab[i];
    return (Color){ p[0], p[1], p[2], 255 };
}

/* Whether the map is meant to be centred on zero. */
bool cmap_is_diverging(const Cmap *c)
{
    return c->diverging;
}

/* The map's name. */
const char *cmap_name(const Cmap *c)
{
    return c->name;
}

/* One sRGB channel (0-255) to linear light, as WCAG 2 defines it. */
static double linear(uint8_t v)
{
    double s = v / 255.0;
    return s <= 0.04045 ? s / 12.92 : pow((s + 0.055) / 1.055, 2.4);
}

/* WCAG relative luminance. */
double cmap_luminance(Color c)
{
    return 0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b);
}

/* WCAG contrast ratio, lighter over darker. */
double cmap_contrast(Color a, Color b)
{
    double la = cmap_luminance(a), lb = cmap_luminance(b);
    if (la < lb) { double t = la; la = lb; lb = t; }
    return (la + 0.05) / (lb + 0.05);
}

/*
** Near-black (#111) reads softer than pure black on light cells, and white
** is the only choice on dark ones. Between them lies a narrow band of
** luminance (about 0.18 to 0.20) where neither reaches 4.5:1; pure black
** always does there, so it is the fallback.
*/
Color cmap_text_for(Color bg)
{
    const Color dark = { 17, 17, 17, 255 }, white = { 255, 255, 255, 255 };
    const Color black = { 0, 0, 0, 255 };
    double cd = cmap_contrast(dark, bg), cw = cmap_contrast(white, bg);
    if (cd >= 4.5 && cd >= cw) return dark;
    if (cw >= 4.5) return white;
    return cmap_contrast(black, bg) >= cw ? black : white;
}
