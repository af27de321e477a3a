/*
** test_lesson.c: the lesson parser. Every error class gets its exact
** message and position; valid lessons check what the parser built.
*/
#include "suites.h"
#include "core/lesson/lesson.h"
#include "core/compute/trace.h"

#include <dirent.h>
#include <stdio.h>

#include <stdlib.h>
#include <string.h>
#include <math.h>

#define BASE "title: T\n[setup]\ntokens: a b\nX =\n  1 2\n  3 4\n"

/* Parse text; the lesson or NULL, with err filled. */
static Lesson *parse(const char *text, Error *err)
{
    return lesson_parse(text, strlen(text), "t.lesson", err);
}

/* Parse text that must fail, and compare the message (a prefix when the
** expected text ends in "..."). */
static void expect_error(const char *text, size_t len, const char *want)
{
    Error err;
    Lesson *L = lesson_parse(text, len, "t.lesson", &err);
    if (L) {
        lesson_free(L);
        ck_abort_msg("expected error \"%s\" but the lesson parsed", want);
    }
    size_t n = strlen(want);
    if (n > 3 && !strcmp(want + n - 3, "..."))
        ck_assert_msg(!strncmp(eline(&err), want, n - 3), "got  \"%s\"\nwant \"%s\"", eline(&err), want);
    else
        ck_assert_msg(!strcmp(eline(&err), want), "got  \"%s\"\nwant \"%s\"", eline(&err), want);
}

/* Same, for NUL-free text. */
static void expect(const char *text, const char *want)
{
    expect_error(text, strlen(text), want);
}

/* A lesson's text and the one error it must give. */
typedef struct {
    const char *text, *want;
} Case;

/* expect() for each of n cases; EXPECT_EACH counts a table. */
static void expect_each(const Case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) expect(c[i].text, c[i].want);
}
#define EXPECT_EACH(cases) expect_each(cases, sizeof cases / sizeof *cases)

/* Parse text that must load; the lesson. */
static Lesson *parse_ok(const char *text)
{
    Error err;
    Lesson *L = parse(text, &err);
    ck_assert_msg(L != NULL, "%s", eline(&err));
    return L;
}

/* Assert that L is titled T and has one setup and one stage. */
static void one_setup_one_stage(const Lesson *L)
{
    ck_assert_str_eq(L->title, "T");
    ck_assert_int_eq(L->nsetups, 1);
    ck_assert_int_eq(L->nstages, 1);
}

START_TEST(test_minimal_lesson)
{
    Lesson *L = parse_ok(BASE "[softmax]\n");
    one_setup_one_stage(L);
    ck_assert_int_eq(L->stages[0].id, STAGE_SOFTMAX);
    const Setup *s = &L->setups[0];
    ck_assert_int_eq(s->nq, 2);
    ck_assert_str_eq(s->queries.input, "X");       /* default: Q = K = V = X */
    ck_assert_ptr_null(s->queries.weight);
    ck_assert_int_eq(s->heads, 1);
    ck_assert_int_eq(s->score, SCORE_SCALED_DOT);
    ck_assert_double_eq(mat_get(lesson_matrix(s, "X")->m, 1, 0), 3);
    lesson_free(L);
}
END_TEST

