/*
** test_npy.c: the .npy header parser and decoder, reading files, and
** `load` in lessons. Headers are written out by hand here, byte for byte,
** so every field and every error is under the test's control; the values
** numpy itself writes are covered by tests/check_npy.py.
*/
#define _POSIX_C_SOURCE 200809L
#include "suites.h"
#include "core/lesson/lesson.h"
#include "core/io/npy.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A version 1.0 .npy image: magic, length, the dict padded to 64 bytes,
** then len bytes of data. Caller frees; *out_len its size. */
static unsigned char *npy_image(const char *dict, const void *data, size_t len, size_t *out_len)
{
    size_t dl = strlen(dict), hl = dl + 1;
    while ((10 + hl) % 64) hl++;
    unsigned char *b = xmalloc(10 + hl + len);
    memcpy(b, "\x93NUMPY\x01\x00", 8);
    b[8] = (unsigned char)(hl & 0xff);
    b[9] = (unsigned char)(hl >> 8);
    memcpy(b + 10, dict, dl);
    memset(b + 10 + dl, ' ', hl - dl - 1);
    b[10 + hl - 1] = '\n';
    if (len) memcpy(b + 10 + hl, data, len);
    *out_len = 10 + hl + len;
    return b;
}

/* Parse a header that must fail with exactly want. */
static void expect_header_error(const char *dict, const char *want)
{
    size_t len, need;
    unsigned char *b = npy_image(dict, NULL, 0, &len);
    NpyHeader h;
    Error err;
    ck_assert_int_eq(npy_parse_header(b, len, &h, &need, &err), -1);
    ck_assert_msg(!strcmp(err.msg, want), "got  \"%s\"\nwant \"%s\"", err.msg, want);
    free(b);
}

