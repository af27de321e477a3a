/*
** pdf.c: display lists as PDF pages through cairo's PDF surface (pdf.h).
*/
#define _POSIX_C_SOURCE 200809L
#include "pdf.h"
#include "render.h"
#include "core/io/fileio.h"
#include "core/text/utf8.h"
#include "core/util.h"

#include <cairo.h>
#include <dlfcn.h>
#include <cairo-ft.h>
#include <cairo-pdf.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PT_PER_PX 0.75              /* 96 pixels to the inch, 72 points */
#define MAX_FACES 64                /* fonts of one FontSet, as font.c allows */
#define QUARTER_TURN 1.5707963267948966

struct PdfDoc {
    FontSet *fonts;
    Buf bytes;                      /* the document as cairo writes it */
    cairo_surface_t *surface;
    cairo_t *cr;
    cairo_font_face_t *faces[MAX_FACES];    /* font i of the FontSet, opened on first use */
    PdfUndrawn *undrawn;            /* characters left out, each once, in the order met */
    int nundrawn, capundrawn;
    int pages;
    bool finished;
};


/*
** cairo is loaded the first time a PDF is made, not when the program
** starts: linked the ordinary way it brings a dozen libraries (X11's among
** them) that the dynamic loader would map at every start, for a feature
** most runs never use. Every cairo function this file calls is listed once
** here: a pointer of its declared type, filled by name (load_cairo), and
** from the #defines below on each name is that pointer.
*/
#define CAIRO_LIB "libcairo.so.2"
#define CAIRO_FUNCS(X) \
    X(cairo_clip) \
    X(cairo_create) \
    X(cairo_destroy) \
    X(cairo_fill) \
    X(cairo_font_face_destroy) \
    X(cairo_font_face_status) \
    X(cairo_ft_font_face_create_for_pattern) \
    X(cairo_image_surface_create) \
    X(cairo_image_surface_get_data) \
    X(cairo_image_surface_get_stride) \
    X(cairo_line_to) \
    X(cairo_move_to) \
    X(cairo_paint) \
    X(cairo_paint_with_alpha) \
    X(cairo_pdf_surface_add_outline) \
    X(cairo_pdf_surface_create_for_stream) \
    X(cairo_pdf_surface_set_metadata) \
    X(cairo_pdf_surface_set_size) \
    X(cairo_rectangle) \
    X(cairo_restore) \
    X(cairo_rotate) \
    X(cairo_save) \
    X(cairo_scale) \
    X(cairo_set_dash) \
    X(cairo_set_font_face) \
    X(cairo_set_font_size) \
    X(cairo_set_line_cap) \
    X(cairo_set_line_join) \
    X(cairo_set_line_width) \
    X(cairo_set_source_rgba) \
    X(cairo_set_source_surface) \
    X(cairo_show_glyphs) \
    X(cairo_show_page) \
    X(cairo_show_text_glyphs) \
    X(cairo_status) \
    X(cairo_status_to_string) \
    X(cairo_stroke) \
    X(cairo_surface_destroy) \
    X(cairo_surface_finish) \
    X(cairo_surface_mark_dirty) \
    X(cairo_surface_set_mime_data) \
    X(cairo_surface_status) \
    X(cairo_translate)

#define CAIRO_FIELD(f) __typeof__(f) *f;
static struct { CAIRO_FUNCS(CAIRO_FIELD) } cairo_api;
#undef CAIRO_FIELD