START_TEST(test_prose_options_and_comments)
{
    const char *text =
        "# a comment\n"
        "title: Tokens and \"quotes\"\n"
        "summary: one\n  two\n"
        "[setup: First]\n"
        "seed: 42   # trailing comment\n"
        "tokens: \"New York\" is big\n"
        "X = randn 3x2 * sqrt(2/(64+16))\n"
        "W = identity 2\n"
        "queries: X @ W\n"
        "[softmax: Weights]\n"
        "cmap: magma\n"
        "decimals: 3\n"
        "\n"
        "First paragraph,\n"
        "still first. Note: a colon is fine in prose # and so is this.\n"
        "\n"
        "Second.\n";
    Lesson *L = parse_ok(text);
    ck_assert_str_eq(L->summary, "one two");
    ck_assert_str_eq(L->setups[0].title, "First");
    ck_assert_str_eq(L->setups[0].qtokens[0], "New York");
    ck_assert_int_eq(L->setups[0].nq, 3);
    const Stage *st = &L->stages[0];
    ck_assert_str_eq(st->title, "Weights");
    ck_assert_str_eq(st->cmap, "magma");
    ck_assert_int_eq(st->decimals, 3);
    ck_assert_int_eq(st->npara, 2);
    ck_assert_str_eq(st->paras[0], "First paragraph, still first. Note: a colon is fine in prose # and so is this.");
    ck_assert_str_eq(st->paras[1], "Second.");
    /* randn * sqrt(2/80) is numpy's randn(3, 2) * np.sqrt(2.0 / 80) */
    ck_assert_double_eq_tol(mat_get(lesson_matrix(&L->setups[0], "X")->m, 0, 0),
                            0.4967141530112327 * 0.15811388300841897, 1e-17);
    lesson_free(L);
}
END_TEST

START_TEST(test_setups_inherit_and_draws_continue)
{
    const char *text = "title: T\n[setup]\nseed: 42\ntokens: a b\nX = randn 2x2\n[softmax]\n"
                       "[setup]\nheads: 2\nY = randn 1x1\n[multi_head]\n"
                       "[setup]\nseed: 42\nY = randn 1x1\n[softmax]\n";
    Lesson *L = parse_ok(text);
    ck_assert_int_eq(L->nsetups, 3);
    ck_assert_int_eq(L->setups[1].heads, 2);
    ck_assert_int_eq(L->setups[2].heads, 2);           /* inherited */
    ck_assert_int_eq(L->stages[1].setup, 1);
    /* the fifth draw after seed 42, then the first draw after reseeding */
    ck_assert_double_eq(lesson_matrix(&L->setups[1], "Y")->m->data[0], -0.23415337472333597);
    ck_assert_double_eq(lesson_matrix(&L->setups[2], "Y")->m->data[0], 0.4967141530112327);
    ck_assert_double_eq(lesson_matrix(&L->setups[2], "X")->m->data[3], 1.5230298564080254);
    lesson_free(L);
}
END_TEST

START_TEST(test_crlf_and_bom_accepted)
{
    const char *text = "\xef\xbb\xbftitle: T\r\n[setup]\r\ntokens: a\r\nX =\r\n  1\r\n[softmax]\r\n";
    Lesson *L = parse_ok(text);
    ck_assert_str_eq(L->title, "T");
    lesson_free(L);
}
END_TEST

START_TEST(test_generators)
{
    const char *text = "title: T\n[setup]\nseed: 1\ntokens: a b\n"
                       "X = onehot 2x3\nZ = zeros 2x2\nO = ones 1x2\nI = identity 3\n"
                       "R = randint 5 10 2x2\nS = sinusoid 2x3 freq 0.5\nT = randn 2x2x3\nU = rand 1x3\n"
                       "[softmax]\n";
    Lesson *L = parse_ok(text);
    const Setup *s = &L->setups[0];
    ck_assert_double_eq(mat_get(lesson_matrix(s, "X")->m, 1, 1), 1);
    ck_assert_double_eq(mat_get(lesson_matrix(s, "X")->m, 1, 2), 0);
    ck_assert_double_eq(mat_get(lesson_matrix(s, "O")->m, 0, 1), 1);
    ck_assert_double_eq(mat_get(lesson_matrix(s, "I")->m, 2, 2), 1);
    const Mat *R = lesson_matrix(s, "R")->m;
    for (int k = 0; k < 4; k++) ck_assert(R->data[k] >= 5 && R->data[k] < 10);
    ck_assert_double_eq_tol(mat_get(lesson_matrix(s, "S")->m, 1, 2), sin(2 * 2 * 0.5), 1e-15);
    ck_assert_int_eq(lesson_matrix(s, "T")->stack, 2);
    ck_assert_int_eq(lesson_matrix(s, "T")->m->cols, 6);
    for (int k = 0; k < 3; k++) ck_assert(lesson_matrix(s, "U")->m->data[k] < 1.0);
    lesson_free(L);
}
END_TEST