START_TEST(test_header_fields)
{
    size_t len, need;
    unsigned char *b = npy_image("{'descr': '>i2', 'fortran_order': True, 'shape': (2, 3), }", NULL, 0, &len);
    NpyHeader h;
    Error err;
    ck_assert_msg(npy_parse_header(b, len, &h, &need, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(h.major, 1);
    ck_assert_str_eq(h.descr, ">i2");
    ck_assert_int_eq(h.kind, 'i');
    ck_assert_int_eq(h.itemsize, 2);
    ck_assert(h.big_endian);
    ck_assert(h.fortran);
    ck_assert_int_eq(h.ndim, 2);
    ck_assert_int_eq(h.shape[0], 2);
    ck_assert_int_eq(h.shape[1], 3);
    ck_assert_int_eq(h.count, 6);
    ck_assert_uint_eq(h.header_len, 128);       /* 10 + 59 bytes of dict, padded to 64 */
    ck_assert_uint_eq(h.data_len, 12);
    free(b);
    /* double quotes, no trailing comma, a 1-tuple and a 0-D shape */
    b = npy_image("{\"shape\": (7,), \"descr\": \"|b1\", \"fortran_order\": False}", NULL, 0, &len);
    ck_assert_msg(npy_parse_header(b, len, &h, &need, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(h.ndim, 1);
    ck_assert_int_eq(h.count, 7);
    ck_assert_int_eq(h.kind, 'b');
    free(b);
    b = npy_image("{'descr': '<f4', 'fortran_order': False, 'shape': ()}", NULL, 0, &len);
    ck_assert_msg(npy_parse_header(b, len, &h, &need, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(h.ndim, 0);
    ck_assert_int_eq(h.count, 1);
    free(b);
}
END_TEST

START_TEST(test_header_versions_and_need)
{
    /* version 2.0: a 4-byte header length */
    const char *dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }\n";
    size_t dl = strlen(dict);
    unsigned char b[128];
    memcpy(b, "\x93NUMPY\x02\x00", 8);
    b[8] = (unsigned char)dl; b[9] = 0; b[10] = 0; b[11] = 0;
    memcpy(b + 12, dict, dl);
    NpyHeader h;
    size_t need;
    Error err;
    ck_assert_msg(npy_parse_header(b, 12 + dl, &h, &need, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(h.major, 2);
    ck_assert_uint_eq(h.header_len, 12 + dl);
    /* cut short: how much is needed */
    ck_assert_int_eq(npy_parse_header(b, 20, &h, &need, &err), -1);
    ck_assert_uint_eq(need, 12 + dl);
    ck_assert_int_eq(npy_parse_header(b, 7, &h, &need, &err), -1);
    ck_assert_uint_eq(need, 8);
    ck_assert_str_eq(err.msg, "truncated: the file ends before the format version");
    b[7] = 1;                                   /* 2.1 does not exist */
    ck_assert_int_eq(npy_parse_header(b, 12 + dl, &h, &need, &err), -1);
    ck_assert_str_eq(err.msg, "unsupported .npy format version 2.1; expected 1.0, 2.0 or 3.0");
}
END_TEST

START_TEST(test_header_errors)
{
    expect_header_error("{'descr': '<f8', 'fortran_order': False}", "bad header: the key 'shape' is missing");
    expect_header_error("{'descr': '<f8' 'fortran_order': False, 'shape': (1,)}",
                        "bad header: expected ',' or '}' after a value, found ''fortran_order''");
    expect_header_error("{'descr': '<i3', 'fortran_order': False, 'shape': (1,)}",
                        "unsupported dtype '<i3'; expected float16/32/64, int8/16/32/64, uint8/16/32/64 "
                        "or bool ('<f8', '>f4', '<i8', '|u1', '|b1', ...)");
    expect_header_error("{'descr': 'f8', 'fortran_order': False, 'shape': (1,)}",
                        "unsupported dtype 'f8'; expected float16/32/64, int8/16/32/64, uint8/16/32/64 "
                        "or bool ('<f8', '>f4', '<i8', '|u1', '|b1', ...)");
    expect_header_error("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4}",
                        "bad header: expected ',' or ')' in the shape, found '}'");
    expect_header_error("{'descr': '<f8', 'fortran_order': False, 'shape': (67108864, 3)}",
                        "shape holds more than 134217728 numbers, over the limit");
    expect_header_error("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1)}",
                        "shape has more than 4 dimensions");
    expect_header_error("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)} x",
                        "bad header: expected only padding after the dict, found 'x'");
    expect_header_error("{'descr': '<f8\\n', 'fortran_order': False, 'shape': (1,)}",
                        "bad header: unexpected '\\' in the dtype ('descr')");
    expect_header_error("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'shape': (1,)}",
                        "bad header: key 'shape' appears twice");
    expect_header_error("{'descr': '<f8', 'fortran_order': none, 'shape': (1,)}",
                        "bad header: expected True or False for 'fortran_order', found 'none'");
    /* found by fuzz_npy: a line break in the dict made a two-line message */
    expect_header_error("{'descr': '<f8', 'fortran_order': False, 'shape': (1, 2\n, }",
                        "bad header: expected ',' or ')' in the shape, found a line break");
    expect_header_error("{'descr': '<f\n8', 'fortran_order': False, 'shape': (1,)}",
                        "bad header: a line break in the dtype ('descr')");
    expect_header_error("['descr', '<f8']", "bad header: expected '{' to start the header dict, found '['descr''");
    expect_header_error("{'descr': '<f8', 'fortran_order': False, 'shape': (1,)\x01}",
                        "bad header: byte 0x01 at offset 64 is not printable ASCII");
    /* wrong magic */
    size_t need;
    NpyHeader h;
    Error err;
    ck_assert_int_eq(npy_parse_header((const unsigned char *)"PK\x03\x04 a zip", 12, &h, &need, &err), -1);
    ck_assert_str_eq(err.msg, "not a NumPy .npy file: it does not start with the magic string \\x93NUMPY");
}
END_TEST

START_TEST(test_decode_values)
{
    NpyHeader h = { .kind = 'f', .itemsize = 2, .ndim = 1, .shape = { 6 }, .count = 6, .data_len = 12 };
    /* float16: 1, -2, 65504 (largest), 2^-24 (smallest subnormal), 0.5, -0 */
    const unsigned char f16[12] = { 0x00, 0x3c, 0x00, 0xc0, 0xff, 0x7b, 0x01, 0x00, 0x00, 0x38, 0x00, 0x80 };
    double out[6];
    Error err;
    ck_assert_msg(npy_decode(&h, f16, sizeof f16, out, &err) == 0, "%s", err.msg);
    ck_assert(out[0] == 1.0 && out[1] == -2.0 && out[2] == 65504.0 && out[3] == ldexp(1, -24) && out[4] == 0.5);
    ck_assert(out[5] == 0.0 && signbit(out[5]));
    /* big-endian int16 in Fortran order, shape (2, 3): the file holds the columns */
    NpyHeader g = { .kind = 'i', .itemsize = 2, .big_endian = true, .fortran = true, .ndim = 2,
                    .shape = { 2, 3 }, .count = 6, .data_len = 12 };
    const unsigned char i16[12] = { 0, 1, 0xff, 0xfe, 0, 2, 0x80, 0x00, 0, 3, 0x7f, 0xff };
    ck_assert_msg(npy_decode(&g, i16, sizeof i16, out, &err) == 0, "%s", err.msg);
    const double want[6] = { 1, 2, 3, -2, -32768, 32767 };      /* rows: 1 2 3 / -2 -32768 32767 */
    for (int i = 0; i < 6; i++) ck_assert_double_eq(out[i], want[i]);
    /* uint64 max and int64 min */
    NpyHeader u = { .kind = 'u', .itemsize = 8, .ndim = 1, .shape = { 1 }, .count = 1, .data_len = 8 };
    const unsigned char ones[8] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    ck_assert_int_eq(npy_decode(&u, ones, 8, out, &err), 0);
    ck_assert_double_eq(out[0], 18446744073709551616.0);
    u.kind = 'i';
    ck_assert_int_eq(npy_decode(&u, ones, 8, out, &err), 0);
    ck_assert_double_eq(out[0], -1.0);
    /* short data and a NaN */
    ck_assert_int_eq(npy_decode(&u, ones, 7, out, &err), -1);
    ck_assert_str_eq(err.msg, "truncated: the shape and dtype need 8 bytes of data, found 7");
    NpyHeader n = { .kind = 'f', .itemsize = 4, .ndim = 2, .shape = { 1, 2 }, .count = 2, .data_len = 8 };
    const unsigned char nan32[8] = { 0, 0, 0x80, 0x3f, 0, 0, 0xc0, 0x7f };
    ck_assert_int_eq(npy_decode(&n, nan32, 8, out, &err), -1);
    ck_assert_str_eq(err.msg, "the number at (1, 2) (numpy's [0, 1]) is NaN; NaN and infinity are not allowed");
}
END_TEST

/* A fresh directory for files; caller removes it. */
static void temp_dir(char *dir, size_t n)
{
    snprintf(dir, n, "/tmp/test_npy.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Write len bytes to dir/name. */
static void put_file(const char *dir, const char *name, const void *data, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

START_TEST(test_open_files)
{
    char dir[64], path[512];
    Error err;
    temp_dir(dir, sizeof dir);
    double v[6] = { 1, 2, 3, 4, 5, 6 };
    size_t len;
    unsigned char *b = npy_image("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }", v, sizeof v, &len);
    put_file(dir, "a.npy", b, len);
    snprintf(path, sizeof path, "%s/a.npy", dir);
    NpyFile *f = npy_open(path, NULL, &err);
    ck_assert_msg(f != NULL, "%s", err.msg);
    ck_assert_int_eq(npy_header(f)->count, 6);
    double out[6];
    ck_assert_msg(npy_read(f, out, &err) == 0, "%s", err.msg);
    for (int i = 0; i < 6; i++) ck_assert_double_eq(out[i], v[i]);
    npy_close(f);
    put_file(dir, "cut.npy", b, len - 1);
    snprintf(path, sizeof path, "%s/cut.npy", dir);
    ck_assert_ptr_null(npy_open(path, NULL, &err));
    ck_assert_str_eq(err.msg, "truncated: the header's shape and dtype '<f8' need 48 bytes of data, found 47");
    /* a FIFO with no writer: refused at once, never waited on */
    snprintf(path, sizeof path, "%s/fifo.npy", dir);
    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_ptr_null(npy_open(path, NULL, &err));
    ck_assert_str_eq(err.msg, "cannot read: a named pipe (FIFO), not a regular file");
    unlink(path);
    /* a .npy given as an archive */
    snprintf(path, sizeof path, "%s/a.npy", dir);
    ck_assert_ptr_null(npy_open(path, "W", &err));
    ck_assert_str_eq(err.msg, "not a readable .npz (zip) archive: Not a zip archive");
    unlink(path);
    snprintf(path, sizeof path, "%s/cut.npy", dir);
    unlink(path);
    rmdir(dir);
    free(b);
}
END_TEST

START_TEST(test_lesson_load_stack)
{
    /* a (2, 2, 3) array: without a selector a stack of 2 matrices 2x3, side
    ** by side; with `head 2` the second one */
    char dir[64], name[512];
    temp_dir(dir, sizeof dir);
    double v[12];
    for (int i = 0; i < 12; i++) v[i] = i;
    size_t len;
    unsigned char *b = npy_image("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2, 3), }", v, sizeof v, &len);
    put_file(dir, "w.npy", b, len);
    free(b);
    const char *text = "title: T\n[setup]\ntokens: a b\nX = identity 2\nW = load \"w.npy\"\nH = load \"w.npy\" head 2\n"
                       "heads: 2\nqueries: X @ W\nkeys: X @ W\n[softmax]\n";
    snprintf(name, sizeof name, "%s/t.lesson", dir);       /* the lesson's directory is where files are found */
    Error err;
    Lesson *L = lesson_parse(text, strlen(text), name, &err);
    ck_assert_msg(L != NULL, "%s", eline(&err));
    const LessonMatrix *w = lesson_matrix(&L->setups[0], "W"), *h = lesson_matrix(&L->setups[0], "H");
    ck_assert_int_eq(w->stack, 2);
    ck_assert_int_eq(w->m->rows, 2);
    ck_assert_int_eq(w->m->cols, 6);
    const double row0[6] = { 0, 1, 2, 6, 7, 8 }, row1[6] = { 3, 4, 5, 9, 10, 11 };
    for (int j = 0; j < 6; j++) {
        ck_assert_double_eq(mat_get(w->m, 0, j), row0[j]);
        ck_assert_double_eq(mat_get(w->m, 1, j), row1[j]);
    }
    ck_assert_int_eq(h->stack, 1);
    ck_assert_double_eq(mat_get(h->m, 1, 2), 11);
    ck_assert(w->generated);
    ck_assert_str_eq(w->how, "load \"w.npy\"");
    lesson_free(L);
    /* the same lesson named without a directory looks in the current one */
    L = lesson_parse(text, strlen(text), "t.lesson", &err);
    ck_assert_ptr_null(L);
    ck_assert_str_eq(eline(&err), "t.lesson:5:10: error: w.npy: cannot open: No such file or directory");
    snprintf(name, sizeof name, "%s/w.npy", dir);
    unlink(name);
    rmdir(dir);
}
END_TEST

/* The suite. */
Suite *npy_suite(void)
{
    Suite *s = suite_create("npy");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_header_fields);
    tcase_add_test(core, test_header_versions_and_need);
    tcase_add_test(core, test_decode_values);
    tcase_add_test(core, test_open_files);
    tcase_add_test(core, test_lesson_load_stack);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_header_errors);
    suite_add_tcase(s, limits);
    return s;
}
