/*
** colormaps.c: the list of colormap names (colormaps.h) and what is asked
** of it.
*/
#include "colormaps.h"

#include <stdio.h>
#include <string.h>

#define NAME(name, diverging) #name,
static const char *const names[] = { COLORMAPS(NAME) NULL };
#undef NAME
#define NMAPS ((int)(sizeof names / sizeof names[0]) - 1)

/* The names in cycling order. */
const char *const *colormaps_names(void)
{
    return names;
}

/* Compare with each name: exact bytes and length. */
int colormaps_find(const char *s, size_t n)
{
    for (int i = 0; i < NMAPS; i++)
        if (strlen(names[i]) == n && memcmp(s, names[i], n) == 0) return i;
    return -1;
}

/* "a, b, ... or z". */
void colormaps_list(char *out, size_t n)
{
    size_t used = 0;
    if (n == 0) return;
    out[0] = '\0';
    for (int i = 0; i < NMAPS && used < n; i++) {
        const char *sep = i == 0 ? "" : i == NMAPS - 1 ? " or " : ", ";
        int w = snprintf(out + used, n - used, "%s%s", sep, names[i]);
        if (w < 0) break;
        used += (size_t)w;
    }
}
