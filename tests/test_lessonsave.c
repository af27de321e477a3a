/*
** test_lessonsave.c: saving edits into a lesson's own text. Every bundled
** lesson and every accepted file of tests/bad-lessons/accept is saved with
** no edit (same bytes), with one edit of a written-out number (one number's
** text differs) and with one edit of a generated matrix (one override line
** more), and the saved text must load to the edited numbers: its JSON dump
** equals the dump of the edited lesson. Also: cell overrides in the format,
** column alignment, CRLF and BOM, and the shortest number format.
*/
#include "suites.h"
#include "core/stage/dump.h"
#include "core/lesson/lesson.h"
#include "core/lesson/lessonsave.h"
#include "core/compute/trace.h"
#include "core/util.h"
#include "tjson.h"

#include <dirent.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse or fail the test. */
static Lesson *must_parse(const char *text, size_t len, const char *name)
{
    Error err;
    Lesson *L = lesson_parse(text, len, name, &err);
    ck_assert_msg(L != NULL, "%s", eline(&err));
    return L;
}

/* The --dump JSON of a lesson (computed as attnlab --dump does). */
static char *dump_of(const Lesson *L)
{
    Error err;
    Trace *T = attn_run(L, &err);
    ck_assert_msg(T != NULL, "%s", eline(&err));
    Buf b = { 0 };
    dump_json(L, T, &b);
    trace_free(T);
    return buf_take(&b);
}

/* Set a cell the way the window does: in every setup sharing its text. */
static void set_cell(Lesson *L, int setup, const char *name, int r, int c, double v)
{
    for (int s = 0; s < L->nsetups; s++)
        if (lsave_shared(L, setup, s, name, r, c)) mat_set(lesson_matrix(&L->setups[s], name)->m, r, c, v);
}

/* The name lessons are parsed under: files they load are found beside it. */
static const char *lesson_name = "t.lesson";

/* Save one edit of text; check the saved text dumps like the edited lesson.
** Returns the saved text (caller frees). */
static char *save_one(const char *text, size_t len, int setup, const char *name, int r, int c, double v, size_t *out_len)
{
    Lesson *base = must_parse(text, len, lesson_name), *edited = must_parse(text, len, lesson_name);
    set_cell(edited, setup, name, r, c, v);
    LsaveEdit *e;
    int n = lsave_diff(base, edited, &e);
    ck_assert_int_ge(n, 1);
    Error msg;
    char *out = lsave_apply(text, len, base, e, n, out_len, &msg);
    ck_assert_msg(out != NULL, "%s", eline(&msg));
    Lesson *back = must_parse(out, *out_len, lesson_name);
    char *d1 = dump_of(edited), *d2 = dump_of(back);
    ck_assert_msg(!strcmp(d1, d2), "the saved lesson does not dump like the edited one (%s[%d,%d])", name, r, c);
    free(d1); free(d2); free(e);
    lesson_free(base); lesson_free(edited); lesson_free(back);
    return out;
}

/* Number of lines (newlines) in a text. */
static int count_lines(const char *s, size_t n)
{
    int k = 0;
    for (size_t i = 0; i < n; i++) k += s[i] == '\n';
    return k;
}

/* a and b differ in one place only, and what differs in b is a number that
** reads as want (with spaces around it that may have moved). */
static void one_number_differs(const char *a, size_t na, const char *b, size_t nb, double want)
{
    size_t pre = 0;
    while (pre < na && pre < nb && a[pre] == b[pre]) pre++;
    size_t suf = 0;
    while (suf < na - pre && suf < nb - pre && a[na - 1 - suf] == b[nb - 1 - suf]) suf++;
    ck_assert_msg(pre < nb, "nothing changed");
    char mid[80];
    size_t m = nb - pre - suf;
    ck_assert_uint_lt(m, sizeof mid);
    /* widen to the whole number on either side */
    size_t from = pre, to = pre + m;
    while (from > 0 && strchr("0123456789.-+eE", b[from - 1])) from--;
    while (to < nb && strchr("0123456789.-+eE", b[to])) to++;
    memcpy(mid, b + from, to - from);
    mid[to - from] = '\0';
    char *end;
    const char *num = mid;
    while (*num == ' ') num++;
    double v = strtod(num, &end);
    while (*end == ' ') end++;
    ck_assert_msg(*end == '\0' && v == want, "changed text '%s' is not the number %.17g", mid, want);
    ck_assert_msg(!memchr(a + pre, '\n', na - pre - suf), "a line end changed");
}

