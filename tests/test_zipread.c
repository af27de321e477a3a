/*
** test_zipread.c: zip archives read without libzip (src/core/io/zipread.c):
** every member of the bundled trained model's archives comes out as
** libzip gives it, stored and deflated members alike, and damage is an
** error, never a crash or a wrong answer.
*/
#include "suites.h"
#include "core/util.h"
#include "core/io/zipread.h"
#include "tjson.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>

static const char *const archives[] = { "../lessons/models/induction.npz", "../lessons/models/induction-attention.npz" };

/* Member name of archive path as libzip extracts it (caller frees). */
static unsigned char *libzip_member(const char *path, const char *name, size_t *len)
{
    int err;
    zip_t *z = zip_open(path, ZIP_RDONLY, &err);
    ck_assert_ptr_nonnull(z);
    zip_stat_t st;
    ck_assert_int_eq(zip_stat(z, name, 0, &st), 0);
    zip_file_t *f = zip_fopen(z, name, 0);
    ck_assert_ptr_nonnull(f);
    *len = (size_t)st.size;
    unsigned char *out = xmalloc(*len + 1);
    ck_assert_int_eq(zip_fread(f, out, *len), (zip_int64_t)*len);
    zip_fclose(f);
    zip_discard(z);
    return out;
}

START_TEST(test_members_as_libzip_gives_them)
{
    for (size_t a = 0; a < sizeof archives / sizeof *archives; a++) {
        size_t len;
        char *bytes = tjson_read_file(archives[a], &len);
        ck_assert_ptr_nonnull(bytes);
        Error err;
        ZipArchive *z = zip_read_open((unsigned char *)bytes, len, &err);
        ck_assert_msg(z != NULL, "%s: %s", archives[a], err.msg);
        ck_assert_int_ge(zip_read_count(z), 2);
        for (int i = 0; i < zip_read_count(z); i++) {
            const ZipEntry *e = zip_read_entry(z, i);
            ck_assert_int_eq(e->method, 8);                      /* np.savez_compressed deflates */
            size_t n, m;
            bool more = true;
            unsigned char *got = zip_read_extract(z, i, &n, &more, &err);
            ck_assert_msg(got != NULL, "%s: %s", e->name, err.msg);
            ck_assert(!more);
            unsigned char *want = libzip_member(archives[a], e->name, &m);
            ck_assert_uint_eq(n, m);
            ck_assert_msg(!memcmp(got, want, n), "%s of %s differs from libzip's", e->name, archives[a]);
            ck_assert_int_eq(zip_read_find(z, e->name), i);
            free(got);
            free(want);
        }
        ck_assert_int_eq(zip_read_find(z, "no such member"), -1);
        zip_read_close(z);
        free(bytes);
    }
}
END_TEST

START_TEST(test_damage_is_an_error)
{
    size_t len;
    char *bytes = tjson_read_file(archives[1], &len);
    Error err;
    ck_assert_ptr_null(zip_read_open((unsigned char *)bytes, 10, &err));
    ck_assert_str_eq(err.msg, "Not a zip archive");
    ck_assert_ptr_null(zip_read_open((unsigned char *)"", 0, &err));
    /* every byte changed in turn: an error or the right bytes, never a crash */
    ZipArchive *z = zip_read_open((unsigned char *)bytes, len, &err);
    ck_assert_ptr_nonnull(z);
    size_t n0;
    unsigned char *good = zip_read_extract(z, 0, &n0, NULL, &err);
    ck_assert_ptr_nonnull(good);
    zip_read_close(z);
    int errors = 0;
    for (size_t k = 0; k < len; k += 7) {
        char *bad = xmalloc(len);
        memcpy(bad, bytes, len);
        bad[k] ^= 0x5a;
        ZipArchive *y = zip_read_open((unsigned char *)bad, len, &err);
        for (int i = 0; y && i < zip_read_count(y); i++) {
            size_t n;
            unsigned char *got = zip_read_extract(y, i, &n, NULL, &err);
            if (!got) errors++;
            else if (i == 0 && n == n0) ck_assert_msg(!memcmp(got, good, n0), "byte %zu changed the data unnoticed", k);
            free(got);
        }
        if (!y) errors++;
        zip_read_close(y);
        free(bad);
    }
    ck_assert_int_gt(errors, 100);
    /* cut short anywhere: an error */
    for (size_t cut = 0; cut < len; cut += 13) {
        ZipArchive *y = zip_read_open((unsigned char *)bytes, cut, &err);
        for (int i = 0; y && i < zip_read_count(y); i++) {
            size_t n;
            unsigned char *got = zip_read_extract(y, i, &n, NULL, &err);
            ck_assert_ptr_null(got);
        }
        zip_read_close(y);
    }
    free(good);
    free(bytes);
}
END_TEST

/* The suite. */
Suite *zipread_suite(void)
{
    Suite *s = suite_create("zipread");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_members_as_libzip_gives_them);
    tcase_add_test(core, test_damage_is_an_error);
    suite_add_tcase(s, core);
    return s;
}
