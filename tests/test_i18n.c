/*
** test_i18n.c: the .mo reader and lookups. Good catalogues are written by
** GNU msgfmt at test time, in both byte orders; corrupt ones are built here
** byte by byte (offsets and lengths past the end, truncations, unsorted
** originals, translations whose printf conversions differ) and must be
** refused or defused without a crash. The shipped catalogues are loaded
** from $ATTNLAB_LOCALE (the Makefile points it at build/locale).
*/
#define _POSIX_C_SOURCE 200809L
#include "suites.h"
#include "tstages.h"
#include "core/text/i18n.h"
#include "core/io/fileio.h"
#include "core/lesson/lesson.h"
#include "core/compute/attn.h"
#include "core/stage/explain.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A scratch directory for this test process. */
static char scratch[64];

/* Make the scratch directory (each test runs in its own process). */
static void setup_scratch(void)
{
    tscratch_make(scratch, sizeof scratch, "i18n");
}

/* Remove it and its files. */
static void teardown_scratch(void)
{
    tscratch_remove(scratch);
}

static const char PO[] =
    "msgid \"\"\nmsgstr \"Content-Type: text/plain; charset=UTF-8\\n\"\n\n"
    "msgid \"keys\"\nmsgstr \"\xe3\x82\xad\xe3\x83\xbc\"\n\n"                 /* キー */
    "#, c-format\nmsgid \"head %d of %d\"\nmsgstr \"\xe3\x83\x98\xe3\x83\x83\xe3\x83\x89 %d / %d\"\n\n"
    "msgid \"queries\"\nmsgstr \"\xe3\x82\xaf\xe3\x82\xa8\xe3\x83\xaa\"\n\n"  /* クエリ */
    "msgid \"not yet\"\nmsgstr \"\"\n";

/* Compile PO with msgfmt in the given byte order; the .mo's bytes. */
static char *msgfmt(const char *endian, size_t *len)
{
    char po[128], mo[128], cmd[400];
    snprintf(po, sizeof po, "%s/t.po", scratch);
    snprintf(mo, sizeof mo, "%s/t-%s.mo", scratch, endian);
    FILE *f = fopen(po, "w");
    ck_assert_ptr_nonnull(f);
    fputs(PO, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "msgfmt --endianness=%s -o '%s' '%s'", endian, mo, po);
    ck_assert_int_eq(system(cmd), 0);
    Error e;
    char *bytes = fileio_read(mo, 1 << 20, len, &e);
    ck_assert_msg(bytes != NULL, "%s", eline(&e));
    return bytes;
}

/* Put a 32-bit word at d + off in either byte order. */
static void put32(unsigned char *d, size_t off, uint32_t v, bool big)
{
    for (int i = 0; i < 4; i++) d[off + (size_t)i] = (unsigned char)(v >> (big ? 24 - 8 * i : 8 * i));
}

/*
** A .mo file by hand: n pairs (orig[i], trans[i]) in the order given (the
** caller sorts them, or not, on purpose), header of 28 bytes, the two
** tables, then the strings. *len gets the size.
*/
static unsigned char *build_mo(const char *const *orig, const char *const *trans, int n, bool big, size_t *len)
{
    size_t size = 28 + 16 * (size_t)n;
    for (int i = 0; i < n; i++) size += strlen(orig[i]) + strlen(trans[i]) + 2;
    unsigned char *d = calloc(1, size);
    put32(d, 0, 0x950412de, big);
    put32(d, 8, (uint32_t)n, big);
    put32(d, 12, 28, big);
    put32(d, 16, 28 + 8 * (uint32_t)n, big);
    size_t at = 28 + 16 * (size_t)n;
    for (int t = 0; t < 2; t++)
        for (int i = 0; i < n; i++) {
            const char *s = t ? trans[i] : orig[i];
            put32(d, 28 + 8 * (size_t)(t * n + i), (uint32_t)strlen(s), big);
            put32(d, 28 + 8 * (size_t)(t * n + i) + 4, (uint32_t)at, big);
            memcpy(d + at, s, strlen(s) + 1);
            at += strlen(s) + 1;
        }
    *len = size;
    return d;
}

