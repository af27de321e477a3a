/*
** test_utf8.c: the UTF-8 module: decoding with its one rule for malformed
** input, validation, counting, columns, stepping back, encoding.
*/
#include "suites.h"
#include "core/text/utf8.h"

#include <string.h>

START_TEST(test_decodes_every_length)
{
    const char *s = "a\xc3\xa1\xe2\x88\x9e\xf0\x9d\x90\x80";     /* a á ∞ 𝐀 */
    ck_assert_uint_eq(utf8_next(&s), 'a');
    ck_assert_uint_eq(utf8_next(&s), 0xE1);
    ck_assert_uint_eq(utf8_next(&s), 0x221E);
    ck_assert_uint_eq(utf8_next(&s), 0x1D400);
    ck_assert_uint_eq(utf8_next(&s), 0);
    ck_assert_uint_eq(utf8_next(&s), 0);   /* stays at the end */
}
END_TEST

START_TEST(test_malformed_bytes_cost_one_byte_each)
{
    /* overlong '/', a surrogate, a sequence cut short by '|', a lone
    ** continuation byte, F5 (past U+10FFFF), then a good 'é' */
    const char *bad = "\xc0\xaf|\xed\xa0\x80|\xe2\x88|\x80|\xf5\x80\xc3\xa9";
    uint32_t want[] = { 0xFFFD, 0xFFFD, '|', 0xFFFD, 0xFFFD, 0xFFFD, '|', 0xFFFD, 0xFFFD, '|',
                        0xFFFD, '|', 0xFFFD, 0xFFFD, 0xE9, 0 };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        ck_assert_msg(utf8_next(&bad) == want[i], "character %zu", i);
    /* A NUL inside a sequence ends the string, not the decoder's bounds. */
    const char cut[] = { (char)0xE2, (char)0x88, 0, 'x' };
    const char *p = cut;
    ck_assert_uint_eq(utf8_next(&p), 0xFFFD);
    ck_assert_uint_eq(utf8_next(&p), 0xFFFD);
    ck_assert_uint_eq(utf8_next(&p), 0);
}
END_TEST

START_TEST(test_bounded_decode_and_validate)
{
    uint32_t cp;
    ck_assert_uint_eq(utf8_decode("\xe2\x88\x9e", 3, &cp), 3);
    ck_assert_uint_eq(cp, 0x221E);
    ck_assert_uint_eq(utf8_decode("\xe2\x88\x9e", 2, &cp), 1);     /* cut by the bound */
    ck_assert_uint_eq(cp, 0xFFFD);
    ck_assert(utf8_valid("猫がマット", strlen("猫がマット")));
    ck_assert(!utf8_valid("ok\xff", 3));
    ck_assert(!utf8_valid("\xf4\x90\x80\x80", 4));                 /* U+110000 */
    ck_assert(utf8_valid("\xf4\x8f\xbf\xbf", 4));                  /* U+10FFFF */
    ck_assert_int_eq(utf8_seq_len("\xed\x9f\xbf", 3), 3);          /* U+D7FF */
    ck_assert_int_eq(utf8_seq_len("\xed\xa0\x80", 3), 0);          /* U+D800 */
}
END_TEST

START_TEST(test_count_and_columns)
{
    ck_assert_uint_eq(utf8_count("القطة cat"), 9);
    ck_assert_uint_eq(utf8_count("\xff\xfe"), 2);
    ck_assert_uint_eq(utf8_columns("cat"), 3);
    ck_assert_uint_eq(utf8_columns("猫が"), 4);                    /* wide */
    ck_assert_uint_eq(utf8_columns("e\xcc\x81"), 1);                /* e + combining acute */
    ck_assert_uint_eq(utf8_columns("क्ष"), 2);                        /* virama takes none */
    ck_assert_uint_eq(utf8_columns("😀"), 2);
    ck_assert_int_eq(utf8_cp_columns(0x200D), 0);                   /* ZWJ */
}
END_TEST

