/*
** fuzz_npy.c: a libFuzzer harness for the NumPy reader (src/core/io/npy.c).
**
** Each input is used four ways:
**   - as the start of a .npy file, for npy_parse_header and, when the
**     header parses and its data is there, npy_decode;
**   - written to a file and read with npy_open/npy_read as a .npy;
**   - when it starts with "PK" (a zip archive), read as a .npz with the
**     member W.npy through libzip;
**   - as an array in memory (npy_open_data, what libattnlab's callers hand
**     over): its first line the dtype, the next byte the number of
**     dimensions, a byte for each, the rest the data.
** Invariants besides "no crash, no sanitizer report, no hang":
**   - a parsed header is consistent: 0 <= ndim <= NPY_MAX_DIMS, the count is
**     the product of the shape and at most NPY_MAX_COUNT, data_len is
**     count · itemsize, the header fits in the input;
**   - decoded numbers are finite;
**   - an error is one non-empty line.
** Any broken invariant aborts, which libFuzzer reports as a crash.
**
** Build and run: `make fuzz-npy` (tests/fuzz/rules.mk).
*/
#define _POSIX_C_SOURCE 200809L
#include "core/io/npy.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop with a message: libFuzzer keeps the input as a crash. */
static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_npy: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* An error must be one non-empty line. */
static void check_error(const Error *err)
{
    if (!err->msg[0] || strchr(err->msg, '\n')) die("empty or multi-line error", err->msg);
    if (err->kind == ERR_NONE || err->file[0]) die("an error of no kind, or about a file (the caller names it)", err->msg);
}

/* A parsed header must describe itself consistently. */
static void check_header(const NpyHeader *h, size_t size)
{
    long count = 1;
    if (h->ndim < 0 || h->ndim > NPY_MAX_DIMS) die("ndim out of range", NULL);
    for (int a = 0; a < h->ndim; a++) {
        if (h->shape[a] < 0) die("negative dimension", NULL);
        count *= h->shape[a];
    }
    if (count != h->count || count > NPY_MAX_COUNT) die("count is not the product of the shape", NULL);
    if (h->data_len != (size_t)h->count * (size_t)h->itemsize) die("data_len is not count * itemsize", NULL);
    if (h->header_len > size) die("header is longer than the input", NULL);
    if (!strchr("fiubUS", h->kind) || h->kind == 0) die("unknown kind", h->descr);
}

/* Every number must be finite. */
static void check_finite(const double *v, long n)
{
    for (long i = 0; i < n; i++)
        if (!isfinite(v[i])) die("a decoded number is not finite", NULL);
}

/* Read an open file's data: strings for a string array, else numbers,
** which must be finite. */
static void read_all(NpyFile *f)
{
    const NpyHeader *h = npy_header(f);
    Error err;
    if (h->kind == 'U' || h->kind == 'S') {
        char **s = calloc((size_t)(h->count ? h->count : 1), sizeof *s);
        if (!s) die("out of memory", NULL);
        if (npy_read_strings(f, s, &err) < 0) check_error(&err);
        else for (long i = 0; i < h->count; i++) free(s[i]);
        free(s);
        return;
    }
    double *v = malloc(sizeof *v * (size_t)(h->count ? h->count : 1));
    if (!v) die("out of memory", NULL);
    if (npy_read(f, v, &err) < 0) check_error(&err);
    else check_finite(v, h->count);
    free(v);
}

/* Read path (as .npy, or its member W.npy when key is set) through the file API. */
static void via_file(const char *path, const char *key, size_t size)
{
    Error err;
    NpyFile *f = npy_open(path, key, &err);
    if (!f) { check_error(&err); return; }
    const NpyHeader *h = npy_header(f);
    check_header(h, key ? h->header_len : size);
    read_all(f);
    npy_close(f);
}

/* The input as an array in memory: "DTYPE\n", ndim, a byte a dimension, data. */
static void via_data(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size < 40 ? size : 40);
    if (!nl) return;
    char descr[41];
    size_t dl = (size_t)(nl - data);
    memcpy(descr, data, dl);
    descr[dl] = '\0';
    size_t at = dl + 1;
    if (at >= size) return;
    int ndim = data[at++] % (NPY_MAX_DIMS + 2);
    long shape[NPY_MAX_DIMS + 1];
    for (int i = 0; i < ndim; i++) shape[i] = at < size ? data[at++] : 0;
    Error err;
    NpyFile *f = npy_open_data(descr, ndim, shape, data + at, size - at, &err);
    if (!f) { check_error(&err); return; }
    const NpyHeader *h = npy_header(f);
    if (h->data_len != size - at) die("an array in memory whose data is not what its dtype and shape make", descr);
    check_header(h, h->header_len);
    read_all(f);
    npy_close(f);
}

/* One input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    NpyHeader h;
    size_t need;
    Error err;
    if (npy_parse_header(data, size, &h, &need, &err) < 0) {
        check_error(&err);
    } else {
        check_header(&h, size);
        if (size - h.header_len >= h.data_len && h.kind != 'U' && h.kind != 'S') {
            double *v = malloc(sizeof *v * (size_t)(h.count ? h.count : 1));
            if (!v) die("out of memory", NULL);
            if (npy_decode(&h, data + h.header_len, size - h.header_len, v, &err) < 0) check_error(&err);
            else check_finite(v, h.count);
            free(v);
        }
    }
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_npy.%ld", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) die("cannot write the temporary file", path);
    if (size && fwrite(data, 1, size, f) != size) die("cannot write the temporary file", path);
    fclose(f);
    via_file(path, NULL, size);
    if (size >= 2 && data[0] == 'P' && data[1] == 'K') via_file(path, "W", size);
    unlink(path);
    via_data(data, size);
    return 0;
}
