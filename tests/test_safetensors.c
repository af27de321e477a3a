/*
** test_safetensors.c: the checkpoint reader (src/core/io/safetensors.c).
** Files are written here byte for byte (an 8-byte length, the JSON header,
** the data), so that every number and every lie in a header is the test's:
** F32, F16 and BF16 read exactly, and a corpus of broken checkpoints
** (truncated, lying headers, huge shapes, gaps, overlaps, unknown dtypes)
** each refused with its exact message, never a crash or an allocation the
** file's size does not allow.
*/
#define _POSIX_C_SOURCE 200809L
#include "suites.h"
#include "core/io/safetensors.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

/* A fresh folder for the files of one test. */
static void setup(void)
{
    tscratch_make(dir, sizeof dir, "safetensors");
}

/* Remove it and what the test wrote. */
static void teardown(void)
{
    tscratch_remove(dir);
}

/* Write a checkpoint: the header's length as given (length, or strlen of
** header when length is -1), the header, then n bytes of data. Returns its
** path (static). */
static const char *write_st(const char *header, long long length, const void *data, size_t n)
{
    static char path[128];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    unsigned long long len = length < 0 ? strlen(header) : (unsigned long long)length;
    for (int i = 0; i < 8; i++) fputc((int)(len >> (8 * i) & 0xff), f);
    fwrite(header, 1, strlen(header), f);
    if (n) fwrite(data, 1, n, f);
    ck_assert_int_eq(fclose(f), 0);
    return path;
}

/* Open one that must fail with exactly msg (after "FILE: error: "). */
static void refused(const char *header, long long length, const void *data, size_t n, const char *msg)
{
    const char *path = write_st(header, length, data, n);
    Error e;
    SafeTensors *st = st_open(path, &e);
    ck_assert_msg(st == NULL, "opened: %s", header);
    char line[ERROR_LINE_MAX], want[ERROR_LINE_MAX];
    error_format(&e, line, sizeof line);
    snprintf(want, sizeof want, "%s: error: %s", path, msg);
    ck_assert_str_eq(line, want);
}

START_TEST(test_reads_f32_f16_bf16_exactly)
{
    /* F32 1.5, -0.25; F16 1, -2, 65504, 2^-24; BF16 1, 3.140625 */
    unsigned char data[8 + 8 + 4];
    float f[2] = { 1.5f, -0.25f };
    memcpy(data, f, 8);
    const unsigned char half[8] = { 0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0x01, 0x00 };
    memcpy(data + 8, half, 8);
    const unsigned char bf[4] = { 0x80, 0x3f, 0x49, 0x40 };
    memcpy(data + 16, bf, 4);
    const char *h = "{\"__metadata__\": {\"format\": \"pt\"},"
                    " \"b\": {\"dtype\": \"BF16\", \"shape\": [2], \"data_offsets\": [16, 20]},"
                    " \"a\": {\"dtype\": \"F32\", \"shape\": [1, 2], \"data_offsets\": [0, 8]},"
                    " \"h\": {\"dtype\": \"F16\", \"shape\": [2, 2], \"data_offsets\": [8, 16]}}";
    Error e;
    SafeTensors *st = st_open(write_st(h, -1, data, sizeof data), &e);
    ck_assert_msg(st != NULL, "%s", e.msg);
    ck_assert_int_eq(st_count(st), 3);
    ck_assert_str_eq(st_at(st, 0)->name, "a");          /* in the order of their data */
    const StTensor *a = st_find(st, "a"), *hh = st_find(st, "h"), *b = st_find(st, "b");
    ck_assert_int_eq(a->ndim, 2);
    ck_assert_int_eq(a->shape[1], 2);
    ck_assert_int_eq(hh->count, 4);
    ck_assert_ptr_null(st_find(st, "__metadata__"));
    double v[4];
    ck_assert(st_read(st, a, v, &e));
    ck_assert(v[0] == 1.5 && v[1] == -0.25);
    ck_assert(st_read(st, hh, v, &e));
    ck_assert(v[0] == 1 && v[1] == -2 && v[2] == 65504 && v[3] == ldexp(1, -24));
    ck_assert(st_read(st, b, v, &e));
    ck_assert(v[0] == 1 && v[1] == 3.140625);
    ck_assert_str_eq(st_dtype_name(b->dtype), "BF16");
    st_free(st);
}
END_TEST

