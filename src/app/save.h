/*
** save.h: saving the edited lesson without losing a byte.
**
** Ctrl+S writes the file on disk back with only the edited numbers changed
** (src/core/lessonsave.c), atomically (fileio_write_atomic). The first
** save of a session keeps the version it replaces beside it as FILE~. A
** lesson that cannot be written in place (a read-only file or directory,
** such as an installed bundled lesson) is saved as NAME-edited.lesson in the
** user's lesson directory, $XDG_DATA_HOME/attnlab/lessons (by default
** ~/.local/share/attnlab/lessons), and the toast says where. If the file
** changed on disk since it was read, it is reloaded first (the edits are
** applied again on top), so a save never undoes someone else's change.
**
** Usage:
**   app_disk_set(a, text, len);     // what app_open_text does: the base of saves
**   app_save_lesson(a);             // Ctrl+S
**   app_save_as(a, "new.lesson");   // after the window asked for a name
*/
#ifndef ATTNLAB_SAVE_H
#define ATTNLAB_SAVE_H

#include <stddef.h>
#include "state.h"

/* Remember text as what the file holds (parsed for saving, signature for
** live reload). */
void app_disk_set(AppState *a, const char *text, size_t len);
/* The file's text with the edits made in place, as a save writes it (the
** caller frees; its length in *len); NULL with the toast saying why. */
char *app_saved_text(AppState *a, size_t *len);
/* Ctrl+S: save over the lesson's file. 0, or -1 with the toast saying why. */
int app_save_lesson(AppState *a);
/* Save to another file, which becomes the lesson's file. 0 or -1 (toast). */
int app_save_as(AppState *a, const char *path);
/* The user's lesson directory (created if missing) into out; 0 or -1. */
int app_user_lesson_dir(char *out, size_t n);
/* The name Save as proposes: the file's name with "-edited" before .lesson. */
void app_save_as_default(const AppState *a, char *out, size_t n);

#endif