/* The round trips on one lesson file. */
static void roundtrip_file(const char *path)
{
    size_t len;
    char *text = tjson_read_file(path, &len);
    ck_assert_ptr_nonnull(text);
    lesson_name = path;
    Lesson *base = must_parse(text, len, lesson_name);
    Error msg;
    size_t out_len;

    /* no edits: the same bytes */
    char *same = lsave_apply(text, len, base, NULL, 0, &out_len, &msg);
    ck_assert_msg(same && out_len == len && !memcmp(same, text, len), "%s: saving with no edit changed the file", path);
    free(same);

    /* one written-out number, one generated cell: the first of each kind,
    ** looked up in the setup that defines the matrix */
    for (int kind = 0; kind < 2; kind++) {
        int d = 0;
        while (d < base->ndefs && base->defs[d].generated != (kind == 1)) d++;
        if (d == base->ndefs) continue;
        const LessonDef *def = &base->defs[d];
        const Setup *su = &base->setups[def->setup];
        const LessonMatrix *lm = NULL;
        for (int k = 0; k < su->nmats; k++) if (su->mats[k].def == d) lm = &su->mats[k];
        ck_assert_ptr_nonnull(lm);
        int r = lm->m->rows - 1, c = lm->m->cols / 2;
        double v = mat_get(lm->m, r, c) + 1.25;
        char *out = save_one(text, len, def->setup, lm->name, r, c, v, &out_len);
        if (kind == 0) {
            ck_assert_int_eq(count_lines(out, out_len), count_lines(text, len));
            one_number_differs(text, len, out, out_len, v);
        } else {
            /* exactly one line more: NAME[r,c] = v, and without it the original */
            ck_assert_int_eq(count_lines(out, out_len), count_lines(text, len) + 1);
            size_t pre = 0;
            while (pre < len && out[pre] == text[pre]) pre++;
            while (pre > 0 && out[pre - 1] != '\n') pre--;
            const char *nl = memchr(out + pre, '\n', out_len - pre);
            ck_assert_ptr_nonnull(nl);
            size_t line_len = (size_t)(nl + 1 - (out + pre));
            ck_assert_uint_eq(out_len - line_len, len);
            ck_assert_msg(!memcmp(out, text, pre) && !memcmp(out + pre + line_len, text + pre, len - pre),
                          "%s: more than one line was added", path);
            char want[128], num[32];
            util_fmt_shortest(num, sizeof num, v);
            bool crlf = line_len >= 2 && out[pre + line_len - 2] == '\r';
            snprintf(want, sizeof want, "%s[%d,%d] = %s%s", lm->name, r + 1, c + 1, num, crlf ? "\r\n" : "\n");
            ck_assert_uint_eq(line_len, strlen(want));
            ck_assert_msg(!memcmp(out + pre, want, line_len), "%s: added line is not %s", path, want);
            bool text_crlf = memchr(text, '\r', len) != NULL;
            ck_assert_int_eq(crlf, text_crlf);                   /* CRLF files get a CRLF line */
        }
        if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) ck_assert(!memcmp(out, "\xef\xbb\xbf", 3));
        /* saving the saved text again with no edits changes nothing */
        Lesson *again = must_parse(out, out_len, lesson_name);
        size_t n2;
        char *twice = lsave_apply(out, out_len, again, NULL, 0, &n2, &msg);
        ck_assert(twice && n2 == out_len && !memcmp(twice, out, n2));
        free(twice);
        lesson_free(again);
        free(out);
    }
    lesson_free(base);
    free(text);
    lesson_name = "t.lesson";
}