START_TEST(test_scalars_empty_tensors_and_integers)
{
    /* a scalar (shape []), an empty tensor, and I64 ids, which are not numbers a lesson reads */
    unsigned char data[4 + 8] = { 0, 0, 0x80, 0x3f, 7, 0, 0, 0, 0, 0, 0, 0 };
    const char *h = "{\"s\": {\"dtype\": \"F32\", \"shape\": [], \"data_offsets\": [0, 4]},"
                    " \"e\": {\"dtype\": \"F32\", \"shape\": [0, 5], \"data_offsets\": [4, 4]},"
                    " \"i\": {\"dtype\": \"I64\", \"shape\": [1], \"data_offsets\": [4, 12]}}";
    Error e;
    const char *path = write_st(h, -1, data, sizeof data);
    SafeTensors *st = st_open(path, &e);
    ck_assert_msg(st != NULL, "%s", e.msg);
    double v[1];
    ck_assert(st_read(st, st_find(st, "s"), v, &e));
    ck_assert(v[0] == 1.0);
    ck_assert_int_eq(st_find(st, "e")->count, 0);
    ck_assert(!st_read(st, st_find(st, "i"), v, &e));
    char line[ERROR_LINE_MAX], want[ERROR_LINE_MAX];
    error_format(&e, line, sizeof line);
    snprintf(want, sizeof want, "%s: error: i holds I64, not numbers a lesson reads (F64, F32, F16 or BF16)", path);
    ck_assert_str_eq(line, want);
    st_free(st);
}
END_TEST

START_TEST(test_nan_is_named)
{
    unsigned char data[8] = { 0, 0, 0x80, 0x3f, 0, 0, 0xc0, 0x7f };    /* 1, NaN */
    Error e;
    const char *path = write_st("{\"w\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]}}", -1, data, 8);
    SafeTensors *st = st_open(path, &e);
    ck_assert_ptr_nonnull(st);
    double v[2];
    ck_assert(!st_read(st, st_find(st, "w"), v, &e));
    ck_assert_str_eq(e.msg, "w holds NaN at element 1");
    st_free(st);
}
END_TEST

