/*
** library.h: the lessons the window can open besides the one it shows.
**
** The picker (L) lists, in this order and each file once: the recent files
** (the last lessons the window opened, kept in $XDG_STATE_HOME/attnlab/recent,
** newest first), the lessons of the folders named on the command line, the
** user's own ($XDG_DATA_HOME/attnlab/lessons, where edits of an installed
** lesson are saved) and the bundled ones. Each comes with its title and
** where it comes from.
**
** O asks for a file: a native dialog when there is one (filedlg.h), else
** the program's own field (prompt.h), whose Tab completes the path typed
** (app_complete_path). Files dropped on the window are opened by
** app_open_dropped: the lesson among them, or, for a NumPy file alone, the
** open lesson read again when it loads that very file.
**
**   app_library_fill(a);            // a->picker_items, _titles, _where, _n
**   app_recent_add("/home/t/week3.lesson");
*/
#ifndef ATTNLAB_LIBRARY_H
#define ATTNLAB_LIBRARY_H

#include <stddef.h>
#include "state.h"

#define APP_RECENT_MAX 8        /* recent files kept */
#define APP_LIBRARY_MAX 400     /* lessons the picker lists, at most */

/* Fill the picker's list (what it held is freed); the selection goes to
** the open lesson when it is listed. */
void app_library_fill(AppState *a);
/* Free the picker's list. */
void app_library_free(AppState *a);

/* The recent files that still exist, newest first: a NULL-terminated list
** of paths (app_free_list). */
char **app_recent_list(void);
/* Put path (made absolute) first in the recent files; standard input and
** files that are not there are not kept. 0, or -1 when the list cannot be
** written. */
int app_recent_add(const char *path);

/* Tab in the path field: text (size n) completed as far as the directory's
** entries (folders and .lesson files; "~/" is the home folder) agree; when
** several match, note (size nn) names them. Returns how many matched. */
int app_complete_path(char *text, size_t n, char *note, size_t nn);

/* Files dropped on the window (n paths): the lesson among them opened
** (asking first when edits are not saved); NumPy files alone read the open
** lesson again when it loads them, else a toast says what to do. */
void app_open_dropped(AppState *a, char **paths, int n);

#endif
