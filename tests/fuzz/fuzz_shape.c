/*
** fuzz_shape.c: libFuzzer over text shaping and drawing, the path every
** token, title and paragraph of a lesson takes to the screen.
**
** Each input is taken as a string (any bytes: malformed UTF-8, controls,
** bidi marks, combining marks, emoji sequences, every script), measured at
** two sizes and both weights through font_measure (fallback fonts,
** HarfBuzz's shaping and FriBidi's order, the run cache), and drawn level and turned on
** an offscreen canvas (the glyph atlas, colour glyphs). The invariants:
** no crash or sanitizer report, widths finite and not negative, the same
** string measures the same twice (the run cache gives back what shaping
** gave), and drawing never fails.
**
**   make fuzz-shape FUZZ_SECONDS=600
*/
#include "sdl/font.h"
#include "sdl/render.h"
#include "view/draw.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The errors of the font, render and export calls, for messages. */
static Error ferr, rerr;

static FontSet *fonts;
static Offscreen *canvas;
static DrawList *list;

/* Stop with a message libFuzzer reports as a crash. */
static void die(const char *what, const char *text)
{
    fprintf(stderr, "fuzz_shape: %s (%s)\n", what, text);
    abort();
}

/* One input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096) return 0;
    if (!fonts) {
        fonts = font_create(NULL, &ferr);
        if (!fonts) die("no font", ferr.msg);
        canvas = render_offscreen_create(320, 96, fonts, &rerr);
        list = draw_create(320, 96);
        if (!canvas || !list) die("no canvas", rerr.msg);
    }
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    static const float sizes[2] = { 13, 31 };
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < 2; k++) {
            float w = font_measure(fonts, text, sizes[k], b);
            if (!isfinite(w) || w < 0) die("a width that is not a finite non-negative number", text);
            if (font_measure(fonts, text, sizes[k], b) != w) die("the same string measured twice differs", text);
        }
    draw_clear(list, 320, 96, (Color){ 250, 250, 250, 255 });
    draw_text(list, (Rect){ 4, 4, 312, 40 }, text, 24, (Color){ 20, 20, 20, 255 }, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_BODY);
    int i = draw_text(list, (Rect){ 4, 40, 40, 52 }, text, 14, (Color){ 20, 20, 20, 255 }, ALIGN_CENTER, VALIGN_TOP,
                      ROLE_BODY);
    list->cmds[i].rotate = 90;
    if (render_drawlist(canvas->render, list, &rerr) != 0) die("drawing failed", rerr.msg);
    if (font_cache_full(fonts)) font_cache_reset(fonts);
    free(text);
    return 0;
}
