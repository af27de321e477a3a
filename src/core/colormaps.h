/*
** colormaps.h: the colormaps attnlab has, by name: the one list that every
** user reads. The lesson reader checks `cmap:` against it, the colour
** tables (src/view/cmap.c) are bound to it by name, the command line's
** --cmap and its help, the C key of the window and the browser cycle
** through it, and assets/cmaps/make_tables.py writes a table for each.
**
**     int i = colormaps_find("plasma", 6);       // 2, or -1 for no such map
**     const char *name = colormaps_names()[i];
**     char list[COLORMAPS_LIST_MAX];
**     colormaps_list(list, sizeof list);         // "viridis, cividis, … or RdBu"
**
** To add a map: a row here (its name as matplotlib spells it, and whether
** it is diverging, meant to be centred on 0), then make_tables.py.
*/
#ifndef ATTNLAB_COLORMAPS_H
#define ATTNLAB_COLORMAPS_H

#include <stddef.h>

/* X(name, diverging) for each map, in the order the C key cycles through
** them; the first is the default for weights, RdBu for signed values. */
#define COLORMAPS(X)     \
    X(viridis, false)    \
    X(cividis, false)    \
    X(plasma, false)     \
    X(magma, false)      \
    X(YlOrRd, false)     \
    X(Blues, false)      \
    X(RdBu, true)

/* Room for colormaps_list's sentence. */
#define COLORMAPS_LIST_MAX 128

/* The names, NULL-terminated, in the order of COLORMAPS. */
const char *const *colormaps_names(void);
/* The index of the map named by the n bytes at s (exactly, case and all),
** or -1. */
int colormaps_find(const char *s, size_t n);
/* The names as a sentence for messages and help ("viridis, cividis, ...,
** Blues or RdBu") into out (n bytes, cut if smaller). */
void colormaps_list(char *out, size_t n);

#endif