START_TEST(test_errors_keys_and_sections)
{
    static const Case cases[] = {
        { "title: T\n[setup]\ntokenz: a b\n",
          "t.lesson:3:1: error: unknown setting 'tokenz' in [setup]; expected one of: seed, tokens, ..." },
        { "title: T\ntokens: a\n",
          "t.lesson:2:1: error: 'tokens' belongs in a [setup] section; add '[setup]' above it" },
        { "title: T\ncolour: red\n",
          "t.lesson:2:1: error: unknown key 'colour' at the top of the lesson; expected title, summary or language" },
        { BASE "[softmx]\n",
          "t.lesson:7:2: error: unknown section 'softmx'; expected one of: setup, embeddings, ..." },
        { BASE "[softmax]\ncmpa: viridis\n",
          "t.lesson:8:1: error: unknown stage option 'cmpa'; expected one of: cmap, decimals, head, query, scale, block, indices, top, show, a, b ..." },
        { BASE "[softmax]\ncmap: rainbow\n",
          "t.lesson:8:7: error: unknown colormap 'rainbow'; expected viridis, cividis, plasma, magma, YlOrRd, Blues or RdBu" },
        { "title: T\n[softmax]\n",
          "t.lesson:2:2: error: stage softmax comes before any [setup]: the stage needs a setup above it" },
        { BASE "[softmax\n",
          "t.lesson:7:1: error: expected ']' to close the section header" },
        { BASE "score: cosine\n",
          "t.lesson:7:8: error: expected score to be scaled_dot, dot or additive, found 'cosine'" },
        { BASE "mask: triangle\n",
          "t.lesson:7:7: error: expected mask to be none, causal, allow NAME or block NAME (parts combine: causal sliding W prefix P padding TOKEN), found 'triangle'" },
        { BASE "mask: allow M\n",
          "t.lesson:7:13: error: no matrix called M is defined above" },
    };
    EXPECT_EACH(cases);
}
END_TEST

/* Two setups of four tokens (the second at temperature 0.5), and a setup
** of three: what compare stages are checked against. */
#define TWO_SETUPS "title: T\n[setup: Warm]\nseed: 1\ntokens: a b c d\nX = randn 4x4\nW_q = randn 4x4\n" \
                   "W_k = randn 4x4\nqueries: X @ W_q\nkeys: X @ W_k\nvalues: X\nheads: 2\n" \
                   "[setup: Cold]\ntemperature: 0.5\n"