START_TEST(test_prev_steps_to_boundaries)
{
    const char *s = "a\xc3\xa1\xe2\x88\x9e\xf0\x9d\x90\x80";
    const char *end = s + strlen(s);
    const char *p = utf8_prev(s, end);
    ck_assert_ptr_eq(p, s + 6);
    p = utf8_prev(s, p);
    ck_assert_ptr_eq(p, s + 3);
    p = utf8_prev(s, p);
    ck_assert_ptr_eq(p, s + 1);
    p = utf8_prev(s, p);
    ck_assert_ptr_eq(p, s);
    ck_assert_ptr_eq(utf8_prev(s, s), s);
    /* Stray continuation bytes step back one at a time, as forward decoding reads them. */
    const char *t = "x\x88\x9e";
    ck_assert_ptr_eq(utf8_prev(t, t + 3), t + 2);
    const char *u = "\xe2\x88";                 /* cut short: two characters forward */
    ck_assert_ptr_eq(utf8_prev(u, u + 2), u + 1);
}
END_TEST

START_TEST(test_floor_and_count_n)
{
    const char *s = "a\xc3\xa1\xe2\x88\x9e";                /* a á ∞ */
    size_t len = strlen(s);
    size_t want[] = { 0, 1, 1, 3, 3, 3 };
    for (size_t i = 0; i < len; i++) ck_assert_uint_eq(utf8_floor(s, len, i), want[i]);
    ck_assert_uint_eq(utf8_floor(s, len, len), len);
    ck_assert_uint_eq(utf8_floor(s, 4, 3), 3);                 /* ∞ cut short: its bytes are characters of their own */
    ck_assert_uint_eq(utf8_floor("x\x88", 2, 1), 1);          /* a stray continuation byte is a boundary */
    ck_assert_uint_eq(utf8_count_n(s, len), 3);
    ck_assert_uint_eq(utf8_count_n(s, 2), 2);                  /* half of á: one malformed byte */
    ck_assert_uint_eq(utf8_count_n(s, 0), 0);
}
END_TEST

START_TEST(test_encode_round_trips)
{
    uint32_t cps[] = { 'A', 0xE9, 0x221E, 0x1F431, 0x10FFFF };
    for (size_t i = 0; i < sizeof cps / sizeof *cps; i++) {
        char buf[5] = { 0 };
        int n = utf8_encode(cps[i], buf);
        const char *p = buf;
        ck_assert_uint_eq(utf8_next(&p), cps[i]);
        ck_assert_int_eq((int)(p - buf), n);
    }
    char buf[4];
    ck_assert_int_eq(utf8_encode(0xD800, buf), 3);                  /* a surrogate: U+FFFD */
    ck_assert_int_eq(memcmp(buf, "\xef\xbf\xbd", 3), 0);
}
END_TEST

/* The 66 noncharacters: 32 in U+FDD0 … U+FDEF, two at the end of each of
** the 17 planes. */
START_TEST(test_noncharacters)
{
    int n = 0;
    for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) n += utf8_noncharacter(cp);
    ck_assert_int_eq(n, 66);
    ck_assert(utf8_noncharacter(0xFFFE) && utf8_noncharacter(0xFFFF) && utf8_noncharacter(0xFDD0));
    ck_assert(utf8_noncharacter(0x10FFFF) && utf8_noncharacter(0x1FFFE));
    ck_assert(!utf8_noncharacter(0xFFFD) && !utf8_noncharacter(0xFEFF) && !utf8_noncharacter(0xFDCF));
}
END_TEST

/* The utf8 suite. */
Suite *utf8_suite(void)
{
    Suite *s = suite_create("utf8");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_decodes_every_length);
    tcase_add_test(core, test_count_and_columns);
    tcase_add_test(core, test_encode_round_trips);
    tcase_add_test(core, test_noncharacters);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_malformed_bytes_cost_one_byte_each);
    tcase_add_test(limits, test_bounded_decode_and_validate);
    tcase_add_test(limits, test_prev_steps_to_boundaries);
    tcase_add_test(limits, test_floor_and_count_n);
    suite_add_tcase(s, limits);
    return s;
}
