/*
** test_cmap.c: colormap tables and the contrast rule for cell text.
*/
#include "suites.h"
#include "core/colormaps.h"
#include "view/cmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True when two colours are the same, alpha included. */
static int same_color(Color a, Color b)
{
    return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
}

START_TEST(test_viridis_endpoints)
{
    const Cmap *v = cmap_get("viridis");
    ck_assert_ptr_nonnull(v);
    Color lo = cmap_at(v, 0), hi = cmap_at(v, 1);
    ck_assert(same_color(lo, (Color){ 68, 1, 84, 255 }));
    ck_assert(same_color(hi, (Color){ 253, 231, 37, 255 }));
    ck_assert_str_eq(cmap_name(v), "viridis");
    ck_assert(!cmap_is_diverging(v));
}
END_TEST

START_TEST(test_rdbu_centre_is_near_white)
{
    const Cmap *c = cmap_get("RdBu");
    ck_assert_ptr_nonnull(c);
    ck_assert(cmap_is_diverging(c));
    Color mid = cmap_at(c, 0.5);
    ck_assert_int_ge(mid.r, 240);
    ck_assert_int_ge(mid.g, 240);
    ck_assert_int_ge(mid.b, 240);
    /* red for negative, blue for positive */
    Color lo = cmap_at(c, 0), hi = cmap_at(c, 1);
    ck_assert_int_gt(lo.r, lo.b);
    ck_assert_int_gt(hi.b, hi.r);
}
END_TEST

START_TEST(test_every_name_resolves)
{
    const char *const *names = cmap_names();
    int n = 0;
    for (; names[n]; n++) {
        const Cmap *c = cmap_get(names[n]);
        ck_assert_ptr_nonnull(c);
        ck_assert_str_eq(cmap_name(c), names[n]);
    }
    ck_assert_int_eq(n, 7);
    const char *want[] = { "viridis", "cividis", "plasma", "magma", "YlOrRd", "Blues", "RdBu" };
    for (int i = 0; i < 7; i++) ck_assert_ptr_nonnull(cmap_get(want[i]));
}
END_TEST

/*
** One list of names (src/core/colormaps.h): every map of it has its table,
** in its order, the lesson reader and the command line find names in it,
** its sentence is what the messages and the help print, and the lesson
** format's documentation names the same maps in the same order.
*/
START_TEST(test_one_list_of_names)
{
    const char *const *names = colormaps_names();
    ck_assert_ptr_eq(cmap_names(), names);
    int n = 0;
    for (; names[n]; n++) {
        ck_assert_int_eq(colormaps_find(names[n], strlen(names[n])), n);
        ck_assert_ptr_nonnull(cmap_get(names[n]));
        ck_assert_int_eq(cmap_is_diverging(cmap_get(names[n])), strcmp(names[n], "RdBu") == 0);
    }
    ck_assert_int_eq(colormaps_find("viridis", 6), -1);
    ck_assert_int_eq(colormaps_find("viridis ", 8), -1);
    ck_assert_int_eq(colormaps_find("plasma2", 6), 2);     /* the n bytes only */
    char s[COLORMAPS_LIST_MAX];
    colormaps_list(s, sizeof s);
    ck_assert_str_eq(s, "viridis, cividis, plasma, magma, YlOrRd, Blues or RdBu");
    colormaps_list(s, 12);
    ck_assert_str_eq(s, "viridis, ci");
    /* docs/lesson-format.md: the cmap: row lists them in order */
    FILE *f = fopen("../docs/lesson-format.md", "r");
    ck_assert_ptr_nonnull(f);
    char line[1024], want[512] = "| `cmap:` | ";
    for (int i = 0; i < n; i++)
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s`%s`", i ? ", " : "", names[i]);
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) found = strncmp(line, want, strlen(want)) == 0;
    fclose(f);
    ck_assert_msg(found, "docs/lesson-format.md has no line starting '%s'", want);
}
END_TEST

START_TEST(test_tables_are_smooth_and_distinct)
{
    /* neighbouring entries differ little; the two ends differ a lot */
    for (const char *const *n = cmap_names(); *n; n++) {
        const Cmap *c = cmap_get(*n);
        for (int i = 1; i < 256; i++) {
            Color a = cmap_at(c, (i - 0.5) / 256), b = cmap_at(c, (i + 0.5) / 256);
            ck_assert_int_le(abs(a.r - b.r) + abs(a.g - b.g) + abs(a.b - b.b), 12);
        }
        Color lo = cmap_at(c, 0), hi = cmap_at(c, 1);
        ck_assert_int_ge(abs(lo.r - hi.r) + abs(lo.g - hi.g) + abs(lo.b - hi.b), 150);
    }
}
END_TEST