/* The compare stage: its options, the setups it names, and what both must
** compute alike; each message points at the line that can fix it. */
START_TEST(test_errors_compare)
{
    static const Case cases[] = {
        { TWO_SETUPS "[compare]\nshow: scores\n",
          "t.lesson:15:7: error: expected show to be weights, output or next_token, found 'scores'" },
        { TWO_SETUPS "[compare]\na: 3\n",
          "t.lesson:15:4: error: a: names setup 3, but the lesson has 2 setups above this stage" },
        { TWO_SETUPS "[compare]\nb: Hot\n",
          "t.lesson:15:4: error: no setup above this stage is called 'Hot'; name one by its number (1 to 2) or by its title" },
        { TWO_SETUPS "[compare]\na: 0\n",
          "t.lesson:15:4: error: a setup must be between 1 and 16, found 0" },
        { TWO_SETUPS "[compare]\na:\n",
          "t.lesson:15:3: error: expected a setup after 'a:': its number (1 to 2) or its title" },
        { TWO_SETUPS "[softmax]\nshow: weights\n",
          "t.lesson:15:1: error: 'show:' is an option of compare stages; this stage is softmax" },
        { TWO_SETUPS "[compare]\nhead: 1\nhead: 2\n",
          "t.lesson:16:1: error: 'head' is set twice in this stage (first on line 15)" },
        { TWO_SETUPS "[compare]\n",
          "t.lesson:14:2: error: stage compare shows one head's weights, but setup 1 has 2 heads: add 'head: H'" },
        { TWO_SETUPS "[compare]\nhead: 2\na: Cold\n",
          "t.lesson:16:1: error: stage compare has setup 2 as both A and B: compare two different setups" },
        { TWO_SETUPS "[compare]\nhead: 2\nshow: next_token\nb: Warm\na: Cold\n",
          "t.lesson:18:1: error: stage compare shows the next token, but setup 2 has no 'unembed:' and 'vocab:'" },
        { "title: T\n[setup: Only]\ntokens: a b\nX = ones 2x2\n[compare]\n",
          "t.lesson:5:2: error: stage compare compares setup 1 with the one above it, but it is the first: add 'a: N' "
          "(a setup by its number or title)" },
        { TWO_SETUPS "[setup: Short]\ntokens: a b c\nX = randn 3x4\n[compare]\nhead: 1\na: Warm\n",
          "t.lesson:19:1: error: stage compare: A (setup 1) gives weights of 4x4 but B (setup 3) gives 3x3; compare "
          "setups whose weights have the same shape" },
        { TWO_SETUPS "[setup: Wide]\nW_v = randn 4x6\nvalues: X @ W_v\n[compare]\nshow: output\n",
          "t.lesson:17:2: error: stage compare: A (setup 2) gives outputs of 4x4 but B (setup 3) gives 4x6; compare "
          "setups whose outputs have the same shape" },
        { TWO_SETUPS "[setup: Words]\nW_U = randn 4x2\nunembed: W_U\nvocab: yes no\n[next_token]\n"
          "[setup: Other words]\nvocab: yes maybe\n[compare]\nshow: next_token\n",
          "t.lesson:21:2: error: stage compare: A (setup 3) and B (setup 4) have different words: word 2 is 'no' in A "
          "and 'maybe' in B" },
    };
    EXPECT_EACH(cases);
}
END_TEST

START_TEST(test_errors_duplicates_and_missing)
{
    static const Case cases[] = {
        { BASE "X = zeros 2x2\n",
          "t.lesson:7:1: error: X is defined twice in this setup (first on line 4)" },
        { BASE "tokens: a b\n",
          "t.lesson:7:1: error: 'tokens' is set twice in this setup (first on line 3)" },
        { "title: A\ntitle: B\n",
          "t.lesson:2:1: error: 'title' is set twice (first on line 1)" },
        { "",
          "t.lesson:1:1: error: the lesson has no title: add 'title: ...' at the top" },
        { "# only a comment\n\n",
          "t.lesson:1:1: error: the lesson has no title: add 'title: ...' at the top" },
        { "title: T\n",
          "t.lesson:1:1: error: the lesson has no [setup] section" },
        { BASE,
          "t.lesson:1:1: error: the lesson has no stages: add a section such as [softmax]" },
        { "title: T\n[setup]\nX =\n  1\n[softmax]\n",
          "t.lesson:2:1: error: this setup has no tokens: add 'tokens: ...' (or query_tokens and key_tokens)" },
        { "title: T\n[setup]\ntokens: a\n[softmax]\n",
          "t.lesson:2:1: error: this setup does not say where queries come from: add 'queries: X' (or define a matrix X)" },
        { "title: T\n[setup]\ntokens: a\nX =\n[softmax]\n",
          "t.lesson:4:1: error: X has no rows: write them on the following lines, indented" },
    };
    EXPECT_EACH(cases);
}
END_TEST