/* What every good catalogue of PO must answer. */
static void assert_po_lookups(const I18nCatalog *c)
{
    ck_assert_str_eq(i18n_catalog_lookup(c, "keys"), "\xe3\x82\xad\xe3\x83\xbc");
    ck_assert_str_eq(i18n_catalog_lookup(c, "queries"), "\xe3\x82\xaf\xe3\x82\xa8\xe3\x83\xaa");
    ck_assert_str_eq(i18n_catalog_lookup(c, "head %d of %d"), "\xe3\x83\x98\xe3\x83\x83\xe3\x83\x89 %d / %d");
    ck_assert_ptr_null(i18n_catalog_lookup(c, "key"));         /* a prefix of "keys" */
    ck_assert_ptr_null(i18n_catalog_lookup(c, "keys "));
    ck_assert_ptr_null(i18n_catalog_lookup(c, "not yet"));     /* untranslated: msgfmt leaves it out */
    ck_assert_ptr_null(i18n_catalog_lookup(c, ""));            /* the header is not a message */
    ck_assert_int_eq(i18n_catalog_count(c), 3);
}

START_TEST(test_msgfmt_both_byte_orders)
{
    setup_scratch();
    const char *orders[] = { "little", "big" };
    size_t sizes[2];
    for (int k = 0; k < 2; k++) {
        size_t len;
        char *bytes = msgfmt(orders[k], &len);
        sizes[k] = len;
        ck_assert_int_eq((unsigned char)bytes[0], k ? 0x95 : 0xde);   /* really the byte order asked for */
        Error err;
        I18nCatalog *c = i18n_catalog_parse(bytes, len, "t.mo", &err);
        ck_assert_msg(c != NULL, "%s", eline(&err));
        assert_po_lookups(c);
        i18n_catalog_free(c);
        free(bytes);
    }
    ck_assert_uint_eq(sizes[0], sizes[1]);
    teardown_scratch();
}
END_TEST

START_TEST(test_get_with_and_without_catalogue)
{
    setup_scratch();
    i18n_reset();
    const char *msg = "queries";
    ck_assert_ptr_eq(i18n_get(msg), msg);           /* no catalogue: the very string */
    ck_assert_str_eq(i18n_language(), "");
    char path[128];
    snprintf(path, sizeof path, "%s/t-little.mo", scratch);
    free(msgfmt("little", &(size_t){ 0 }));
    Error err;
    I18nCatalog *c = i18n_catalog_load(path, &err);
    ck_assert_msg(c != NULL, "%s", eline(&err));
    i18n_use("ja", c);
    ck_assert_str_eq(i18n_language(), "ja");
    ck_assert_str_eq(_("queries"), "\xe3\x82\xaf\xe3\x82\xa8\xe3\x83\xaa");
    const char *kept = _("keys");
    ck_assert_str_eq(_("not in the catalogue"), "not in the catalogue");
    char buf[64];
    snprintf(buf, sizeof buf, _("head %d of %d"), 2, 4);
    ck_assert_str_eq(buf, "\xe3\x83\x98\xe3\x83\x83\xe3\x83\x89 2 / 4");
    i18n_use_none();
    ck_assert_str_eq(_("queries"), "queries");
    ck_assert_str_eq(kept, "\xe3\x82\xad\xe3\x83\xbc");              /* still valid after switching */
    ck_assert(i18n_use_again("ja"));
    ck_assert_str_eq(_("keys"), kept);
    ck_assert(!i18n_use_again("ar"));
    i18n_use("xx", NULL);                                           /* a language without a catalogue */
    ck_assert_str_eq(_("keys"), "keys");
    i18n_reset();
    ck_assert_str_eq(_("keys"), "keys");
    teardown_scratch();
}
END_TEST

