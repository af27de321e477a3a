/*
** fileio.h: the one way attnlab reads and writes files.
**
** Reading: fileio_read takes a regular file whole, up to a cap the caller
** gives (a lesson 1 MiB, a font 64 MiB). Anything else — a directory, a
** named pipe, a device, a socket, or a symbolic link to one — is refused
** without being read and without blocking: a pipe with no writer or
** /dev/zero never hangs the program or fills its memory. The cap is checked
** against the size the file reports before anything is allocated, and again
** while reading, since files such as those in /proc report a size of 0.
**
**   Error e;
**   size_t len;
**   char *text = fileio_read(path, 1 << 20, &len, &e);   // NUL-terminated
**   if (!text) error_print(&e, stderr);        // "PATH: error: cannot open: ..."
**
** Writing: fileio_write_atomic writes a temporary file beside the target and
** renames it over the target, so a reader sees the old file or the new one,
** never half of one, and a failed write leaves the old file as it was. A
** file-size limit (SIGXFSZ) or a full disk is an ordinary error. The
** temporary is named `.NAME.attnlab-XXXXXX` (NAME shortened so the whole
** stays within 255 bytes; the last two of the six characters check the
** rest of the name). SIGINT, SIGTERM and SIGHUP (when the program has not
** taken them over itself) remove the temporary in flight before they end
** the program; only SIGKILL or a crash at the wrong instant can leave one
** behind, and the first write of a later run into the same directory
** removes those of this user last changed before that run began (see
** fileio_start), never a file another user owns or a person named.
*/
#ifndef ATTNLAB_FILEIO_H
#define ATTNLAB_FILEIO_H

#include <stdbool.h>
#include <stddef.h>
#include "core/error.h"

/* Temporaries of a run killed mid-write are removed by a later run when
** they were last changed more than this many seconds before it began
** (the margin covers coarse file-system clocks). */
#define FILEIO_STALE_MARGIN 1

/* Record that the run begins now (main calls it first; otherwise the first
** read or write does). Temporaries older than this are stale. */
void fileio_start(void);

/* The one way the program opens a file to read it: path must be a regular
** file (not a directory, pipe, device or socket, nor a link to one) of at
** most max bytes by its size. Never blocks. A descriptor in blocking mode
** (*size its size; the caller closes it), or -1 with err filled: ERR_IO
** (missing, unreadable, not a regular file: "cannot read: a directory, not
** a regular file") or ERR_LIMIT ("file is N bytes, over the limit of MAX
** bytes"), about path as messages show it, with no line. */
int fileio_open(const char *path, size_t max, size_t *size, Error *err);

/* The name that stands for standard input where a file is read, and how
** messages name it. */
#define FILEIO_STDIN "-"
#define FILEIO_STDIN_SHOWN "<stdin>"

/* The bytes of the regular file at path, at most max of them, NUL-terminated
** (the caller frees; *len excludes the NUL). NULL with err filled otherwise
** (as fileio_open; a file that grows past max while read: "file is over
** the limit of MAX bytes"). FILEIO_STDIN ("-") reads standard input
** instead, whatever it is (this one may wait for it): whole, the first
** time, and the same bytes again on every later call (a file named "-" is
** "./-"). */
char *fileio_read(const char *path, size_t max, size_t *len, Error *err);
/* Hand standard input's bytes over instead of reading them (the lesson
** `attnlab --model` makes): later reads of "-" get a copy of text. */
void fileio_set_stdin(const char *text, size_t len);

/* Write len bytes to path atomically (temporary beside it, then rename). With
** durable set the data and the rename reach the disk (fsync) before the
** call returns. An existing file keeps its permission bits. Returns 0, or -1
** with err filled (ERR_IO about path: "cannot write: reason"); on failure
** nothing is left behind and an existing file at path is unchanged. */
int fileio_write_atomic(const char *path, const void *data, size_t len, bool durable, Error *err);

/* Whether name has the form of this module's temporaries, its check
** characters included. */
bool fileio_is_temp_name(const char *name);
/* The random characters of a temporary's name (the check makes six). */
#define FILEIO_TEMP_RANDOM 4
/* The name of a temporary for base with the random characters rnd (letters
** and digits), into out (size n; "" when it does not fit). */
void fileio_temp_name(const char *base, const char rnd[FILEIO_TEMP_RANDOM], char *out, size_t n);

#endif