START_TEST(test_contrast_every_entry_of_every_map)
{
    for (const char *const *n = cmap_names(); *n; n++) {
        const Cmap *c = cmap_get(*n);
        for (int i = 0; i < 256; i++) {
            Color bg = cmap_at(c, (i + 0.5) / 256);
            Color fg = cmap_text_for(bg);
            ck_assert_msg(cmap_contrast(fg, bg) >= 4.5, "%s[%d]: contrast %.2f", *n, i,
                          cmap_contrast(fg, bg));
        }
    }
}
END_TEST

START_TEST(test_luminance_and_contrast_by_hand)
{
    Color white = { 255, 255, 255, 255 }, black = { 0, 0, 0, 255 };
    ck_assert_double_eq_tol(cmap_luminance(white), 1.0, 1e-12);
    ck_assert_double_eq_tol(cmap_luminance(black), 0.0, 1e-12);
    ck_assert_double_eq_tol(cmap_contrast(white, black), 21.0, 1e-9);
    ck_assert_double_eq_tol(cmap_contrast(black, white), 21.0, 1e-9);
    ck_assert_double_eq_tol(cmap_contrast(white, white), 1.0, 1e-12);
    /* #777 on white is the classic 4.48:1 */
    ck_assert_double_eq_tol(cmap_contrast((Color){ 119, 119, 119, 255 }, white), 4.48, 0.01);
    /* dark text on light cells, white on dark ones */
    ck_assert_int_lt(cmap_text_for(white).r, 40);
    ck_assert_int_eq(cmap_text_for(black).r, 255);
}
END_TEST

START_TEST(test_limits_unknown_names)
{
    ck_assert_ptr_null(cmap_get("jet"));
    ck_assert_ptr_null(cmap_get(""));
    ck_assert_ptr_null(cmap_get(NULL));
    ck_assert_ptr_null(cmap_get("VIRIDIS"));
    ck_assert_ptr_null(cmap_get("viridis "));
}
END_TEST

START_TEST(test_limits_t_is_clamped)
{
    const Cmap *v = cmap_get("viridis");
    ck_assert(same_color(cmap_at(v, -5), cmap_at(v, 0)));
    ck_assert(same_color(cmap_at(v, 7), cmap_at(v, 1)));
    ck_assert(same_color(cmap_at(v, NAN), cmap_at(v, 0)));
    ck_assert(same_color(cmap_at(v, -INFINITY), cmap_at(v, 0)));
    ck_assert(same_color(cmap_at(v, INFINITY), cmap_at(v, 1)));
    ck_assert(same_color(cmap_at(v, 0.99999999), cmap_at(v, 1)));
}
END_TEST

START_TEST(test_limits_mid_greys_reach_4_5)
{
    /* around luminance 0.19 neither #111 nor white reaches 4.5:1 */
    Color grey = { 122, 122, 122, 255 };
    ck_assert(cmap_contrast((Color){ 17, 17, 17, 255 }, grey) < 4.5);
    ck_assert(cmap_contrast((Color){ 255, 255, 255, 255 }, grey) < 4.5);
    ck_assert(cmap_contrast(cmap_text_for(grey), grey) >= 4.5);
    for (int v = 0; v < 256; v++) {
        Color g = { (uint8_t)v, (uint8_t)v, (uint8_t)v, 255 };
        ck_assert(cmap_contrast(cmap_text_for(g), g) >= 4.5);
    }
}
END_TEST

/* The colormap suite. */
Suite *cmap_suite(void)
{
    Suite *s = suite_create("cmap");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_viridis_endpoints);
    tcase_add_test(core, test_rdbu_centre_is_near_white);
    tcase_add_test(core, test_every_name_resolves);
    tcase_add_test(core, test_one_list_of_names);
    tcase_add_test(core, test_tables_are_smooth_and_distinct);
    tcase_add_test(core, test_contrast_every_entry_of_every_map);
    tcase_add_test(core, test_luminance_and_contrast_by_hand);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_limits_unknown_names);
    tcase_add_test(limits, test_limits_t_is_clamped);
    tcase_add_test(limits, test_limits_mid_greys_reach_4_5);
    suite_add_tcase(s, limits);
    return s;
}