START_TEST(test_hand_built_both_orders_and_empty)
{
    const char *orig[] = { "", "a", "b %s" }, *trans[] = { "Content-Type: text/plain; charset=UTF-8\n", "A", "B %s" };
    for (int big = 0; big < 2; big++) {
        size_t len;
        unsigned char *d = build_mo(orig, trans, 3, big, &len);
        Error err;
        I18nCatalog *c = i18n_catalog_parse(d, len, "h.mo", &err);
        ck_assert_msg(c != NULL, "%s", eline(&err));
        ck_assert_str_eq(i18n_catalog_lookup(c, "a"), "A");
        ck_assert_str_eq(i18n_catalog_lookup(c, "b %s"), "B %s");
        i18n_catalog_free(c);
        free(d);
        d = build_mo(orig, trans, 0, big, &len);                    /* no strings at all */
        c = i18n_catalog_parse(d, len, "empty.mo", &err);
        ck_assert_msg(c != NULL, "%s", eline(&err));
        ck_assert_int_eq(i18n_catalog_count(c), 0);
        ck_assert_ptr_null(i18n_catalog_lookup(c, "a"));
        i18n_catalog_free(c);
        free(d);
    }
}
END_TEST

/* Parse must fail with a reason that contains want. */
static void expect_refused(const void *d, size_t len, const char *want)
{
    Error err;
    I18nCatalog *c = i18n_catalog_parse(d, len, "bad.mo", &err);
    if (c) {
        i18n_catalog_free(c);
        ck_abort_msg("accepted a corrupt catalogue (want \"%s\")", want);
    }
    ck_assert_msg(strstr(err.msg, want) && !strcmp(err.file, "bad.mo") && err.kind == ERR_INVALID, "got \"%s\", want \"%s\"",
                  eline(&err), want);
}

START_TEST(test_corrupt_offsets_and_lengths)
{
    const char *orig[] = { "a", "b" }, *trans[] = { "A", "B" };
    size_t len;
    unsigned char *good = build_mo(orig, trans, 2, false, &len);
    unsigned char *d = malloc(len);
    struct { size_t at; uint32_t v; const char *why; } cases[] = {
        { 8, 0xffffffffu, "string count beyond the file" },
        { 8, 1000, "string count beyond the file" },
        { 12, (uint32_t)len, "an original lies outside" },          /* table of originals at the end */
        { 12, 0xfffffff8u, "an original lies outside" },            /* and near 4 GiB (no wrap-around) */
        { 16, (uint32_t)len - 4, "a translation lies outside" },
        { 28, 0xffffffffu, "an original lies outside" },            /* length of "a" */
        { 28, (uint32_t)len, "an original lies outside" },
        { 32, (uint32_t)len, "an original lies outside" },          /* offset of "a" */
        { 32, 0xfffffffeu, "an original lies outside" },
        { 28, 0, "an original lies outside" },                      /* "a" of length 0: no NUL after it */
        { 44, 5, "a translation lies outside" },                    /* length of "A" runs past its NUL */
        { 48, (uint32_t)len - 1, "a translation lies outside" },    /* offset of "A": the last byte, length 1 */
        { 0, 0x12345678, "bad magic number" },
        { 4, 2u << 16, "unknown .mo revision" },
    };
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        memcpy(d, good, len);
        put32(d, cases[k].at, cases[k].v, false);
        expect_refused(d, len, cases[k].why);
    }
    free(d);
    free(good);
    const char *unsorted[] = { "b", "a" };
    good = build_mo(unsorted, trans, 2, true, &len);
    expect_refused(good, len, "originals are not sorted");
    free(good);
    const char *dup[] = { "a", "a" };
    good = build_mo(dup, trans, 2, false, &len);
    expect_refused(good, len, "originals are not sorted");
    free(good);
    const char *latin1[] = { "" }, *hdr[] = { "Content-Type: text/plain; charset=ISO-8859-1\n" };
    good = build_mo(latin1, hdr, 1, false, &len);
    expect_refused(good, len, "not a UTF-8 catalogue");
    free(good);
    expect_refused(NULL, 0, "too short");
    expect_refused("\xde\x12\x04\x95", 4, "too short");
}
END_TEST

