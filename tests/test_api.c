/*
** test_api.c: libattnlab's public functions (src/lib/attnlab.h) as a
** program using the library calls them: a lesson opened from text with
** its arrays in memory (every dtype a .npy holds, strings for tokens),
** its stages, pages and their names, a page drawn as PNG and as SVG, the
** dump, a matrix and a cell's arithmetic against numbers computed here;
** and every refusal as a value, with its one line, never an exit; the
** scores a setup too large to keep them makes again when asked; float32
** matrices lent instead of copied.
*/
#include "suites.h"
#include "lib/attnlab.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A lesson whose X comes from the arrays given, as the Python module writes it. */
static const char *LESSON = "title: From memory\n"
                            "[setup]\n"
                            "tokens = load \"arrays.npz\" s1_tokens\n"
                            "X = load \"arrays.npz\" s1_X\n"
                            "queries: X\nkeys: X\nvalues: X\n"
                            "[softmax]\n"
                            "[scaled_scores]\n";

/* Where calls expected to succeed put the error they do not have. */
static attnlab_error err_none;

/* The lesson opened with X (3x2) of dtype dtype at data, and three tokens
** as numpy's '<U5' (UTF-32); NULL with err filled. */
static attnlab *open_with(const char *dtype, const void *data, size_t nbytes, attnlab_error *err)
{
    static const int64_t xs[2] = { 3, 2 }, ts[1] = { 3 };
    static uint32_t tokens[3][5] = { { 't', 'h', 'e' }, { 'c', 'a', 't' }, { 's', 0x00e4, 't' } };
    attnlab_array arrays[2] = { { "arrays.npz", "s1_X", dtype, 2, xs, data, nbytes },
                                { "arrays.npz", "s1_tokens", "<U5", 1, ts, tokens, sizeof tokens } };
    return attnlab_open(LESSON, strlen(LESSON), "-", arrays, 2, err);
}

/* The weights of X = rows of x (3x2) attending to each other, computed here. */
static void weights_of(double x[3][2], double w[3][3])
{
    for (int i = 0; i < 3; i++) {
        double s[3], m = -INFINITY, z = 0;
        for (int j = 0; j < 3; j++) {
            s[j] = (x[i][0] * x[j][0] + x[i][1] * x[j][1]) / sqrt(2.0);
            m = fmax(m, s[j]);
        }
        for (int j = 0; j < 3; j++) z += exp(s[j] - m);
        for (int j = 0; j < 3; j++) w[i][j] = exp(s[j] - m) / z;
    }
}

/* Arrays of every numeric dtype give the same lesson: its weights equal
** numpy's arithmetic done here, its tokens are the strings given. */
START_TEST(test_open_arrays_of_every_dtype)
{
    double x[3][2] = { { 1, 0 }, { 0.5, -2 }, { 0, 1 } };
    float f4[3][2];
    int64_t i8[3][2];
    int16_t i2[3][2];
    double f8[3][2];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 2; j++) f4[i][j] = (float)x[i][j], f8[i][j] = x[i][j], i8[i][j] = (int64_t)(x[i][j] * 2),
                                    i2[i][j] = (int16_t)(x[i][j] * 2);
    struct { const char *dtype; const void *data; size_t n; double scale; } cases[] = {
        { "<f8", f8, sizeof f8, 1 }, { "<f4", f4, sizeof f4, 1 }, { "<i8", i8, sizeof i8, 2 }, { "<i2", i2, sizeof i2, 2 },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        attnlab_error err;
        attnlab *a = open_with(cases[c].dtype, cases[c].data, cases[c].n, &err);
        ck_assert_msg(a != NULL, "%s: %s", cases[c].dtype, err.text);
        ck_assert_int_eq(err.kind, ATTNLAB_OK);
        ck_assert_str_eq(attnlab_title(a), "From memory");
        ck_assert_int_eq(attnlab_stage_count(a), 2);
        ck_assert_str_eq(attnlab_stage_id(a, 1), "softmax");
        ck_assert_str_eq(attnlab_stage_id(a, 2), "scaled_scores");
        ck_assert_ptr_null(attnlab_stage_id(a, 3));
        int rows, cols;
        double *w;
        ck_assert_int_eq(attnlab_matrix(a, 1, "weights", &rows, &cols, &w, &err), 0);
        ck_assert_int_eq(rows, 3);
        ck_assert_int_eq(cols, 3);
        double xs[3][2], ws[3][3];
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < 2; j++) xs[i][j] = cases[c].scale == 1 ? x[i][j] : (double)(int64_t)(x[i][j] * 2);
        weights_of(xs, ws);
        for (int i = 0; i < 9; i++)
            ck_assert_msg(fabs(w[i] - ws[i / 3][i % 3]) < 1e-7, "%s: weight %d is %.9f, not %.9f", cases[c].dtype, i, w[i],
                          ws[i / 3][i % 3]);
        attnlab_free(w);
        char *json;
        size_t n;
        ck_assert_int_eq(attnlab_dump(a, "1", &json, &n, &err), 0);
        ck_assert_uint_eq(strlen(json), n);
        ck_assert_ptr_nonnull(strstr(json, "\"row_labels\": [\"the\", \"cat\", \"s\xc3\xa4t\"]"));
        ck_assert_ptr_null(strstr(json, "\"index\": 2"));
        attnlab_free(json);
        attnlab_close(a);
    }
}
END_TEST