/* The typographic minus is a sign wherever '-' is one, in an exponent too,
** in written-out rows and in expressions. */
START_TEST(test_typographic_minus)
{
    Lesson *L = parse_ok("title: T\n[setup]\ntokens: a b\nX =\n  \xe2\x88\x92" "1e\xe2\x88\x92" "3 2E\xe2\x88\x92" "1\n"
                      "  3 \xe2\x88\x92" "4.5e+1\ntemperature: 2e\xe2\x88\x92" "1 * 5\n[softmax]\n");
    const Mat *X = lesson_matrix(&L->setups[0], "X")->m;
    ck_assert_double_eq(mat_get(X, 0, 0), -1e-3);
    ck_assert_double_eq(mat_get(X, 0, 1), 2e-1);
    ck_assert_double_eq(mat_get(X, 1, 1), -45.0);
    ck_assert_double_eq(L->setups[0].temperature, 1.0);
    lesson_free(L);
    expect(BASE "Y =\n  1 2e\xe2\x88\x92\n", "t.lesson:8:6: error: expected digits after the exponent 'e'");
}
END_TEST

START_TEST(test_errors_numbers)
{
    static const Case cases[] = {
        { BASE "Y =\n  1 x\n",
          "t.lesson:8:5: error: expected a number, found 'x'" },
        { BASE "Y =\n  1 nan\n",
          "t.lesson:8:5: error: expected a finite number, found 'nan' (NaN and infinity are not allowed)" },
        { BASE "Y =\n  -inf 1\n",
          "t.lesson:8:3: error: expected a finite number, found '-inf' (NaN and infinity are not allowed)" },
        { BASE "Y =\n  1e999 1\n",
          "t.lesson:8:3: error: number 1e999 is too large for a double (it would be infinite)" },
        { BASE "Y =\n  1 2\n  3\n",
          "t.lesson:9:3: error: row 2 of Y has 1 numbers, but row 1 has 2" },
        { BASE "Y =\n  1 2e\n",
          "t.lesson:8:6: error: expected digits after the exponent 'e'" },
        { BASE "temperature: 0\n",
          "t.lesson:7:14: error: temperature must be greater than 0, found 0" },
        { BASE "divisor: 1/0\n",
          "t.lesson:7:11: error: division by zero" },
        { BASE "seed: 4294967296\n",
          "t.lesson:7:7: error: the seed must be between 0 and 4294967295, found 4294967296" },
        { BASE "seed: -1\n",
          "t.lesson:7:7: error: the seed must be between 0 and 4294967295, found -1" },
        { BASE "Y = randn 2x2\n",
          "t.lesson:7:5: error: randn needs a seed: add 'seed: N' to the setup before this line" },
    };
    EXPECT_EACH(cases);
}
END_TEST

START_TEST(test_errors_shapes)
{
    static const Case cases[] = {
        { "title: T\n[setup]\ntokens: a b c\nX =\n  1 2\n  3 4\n[softmax]\n",
          "t.lesson:2:1: error: queries come from X, which has 2 rows, but there are 3 tokens" },
        { BASE "W = zeros 3x2\nqueries: X @ W\n[softmax]\n",
          "t.lesson:8:10: error: cannot compute X @ W: X has 2 columns but W has 3 rows" },
        { BASE "W = zeros 2x3\nqueries: X @ W\n[softmax]\n",
          "t.lesson:8:10: error: queries are 3 wide but keys are 2 wide: they must match to take dot products" },
        { BASE "heads: 3\n[softmax]\n",
          "t.lesson:2:1: error: 3 heads do not divide the width of the queries (2) and values (2)" },
        { BASE "[multi_head]\n",
          "t.lesson:7:2: error: stage multi_head needs 'heads:' of 2 or more in its setup, found 1" },
        { BASE "[causal_mask]\n",
          "t.lesson:7:2: error: stage causal_mask needs a mask in its setup: add 'mask: causal' (or allow/block NAME)" },
        { BASE "[per_token]\nquery: 3\n",
          "t.lesson:7:2: error: stage per_token asks for query 3 but there are 2" },
        { BASE "M =\n  1 0\n  2 1\nmask: allow M\n[softmax]\n",
          "t.lesson:7:1: error: mask M may hold only 0 and 1, found 2" },
        { BASE "X2 = onehot 3x2\n",
          "t.lesson:7:13: error: onehot 3x2 needs at least as many columns as rows" },
        { BASE "W = randn 3x4x2\n",
          "t.lesson:7:5: error: randn needs a seed: add 'seed: N' to the setup before this line" },
        { BASE "seed: 1\nW = randn 3x2x2\nqueries: X @ W\nkeys: X @ W\n[softmax]\n",
          "t.lesson:9:10: error: W is a stack of 3 matrices but the setup has 1 head" },
    };
    EXPECT_EACH(cases);
}
END_TEST

