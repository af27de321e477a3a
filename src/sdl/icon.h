/*
** icon.h: the window icon, drawn in code so the program needs no image file
** at run time. It is the picture of assets/attnlab.svg (the icon the desktop
** entry uses): a 4x4 attention-weight heatmap in viridis on a dark tile.
*/
#ifndef ATTNLAB_ICON_H
#define ATTNLAB_ICON_H

#include <SDL.h>

/* A new size x size ARGB surface holding the icon (caller frees with
** SDL_FreeSurface), or NULL if SDL cannot make one. */
SDL_Surface *icon_create(int size);

#endif
