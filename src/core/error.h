/*
** error.h: the one way attnlab says what went wrong.
**
** A function that can fail returns 0, NULL or false and fills an Error the
** caller passes: what kind of failure it was (which alone decides the exit
** status, error_exit_code), the file it is about and where in it, and a
** one-line message. Nothing keeps a "last error" anywhere else. Every
** command prints an error as one line, error_format's:
**
**     FILE:LINE:COL: error: MESSAGE     a place in a file (a lesson)
**     FILE: error: MESSAGE              a file as a whole (unreadable, unwritable)
**     attnlab: error: MESSAGE           no file (a usage error, no display)
**
** On the screen, a message that says first what failed ("not saved: ")
** puts error_brief's text after it: the same line without "error:".
**
** Usage:
**   Error e;
**   Lesson *L = lesson_load(path, &e);
**   if (!L) { error_print(&e, stderr); return error_exit_code(&e); }
**
** A module that reads a part of a larger input (a .npy file a lesson
** loads) fills the Error with its own message, and the caller that knows
** the place (the lesson's line and column) says it again there.
*/
#ifndef ATTNLAB_ERROR_H
#define ATTNLAB_ERROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What went wrong: the exit status follows from it. */
typedef enum ErrorKind {
    ERR_NONE,           /* no error */
    ERR_IO,             /* a file is missing, unreadable, not a regular file, or cannot be written */
    ERR_INVALID,        /* the input is not valid: a lesson, a NumPy file, a catalogue, an argument */
    ERR_LIMIT,          /* the input is over a documented limit */
    ERR_RUNTIME         /* the program could not do it here: no display, no font, a renderer failed */
} ErrorKind;

typedef struct Error {
    ErrorKind kind;
    char file[1024];    /* the file as messages show it (util_shown), or "" */
    int line, col;      /* 1-based; 0 when the error is not about a place in the file */
    char msg[800];      /* what went wrong, without the file and the place */
} Error;

/* Room for any line error_format writes. */
#define ERROR_LINE_MAX (sizeof ((Error *)0)->file + sizeof ((Error *)0)->msg + 64)

/* No error. */
void error_clear(Error *e);
/* Fill e (which may be NULL: the caller does not want to know). file may
** be NULL for none. Returns false, so a failing function can end with
** `return error_set(...)`. */
bool error_set(Error *e, ErrorKind kind, const char *file, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* The exit status for e: 0 none, 1 I/O or a runtime failure, 2 invalid
** input or over a limit. */
int error_exit_code(const Error *e);
/* e as one line (see above, without a newline), into out (size n). */
void error_format(const Error *e, char *out, size_t n);
/* e without the word "error" ("FILE:LINE:COL: MESSAGE", "FILE: MESSAGE" or
** "MESSAGE"), for text on the screen that says first what failed ("not
** saved: ..."), into out (size n). */
void error_brief(const Error *e, char *out, size_t n);
/* Print e as one line to f. */
void error_print(const Error *e, FILE *f);
/* Print e as a warning (the same line with "warning" for "error"): a
** problem the program works around. */
void error_warn(const Error *e, FILE *f);

#endif