START_TEST(test_quoted_pad_token)
{
    /* the pad token is named as tokens are written: bare, or quoted when it
    ** holds a space or starts with # */
    Lesson *L = parse_ok("title: T\n[setup]\ntokens: a \"<p ad>\" \"#x\"\nX = ones 3x2\nmask: padding \"<p ad>\"\n[softmax]\n"
                      "[setup]\nmask: causal padding \"#x\" sliding 2\n[softmax]\n");
    ck_assert_str_eq(L->setups[0].pad_token, "<p ad>");
    ck_assert_str_eq(L->setups[1].pad_token, "#x");
    ck_assert_int_eq(L->setups[1].window, 2);
    lesson_free(L);
    expect("title: T\n[setup]\ntokens: a b\nX = ones 2x2\nmask: padding \"<p\n[softmax]\n",
           "t.lesson:5:15: error: unterminated quoted token");
}
END_TEST

START_TEST(test_limits_sizes)
{
    expect(BASE "seed: 1\nY = randn 2x1025\n", "t.lesson:8:11: error: size 2x1025 is over the limit of 1024 rows or columns");
    expect(BASE "heads: 17\n", "t.lesson:7:8: error: the number of heads must be between 1 and 16, found 17");
    expect(BASE "Z = zeros 0x3\n", "t.lesson:7:11: error: a size must be at least 1, found 0");
    /* 1025 tokens */
    char *text = malloc(4096);
    strcpy(text, "title: T\n[setup]\ntokens:");
    for (int i = 0; i < 1025; i++) strcat(text, " t");
    strcat(text, "\n");
    expect(text, "t.lesson:3:2057: error: too many tokens (the limit is 1024)");
    free(text);
    /* a line over 4096 bytes */
    char *longline = malloc(40000);
    memset(longline, 'a', 39999);
    memcpy(longline, "title: ", 7);
    longline[39999] = '\0';
    expect(longline, "t.lesson:1:32769: error: line is longer than 32768 bytes");
    free(longline);
}
END_TEST

START_TEST(test_limits_bytes)
{
    expect("title: T\xff\n", "t.lesson:1:9: error: invalid UTF-8 byte 0xff (save the file as UTF-8)");
    expect("title: caf\xc3\n", "t.lesson:1:11: error: invalid UTF-8 byte 0xc3 (save the file as UTF-8)");
    expect("title: \xed\xa0\x80\n", "t.lesson:1:8: error: invalid UTF-8 byte 0xed (save the file as UTF-8)");
    expect_error("title: T\n\0x", 11, "t.lesson:2:1: error: NUL byte in the file (is it a text file?)");
    expect("title: T\x01\n", "t.lesson:1:9: error: control character 0x01 in the file (is it a text file?)");
    char *big = malloc(LESSON_MAX_BYTES + 2);
    memset(big, '#', LESSON_MAX_BYTES + 1);
    big[LESSON_MAX_BYTES + 1] = '\0';
    expect(big, "t.lesson:1:1: error: file is 1048577 bytes, over the limit of 1048576 bytes");
    free(big);
}
END_TEST

START_TEST(test_limits_load_missing_file)
{
    Error err;
    ck_assert_ptr_null(lesson_load("no/such/file.lesson", &err));
    ck_assert_str_eq(eline(&err), "no/such/file.lesson: error: cannot open: No such file or directory");
    ck_assert_int_eq(err.line, 0);
}
END_TEST

