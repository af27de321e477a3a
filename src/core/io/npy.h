/*
** npy.h: NumPy arrays from .npy files and .npz archives, as doubles.
**
** A .npy file is a small text header (a Python dict literal saying the
** dtype, the memory order and the shape) followed by the raw array. The
** header is parsed by hand and checked before any data is read: dtypes
** float16/32/64, int8/16/32/64, uint8/16/32/64 and bool, little- or
** big-endian (and arrays of strings, numpy's str or bytes, read apart); C or Fortran order; 1 to NPY_MAX_DIMS dimensions. A .npz is a
** zip archive of .npy members (np.savez stores them, np.savez_compressed
** deflates them); members are read through libzip, or, in a build without
** it (ATTNLAB_NO_ZIP: the browser edition), through zipread.c, with the
** same messages.
**
** Reading is in two steps, so a caller can check the shape against its own
** budgets before anything is allocated for the data:
**
**   Error err;
**   NpyFile *f = npy_open("model.npz", "W_q", &err);              // key NULL for a .npy
**   if (!f) fprintf(stderr, "model.npz: %s\n", err.msg);          // "W_q: truncated: ..."
**   const NpyHeader *h = npy_header(f);                           // shape, dtype
**   double *v = xmalloc(sizeof *v * h->count);
**   if (npy_read(f, v, &err) < 0) ...                              // C order, all finite
**   npy_close(f);
**
** Errors are about no file (Error.file is ""): the caller says which file
** (the lesson parser prefixes its own FILE:LINE:COL and the path as
** written). Their kind is ERR_IO for what cannot be read, ERR_LIMIT for
** what is over a limit below, ERR_INVALID for the rest.
** Files are opened without blocking (a FIFO or a device is refused, not
** waited on) and must be regular files of at most NPY_MAX_FILE bytes; an
** archive member is at most NPY_MAX_FILE bytes uncompressed, checked before
** it is inflated, and never inflated past what its header announces.
*/
#ifndef ATTNLAB_NPY_H
#define ATTNLAB_NPY_H

#include <stdbool.h>
#include <stddef.h>
#include "core/error.h"

/* Documented limits (docs/lesson-format.md). */
#define NPY_MAX_FILE    ((int64_t)1 << 30)    /* bytes of a .npy file, a .npz archive, or one member uncompressed */
#define NPY_MAX_HEADER  65536         /* bytes of the header dict */
#define NPY_MAX_DIMS    4
#define NPY_MAX_COUNT   (1L << 27)    /* numbers in one array (LESSON_MAX_LOADED_NUMBERS) */
#define NPY_MAX_STRING  4096          /* characters (or bytes) of one element of a string array */
#define NPY_TOKEN_BYTES 64            /* bytes of a token the strings become (LESSON_MAX_TOKEN), for messages */

/* What the header says. */
typedef struct NpyHeader {
    int major, minor;           /* format version: 1.0, 2.0 or 3.0 */
    char descr[16];             /* as written, e.g. "<f8" */
    char kind;                  /* 'f' float, 'i' signed, 'u' unsigned, 'b' bool; 'U' str, 'S' bytes */
    int itemsize;               /* bytes per element: 1, 2, 4 or 8 for a number; 4N for '<UN', N for '|SN' */
    bool big_endian;
    bool fortran;               /* column-major data */
    int ndim;
    long shape[NPY_MAX_DIMS];
    long count;                 /* numbers in the array (product of the shape) */
    size_t header_len;          /* bytes before the data (magic, lengths, dict) */
    size_t data_len;            /* count · itemsize */
} NpyHeader;

typedef struct NpyFile NpyFile;

/* Parse the header at the start of buf (len bytes, which may hold more than
** the header). 0 on success; -1 with err filled, e.g. when more bytes are
** needed: *need is then set to how many (0 if none help). */
int npy_parse_header(const unsigned char *buf, size_t len, NpyHeader *h, size_t *need, Error *err);
/* Convert the data of an array with header h (len bytes at data) into
** doubles in C order; 0, or -1 with a reason (short data, a NaN or an
** infinity, a bool that is not 0 or 1). */
int npy_decode(const NpyHeader *h, const unsigned char *data, size_t len, double *out, Error *err);
/* Open a .npy file (key NULL) or the member KEY.npy of a .npz archive and
** read its header. NULL with err filled on any problem. */
NpyFile *npy_open(const char *path, const char *key, Error *err);
/* The header of an open file. */
const NpyHeader *npy_header(const NpyFile *f);
/* Read all h->count numbers into out, in C order. 0, or -1 with a reason
** (a string array: "holds strings (dtype '<U6'), not numbers"). */
int npy_read(NpyFile *f, double *out, Error *err);
/* Read all h->count strings of a string array (numpy's str, '<UN' or
** '>UN', as UTF-8; or bytes, '|SN') into out (h->count new strings, the
** caller frees them), in the order of the data: a string ends at its
** first NUL, as numpy pads them. 0, or -1 with a reason (numbers, not
** strings; a code unit that is not a character). */
int npy_read_strings(NpyFile *f, char **out, Error *err);
/* Close (NULL is fine). */
void npy_close(NpyFile *f);
/* An array in memory, read as a file is: numpy's dtype string ("<f4"),
** ndim dimensions of shape, len bytes of data in C order (decoded where it
** is: it must outlive the file). The dtype and shape are checked as a
** header's are. NULL with err filled on any problem. */
NpyFile *npy_open_data(const char *descr, int ndim, const long *shape, const void *data, size_t len, Error *err);

#endif
