/*
** tslides.c: what the suites of the projector slide share (test_slides.c,
** test_slide_prose.c): a view laid out as --export draws it, with DejaVu
** Sans; a lesson loaded and traced; every bundled and slide-lessons/
** lesson, and twelve generated ones, handed to a walk.
*/
#include "tslides.h"
#include "suites.h"
#include "tfonts.h"
#include "tstages.h"
#include "sdl/font.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* v laid out at w x h with the real font and the cache lc, which it
** keeps for the next layout (caller frees the list). */
DrawList *tslides_lay_kept(LayoutCache *lc, const View *v, int w, int h)
{
    Theme th = layout_theme(false);
    LayoutOpts o = layout_defaults(w, h, &th, font_measure, tfonts);
    DrawList *d = draw_create(w, h);
    layout_view(lc, v, &o, d);
    return d;
}

/* v laid out at w x h with DejaVu Sans (caller frees). */
DrawList *tslides_lay_at(const View *v, int w, int h)
{
    LayoutCache *lc = layout_cache_create();
    DrawList *d = tslides_lay_kept(lc, v, w, h);
    layout_cache_free(lc);
    return d;
}

/* v laid out on the projector slide (caller frees). */
DrawList *tslides_lay(const View *v)
{
    return tslides_lay_at(v, SLIDE_W, SLIDE_H);
}

/* The lesson at path and its trace in *T, or fail. */
Lesson *tslides_load(const char *path, Trace **T)
{
    Error err;
    Lesson *L = lesson_load(path, &err);
    ck_assert_msg(L != NULL, "%s", eline(&err));
    *T = attn_run(L, &err);
    ck_assert_msg(*T != NULL, "%s", eline(&err));
    return L;
}

/* Every bundled lesson, then every lesson in slide-lessons/, given to fn. */
void tslides_each_lesson(TSlidesFn fn, void *ctx)
{
    const char *dirs[] = { "../lessons", "slide-lessons" };
    for (int di = 0; di < 2; di++) {
        DIR *dp = opendir(dirs[di]);
        ck_assert_ptr_nonnull(dp);
        struct dirent *e;
        while ((e = readdir(dp))) {
            if (!strstr(e->d_name, ".lesson")) continue;
            char path[600];
            snprintf(path, sizeof path, "%s/%s", dirs[di], e->d_name);
            Trace *T;
            Lesson *L = tslides_load(path, &T);
            fn(e->d_name, L, T, ctx);
            trace_free(T);
            lesson_free(L);
        }
        closedir(dp);
    }
}

/* Lesson i of a family no lesson here was written for: 11 to 16 tokens
** from six scripts, 1, 2 or 4 heads, causal or not, no positions, RoPE
** or ALiBi, one query followed, the heads (when there are several), and
** with the mask a K/V cache. */
static void generated_lesson(int i, char *buf, size_t n)
{
    static const char *words[] = { "the", "cat", "\xce\xb3\xce\xac\xcf\x84\xce\xb1", "\xd0\xb4\xd0\xbe\xd0\xbc",
                                   "\xe7\x8c\xab", "\xe6\x9d\xb1\xe4\xba\xac", "\xd9\x83\xd8\xaa\xd8\xa7\xd8\xa8",
                                   "\xe0\xa4\xa8\xe0\xa4\xa6\xe0\xa5\x80", "sat", "internationally" };
    static const char *positions[] = { "", "positions: rope\n", "positions: alibi\n" };
    unsigned x = 2654435761u * (unsigned)(i + 1);
    int tokens = 11 + i % 6, heads = (int[]){ 1, 2, 4 }[i % 3];
    size_t len = (size_t)snprintf(buf, n, "title: Generated %d\n[setup: s]\nseed: %d\ntokens:", i, i + 1);
    for (int t = 0; t < tokens; t++, x = x * 1103515245u + 12345u)
        len += (size_t)snprintf(buf + len, n - len, " %s", words[(x >> 16) % 10]);
    snprintf(buf + len, n - len,
             "\nX = randn %dx8 * 0.5\nW_q = randn 8x8 * 0.5\nW_k = randn 8x8 * 0.5\nW_v = randn 8x8 * 0.5\n"
             "queries: X @ W_q\nkeys: X @ W_k\nvalues: X @ W_v\nheads: %d\n%s%s\n"
             "[qkv_projection]\n\nTwo paragraphs of prose under the panels, long enough to wrap on a slide and to "
             "compete with them for the height.\n\n[raw_scores]\n\n[softmax]\n\n[per_token]\nquery: %d\n\n"
             "[weighted_sum]\n\n%s%s",
             tokens, heads, i % 2 ? "mask: causal\n" : "", positions[i % 3 == 0 ? 0 : 1 + i % 2], tokens - 1,
             heads > 1 ? "[multi_head]\n\n" : "", i % 2 ? "[kv_cache]\n" : "");
}

/* fn over the twelve generated lessons. */
void tslides_each_generated(TSlidesFn fn, void *ctx)
{
    char text[4096], name[32];
    for (int i = 0; i < 12; i++) {
        generated_lesson(i, text, sizeof text);
        snprintf(name, sizeof name, "generated-%d.lesson", i);
        Lesson *L;
        Trace *T = tstages_run(text, name, &L);
        fn(name, L, T, ctx);
        trace_free(T);
        lesson_free(L);
    }
}