/* Every .lesson file of a directory. */
static int roundtrip_dir(const char *dir)
{
    DIR *d = opendir(dir);
    ck_assert_ptr_nonnull(d);
    struct dirent *e;
    int count = 0;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 8 || strcmp(e->d_name + n - 7, ".lesson")) continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        roundtrip_file(path);
        count++;
    }
    closedir(d);
    return count;
}

START_TEST(test_roundtrip_bundled)
{
    ck_assert_int_ge(roundtrip_dir("../lessons"), 6);
}
END_TEST

START_TEST(test_roundtrip_accepted_crlf_bom)
{
    ck_assert_int_ge(roundtrip_dir("bad-lessons/accept"), 3);
}
END_TEST

#define ALIGNED "title: T\n# a legend: column 1 is size, 2 is colour\n[setup]\ntokens: a b\n" \
                "X =\n   0.9   0.1  -0.3   # row a\n   0.1   0.8   0.4\n" \
                "queries: X\n[softmax]\n"

/* Save edits of X in ALIGNED; the line of row r afterwards. */
static void aligned_row(int r, int c, double v, int row_wanted, const char *want)
{
    size_t n;
    char *out = save_one(ALIGNED, strlen(ALIGNED), 0, "X", r, c, v, &n);
    const char *line = out;
    for (int k = 0; k < 5 + row_wanted; k++) line = strchr(line, '\n') + 1;
    size_t l = (size_t)(strchr(line, '\n') - line);
    char got[80];
    snprintf(got, sizeof got, "%.*s", (int)l, line);
    ck_assert_str_eq(got, want);
    free(out);
}

START_TEST(test_alignment_kept)
{
    aligned_row(0, 0, 1.25, 0, "  1.25   0.1  -0.3   # row a");   /* longer: takes a space before */
    aligned_row(1, 2, -0.45, 1, "   0.1   0.8 -0.45");             /* the last space stays */
    aligned_row(0, 2, 2, 0, "   0.9   0.1   2.0   # row a");       /* shorter: padded before, 1 decimal like the rest */
    aligned_row(1, 1, 123456.5, 1, "   0.1 123456.5   0.4");       /* too long: the row grows */
    aligned_row(1, 0, 1.0 / 3, 1, " 0.3333333333333333   0.8   0.4"); /* no room: one space of indentation stays */
}
END_TEST

START_TEST(test_alignment_left)
{
    /* a left-aligned first column before a right-aligned one: padding and
    ** taking spaces after the number keeps the second column in place */
    const char *t = "title: T\n[setup]\ntokens: a b\nX =\n  0.9   -0.1\n  -0.25  0.3\n[softmax]\n";
    size_t n;
    char *out = save_one(t, strlen(t), 0, "X", 0, 0, 0.95, &n);
    ck_assert_str_eq(out, "title: T\n[setup]\ntokens: a b\nX =\n  0.95  -0.1\n  -0.25  0.3\n[softmax]\n");
    free(out);
    out = save_one(t, strlen(t), 0, "X", 1, 0, 1, &n);
    ck_assert_str_eq(out, "title: T\n[setup]\ntokens: a b\nX =\n  0.9   -0.1\n  1.0    0.3\n[softmax]\n");
    free(out);
}
END_TEST

