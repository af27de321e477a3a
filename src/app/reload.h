/*
** reload.h: live reload of the lesson file.
**
** The teacher edits the lesson in their own editor; the window follows. The
** event loop wakes twice a second while a lesson is open and calls
** app_watch_poll, which costs one stat() when nothing changed (editors
** replace files by rename, which a stat of the name sees as well as a write
** in place). When the file's bytes differ from what the window last read or
** wrote, they are parsed: a valid lesson replaces the open one, keeping the
** stage, the head and the toggles (display settings, and mask, scaling and
** temperature where the file still has them), with the unsaved edits applied
** again on top; an invalid one leaves the last valid version on screen with
** its FILE:LINE:COL error, until the file is fixed. A file the window wrote
** itself reads back as what it wrote, so a save never triggers a reload.
**
** Usage (the event loop):
**   int ms = app_watch_due_ms(a);          // how long it may sleep, -1: no file
**   if (app_watch_poll(a)) redraw();
*/
#ifndef ATTNLAB_RELOAD_H
#define ATTNLAB_RELOAD_H

#include "state.h"

#define APP_WATCH_PERIOD 0.5    /* seconds between two looks at the file */

/* What stat says of path (exists false if it cannot be stat'ed). */
AppFileSig app_file_sig(const char *path);
/* Milliseconds until the file should be looked at again, or -1 if no file is open. */
int app_watch_due_ms(const AppState *a);
/* Look at the file if it is time (a->now): true if the screen changed. */
bool app_watch_poll(AppState *a);
/* Read the file now and reload it if its bytes changed: true if anything
** changed (a new version, or an error shown or cleared). */
bool app_reload_check(AppState *a);

#endif
