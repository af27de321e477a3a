/*
** window.h: the interactive window: SDL events in, actions on the AppState,
** frames out. Sleeps while nothing happens.
*/
#ifndef ATTNLAB_WINDOW_H
#define ATTNLAB_WINDOW_H

/* What the window opens with. */
typedef struct WindowArgs {
    const char *path;           /* the lesson to open ("-": standard input), NULL: the lesson picker */
    char **folders;             /* folders whose lessons the picker lists too */
    int nfolders;
    const char *font;           /* --font, or NULL */
    const char *shots;          /* where S and Ctrl+P write */
    int width, height;          /* --size, or 0: the last size (winstate.h), else 1280x800 */
} WindowArgs;

/* Open the window and run until the user quits. It opens within the
** screen's usable area, where it was last time unless a size is given.
** Without a display (or with one that cannot be reached) it says so and
** returns 1. Returns the exit code. */
int app_window(const WindowArgs *args);

#endif