/* Pages and pictures: a PNG whose size is the canvas's, SVG text, page
** names as --export gives them, and the arithmetic of a weight. */
START_TEST(test_pages_pictures_and_arithmetic)
{
    double x[3][2] = { { 1, 0 }, { 0.5, 0.5 }, { 0, 1 } };
    attnlab_error err;
    attnlab *a = open_with("<f8", x, sizeof x, &err);
    ck_assert_msg(a != NULL, "%s", err.text);
    ck_assert_int_eq(attnlab_page_count(a, 1, &err), 1);
    char *name = attnlab_page_name(a, 1, 1, &err);
    ck_assert_str_eq(name, "");
    attnlab_free(name);
    unsigned char *png;
    size_t n;
    attnlab_render_opts o;
    attnlab_render_defaults(&o);
    ck_assert_int_eq(o.width, 1280);
    ck_assert_int_eq(o.height, 720);
    o.width = 640;
    o.height = 400;
    ck_assert_int_eq(attnlab_render(a, 1, 1, &o, &png, &n, &err), 0);
    ck_assert_uint_gt(n, 1000);
    ck_assert_mem_eq(png, "\x89PNG\r\n\x1a\n", 8);
    unsigned w = (unsigned)png[16] << 24 | (unsigned)png[17] << 16 | (unsigned)png[18] << 8 | png[19];
    unsigned h = (unsigned)png[20] << 24 | (unsigned)png[21] << 16 | (unsigned)png[22] << 8 | png[23];
    ck_assert_uint_eq(w, 640);
    ck_assert_uint_eq(h, 400);
    attnlab_free(png);
    o.svg = 1;
    o.dark = 1;
    o.cmap = "magma";
    unsigned char *svg;
    ck_assert_int_eq(attnlab_render(a, 1, 1, &o, &svg, &n, &err), 0);
    ck_assert_ptr_nonnull(strstr((char *)svg, "<svg"));
    ck_assert_ptr_nonnull(strstr((char *)svg, "From memory"));
    attnlab_free(svg);
    char *why = attnlab_explain(a, 1, "weights", 2, 1, &err);
    ck_assert_msg(why != NULL, "%s", err.text);
    ck_assert_ptr_nonnull(strstr(why, "= 1 / 3 = 0.3333"));
    attnlab_free(why);
    attnlab_close(a);
    attnlab_close(NULL);
}
END_TEST

