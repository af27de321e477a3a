/*
** paths.h: where attnlab finds what it ships with.
**
** Bundled lessons and assets are looked up next to the executable first
** (build/attnlab finds ./lessons in the source tree) and then in the
** installed data directory, $(PREFIX)/share/attnlab. What belongs to the
** user goes where the XDG base directories say: their lessons under
** $XDG_DATA_HOME (~/.local/share: a lesson the user saves that cannot be
** written where it is goes to $XDG_DATA_HOME/attnlab/lessons), the window's
** size and recent files under $XDG_STATE_HOME (~/.local/state).
*/
#ifndef ATTNLAB_PATHS_H
#define ATTNLAB_PATHS_H

#include <stdbool.h>
#include <stddef.h>

/* The directory holding sub ("lessons", "assets"), written to out (size n).
** Returns 0 when found, -1 otherwise (out then holds the installed path). */
int app_data_dir(const char *sub, char *out, size_t n);
/* The directory of the running program, into out (size n): 0, or -1 when
** it cannot be known. */
int app_exe_dir(char *out, size_t n);
/* The .lesson files of dir, sorted by name: a NULL-terminated array of full
** paths (free with app_free_list), or NULL if dir cannot be read. */
char **app_list_lessons(const char *dir);
/* Free a list from app_list_lessons. */
void app_free_list(char **list);
/* Make a directory and those above it that are missing (mkdir -p): 0 or -1. */
int app_make_dirs(const char *path);
/* The user's directory of one kind, as the XDG base directories say:
** $ENV/sub when ENV (e.g. "XDG_STATE_HOME") holds an absolute path, else
** $HOME/fallback/sub (".local/state"), into out (size n); made if create is
** set. 0, or -1 when there is no home or it cannot be made. */
int app_xdg_dir(const char *env, const char *fallback, const char *sub, bool create, char *out, size_t n);
/* The user's lesson directory (created if missing) into out (size n): 0,
** or -1 when there is no home directory or it cannot be made. */
int app_user_lesson_dir(char *out, size_t n);

#endif