START_TEST(test_override_syntax)
{
    const char *t = "title: T\n[setup]\nseed: 1\ntokens: a b\nX = identity 2\nX[1,2] = 0.5\n"
                    "[softmax]\n[setup]\nX[2,1] = -2\n[softmax]\n";
    Error err;
    Lesson *L = lesson_parse(t, strlen(t), "t.lesson", &err);
    ck_assert_msg(L != NULL, "%s", eline(&err));
    const Mat *x0 = lesson_matrix(&L->setups[0], "X")->m, *x1 = lesson_matrix(&L->setups[1], "X")->m;
    ck_assert_double_eq(mat_get(x0, 0, 1), 0.5);
    ck_assert_double_eq(mat_get(x0, 1, 0), 0.0);                 /* the later override is the later setup's */
    ck_assert_double_eq(mat_get(x1, 0, 1), 0.5);                 /* inherited with the override */
    ck_assert_double_eq(mat_get(x1, 1, 0), -2.0);
    ck_assert_int_eq(L->novrs, 2);
    ck_assert_int_eq(L->ovrs[1].setup, 1);
    ck_assert_int_eq(L->ovrs[1].line, 9);
    ck_assert(!lsave_shared(L, 0, 1, "X", 1, 0));                /* setup 2 reads its own line */
    ck_assert(lsave_shared(L, 0, 1, "X", 0, 1));
    ck_assert(lsave_shared(L, 0, 1, "X", 0, 0));                 /* both read the generator */
    lesson_free(L);
    /* an edit of a cell with an override line edits that line's number */
    size_t n;
    char *out = save_one(t, strlen(t), 1, "X", 1, 0, 3.5, &n);
    ck_assert_str_eq(out, "title: T\n[setup]\nseed: 1\ntokens: a b\nX = identity 2\nX[1,2] = 0.5\n"
                          "[softmax]\n[setup]\nX[2,1] = 3.5\n[softmax]\n");
    free(out);
    /* set back to the generator's value, an override line goes away */
    out = save_one(t, strlen(t), 0, "X", 0, 1, 0.0, &n);
    ck_assert_str_eq(out, "title: T\n[setup]\nseed: 1\ntokens: a b\nX = identity 2\n"
                          "[softmax]\n[setup]\nX[2,1] = -2\n[softmax]\n");
    free(out);
    /* a second cell of the same matrix goes after the last override of it */
    out = save_one(t, strlen(t), 0, "X", 1, 1, 0.25, &n);
    ck_assert_str_eq(out, "title: T\n[setup]\nseed: 1\ntokens: a b\nX = identity 2\nX[1,2] = 0.5\nX[2,2] = 0.25\n"
                          "[softmax]\n[setup]\nX[2,1] = -2\n[softmax]\n");
    free(out);
}
END_TEST

START_TEST(test_override_spacing)
{
    /* spaces are allowed around the brackets, the comma and '=' */
    const char *t = "title: T\n[setup]\ntokens: a b\nX = zeros 2x2\nX [ 2 , 1 ]=7   # a comment\n[softmax]\n";
    size_t n;
    Lesson *L = must_parse(t, strlen(t), "t.lesson");
    ck_assert_double_eq(mat_get(lesson_matrix(&L->setups[0], "X")->m, 1, 0), 7.0);
    lesson_free(L);
    char *out = save_one(t, strlen(t), 0, "X", 1, 0, 8, &n);
    ck_assert_str_eq(out, "title: T\n[setup]\ntokens: a b\nX = zeros 2x2\nX [ 2 , 1 ]=8   # a comment\n[softmax]\n");
    free(out);
}
END_TEST

START_TEST(test_decimals_kept)
{
    /* 0.1350 edited to 0.235 is written 0.2350 like its neighbours: the same double, the same width */
    const char *t = "title: T\n[setup]\ntokens: a b\nX =\n  0.6686  0.1350\n -0.2812  0.0947\n[softmax]\n";
    size_t n;
    char *out = save_one(t, strlen(t), 0, "X", 0, 1, 0.235, &n);
    ck_assert_str_eq(out, "title: T\n[setup]\ntokens: a b\nX =\n  0.6686  0.2350\n -0.2812  0.0947\n[softmax]\n");
    free(out);
    /* its neighbours decide, not the number it replaces */
    const char *u = "title: T\n[setup]\ntokens: a b\nX =\n  0.3333333333333333  0.1\n  0.2  0.3\n[softmax]\n";
    out = save_one(u, strlen(u), 0, "X", 0, 0, 0.9, &n);
    ck_assert_str_eq(out, "title: T\n[setup]\ntokens: a b\nX =\n  0.9  0.1\n  0.2  0.3\n[softmax]\n");
    free(out);
    out = save_one(t, strlen(t), 0, "X", 1, 0, 1e-9, &n);            /* an exponent: as it is */
    ck_assert_str_eq(out, "title: T\n[setup]\ntokens: a b\nX =\n  0.6686  0.1350\n   1e-09  0.0947\n[softmax]\n");
    free(out);
}
END_TEST

