/*
** window.h: the interactive window: SDL events in, actions on the AppState,
** frames out. Sleeps while nothing happens.
*/
#ifndef ATTNLAB_WINDOW_H
#define ATTNLAB_WINDOW_H

/* Open the window on the lesson at path (NULL: the lesson picker) and run
** until the user quits. Without a display, say so and export the tour to
** ./attnlab-export/ instead. Returns the exit code. */
int app_window(const char *path, const char *font, const char *shots, int width, int height);

#endif
