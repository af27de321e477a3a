/*
** cmap.h: colormaps and readable text colours.
**
** Each colormap is a table of 256 colours, kept as data in
** assets/cmaps/NAME.txt and compiled into the program at build time (so it
** starts with no file to find), sampled with t in [0, 1]. RdBu is diverging and is used centred on 0. cmap_text_for
** picks near-black or white text for a cell, whichever has the larger WCAG
** contrast ratio, so every annotation reaches at least 4.5:1.
*/
#ifndef ATTNLAB_CMAP_H
#define ATTNLAB_CMAP_H

#include <stdbool.h>
#include "draw.h"

typedef struct Cmap Cmap;

/* The colormap called name (one of src/core/colormaps.h), or NULL. The
** result is static: nothing to free. */
const Cmap *cmap_get(const char *name);
/* The names, NULL-terminated, in the order the app cycles through them
** (colormaps_names). */
const char *const *cmap_names(void);
/* The colour at t in [0, 1] (clamped; NaN gives the lowest colour). */
Color cmap_at(const Cmap *c, double t);
/* True for diverging maps (meant to be centred on 0). */
bool cmap_is_diverging(const Cmap *c);
/* The map's name. */
const char *cmap_name(const Cmap *c);
/* WCAG relative luminance of a colour. */
double cmap_luminance(Color c);
/* WCAG contrast ratio between two colours (1 to 21). */
double cmap_contrast(Color a, Color b);
/* Near-black or white, whichever reads better on bg. */
Color cmap_text_for(Color bg);

#endif