START_TEST(test_edit_source_of_transpose)
{
    /* B is A transposed when its line is read: an edit of A, written out or
    ** drawn, is saved after B's line, so B reloads as the screen shows it */
    const char *texts[2] = {
        "title: t\n[setup]\ntokens: a b\nA =\n  1 2\n  3 4\nB = transpose A\nX = identity 2\n[embeddings]\n",
        "title: t\n[setup]\nseed: 1\ntokens: a b\nA = randn 2x2\nB = transpose A\nX = identity 2\n[embeddings]\n",
    };
    for (int k = 0; k < 2; k++) {
        size_t n;
        char *out = save_one(texts[k], strlen(texts[k]), 0, "A", 0, 1, 7.5, &n);
        const char *b = strstr(out, "B = transpose A"), *o = strstr(out, "A[1,2] = 7.5");
        ck_assert_msg(b && o && o > b, "%s", out);
        ck_assert_ptr_nonnull(strstr(out, k == 0 ? "  1 2\n" : "A = randn 2x2"));   /* the definition untouched */
        free(out);
    }
}
END_TEST

START_TEST(test_transposed_in_an_earlier_setup)
{
    /* A is defined and transposed into B in the first setup; the second
    ** has A from the same text but a B of its own. An edit of A there would
    ** go to the first setup's text and change its B too, which the screen
    ** did not show: A is a transpose's source in the second setup as well.
    ** The same for given attention read in an earlier setup. */
    const char *t = "title: t\n[setup]\nseed: 1\ntokens: a b\nA = randn 2x2\nB = transpose A\nX = identity 2\n"
                    "[embeddings]\n[setup]\nB = randn 2x2\n[embeddings]\n";
    Error err;
    Lesson *L = lesson_parse(t, strlen(t), "t.lesson", &err);
    ck_assert_msg(L != NULL, "%s", err.msg);
    ck_assert(lsave_shared(L, 0, 1, "A", 0, 0));
    ck_assert(lsave_feeds_transpose(L, 0, "A"));
    ck_assert(lsave_feeds_transpose(L, 1, "A"));
    ck_assert(!lsave_feeds_transpose(L, 1, "B"));
    ck_assert(!lsave_feeds_transpose(L, 0, "X"));
    lesson_free(L);
    const char *g = "title: t\n[setup]\ntokens: a b\nA =\n  0.5 0.5\n  1 0\nattention: A\n[softmax]\n"
                    "[setup]\nattention: none\nX = identity 2\n[embeddings]\n";
    L = lesson_parse(g, strlen(g), "g.lesson", &err);
    ck_assert_msg(L != NULL, "%s", err.msg);
    ck_assert(lsave_gives_attention(L, 1, "A"));
    lesson_free(L);
}
END_TEST

START_TEST(test_no_final_newline)
{
    const char *t = "title: T\n[setup]\ntokens: a b\nX = ones 2x2\n[softmax]\n[setup]\nX = ones 2x2";
    size_t n;
    char *out = save_one(t, strlen(t), 1, "X", 0, 0, 7, &n);
    ck_assert_str_eq(out, "title: T\n[setup]\ntokens: a b\nX = ones 2x2\n[softmax]\n[setup]\nX = ones 2x2\nX[1,1] = 7\n");
    free(out);
}
END_TEST

