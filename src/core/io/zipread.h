/*
** zipread.h: the members of a zip archive held in memory, stored or
** deflated, for builds without libzip (the browser edition reads .npz
** archives and its own bundle of lessons and catalogues with it).
**
** Only what np.savez, np.savez_compressed and Python's zipfile write is
** read: one disk, stored (method 0) or deflated (method 8) members, sizes
** in the central directory or in its ZIP64 fields. A member is inflated
** whole into a buffer of exactly the size the directory gives, and its
** CRC-32 is checked; a stream that holds more, ends early or is damaged is
** an error, so what a directory announces is all that is ever allocated.
**
**   Error err;
**   ZipArchive *z = zip_read_open(bytes, len, &err);   // borrows bytes
**   int i = zip_read_find(z, "W_q.npy");
**   size_t n;
**   unsigned char *data = zip_read_extract(z, i, &n, NULL, &err);
**   free(data);
**   zip_read_close(z);
**
** Messages (err.msg, about no file: ERR_INVALID) say what libzip would
** ("Not a zip archive", "CRC error"), so both builds report a damaged .npz
** alike.
*/
#ifndef ATTNLAB_ZIPREAD_H
#define ATTNLAB_ZIPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/error.h"

typedef struct ZipArchive ZipArchive;

/* One member as the central directory describes it. */
typedef struct ZipEntry {
    const char *name;           /* NUL-terminated, inside the archive's own copy */
    unsigned method;            /* 0 stored, 8 deflated, else unsupported */
    unsigned flags;             /* general purpose bits (bit 0: encrypted) */
    uint64_t size;              /* bytes when extracted */
    uint64_t csize;             /* bytes in the archive */
    uint32_t crc;
    uint64_t offset;            /* of its local header */
} ZipEntry;

/* Read the directory of the archive in bytes[0 .. len) (borrowed: it must
** outlive the archive). NULL with err filled. */
ZipArchive *zip_read_open(const unsigned char *bytes, size_t len, Error *err);
/* How many members. */
int zip_read_count(const ZipArchive *z);
/* Member i (0 <= i < count). */
const ZipEntry *zip_read_entry(const ZipArchive *z, int i);
/* The index of the member called name, or -1. */
int zip_read_find(const ZipArchive *z, const char *name);
/* Member i whole, in a new buffer (the caller frees; its size in *len).
** NULL with err filled when it is encrypted, of another method or damaged.
** A member whose data holds more than its directory entry says is an
** error too, unless more is not NULL: then its first *len bytes, as the
** directory announces them, come back with *more set (and no CRC check). */
unsigned char *zip_read_extract(const ZipArchive *z, int i, size_t *len, bool *more, Error *err);
/* Release the directory (not the bytes). NULL is fine. */
void zip_read_close(ZipArchive *z);

#endif