/* What open refuses, each with the program's line, a kind and no exit:
** a lesson error at its place, an array of a dtype no .npy holds, data
** of the wrong length, a key not given, a NaN. */
START_TEST(test_refusals_are_values)
{
    double x[3][2] = { { 1, 0 }, { 0.5, 0.5 }, { 0, 1 } };
    attnlab_error err;
    const char *bad = "title: t\n[setup]\ntokens: a\nX =\n  1\n[sofmax]\n";
    ck_assert_ptr_null(attnlab_open(bad, strlen(bad), "t.lesson", NULL, 0, &err));
    ck_assert_int_eq(err.kind, ATTNLAB_INVALID);
    ck_assert_str_eq(err.file, "t.lesson");
    ck_assert_int_eq(err.line, 6);
    ck_assert_msg(strncmp(err.text, "t.lesson:6:", 11) == 0 && strstr(err.text, ": error: "), "%s", err.text);

    ck_assert_ptr_null(open_with("<c16", x, sizeof x, &err));
    ck_assert_int_eq(err.kind, ATTNLAB_INVALID);
    ck_assert_msg(strstr(err.text, "<stdin>:4:") && strstr(err.text, "c16"), "%s", err.text);

    ck_assert_ptr_null(open_with("<f8", NULL, sizeof x, &err));
    ck_assert_msg(strstr(err.text, "no data for 48 bytes"), "%s", err.text);

    ck_assert_ptr_null(open_with("<f8", x, sizeof x - 8, &err));
    ck_assert_msg(strstr(err.text, "the data is 40 bytes, but dtype '<f8' and the shape make 48"), "%s", err.text);

    double nan[3][2] = { { 1, 0 }, { NAN, 0.5 }, { 0, 1 } };
    ck_assert_ptr_null(open_with("<f8", nan, sizeof nan, &err));
    ck_assert_msg(strstr(err.text, "NaN"), "%s", err.text);

    static const int64_t xs[2] = { 3, 2 };
    attnlab_array only_x[1] = { { "arrays.npz", "s1_X", "<f8", 2, xs, x, sizeof x } };
    ck_assert_ptr_null(attnlab_open(LESSON, strlen(LESSON), "-", only_x, 1, &err));
    ck_assert_msg(strstr(err.text, "<stdin>:3:") && strstr(err.text, "s1_tokens is not among the arrays given"), "%s",
                  err.text);

    attnlab *a = open_with("<f8", x, sizeof x, &err);
    ck_assert_ptr_nonnull(a);
    unsigned char *out;
    size_t n;
    ck_assert_int_eq(attnlab_render(a, 1, 2, NULL, &out, &n, &err), -1);
    ck_assert_str_eq(err.text, "attnlab: error: attnlab_render: stage 1 has 1 page; page 2 is not one");
    ck_assert_ptr_null(out);
    ck_assert_int_eq(attnlab_render(a, 3, 1, NULL, &out, &n, &err), -1);
    ck_assert_str_eq(err.message, "attnlab_render: the lesson has no stage 3");
    attnlab_render_opts o;
    attnlab_render_defaults(&o);
    o.cmap = "rainbow";
    ck_assert_int_eq(attnlab_render(a, 1, 1, &o, &out, &n, &err), -1);
    ck_assert_str_eq(err.message, "attnlab_render: no colormap called 'rainbow'");
    o.cmap = NULL;
    o.width = 100000;
    ck_assert_int_eq(attnlab_render(a, 1, 1, &o, &out, &n, &err), -1);
    ck_assert_int_eq(err.kind, ATTNLAB_LIMIT);
    int r, c;
    double *m;
    ck_assert_int_eq(attnlab_matrix(a, 1, "no_such", &r, &c, &m, &err), -1);
    ck_assert_str_eq(err.message, "attnlab_matrix: stage 1's setup has no matrix called 'no_such'");
    ck_assert_ptr_null(attnlab_explain(a, 1, "weights", 4, 1, &err));
    ck_assert_str_eq(err.message, "attnlab_explain: weights is 3x3; it has no cell (4, 1)");
    char *json;
    ck_assert_int_eq(attnlab_dump(a, "7", &json, &n, &err), -1);
    ck_assert_str_eq(err.text, "<stdin>: error: --stage 7: the lesson has 2 stages");
    attnlab_close(a);
}
END_TEST

