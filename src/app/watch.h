/*
** watch.h: live reload, the lesson file watched while it is open.
**
** A teacher edits the lesson in an editor beside the window; every save
** shows at once. The event loop (window.c) sleeps until app_watch_due_ms,
** then calls app_watch_poll, twice a second while a lesson is open: a look
** costs one stat() when nothing changed, and a read when stat shows the
** file other than when it was read. The document (doc_reload, doc.h)
** decides what the bytes mean: the same bytes change nothing, a lesson
** that loads replaces the one shown (the toggles and unsaved edits applied
** again on top), bytes that do not load put their error on screen beside
** the last good version, and a fixed file clears it. The state follows
** what it reports (app_follow).
**
**     int ms = app_watch_due_ms(a);        // the event loop's timeout, -1: no file
**     a->now = seconds();
**     if (app_watch_poll(a)) redraw();
*/
#ifndef ATTNLAB_WATCH_H
#define ATTNLAB_WATCH_H

#include <stdbool.h>

typedef struct AppState AppState;   /* state.h */

#define APP_WATCH_PERIOD 0.5    /* seconds between two looks at the lesson file */

/* Milliseconds until the file should be looked at again, or -1 if no file is open. */
int app_watch_due_ms(const AppState *a);
/* Look at the file if it is time (a->now): true if the screen changed. */
bool app_watch_poll(AppState *a);
/* Read the file now and take it if its bytes changed: true if anything
** changed (a new version, or an error shown or cleared). */
bool app_reload_check(AppState *a);

#endif