START_TEST(test_crlf_bom_kept)
{
    /* a BOM and CRLF line ends: the added override line ends in CRLF too,
    ** a replaced number keeps its line's CRLF, the BOM stays */
    const char *t = "\xef\xbb\xbftitle: T\r\n[setup]\r\nseed: 2\r\ntokens: a b\r\nX =\r\n  1  2\r\n  3  4\r\n"
                    "W = randn 2x2\r\nqueries: X @ W\r\n\r\n[softmax]\r\n";
    size_t n;
    char *out = save_one(t, strlen(t), 0, "W", 1, 0, -0.5, &n);
    ck_assert_str_eq(out, "\xef\xbb\xbftitle: T\r\n[setup]\r\nseed: 2\r\ntokens: a b\r\nX =\r\n  1  2\r\n  3  4\r\n"
                          "W = randn 2x2\r\nW[2,1] = -0.5\r\nqueries: X @ W\r\n\r\n[softmax]\r\n");
    free(out);
    out = save_one(t, strlen(t), 0, "X", 1, 1, 40.5, &n);
    ck_assert_str_eq(out, "\xef\xbb\xbftitle: T\r\n[setup]\r\nseed: 2\r\ntokens: a b\r\nX =\r\n  1  2\r\n  3 40.5\r\n"
                          "W = randn 2x2\r\nqueries: X @ W\r\n\r\n[softmax]\r\n");
    free(out);
}
END_TEST

START_TEST(test_shortest_numbers)
{
    char t[32];
    util_fmt_shortest(t, sizeof t, 0.9 + 0.1 + 0.1 + 0.1);
    ck_assert_str_eq(t, "1.2000000000000002");        /* that sum is not the double 1.2 */
    util_fmt_shortest(t, sizeof t, 1.2);
    ck_assert_str_eq(t, "1.2");
    util_fmt_shortest(t, sizeof t, 0.1);
    ck_assert_str_eq(t, "0.1");
    util_fmt_shortest(t, sizeof t, -0.0);
    ck_assert_str_eq(t, "-0");
    util_fmt_shortest(t, sizeof t, 1e300);
    ck_assert_str_eq(t, "1e+300");
    /* random doubles: bit patterns, and short decimals; each reads back
    ** exactly, with the fewest significant digits that do */
    uint64_t x = 88172645463325252ULL;
    for (int i = 0; i < 6000; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        double v;
        if (i % 2) {
            memcpy(&v, &x, sizeof v);
            if (!isfinite(v)) continue;
        } else {
            v = (double)(int64_t)(x % 2000001 - 1000000) / pow(10, (double)(x % 7));
        }
        util_fmt_shortest(t, sizeof t, v);
        double back = strtod(t, NULL);
        ck_assert_msg(!memcmp(&back, &v, sizeof v), "%s does not read back as %.17g", t, v);
        /* shortest: one significant digit fewer does not read back */
        char sig[40];
        int digits = 0;
        for (const char *c = t; *c && *c != 'e'; c++)
            if (*c >= '0' && *c <= '9' && (digits > 0 || *c != '0')) sig[digits++] = *c;
        while (digits > 0 && sig[digits - 1] == '0') digits--;     /* zeros at the end are not needed */
        if (digits > 1) {
            char fewer[400];
            snprintf(fewer, sizeof fewer, "%.*g", digits - 1, v);
            ck_assert_msg(strtod(fewer, NULL) != v, "%s reads back too, shorter than %s", fewer, t);
        }
        if (i % 2 == 0) {                               /* a short decimal stays short */
            char dec[40];
            snprintf(dec, sizeof dec, "%.*f", (int)(x % 7), v);
            ck_assert_uint_le(strlen(t), strlen(dec) + 4);
        }
    }
}
END_TEST

/* The save suite. */
Suite *lessonsave_suite(void)
{
    Suite *s = suite_create("lessonsave");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_roundtrip_bundled);
    tcase_add_test(core, test_roundtrip_accepted_crlf_bom);
    tcase_add_test(core, test_alignment_kept);
    tcase_add_test(core, test_alignment_left);
    tcase_add_test(core, test_override_syntax);
    tcase_add_test(core, test_no_final_newline);
    tcase_add_test(core, test_edit_source_of_transpose);
    tcase_add_test(core, test_transposed_in_an_earlier_setup);
    tcase_add_test(core, test_override_spacing);
    tcase_add_test(core, test_decimals_kept);
    tcase_add_test(core, test_crlf_bom_kept);
    tcase_set_timeout(core, 60);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_shortest_numbers);
    suite_add_tcase(s, limits);
    return s;
}