/* Load the library and look every function up (once); 0, or -1 with err
** filled (again at every call once it failed). */
static int load_cairo(Error *err)
{
    static int state;               /* 0 not tried, 1 loaded, -1 failed */
    static char why[300];
    if (state == 0) {
        state = -1;
        void *lib = dlopen(CAIRO_LIB, RTLD_NOW | RTLD_LOCAL);
        if (!lib) snprintf(why, sizeof why, "%s (install libcairo2)", dlerror());
#define CAIRO_LOOK(f) \
        if (lib && !why[0] && !(*(void **)&cairo_api.f = dlsym(lib, #f))) \
            snprintf(why, sizeof why, "%s has no %s (cairo 1.16 or later is needed)", CAIRO_LIB, #f);
        CAIRO_FUNCS(CAIRO_LOOK)
#undef CAIRO_LOOK
        if (!why[0]) state = 1;
    }
    if (state > 0) return 0;
    error_set(err, ERR_RUNTIME, NULL, 0, 0, "cannot make a PDF: %s", why);
    return -1;
}

#define cairo_clip cairo_api.cairo_clip
#define cairo_create cairo_api.cairo_create
#define cairo_destroy cairo_api.cairo_destroy
#define cairo_fill cairo_api.cairo_fill
#define cairo_font_face_destroy cairo_api.cairo_font_face_destroy
#define cairo_font_face_status cairo_api.cairo_font_face_status
#define cairo_ft_font_face_create_for_pattern cairo_api.cairo_ft_font_face_create_for_pattern
#define cairo_image_surface_create cairo_api.cairo_image_surface_create
#define cairo_image_surface_get_data cairo_api.cairo_image_surface_get_data
#define cairo_image_surface_get_stride cairo_api.cairo_image_surface_get_stride
#define cairo_line_to cairo_api.cairo_line_to
#define cairo_move_to cairo_api.cairo_move_to
#define cairo_paint cairo_api.cairo_paint
#define cairo_paint_with_alpha cairo_api.cairo_paint_with_alpha
#define cairo_pdf_surface_add_outline cairo_api.cairo_pdf_surface_add_outline
#define cairo_pdf_surface_create_for_stream cairo_api.cairo_pdf_surface_create_for_stream
#define cairo_pdf_surface_set_metadata cairo_api.cairo_pdf_surface_set_metadata
#define cairo_pdf_surface_set_size cairo_api.cairo_pdf_surface_set_size
#define cairo_rectangle cairo_api.cairo_rectangle
#define cairo_restore cairo_api.cairo_restore
#define cairo_rotate cairo_api.cairo_rotate
#define cairo_save cairo_api.cairo_save
#define cairo_scale cairo_api.cairo_scale
#define cairo_set_dash cairo_api.cairo_set_dash
#define cairo_set_font_face cairo_api.cairo_set_font_face
#define cairo_set_font_size cairo_api.cairo_set_font_size
#define cairo_set_line_cap cairo_api.cairo_set_line_cap
#define cairo_set_line_join cairo_api.cairo_set_line_join
#define cairo_set_line_width cairo_api.cairo_set_line_width
#define cairo_set_source_rgba cairo_api.cairo_set_source_rgba
#define cairo_set_source_surface cairo_api.cairo_set_source_surface
#define cairo_show_glyphs cairo_api.cairo_show_glyphs
#define cairo_show_page cairo_api.cairo_show_page
#define cairo_show_text_glyphs cairo_api.cairo_show_text_glyphs
#define cairo_status cairo_api.cairo_status
#define cairo_status_to_string cairo_api.cairo_status_to_string
#define cairo_stroke cairo_api.cairo_stroke
#define cairo_surface_destroy cairo_api.cairo_surface_destroy
#define cairo_surface_finish cairo_api.cairo_surface_finish
#define cairo_surface_mark_dirty cairo_api.cairo_surface_mark_dirty
#define cairo_surface_set_mime_data cairo_api.cairo_surface_set_mime_data
#define cairo_surface_status cairo_api.cairo_surface_status
#define cairo_translate cairo_api.cairo_translate

/* cairo's writer: append to the document's bytes. */
static cairo_status_t write_bytes(void *closure, const unsigned char *data, unsigned int len)
{
    buf_append(closure, (const char *)data, len);
    return CAIRO_STATUS_SUCCESS;
}

/* A new document. */
PdfDoc *pdf_create(FontSet *fonts, const char *title, long long date, Error *err)
{
    if (load_cairo(err) != 0) return NULL;
    PdfDoc *doc = xcalloc(1, sizeof *doc);
    doc->fonts = fonts;
    doc->surface = cairo_pdf_surface_create_for_stream(write_bytes, &doc->bytes, 960, 540);
    doc->cr = cairo_create(doc->surface);
    if (cairo_status(doc->cr) != CAIRO_STATUS_SUCCESS) {
        error_set(err, ERR_RUNTIME, NULL, 0, 0, "cannot make a PDF: %s", cairo_status_to_string(cairo_status(doc->cr)));
        pdf_free(doc);
        return NULL;
    }
    cairo_pdf_surface_set_metadata(doc->surface, CAIRO_PDF_METADATA_TITLE, title ? title : "");
    cairo_pdf_surface_set_metadata(doc->surface, CAIRO_PDF_METADATA_CREATOR, "attnlab " ATTNLAB_VERSION);
    time_t t = (time_t)(date > 0 ? date : 0);
    struct tm tm;
    char when[40];
    if (gmtime_r(&t, &tm) && strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S+00:00", &tm)) {
        cairo_pdf_surface_set_metadata(doc->surface, CAIRO_PDF_METADATA_CREATE_DATE, when);
        cairo_pdf_surface_set_metadata(doc->surface, CAIRO_PDF_METADATA_MOD_DATE, when);
    }
    return doc;
}

/* cairo's face for font i of the FontSet (the same file, face and
** weight), or NULL. */
static cairo_font_face_t *face_of(PdfDoc *doc, int i)
{
    if (i < 0 || i >= MAX_FACES) return NULL;
    if (doc->faces[i]) return doc->faces[i];
    int index = 0;
    const char *path = font_face_path(doc->fonts, i, &index);
    if (!path) return NULL;
    FcPattern *p = FcPatternCreate();
    FcPatternAddString(p, FC_FILE, (const FcChar8 *)path);
    FcPatternAddInteger(p, FC_INDEX, index);
    FcPatternAddBool(p, FC_EMBOLDEN, font_face_emboldened(doc->fonts, i) ? FcTrue : FcFalse);
    cairo_font_face_t *f = cairo_ft_font_face_create_for_pattern(p);
    FcPatternDestroy(p);
    if (cairo_font_face_status(f) != CAIRO_STATUS_SUCCESS) {
        cairo_font_face_destroy(f);
        return NULL;
    }
    return doc->faces[i] = f;
}

/* The drawing colour. */
static void set_color(cairo_t *cr, Color c)
{
    cairo_set_source_rgba(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0, c.a / 255.0);
}

/* A filled rectangle or an outline (a block of an image comes here too). */
static void put_rect(void *cr, const DrawCmd *c)
{
    if (!(c->r.w > 0) || !(c->r.h > 0)) return;
    set_color(cr, c->color);
    cairo_rectangle(cr, c->r.x, c->r.y, c->r.w, c->r.h);
    if (c->width > 0) {
        cairo_set_line_width(cr, c->width);
        cairo_stroke(cr);
    } else {
        cairo_fill(cr);
    }
}

/* A line, dashed in draw.h's one pattern when it is. */
static void put_line(cairo_t *cr, const DrawCmd *c)
{
    double w = c->width > 0 ? c->width : 1;
    set_color(cr, c->color);
    cairo_set_line_width(cr, w);
    if (c->dashed) {
        double dash[2] = { DRAW_DASH_ON * w, DRAW_DASH_OFF * w };
        cairo_set_dash(cr, dash, 2, 0);
    }
    cairo_move_to(cr, c->r.x, c->r.y);
    cairo_line_to(cr, c->r.x + c->r.w, c->r.y + c->r.h);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
}

/*
** The characters glyphs [from, to) of a run draw, as cairo's clusters:
** each glyph's characters run from its byte to the next byte of the run
** (or the end of the text). Glyphs in visual order go through the text
** forward (left to right) or backward (right to left); a segment that does
** neither (numbers inside Arabic drawn by one font) gets none, and its
** glyphs are then found by their font's character map alone. Returns the
** number of clusters (0: none), with the text's bytes in *start, *len.
*/
static int clusters_of(const FontRun *run, int from, int to, size_t text_len, cairo_text_cluster_t *out,
                       size_t *start, size_t *len, bool *backward)
{
    int n = 0;
    size_t lo = text_len, hi = 0;
    int dir = 0;                    /* +1 forward, -1 backward, 0 not known yet */
    for (int k = from; k < to; k++) {
        uint32_t b = run->g[k].byte;
        if (n > 0 && b == run->g[k - 1].byte) {            /* another glyph of the same characters */
            out[n - 1].num_glyphs++;
            continue;
        }
        size_t end = text_len;      /* the next byte any glyph of the run starts at */
        for (int j = 0; j < run->n; j++)
            if (run->g[j].byte > b && run->g[j].byte < end) end = run->g[j].byte;
        if (n > 0) {
            int d = b > run->g[k - 1].byte ? 1 : -1;
            if (dir && d != dir) return 0;
            dir = d;
            /* forward, each cluster begins where the last ended; backward, ends where it began */
            if (d > 0 && b != hi) return 0;
            if (d < 0 && end != lo) return 0;
        }
        out[n].num_bytes = (int)(end - b);
        out[n].num_glyphs = 1;
        n++;
        if (b < lo) lo = b;
        if (end > hi) hi = end;
    }
    *start = lo;
    *len = hi > lo ? hi - lo : 0;
    *backward = dir < 0;
    for (int i = 0; *backward && i < n / 2; i++) {      /* cairo lists clusters in the text's order */
        cairo_text_cluster_t t = out[i];
        out[i] = out[n - 1 - i];
        out[n - 1 - i] = t;
    }
    return n;
}

/* Glyphs [from, to) of a run, all of one font, from the pen at (0, 0). */
static void put_glyphs(PdfDoc *doc, const char *text, const FontRun *run, int from, int to, int px)
{
    cairo_t *cr = doc->cr;
    cairo_font_face_t *face = face_of(doc, run->g[from].face);
    if (!face) return;
    cairo_set_font_face(cr, face);
    cairo_set_font_size(cr, px);
    int n = to - from;
    cairo_glyph_t *g = xmalloc(sizeof *g * (size_t)n);
    cairo_text_cluster_t *cl = xmalloc(sizeof *cl * (size_t)n);
    for (int k = 0; k < n; k++) g[k] = (cairo_glyph_t){ run->g[from + k].gid, run->g[from + k].x, run->g[from + k].y };
    size_t start = 0, len = 0;
    bool backward = false;
    int ncl = utf8_valid(text, strlen(text)) ? clusters_of(run, from, to, strlen(text), cl, &start, &len, &backward) : 0;
    if (ncl > 0 && len > 0)
        cairo_show_text_glyphs(cr, text + start, (int)len, g, n, cl, ncl,
                               backward ? CAIRO_TEXT_CLUSTER_FLAG_BACKWARD : (cairo_text_cluster_flags_t)0);
    else
        cairo_show_glyphs(cr, g, n);
    free(g);
    free(cl);
}

/* Remember that the character glyph g of text draws was left out (once
** per character and font). */
static void left_out(PdfDoc *doc, const char *text, const FontRunGlyph *g)
{
    uint32_t cp = 0xFFFD;
    size_t len = strlen(text);
    if (g->byte < len) utf8_decode(text + g->byte, len - g->byte, &cp);
    const char *family = font_face_family(doc->fonts, g->face);
    for (int i = 0; i < doc->nundrawn; i++)
        if (doc->undrawn[i].cp == cp && !strcmp(doc->undrawn[i].family, family)) return;
    if (doc->nundrawn == doc->capundrawn) {
        doc->capundrawn = doc->capundrawn ? 2 * doc->capundrawn : 8;
        doc->undrawn = xrealloc(doc->undrawn, sizeof *doc->undrawn * (size_t)doc->capundrawn);
    }
    doc->undrawn[doc->nundrawn++] = (PdfUndrawn){ cp, family };
}

/*
** A colour glyph as an image: the font's own bitmap, scaled into the box
** the PNG draws it in, with the text's opacity. Each picture carries an id
** of its font file, glyph and size (cairo's unique-id mime data), so an
** emoji drawn many times, on any page, in any weight, is one image in the
** file. 0, or -1 when cairo has no
** memory for it.
*/
static int put_picture(PdfDoc *doc, const FontRunGlyph *g, const FontPicture *pic, double alpha)
{
    cairo_t *cr = doc->cr;
    cairo_surface_t *img = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, pic->w, pic->h);
    unsigned char *data = cairo_image_surface_get_data(img);
    if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS || !data) {
        cairo_surface_destroy(img);
        return -1;
    }
    int stride = cairo_image_surface_get_stride(img);
    for (int j = 0; j < pic->h; j++)            /* cairo's ARGB32: premultiplied, native words, as FontPicture */
        memcpy(data + (size_t)j * (size_t)stride, pic->argb + (size_t)j * (size_t)pic->w, 4 * (size_t)pic->w);
    cairo_surface_mark_dirty(img);
    int index = 0;
    const char *file = font_face_path(doc->fonts, g->face, &index);
    Buf id = { 0 };         /* the font's file, not its place in the FontSet: the bold weight's is the same picture */
    buf_printf(&id, "attnlab-picture %s:%d %u %d%s", file ? file : "", index, (unsigned)g->gid, pic->made_at,
               pic->thickened ? " bold" : "");
    size_t n = id.len;
    char *s = buf_take(&id);
    if (cairo_surface_set_mime_data(img, CAIRO_MIME_TYPE_UNIQUE_ID, (const unsigned char *)s, n, free, s)
        != CAIRO_STATUS_SUCCESS)
        free(s);
    cairo_save(cr);
    cairo_translate(cr, g->x + pic->x, g->y + pic->y);
    cairo_scale(cr, (double)pic->dw / pic->w, (double)pic->dh / pic->h);
    cairo_set_source_surface(cr, img, 0, 0);
    if (alpha < 1) cairo_paint_with_alpha(cr, alpha);
    else cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(img);
    return 0;
}

/*
** The glyphs of a colour font: cairo's PDF writer would put them in as
** empty Type 3 glyphs, so each is drawn as a picture (font_picture); one
** that is no picture goes in as text. A glyph that can be neither (its
** font cannot read it) is left out and remembered for pdf_undrawn.
*/
static void put_colour_glyphs(PdfDoc *doc, const char *text, const FontRun *run, int from, int to, int px, Color c)
{
    for (int k = from; k < to; k++) {
        FontPicture pic;
        int r = font_picture(doc->fonts, run->g[k].face, run->g[k].gid, px, &pic);
        if (r == 0) put_glyphs(doc, text, run, k, k + 1, px);
        else if (r < 0 || (pic.w > 0 && put_picture(doc, &run->g[k], &pic, c.a / 255.0) != 0))
            left_out(doc, text, &run->g[k]);
        free(pic.argb);
    }
}

/*
** A text run: the shaped run the window draws, its pen placed as
** render.c places it; a turned run is the same run rotated a quarter turn
** counter-clockwise about its pen. Glyphs of one font go to cairo together,
** but a colour font's as pictures (put_colour_glyphs).
*/
static void put_text(PdfDoc *doc, const DrawList *d, const DrawCmd *c)
{
    const char *s = draw_str(d, c);
    int px = font_px(c->size);
    if (px == 0 || !*s) return;
    if (!isfinite(c->r.x) || !isfinite(c->r.y) || !isfinite(c->r.w) || !isfinite(c->r.h)) return;
    int x, y;
    render_text_origin(doc->fonts, c, s, &x, &y);
    FontRun run = font_shape(doc->fonts, s, px, c->bold);      /* after measuring: the run stays valid */
    if (run.n == 0) return;
    cairo_t *cr = doc->cr;
    cairo_save(cr);
    cairo_translate(cr, x, y);
    if (c->rotate == 90) cairo_rotate(cr, -QUARTER_TURN);
    set_color(cr, c->color);
    for (int i = 0; i < run.n;) {
        int j = i;
        while (j < run.n && run.g[j].face == run.g[i].face) j++;
        if (font_face_color(doc->fonts, run.g[i].face)) put_colour_glyphs(doc, s, &run, i, j, px, c->color);
        else put_glyphs(doc, s, &run, i, j, px);
        i = j;
    }
    cairo_restore(cr);
}

/* One block of an image, as the rectangle it stands for. */
static void image_block(void *cr, const DrawCmd *rect)
{
    put_rect(cr, rect);
}

/* A page. */
int pdf_page(PdfDoc *doc, const DrawList *d, const char *outline)
{
    cairo_t *cr = doc->cr;
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS || doc->finished) return -1;
    cairo_pdf_surface_set_size(doc->surface, d->width * PT_PER_PX, d->height * PT_PER_PX);
    cairo_save(cr);
    cairo_scale(cr, PT_PER_PX, PT_PER_PX);
    cairo_rectangle(cr, 0, 0, d->width, d->height);
    cairo_clip(cr);
    set_color(cr, d->background);
    cairo_paint(cr);
    cairo_set_line_cap(cr, CAIRO_LINE_CAP_BUTT);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_MITER);
    for (int i = 0; i < d->n; i++) {
        const DrawCmd *c = &d->cmds[i];
        if (c->color.a == 0) continue;          /* an invisible hover area (plot points), as in SVG */
        if (c->kind == DRAW_RECT) put_rect(cr, c);
        else if (c->kind == DRAW_LINE) put_line(cr, c);
        else if (c->kind == DRAW_TEXT) put_text(doc, d, c);
        else if (c->kind == DRAW_IMAGE) draw_image_each(d, c, image_block, cr);
    }
    cairo_restore(cr);
    doc->pages++;
    if (outline) {
        char link[32];
        snprintf(link, sizeof link, "page=%d", doc->pages);
        cairo_pdf_surface_add_outline(doc->surface, CAIRO_PDF_OUTLINE_ROOT, outline, link, 0);
    }
    cairo_show_page(cr);
    return cairo_status(cr) == CAIRO_STATUS_SUCCESS ? 0 : -1;
}

