/*
** fuzz_safetensors.c: a libFuzzer harness for the checkpoint reader
** (src/core/io/safetensors.c).
**
** Each input is written to a file and opened as a .safetensors checkpoint;
** when it opens, every tensor of a number dtype is read. Invariants besides
** "no crash, no sanitizer report, no hang":
**   - an opened file's tensors tile its data: in order, each starting where
**     the one before ended, the last ending at the end of the file, each
**     the bytes its shape and dtype say;
**   - the numbers read are finite, or the read says which is not;
**   - an error is one non-empty line, about the file.
** Any broken invariant aborts, which libFuzzer reports as a crash. Seeds:
** tests/fuzz/make_safetensors_corpus.py.
**
** Build and run: `make fuzz-safetensors` (tests/fuzz/rules.mk).
*/
#define _POSIX_C_SOURCE 200809L
#include "core/io/safetensors.h"

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
    fprintf(stderr, "fuzz_safetensors: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* An error must be one non-empty line about the file. */
static void check_error(const Error *err)
{
    if (!err->msg[0] || strchr(err->msg, '\n')) die("empty or multi-line error", err->msg);
    if (err->kind == ERR_NONE || !err->file[0]) die("an error of no kind, or about no file", err->msg);
}

/* The checkpoint's tensors tile its data of size bytes. */
static void check_tiling(const SafeTensors *st, uint64_t data_size)
{
    uint64_t at = 0;
    for (int i = 0; i < st_count(st); i++) {
        const StTensor *t = st_at(st, i);
        if (t->begin != at) die("a gap or an overlap let through", t->name);
        if (t->end - t->begin != (uint64_t)t->count * (uint64_t)st_dtype_size(t->dtype))
            die("a tensor's bytes are not its shape's", t->name);
        at = t->end;
    }
    if (at != data_size) die("bytes after the last tensor let through", NULL);
}

/* One input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_safetensors.%ld.safetensors", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    if (size) fwrite(data, 1, size, f);
    fclose(f);
    Error err;
    SafeTensors *st = st_open(path, &err);
    if (!st) {
        check_error(&err);
        return 0;
    }
    uint64_t header = 0;
    for (int i = 7; i >= 0; i--) header = header << 8 | data[i];
    check_tiling(st, (uint64_t)size - 8 - header);
    for (int i = 0; i < st_count(st); i++) {
        const StTensor *t = st_at(st, i);
        if (t->count > (1 << 16)) continue;
        double *v = malloc(sizeof *v * (size_t)(t->count ? t->count : 1));
        if (!st_read(st, t, v, &err)) check_error(&err);
        else
            for (int64_t k = 0; k < t->count; k++)
                if (!isfinite(v[k])) die("a number not finite let through", t->name);
        free(v);
    }
    st_free(st);
    return 0;
}