START_TEST(test_limits_crlf_line_length)
{
    /* a line of exactly LESSON_MAX_LINE bytes is accepted with LF and with
    ** CRLF (the CR ends the line, it is not part of it); one byte more is
    ** refused with either ending, at the same column */
    const char *endings[] = { "\n", "\r\n" };
    for (int e = 0; e < 2; e++) {
        for (int extra = 0; extra < 2; extra++) {
            size_t n = LESSON_MAX_LINE + (size_t)extra;
            char *text = malloc(n + 200);
            strcpy(text, "title: T");
            strcat(text, endings[e]);
            size_t at = strlen(text);
            text[at] = '#';
            memset(text + at + 1, 'a', n - 1);
            strcpy(text + at + n, endings[e]);
            strcat(text, "[setup]\ntokens: a\nX =\n  1\n[softmax]\n");
            Error err;
            Lesson *L = parse(text, &err);
            if (extra == 0) {
                ck_assert_msg(L != NULL, "ending %d: %s", e, eline(&err));
            } else {
                ck_assert_ptr_null(L);
                ck_assert_str_eq(eline(&err), "t.lesson:2:32769: error: line is longer than 32768 bytes");
                ck_assert_int_eq(err.kind, ERR_LIMIT);
            }
            lesson_free(L);
            free(text);
        }
    }
}
END_TEST

START_TEST(test_limits_small_rules)
{
    /* -0 is a negative seed */
    expect(BASE "seed: -0\n", "t.lesson:7:7: error: the seed must be between 0 and 4294967295, found -0");
    /* a sinusoid has no scale: its overflow names what to change */
    expect(BASE "seed: 1\nS = sinusoid 8x8 freq 1 noise 1e308\n",
           "t.lesson:8:5: error: sinusoid gives numbers too large for a double (infinite); use a smaller noise");
    expect(BASE "S = sinusoid 2x3 freq 1e308\n",
           "t.lesson:7:5: error: sinusoid freq 1e+308 makes the angle (column-1)*row*freq too large for a double; use a smaller freq");
    /* a line whose first non-blank character is '[' starts a section,
    ** indented or not: here it does not continue the title */
    Lesson *L = parse_ok("title: T\n  [setup]\ntokens: a b\nX =\n  1 2\n  3 4\n [softmax]\n");
    one_setup_one_stage(L);
    lesson_free(L);
    expect("title: T\nsummary: S\n  [nonsense]\n", "t.lesson:3:4: error: unknown section 'nonsense'; expected one of: ...");
    /* and it ends a matrix's rows */
    L = parse_ok(BASE "Y =\n  1 2\n  [softmax]\n");
    ck_assert_int_eq(lesson_matrix(&L->setups[0], "Y")->m->rows, 1);
    ck_assert_int_eq(L->nstages, 1);
    lesson_free(L);
}
END_TEST

START_TEST(test_limits_error_kinds)
{
    /* one mapping from kind to exit status: 1 I/O, 2 invalid or over a limit */
    Error err;
    ck_assert_ptr_null(lesson_load("no/such/file.lesson", &err));
    ck_assert_int_eq(err.kind, ERR_IO);
    ck_assert_int_eq(error_exit_code(&err), 1);
    ck_assert_ptr_null(lesson_load("/tmp", &err));
    ck_assert_str_eq(eline(&err), "/tmp: error: cannot read: a directory, not a regular file");
    ck_assert_int_eq(error_exit_code(&err), 1);
    ck_assert_ptr_null(lesson_load("/dev/zero", &err));
    ck_assert_str_eq(eline(&err), "/dev/zero: error: cannot read: a character device, not a regular file");
    ck_assert_int_eq(error_exit_code(&err), 1);
    ck_assert_ptr_null(parse(BASE "Y = nope\n", &err));
    ck_assert_int_eq(err.kind, ERR_INVALID);
    ck_assert_int_eq(error_exit_code(&err), 2);
    /* errors from computing have a message and no kind: invalid input */
    Lesson *L = parse("title: T\n[setup]\ntokens: a\nX =\n  1e200\n[raw_scores]\n", &err);
    ck_assert_msg(L != NULL, "%s", eline(&err));
    ck_assert_ptr_null(attn_run(L, &err));
    ck_assert_int_eq(error_exit_code(&err), 2);
    lesson_free(L);
    memset(&err, 0, sizeof err);
    ck_assert_int_eq(error_exit_code(&err), 0);
}
END_TEST