START_TEST(test_truncated_everywhere)
{
    setup_scratch();
    size_t len;
    char *bytes = msgfmt("big", &len);
    for (size_t cut = 0; cut < len; cut++) {
        char *copy = malloc(cut ? cut : 1);         /* exactly cut bytes, so ASan sees any overread */
        memcpy(copy, bytes, cut);
        Error err;
        I18nCatalog *c = i18n_catalog_parse(copy, cut, "cut.mo", &err);
        ck_assert_msg(c == NULL, "a file cut to %zu of %zu bytes was accepted", cut, len);
        free(copy);
    }
    free(bytes);
    teardown_scratch();
}
END_TEST

START_TEST(test_format_mismatch_is_dropped)
{
    /* sorted by bytes: the translation is kept only when it consumes the
    ** same arguments in the same order as the original, with the same
    ** widths and precisions (a width the original lacks could pad a slide
    ** with a hundred million spaces); "%.0s" may swallow a "%s" */
    const char *orig[] = { "%d key%s", "%d keys", "%s of %d", "100%% sure", "head %d of %d", "plain", "w %.2f",
                           "x %d", "y %.2f" };
    const char *trans[] = { "%d Schl\xc3\xbc" "ssel%.0s", "%s Schl\xc3\xbc" "ssel", "%d von %s", "100%% s\xc3\xbbr",
                            "Kopf %99999999d von %d", "%n", "w %5.3f", "x %2147483647d", "y: %.2f" };
    size_t len;
    unsigned char *d = build_mo(orig, trans, 9, false, &len);
    Error err;
    I18nCatalog *c = i18n_catalog_parse(d, len, "fmt.mo", &err);
    ck_assert_msg(c != NULL, "%s", eline(&err));
    ck_assert_str_eq(i18n_catalog_lookup(c, "%d key%s"), "%d Schl\xc3\xbc" "ssel%.0s");
    ck_assert_ptr_null(i18n_catalog_lookup(c, "%d keys"));     /* %d became %s */
    ck_assert_ptr_null(i18n_catalog_lookup(c, "%s of %d"));    /* swapped */
    ck_assert_str_eq(i18n_catalog_lookup(c, "100%% sure"), "100%% s\xc3\xbbr");
    ck_assert_ptr_null(i18n_catalog_lookup(c, "head %d of %d"));   /* a width the original lacks */
    ck_assert_ptr_null(i18n_catalog_lookup(c, "plain"));       /* %n never */
    ck_assert_ptr_null(i18n_catalog_lookup(c, "w %.2f"));      /* another width and precision */
    ck_assert_ptr_null(i18n_catalog_lookup(c, "x %d"));
    ck_assert_str_eq(i18n_catalog_lookup(c, "y %.2f"), "y: %.2f");
    ck_assert_int_eq(i18n_catalog_count(c), 3);
    i18n_use("de", c);
    ck_assert_str_eq(_("%d keys"), "%d keys");
    ck_assert_str_eq(_("head %d of %d"), "head %d of %d");
    i18n_reset();
    free(d);
}
END_TEST

START_TEST(test_load_refuses_non_files)
{
    Error err;
    ck_assert_ptr_null(i18n_catalog_load("/", &err));
    ck_assert_msg(!strcmp(err.file, "/") && err.kind == ERR_IO, "%s", eline(&err));
    ck_assert_ptr_null(i18n_catalog_load("/nonexistent/attnlab.mo", &err));
    ck_assert_str_eq(err.file, "/nonexistent/attnlab.mo");
}
END_TEST

