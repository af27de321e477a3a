/*
** test_svg.c: the SVG writer. Documents must parse (xmllint --noout), carry
** the labels as real <text>, escape what XML needs escaped, and come out
** byte for byte the same every time.
*/
#define _POSIX_C_SOURCE 200809L    /* mkstemp, write, unlink */
#include "suites.h"
#include "tlayout.h"
#include "view/svg.h"
#include "view/layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *tok4[] = { "the", "cat", "<sat>", "Ma\xc3\xb1" "ana & co" };

/* A small two-panel view: weights with tokens, and masked scores. */
static void make_view(View *v, Mat *W, Mat *S)
{
    memset(v, 0, sizeof *v);
    v->panels = tl_panels();
    v->stage = 1;
    v->nstages = 4;
    v->lesson_title = "SVG test";
    v->title = "Weights & \"scores\"";
    v->formula = "softmax(Q\xc2\xb7K\xe1\xb5\x80 / \xe2\x88\x9a" "d_k)";
    for (int k = 0; k < 2; k++) {
        Panel *p = &v->panels[k];
        p->kind = PANEL_HEATMAP;
        p->title = k ? "Masked scores" : "Weights";
        p->m = k ? S : W;
        p->row_labels = p->col_labels = tok4;
        p->row_axis = "queries";
        p->col_axis = "keys";
        p->cmap = k ? "RdBu" : "viridis";
        p->diverging = k == 1;
        p->probabilities = k == 0;
        p->decimals = 2;
        p->bounds = NULL;
    }
    v->npanels = 2;
}

/* The layout of make_view at w x h as an SVG document. */
static char *view_svg(int w, int h, size_t *len)
{
    double wd[16], sd[16];
    for (int i = 0; i < 16; i++) {
        wd[i] = 0.25 + 0.01 * ((i * 5) % 7) - 0.03;
        sd[i] = (i % 4) > (i / 4) ? -INFINITY : 0.5 * ((i * 3) % 5) - 1;
    }
    Mat *W = mat_from(4, 4, wd), *S = mat_from(4, 4, sd);
    View v;
    make_view(&v, W, S);
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(w, h, &th, NULL, NULL);
    DrawList *d = draw_create(w, h);
    LayoutCache *lc = layout_cache_create();
    layout_view(lc, &v, &o, d);
    layout_cache_free(lc);
    char *svg = svg_write(d, "attnlab: weights", "stage 2 of 4 <test>", len);
    draw_free(d);
    mat_free(W);
    mat_free(S);
    return svg;
}

/* Write text to a fresh temporary file; returns its path (static). */
static const char *to_temp(const char *text, size_t len)
{
    static char path[256];
    const char *dir = getenv("TMPDIR");
    snprintf(path, sizeof path, "%s/attnlab-svg-XXXXXX", dir && dir[0] ? dir : "/tmp");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    return path;
}

/* True when xmllint accepts the document. */
static bool xml_ok(const char *text, size_t len)
{
    const char *path = to_temp(text, len);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "xmllint --noout '%s' 2>/dev/null", path);
    int rc = system(cmd);
    unlink(path);
    return rc == 0;
}