/* The pages so far. */
int pdf_pages(const PdfDoc *doc)
{
    return doc->pages;
}

/* What was left out. */
int pdf_undrawn(const PdfDoc *doc, const PdfUndrawn **out)
{
    *out = doc->undrawn;
    return doc->nundrawn;
}

/* Finish and write. */
int pdf_save(PdfDoc *doc, const char *path, Error *err)
{
    cairo_status_t st = cairo_status(doc->cr);
    if (!doc->finished) {
        doc->finished = true;
        cairo_destroy(doc->cr);
        doc->cr = NULL;
        cairo_surface_finish(doc->surface);
        if (st == CAIRO_STATUS_SUCCESS) st = cairo_surface_status(doc->surface);
    }
    if (st != CAIRO_STATUS_SUCCESS) {
        char *shown = util_shown(path);
        error_set(err, ERR_RUNTIME, shown, 0, 0, "cannot make the PDF: %s", cairo_status_to_string(st));
        free(shown);
        return -1;
    }
    return fileio_write_atomic(path, doc->bytes.s, doc->bytes.len, false, err);
}

/* Release. */
void pdf_free(PdfDoc *doc)
{
    if (!doc) return;
    if (doc->cr) cairo_destroy(doc->cr);
    if (doc->surface) cairo_surface_destroy(doc->surface);
    for (int i = 0; i < MAX_FACES; i++)
        if (doc->faces[i]) cairo_font_face_destroy(doc->faces[i]);
    buf_free(&doc->bytes);
    free(doc->undrawn);
    free(doc);
}