START_TEST(test_language_codes)
{
    const char *good[] = { "ja", "es", "fil", "pt_BR", "zh_CN" };
    const char *bad[] = { "", "j", "jpan", "JA", "ja_jp", "ja-JP", "ja_J", "ja_JPN", "../x", "ja/", "C", "ja ", NULL };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) ck_assert_msg(i18n_lang_valid(good[i]), "%s", good[i]);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) ck_assert_msg(!i18n_lang_valid(bad[i]), "%s", bad[i] ? bad[i] : "NULL");
    char out[16];
    setenv("LC_ALL", "", 1);
    setenv("LC_MESSAGES", "ja_JP.UTF-8", 1);
    setenv("LANG", "de_DE.UTF-8", 1);
    ck_assert(i18n_env_language(out, sizeof out));
    ck_assert_str_eq(out, "ja_JP");
    setenv("LC_ALL", "ar_EG.UTF-8@latn", 1);
    ck_assert(i18n_env_language(out, sizeof out));
    ck_assert_str_eq(out, "ar_EG");
    setenv("LC_ALL", "C.UTF-8", 1);
    ck_assert(!i18n_env_language(out, sizeof out));
    setenv("LC_ALL", "POSIX", 1);
    ck_assert(!i18n_env_language(out, sizeof out));
    unsetenv("LC_ALL");
    unsetenv("LC_MESSAGES");
    setenv("LANG", "hi", 1);
    ck_assert(i18n_env_language(out, sizeof out));
    ck_assert_str_eq(out, "hi");
    unsetenv("LANG");
    ck_assert(!i18n_env_language(out, sizeof out));
}
END_TEST

START_TEST(test_lesson_language_key)
{
    const char *body = "[setup]\ntokens: a b\nX =\n  1 2\n  3 4\n[softmax]\n";
    char text[256];
    Error err;
    snprintf(text, sizeof text, "title: T\nlanguage: pt_BR   # a comment\n%s", body);
    Lesson *L = lesson_parse(text, strlen(text), "t.lesson", &err);
    ck_assert_msg(L != NULL, "%s", eline(&err));
    ck_assert_str_eq(L->language, "pt_BR");
    lesson_free(L);
    snprintf(text, sizeof text, "title: T\n%s", body);
    L = lesson_parse(text, strlen(text), "t.lesson", &err);
    ck_assert_ptr_null(L->language);
    lesson_free(L);
    struct { const char *line, *msg; } bad[] = {
        { "language: Arabic", "t.lesson:2:11: error: 'Arabic' is not a language code; write two or three lowercase "
                              "letters, optionally with a region (ja, es, ar, pt_BR)" },
        { "language:   ja-JP", "t.lesson:2:13: error: 'ja-JP' is not a language code; write two or three lowercase "
                               "letters, optionally with a region (ja, es, ar, pt_BR)" },
        { "language: ar eg", "t.lesson:2:14: error: expected one language code after 'language:'" },
        { "language:", "t.lesson:2:10: error: expected text after 'language:'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "title: T\n%s\n%s", bad[i].line, body);
        L = lesson_parse(text, strlen(text), "t.lesson", &err);
        ck_assert_ptr_null(L);
        ck_assert_str_eq(eline(&err), bad[i].msg);
    }
}
END_TEST

START_TEST(test_shipped_catalogues)
{
    /* every shipped catalogue loads, holds every message and translates
    ** the words a slide always shows */
    const char *root = getenv("ATTNLAB_LOCALE") ? getenv("ATTNLAB_LOCALE") : "../build/locale";
    DIR *dir = opendir(root);
    ck_assert_msg(dir != NULL, "no catalogues in %s", root);
    struct dirent *e;
    int n = 0, count = -1;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s/LC_MESSAGES/attnlab.mo", root, e->d_name);
        Error err;
        I18nCatalog *c = i18n_catalog_load(path, &err);
        ck_assert_msg(c != NULL, "%s", eline(&err));
        if (count < 0) count = i18n_catalog_count(c);
        ck_assert_msg(i18n_catalog_count(c) == count, "%s: %d messages, another catalogue has %d", path,
                      i18n_catalog_count(c), count);
        const char *words[] = { "queries", "keys (attended to)", "attention weights", "stage %d / %d", "Keys" };
        for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
            const char *t = i18n_catalog_lookup(c, words[w]);
            ck_assert_msg(t && strcmp(t, words[w]), "%s: no translation of \"%s\"", path, words[w]);
        }
        i18n_catalog_free(c);
        n++;
    }
    closedir(dir);
    ck_assert_int_ge(n, 8);
    ck_assert_int_ge(count, 150);
}
END_TEST