/* How many times needle occurs in hay. */
static int occurrences(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

START_TEST(test_view_parses_and_has_text)
{
    size_t len = 0;
    char *svg = view_svg(1280, 800, &len);
    ck_assert_uint_eq(len, strlen(svg));
    ck_assert(xml_ok(svg, len));
    ck_assert(strncmp(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"", 36) == 0);
    ck_assert_ptr_nonnull(strstr(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
                                      "width=\"1280\" height=\"800\""));
    ck_assert_ptr_nonnull(strstr(svg, "<title>attnlab: weights</title>"));
    ck_assert_ptr_nonnull(strstr(svg, "<desc>stage 2 of 4 &lt;test&gt;</desc>"));
    ck_assert_ptr_nonnull(strstr(svg, "font-family=\"DejaVu Sans"));
    ck_assert_int_gt(occurrences(svg, "<text"), 32);
    ck_assert_int_ge(occurrences(svg, "<rect"), 32);
    ck_assert_ptr_nonnull(strstr(svg, ">cat</text>"));
    ck_assert_ptr_nonnull(strstr(svg, ">&lt;sat&gt;</text>"));
    ck_assert_ptr_nonnull(strstr(svg, ">Ma\xc3\xb1" "ana &amp; co</text>"));
    ck_assert_ptr_nonnull(strstr(svg, ">Weights &amp; &quot;scores&quot;</text>"));
    ck_assert_ptr_nonnull(strstr(svg, ">\xe2\x88\x92\xe2\x88\x9e</text>"));
    ck_assert_ptr_nonnull(strstr(svg, "font-weight=\"bold\""));
    ck_assert_ptr_nonnull(strstr(svg, "text-anchor=\"middle\""));
    free(svg);
}
END_TEST

START_TEST(test_same_bytes_twice)
{
    size_t n1 = 0, n2 = 0;
    char *a = view_svg(1920, 1080, &n1), *b = view_svg(1920, 1080, &n2);
    ck_assert_uint_eq(n1, n2);
    ck_assert(memcmp(a, b, n1) == 0);
    free(a);
    free(b);
}
END_TEST

START_TEST(test_commands_by_hand)
{
    DrawList *d = draw_create(200, 100);
    draw_clear(d, 200, 100, (Color){ 10, 20, 30, 255 });
    draw_rect(d, (Rect){ 1.5f, 2.25f, 10, 20 }, (Color){ 255, 0, 0, 255 }, ROLE_DECOR);
    draw_frame(d, (Rect){ 5, 5, 50, 40 }, (Color){ 0, 255, 0, 128 }, 2, ROLE_DECOR);
    int l = draw_line(d, 0, 50, 200, 50, (Color){ 0, 0, 255, 255 }, 2, ROLE_PLOT);
    d->cmds[l].dashed = 1;
    int t = draw_text(d, (Rect){ 10, 10, 20, 80 }, "up", 12, (Color){ 1, 2, 3, 255 }, ALIGN_LEFT,
                      VALIGN_MIDDLE, ROLE_COL_LABEL);
    d->cmds[t].rotate = 90;
    draw_text(d, (Rect){ 100, 0, 100, 20 }, "right", 10, (Color){ 1, 2, 3, 255 }, ALIGN_RIGHT, VALIGN_TOP,
              ROLE_BODY);
    size_t len = 0;
    char *svg = svg_write(d, NULL, NULL, &len);
    ck_assert(xml_ok(svg, len));
    ck_assert_ptr_null(strstr(svg, "<title>"));
    ck_assert_ptr_null(strstr(svg, "<desc>"));
    ck_assert_ptr_nonnull(strstr(svg, "fill=\"#0a141e\""));
    ck_assert_ptr_nonnull(strstr(svg, "<rect x=\"1.5\" y=\"2.25\" width=\"10\" height=\"20\" fill=\"#ff0000\"/>"));
    ck_assert_ptr_nonnull(strstr(svg, "fill=\"none\" stroke=\"#00ff00\" stroke-opacity=\"0.5\" stroke-width=\"2\""));
    ck_assert_ptr_nonnull(strstr(svg, "<line x1=\"0\" y1=\"50\" x2=\"200\" y2=\"50\" stroke=\"#0000ff\" "
                                      "stroke-width=\"2\" stroke-dasharray=\"10 8\"/>"));     /* 5 on, 4 off */
    /* upright text starts at the bottom of its box and turns about its anchor */
    ck_assert_ptr_nonnull(strstr(svg, "transform=\"rotate(-90 "));
    ck_assert_ptr_nonnull(strstr(svg, " y=\"90\""));
    ck_assert_ptr_nonnull(strstr(svg, "text-anchor=\"end\""));
    ck_assert_ptr_nonnull(strstr(svg, ">right</text>"));
    free(svg);
    draw_free(d);
}
END_TEST

START_TEST(test_limits_empty_list)
{
    DrawList *d = draw_create(0, 0);
    size_t len = 0;
    char *svg = svg_write(d, "", "", &len);
    ck_assert(xml_ok(svg, len));
    ck_assert_ptr_nonnull(strstr(svg, "width=\"0\" height=\"0\""));
    free(svg);
    draw_free(d);
}
END_TEST

START_TEST(test_limits_bad_bytes_still_parse)
{
    DrawList *d = draw_create(100, 100);
    const char *bad[] = { "nul\x01" "ctl\x1f", "\xff\xfe half \xc3", "\xed\xa0\x80 surrogate",
                          "]]> <!-- --> &amp; <![CDATA[", "\xef\xbf\xbf not a char", "tab\tand\nnewline" };
    for (int i = 0; i < 6; i++)
        draw_text(d, (Rect){ 0, (float)(i * 10), 100, 10 }, bad[i], 8, (Color){ 0, 0, 0, 255 }, ALIGN_LEFT,
                  VALIGN_MIDDLE, ROLE_BODY);
    size_t len = 0;
    char *svg = svg_write(d, "\x02title", "desc\xc0\xaf", &len);
    ck_assert(xml_ok(svg, len));
    ck_assert_ptr_nonnull(strstr(svg, "\xef\xbf\xbd"));
    ck_assert_ptr_nonnull(strstr(svg, "]]&gt; &lt;!-- --&gt; &amp;amp; &lt;![CDATA["));
    free(svg);
    draw_free(d);
}
END_TEST

/* The last line of defence: a coordinate that is not finite is written
** as 0 and counted, never as "nan" or "inf". */
START_TEST(test_limits_nonfinite_written_as_zero)
{
    DrawList *d = draw_create(100, 100);
    long before = svg_nonfinite_count();
    draw_rect(d, (Rect){ NAN, 2, INFINITY, 4 }, (Color){ 255, 0, 0, 255 }, ROLE_DECOR);
    draw_line(d, 0, -INFINITY, 10, 10, (Color){ 0, 0, 255, 255 }, NAN, ROLE_PLOT);
    size_t len = 0;
    char *svg = svg_write(d, NULL, NULL, &len);
    ck_assert(xml_ok(svg, len));
    ck_assert_ptr_null(strstr(svg, "nan"));
    ck_assert_ptr_null(strstr(svg, "inf"));
    ck_assert_ptr_nonnull(strstr(svg, "<rect x=\"0\" y=\"2\" width=\"0\" height=\"4\""));
    /* x, width (clamped from inf to itself), y1, y2 (-inf + 10) */
    ck_assert_int_ge(svg_nonfinite_count() - before, 3);
    free(svg);
    draw_free(d);
}
END_TEST

START_TEST(test_limits_save)
{
    DrawList *d = draw_create(10, 10);
    draw_rect(d, (Rect){ 0, 0, 5, 5 }, (Color){ 9, 9, 9, 255 }, ROLE_DECOR);
    Error err;
    ck_assert_int_eq(svg_save(d, "/nonexistent-dir/x/out.svg", NULL, NULL, NULL, &err), -1);
    ck_assert_int_eq(err.kind, ERR_IO);
    ck_assert_str_eq(err.file, "/nonexistent-dir/x/out.svg");
    ck_assert_str_eq(err.msg, "cannot write: No such file or directory");
    const char *tmp = to_temp("", 0);
    char path[300];
    snprintf(path, sizeof path, "%s.svg", tmp);
    unlink(tmp);
    ck_assert_int_eq(svg_save(d, path, "t", "d", NULL, &err), 0);
    size_t len = 0;
    char *want = svg_write(d, "t", "d", &len);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    char *got = malloc(len + 16);
    size_t n = fread(got, 1, len + 16, f);
    fclose(f);
    unlink(path);
    ck_assert_uint_eq(n, len);
    ck_assert(memcmp(got, want, len) == 0);
    free(got);
    free(want);
    draw_free(d);
}
END_TEST

/* The SVG suite. */
Suite *svg_suite(void)
{
    Suite *s = suite_create("svg");
    TCase *core = tcase_create("core");
    tcase_add_test(core, test_view_parses_and_has_text);
    tcase_add_test(core, test_same_bytes_twice);
    tcase_add_test(core, test_commands_by_hand);
    suite_add_tcase(s, core);
    TCase *limits = tcase_create("limits");
    tcase_add_test(limits, test_limits_empty_list);
    tcase_add_test(limits, test_limits_bad_bytes_still_parse);
    tcase_add_test(limits, test_limits_save);
    tcase_add_test(limits, test_limits_nonfinite_written_as_zero);
    suite_add_tcase(s, limits);
    return s;
}