START_TEST(test_bad_checkpoints)
{
    static const unsigned char z[64];
    Error e;
    /* a file that is not even the length */
    char path[128];
    snprintf(path, sizeof path, "%s/short.safetensors", dir);
    FILE *f = fopen(path, "wb");
    fputs("abc", f);
    fclose(f);
    ck_assert_ptr_null(st_open(path, &e));
    ck_assert_str_eq(e.msg, "truncated: 3 bytes, not even the header's length (8 bytes)");
    /* missing */
    snprintf(path, sizeof path, "%s/none.safetensors", dir);
    ck_assert_ptr_null(st_open(path, &e));
    ck_assert_int_eq(e.kind, ERR_IO);
    ck_assert_str_eq(e.msg, "cannot open: No such file or directory");
    /* lying lengths: past the file, past the format's limit */
    refused("{}", 1000, NULL, 0, "truncated: the header says it is 1000 bytes, but the file has 2 after its length");
    refused("{}", (long long)1 << 40, NULL, 0, "the header says it is 1099511627776 bytes, over the limit of 104857600");
    /* not JSON, not an object, no fields */
    refused("{\"a\": ", -1, NULL, 0, "the header is not JSON (near byte 6 of it)");
    refused("[1, 2]", -1, NULL, 0, "the header is not a JSON object of tensors");
    refused("{\"a\": 3}", -1, NULL, 0, "a: not an object with a dtype, a shape and data_offsets");
    refused("{\"a\": {\"shape\": [1], \"data_offsets\": [0, 4]}}", -1, z, 4, "a: no dtype");
    refused("{\"a\": {\"dtype\": \"F8_E4M3\", \"shape\": [1], \"data_offsets\": [0, 1]}}", -1, z, 1,
            "a: dtype F8_E4M3 is not one the format has (F64, F32, F16, BF16, I64, I32, I16, I8, U8, BOOL)");
    refused("{\"a\": {\"dtype\": \"F32\", \"data_offsets\": [0, 4]}}", -1, z, 4, "a: no shape");
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [-1], \"data_offsets\": [0, 4]}}", -1, z, 4,
            "a: shape holds something not a size");
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1.5], \"data_offsets\": [0, 4]}}", -1, z, 4,
            "a: shape holds something not a size");
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1,1,1,1,1,1,1,1,1], \"data_offsets\": [0, 4]}}", -1, z, 4,
            "a: 9 dimensions, over the limit of 8");
    /* huge shapes: their product is never computed past the file */
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [4294967296, 4294967296, 16], \"data_offsets\": [0, 4]}}", -1,
            z, 4, "a: a shape of more than 2^60 elements");
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [2, 3], \"data_offsets\": [0, 4]}}", -1, z, 4,
            "a: shape [2, 3] of F32 is 24 bytes, but its offsets give 4");
    refused("{\"a\": {\"dtype\": \"F64\", \"shape\": [1073741824, 1073741824], \"data_offsets\": [0, 4]}}", -1,
            z, 4, "a: shape [1073741824, 1073741824] of F64 is 9223372036854775808 bytes, but its offsets give 4");
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0]}}", -1, z, 4,
            "a: data_offsets is not two byte offsets [begin, end]");
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}", -1, z, 4,
            "a: data_offsets [4, 8] are outside the file's 4 bytes of data");
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 1e30]}}", -1, z, 4,
            "a: data_offsets is not two byte offsets [begin, end]");
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [8, 4]}}", -1, z, 8,
            "a: data_offsets [8, 4] are outside the file's 8 bytes of data");
    /* the tensors must tile the data: no gap, no overlap, nothing after */
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}", -1, z, 8,
            "4 bytes before a belong to no tensor");
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 8]},"
            " \"b\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}", -1, z, 8,
            "b overlaps the tensor before it (a)");
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]}}", -1, z, 12,
            "the last 8 bytes of the file belong to no tensor");
    refused("{\"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [0, 4]},"
            " \"a\": {\"dtype\": \"F32\", \"shape\": [1], \"data_offsets\": [4, 8]}}", -1, z, 8, "a is named twice");
    refused("{\"__metadata__\": 3}", -1, NULL, 0, "__metadata__ is not an object of strings");
    /* a name is any JSON string: the message stays one line */
    refused("{\"a\\nb\": {\"dtype\": \"F32\", \"shape\": [2], \"data_offsets\": [0, 4]}}", -1, z, 4,
            "a\\nb: shape [2] of F32 is 8 bytes, but its offsets give 4");
}
END_TEST

START_TEST(test_every_truncation)
{
    /* every prefix of a good checkpoint is refused with a message, never read */
    unsigned char data[16] = { 0 };
    const char *h = "{\"a\": {\"dtype\": \"F32\", \"shape\": [2, 2], \"data_offsets\": [0, 16]}}";
    const char *path = write_st(h, -1, data, sizeof data);
    FILE *f = fopen(path, "rb");
    unsigned char whole[256];
    size_t n = fread(whole, 1, sizeof whole, f);
    fclose(f);
    for (size_t cut = 0; cut < n; cut++) {
        f = fopen(path, "wb");
        fwrite(whole, 1, cut, f);
        fclose(f);
        Error e;
        SafeTensors *st = st_open(path, &e);
        ck_assert_msg(st == NULL, "a checkpoint cut at %zu bytes of %zu opened", cut, n);
        ck_assert_int_ne(e.kind, ERR_NONE);
        ck_assert(strlen(e.msg) > 0);
    }
}
END_TEST

/* The suite. */
Suite *safetensors_suite(void)
{
    Suite *s = suite_create("safetensors");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_reads_f32_f16_bf16_exactly);
    tcase_add_test(tc, test_scalars_empty_tensors_and_integers);
    tcase_add_test(tc, test_nan_is_named);
    tcase_add_test(tc, test_bad_checkpoints);
    tcase_add_test(tc, test_every_truncation);
    suite_add_tcase(s, tc);
    return s;
}