/*
** A setup of more scores than the trace keeps (5 heads × 1000 × 1000 > 2^22):
** a head's masked scores are made again when asked for, after its weights
** (kept) were read; each row of weights is the softmax of that row of
** masked scores, the masked ones −∞; the biased scores are the scaled ones
** plus ALiBi's bias; asking again gives the very same matrix.
*/
START_TEST(test_scores_made_again)
{
    enum { N = 1000, H = 5 };
    size_t cap = 16 * N + 512, len = 0;
    char *text = malloc(cap);
    len += (size_t)snprintf(text + len, cap - len, "title: Many scores\n[setup]\nseed: 3\ntokens:");
    for (int i = 0; i < N; i++) len += (size_t)snprintf(text + len, cap - len, " w%d", i);
    len += (size_t)snprintf(text + len, cap - len, "\nX = randn %dx10\nW_q = randn 10x10 * 0.5\nW_k = randn 10x10 * 0.5\n"
                            "W_v = randn 10x10\nheads: %d\nmask: causal\npositions: alibi\n[multi_head]\n[alibi]\n", N, H);
    attnlab_error err;
    attnlab *a = attnlab_open(text, len, "many.lesson", NULL, 0, &err);
    free(text);
    ck_assert_msg(a != NULL, "%s", err.text);
    int r, c, r2, c2;
    double *w, *m, *m2, *sc, *b, *al;
    ck_assert_int_eq(attnlab_matrix(a, 1, "head3.weights", &r, &c, &w, &err), 0);
    ck_assert_int_eq(attnlab_matrix(a, 2, "head3.masked_scores", &r2, &c2, &m, &err), 0);
    ck_assert(r == N && c == N && r2 == N && c2 == N);
    for (int i = 0; i < N; i += 37) {
        double top = -INFINITY, z = 0;
        for (int j = 0; j <= i; j++) top = fmax(top, m[i * N + j]);
        for (int j = 0; j <= i; j++) z += exp(m[i * N + j] - top);
        for (int j = 0; j < N; j++) {
            if (j > i) {
                ck_assert(isinf(m[i * N + j]) && m[i * N + j] < 0);
                ck_assert(w[i * N + j] == 0);
            } else {
                ck_assert_double_eq_tol(w[i * N + j], exp(m[i * N + j] - top) / z, 1e-12);
            }
        }
    }
    ck_assert_int_eq(attnlab_matrix(a, 2, "head3.scaled_scores", &r, &c, &sc, &err), 0);
    ck_assert_int_eq(attnlab_matrix(a, 2, "head3.biased_scores", &r, &c, &b, &err), 0);
    ck_assert_int_eq(attnlab_matrix(a, 2, "head3.alibi", &r, &c, &al, &err), 0);
    for (int i = 0; i < N * N; i += 997) ck_assert(b[i] == sc[i] + al[i]);
    ck_assert_int_eq(attnlab_matrix(a, 2, "head3.masked_scores", &r, &c, &m2, &err), 0);
    ck_assert_mem_eq(m, m2, sizeof(double) * N * N);
    /* asked again and again, a head's scores are made once: the same matrix each time */
    double *again;
    for (int k = 0; k < 3; k++) {
        ck_assert_int_eq(attnlab_matrix(a, 2, "head3.raw_scores", &r, &c, &again, &err), 0);
        attnlab_free(again);
    }
    attnlab_free(w);
    attnlab_free(m);
    attnlab_free(m2);
    attnlab_free(sc);
    attnlab_free(b);
    attnlab_free(al);
    attnlab_close(a);
}
END_TEST

/* Check that two lessons dump the same JSON, every stage. */
static void same_dumps(attnlab *a, attnlab *b)
{
    char *ja, *jb;
    size_t na, nb;
    ck_assert_int_eq(attnlab_dump(a, NULL, &ja, &na, &err_none), 0);
    ck_assert_int_eq(attnlab_dump(b, NULL, &jb, &nb, &err_none), 0);
    ck_assert_str_eq(ja, jb);
    attnlab_free(ja);
    attnlab_free(jb);
}