START_TEST(test_explain_and_views_follow_the_catalogue)
{
    /* lesson 11 with the Japanese catalogue: the explanation of "ate"'s
    ** weight on 食べた is the translated sentence with the numbers numpy
    ** gives (max scaled score 3.2, weight 0.84497 printed as 0.845), and
    ** the slide's axis and counter are the catalogue's */
    const char *root = getenv("ATTNLAB_LOCALE") ? getenv("ATTNLAB_LOCALE") : "../build/locale";
    char path[512];
    snprintf(path, sizeof path, "%s/ja/LC_MESSAGES/attnlab.mo", root);
    Error ierr;
    I18nCatalog *c = i18n_catalog_load(path, &ierr);
    ck_assert_msg(c != NULL, "%s", eline(&ierr));
    i18n_use("ja", c);
    Error err;
    Lesson *L = lesson_load("../lessons/11-japanese-to-english.lesson", &err);
    ck_assert_msg(L != NULL, "%s", eline(&err));
    ck_assert_str_eq(L->language, "ja");
    Trace *T = attn_run(L, &err);
    ck_assert_ptr_nonnull(T);
    char *text = explain_cell(L, T, 1, "weights", 2, 4);
    ck_assert_ptr_nonnull(text);
    const char *want = "\xe3\x80\x8c" "ate" "\xe3\x80\x8d\xe3\x81\xae\xe8\xa1\x8c\xe3\x81\xa7";   /* 「ate」の行で */
    ck_assert_msg(!strncmp(text, want, strlen(want)), "%s", text);
    ck_assert_msg(strstr(text, " 3.2 ") && strstr(text, "= 0.845\n"), "%s", text);
    ck_assert_msg(!strstr(text, "softmax over") && !strstr(text, "weights of"), "English left in: %s", text);
    free(text);
    View *v = tstages_view(L, T, 3);              /* cross_attention */
    ck_assert_str_eq(v->panels[0].row_axis, "\xe3\x82\xaf\xe3\x82\xa8\xe3\x83\xaa\xef\xbc\x88\xe8\xa8\xb3\xe6\x96\x87\xef\xbc\x89"); /* クエリ（訳文） */
    stage_view_free(v);
    i18n_use_none();
    text = explain_cell(L, T, 1, "weights", 2, 4);
    ck_assert_msg(!strncmp(text, "softmax over the row of \xe2\x80\x9c" "ate" "\xe2\x80\x9d", 28), "%s", text);
    free(text);
    trace_free(T);
    lesson_free(L);
    i18n_reset();
}
END_TEST

/* The suite. */
Suite *i18n_suite(void)
{
    Suite *s = suite_create("i18n");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_msgfmt_both_byte_orders);
    tcase_add_test(core, test_get_with_and_without_catalogue);
    tcase_add_test(core, test_hand_built_both_orders_and_empty);
    tcase_add_test(core, test_lesson_language_key);
    tcase_add_test(core, test_shipped_catalogues);
    tcase_add_test(core, test_explain_and_views_follow_the_catalogue);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_corrupt_offsets_and_lengths);
    tcase_add_test(limits, test_truncated_everywhere);
    tcase_add_test(limits, test_format_mismatch_is_dropped);
    tcase_add_test(limits, test_load_refuses_non_files);
    tcase_add_test(limits, test_language_codes);
    suite_add_tcase(s, limits);
    return s;
}