/* Assert e's line, the text for the screen (brief; NULL: not looked at)
** and its exit code. */
static void error_is(const Error *e, const char *line, const char *brief, int code)
{
    ck_assert_str_eq(eline(e), line);
    if (brief) {
        char b[ERROR_LINE_MAX];
        error_brief(e, b, sizeof b);
        ck_assert_str_eq(b, brief);
    }
    ck_assert_int_eq(error_exit_code(e), code);
}

/* The three forms of an error line, the text for the screen, warnings,
** and the exit code of each kind. */
START_TEST(test_error_lines_and_codes)
{
    Error e;
    char b[ERROR_LINE_MAX];
    error_clear(&e);
    ck_assert_int_eq(error_exit_code(&e), 0);
    ck_assert(!error_set(&e, ERR_INVALID, "t.lesson", 6, 5, "expected a number, found '%s'", "x"));
    error_is(&e, "t.lesson:6:5: error: expected a number, found 'x'", "t.lesson:6:5: expected a number, found 'x'", 2);
    error_set(&e, ERR_IO, "out.png", 0, 0, "cannot write: %s", "File too large");
    error_is(&e, "out.png: error: cannot write: File too large", NULL, 1);
    error_set(&e, ERR_RUNTIME, NULL, 0, 0, "cannot open a window");
    error_is(&e, "attnlab: error: cannot open a window", "cannot open a window", 1);
    error_set(&e, ERR_LIMIT, "big.lesson", 1, 1, "file is 2000000 bytes, over the limit of 1048576 bytes");
    ck_assert_int_eq(error_exit_code(&e), 2);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    error_warn(&e, f);
    error_print(&e, f);
    rewind(f);
    ck_assert_ptr_nonnull(fgets(b, sizeof b, f));
    ck_assert_str_eq(b, "big.lesson:1:1: warning: file is 2000000 bytes, over the limit of 1048576 bytes\n");
    ck_assert_ptr_nonnull(fgets(b, sizeof b, f));
    ck_assert_str_eq(b, "big.lesson:1:1: error: file is 2000000 bytes, over the limit of 1048576 bytes\n");
    fclose(f);
    ck_assert(!error_set(NULL, ERR_IO, NULL, 0, 0, "nobody asked"));   /* a caller may not want to know */
}
END_TEST

/* The parser suite. */
Suite *lesson_suite(void)
{
    Suite *s = suite_create("lesson");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_minimal_lesson);
    tcase_add_test(core, test_errors_compare);
    tcase_add_test(core, test_error_lines_and_codes);
    tcase_add_test(core, test_typographic_minus);
    tcase_add_test(core, test_prose_options_and_comments);
    tcase_add_test(core, test_setups_inherit_and_draws_continue);
    tcase_add_test(core, test_crlf_and_bom_accepted);
    tcase_add_test(core, test_generators);
    tcase_add_test(core, test_quoted_pad_token);
    tcase_add_test(core, test_errors_keys_and_sections);
    tcase_add_test(core, test_errors_duplicates_and_missing);
    tcase_add_test(core, test_errors_numbers);
    tcase_add_test(core, test_errors_shapes);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_limits_sizes);
    tcase_add_test(limits, test_limits_bytes);
    tcase_add_test(limits, test_limits_load_missing_file);
    tcase_add_test(limits, test_limits_crlf_line_length);
    tcase_add_test(limits, test_limits_small_rules);
    tcase_add_test(limits, test_limits_error_kinds);
    suite_add_tcase(s, limits);
    return s;
}
