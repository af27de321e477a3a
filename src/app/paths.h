/*
** paths.h: where attnlab finds what it ships with.
**
** Bundled lessons and assets are looked up next to the executable first
** (build/attnlab finds ./lessons in the source tree) and then in the
** installed data directory, $(PREFIX)/share/attnlab.
*/
#ifndef ATTNLAB_PATHS_H
#define ATTNLAB_PATHS_H

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

#endif