/* attnlab_open_lending: a float32 weight is read where it lies (the same
** lesson, bit for bit, as with a copy; a number changed in the caller's
** memory is the number the lesson shows, where a copy keeps the old one);
** an array that is not a finite float32 matrix is copied, so a NaN is
** refused with attnlab_open's own line. */
START_TEST(test_float32_matrices_lent)
{
    static const char *text = "title: Lent\n[setup]\ntokens: a b c\nX = load \"w.npz\" X\n"
                              "W_q = load \"w.npz\" W\nqueries: X @ W_q\nkeys: X\nvalues: X\n[softmax]\n";
    static const int64_t xs[2] = { 3, 2 }, ws[2] = { 2, 2 };
    double x[3][2] = { { 1, 0 }, { 0.5, -2 }, { 0, 1 } };
    float w[2][2] = { { 0.25f, -1.5f }, { 2, 0.125f } };
    attnlab_array arrays[2] = { { "w.npz", "X", "<f8", 2, xs, x, sizeof x }, { "w.npz", "W", "<f4", 2, ws, w, sizeof w } };
    attnlab_error err;
    attnlab *lent = attnlab_open_lending(text, strlen(text), "-", arrays, 2, &err);
    ck_assert_msg(lent != NULL, "%s", err.text);
    attnlab *copied = attnlab_open(text, strlen(text), "-", arrays, 2, &err);
    ck_assert_msg(copied != NULL, "%s", err.text);
    same_dumps(lent, copied);
    w[1][0] = 3;
    int r, c;
    double *seen, *kept;
    ck_assert_int_eq(attnlab_matrix(lent, 1, "W_q", &r, &c, &seen, &err), 0);
    ck_assert_int_eq(attnlab_matrix(copied, 1, "W_q", &r, &c, &kept, &err), 0);
    ck_assert(r == 2 && c == 2 && seen[0] == 0.25 && seen[2] == 3 && kept[2] == 2);
    attnlab_free(seen);
    attnlab_free(kept);
    attnlab_close(lent);
    attnlab_close(copied);
    w[1][0] = NAN;
    attnlab_error e1, e2;
    ck_assert_ptr_null(attnlab_open_lending(text, strlen(text), "-", arrays, 2, &e1));
    ck_assert_ptr_null(attnlab_open(text, strlen(text), "-", arrays, 2, &e2));
    ck_assert_int_eq(e1.kind, ATTNLAB_INVALID);
    ck_assert_str_eq(e1.text, e2.text);
}
END_TEST

/* A lent matrix loads by the rules a copy does, not a model's: a row
** picked out of it, and the limits a wide one meets in the setups after
** it. */
START_TEST(test_lent_matrices_load_as_copies)
{
    static const int64_t xs[2] = { 3, 2 }, us[2] = { 2, 5000 };
    static double x[3][2] = { { 1, 0 }, { 0.5, -2 }, { 0, 1 } };
    float *u = malloc(sizeof *u * 2 * 5000);
    for (int i = 0; i < 2 * 5000; i++) u[i] = (float)(i % 7) * 0.25f;
    float pick[3][2] = { { 1, 2 }, { 3, 4 }, { 5, 6 } };
    attnlab_array arrays[3] = { { "w.npz", "X", "<f8", 2, xs, x, sizeof x }, { "w.npz", "U", "<f4", 2, us, u, 2 * 5000 * 4 },
                                { "w.npz", "P", "<f4", 2, xs, pick, sizeof pick } };
    const char *texts[] = {
        "title: Picked\n[setup]\ntokens: a b c\nX = load \"w.npz\" X\nR = load \"w.npz\" P layer 2\n"
        "queries: X\nkeys: X\nvalues: X\n[softmax]\n",
        "title: Wide\n[setup]\ntokens: a b c\nX = load \"w.npz\" X\nW_U = load \"w.npz\" U\nqueries: X\nkeys: X\n"
        "values: X\nunembed: W_U\n[next_token]\n[setup]\nunembed: none\n[softmax]\n",
    };
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        attnlab_error e1, e2;
        attnlab *lent = attnlab_open_lending(texts[t], strlen(texts[t]), "-", arrays, 3, &e1);
        attnlab *copied = attnlab_open(texts[t], strlen(texts[t]), "-", arrays, 3, &e2);
        ck_assert_msg((lent != NULL) == (copied != NULL), "lesson %zu: lent %s, copied %s", t, lent ? "opens" : e1.text,
                      copied ? "opens" : e2.text);
        if (!copied) ck_assert_str_eq(e1.text, e2.text);
        else same_dumps(lent, copied);
        ck_assert_msg(t != 1 || !copied, "a wide matrix the second setup does not use as its unembedding is refused");
        attnlab_close(lent);
        attnlab_close(copied);
    }
    free(u);
}
END_TEST

Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("public");
    tcase_add_test(tc, test_open_arrays_of_every_dtype);
    tcase_add_test(tc, test_pages_pictures_and_arithmetic);
    tcase_add_test(tc, test_refusals_are_values);
    tcase_add_test(tc, test_scores_made_again);
    tcase_add_test(tc, test_float32_matrices_lent);
    tcase_add_test(tc, test_lent_matrices_load_as_copies);
    suite_add_tcase(s, tc);
    return s;
}
