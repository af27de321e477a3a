/*
** export.c: PNG encoding with libpng into memory, then an atomic write.
*/
#include "export.h"
#include "core/fileio.h"

#include <png.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char export_err[768];

/* The last failure reason. */
const char *export_error(void)
{
    return export_err;
}

/* libpng hands over encoded bytes here: they go to the Buf. */
static void write_cb(png_structp png, png_bytep data, png_size_t len)
{
    buf_append(png_get_io_ptr(png), (const char *)data, len);
}

/* Nothing to flush: the bytes are in memory. */
static void flush_cb(png_structp png)
{
    (void)png;
}

/* libpng's fatal errors: keep the message, then unwind to the setjmp. */
static void error_cb(png_structp png, png_const_charp msg)
{
    snprintf(export_err, sizeof export_err, "export: png: %s", msg);
    png_longjmp(png, 1);
}

/* libpng's warnings are not worth a line on stderr. */
static void warning_cb(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* Whether s is plain 7-bit ASCII (and so fits a Latin-1 tEXt chunk as is). */
static int is_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80) return 0;
    return 1;
}

/* Fill one text chunk: tEXt for ASCII, iTXt for anything else. */
static void set_text(png_text *t, const char *key, const char *value)
{
    memset(t, 0, sizeof *t);
    t->compression = is_ascii(value) ? PNG_TEXT_COMPRESSION_NONE : PNG_ITXT_COMPRESSION_NONE;
    t->key = (png_charp)key;
    t->text = (png_charp)value;
    t->text_length = strlen(value);
    t->lang = (png_charp)"";
    t->lang_key = (png_charp)"";
}

/*
** Encode. The canvas is ARGB8888 (others are converted first); each row is
** turned into RGB in one reused buffer. Attention heatmaps are large flat
** cells, and for them no row filter beats every filter: zlib already finds
** the 3-byte period of a flat run, while SUB/UP/PAETH turn anti-aliased text
** edges into noise. Measured on every stage of the bundled lessons at
** 1280x800 (bench/, docs/performance.md), filter NONE beat SUB, UP and
** PAETH in both size and time at every level, and adaptive filtering was
** four times slower. Level 1 encodes in half the time of level 6 (6.9
** against 14.3 ms a stage) for files a third larger (92 against 69 KB on
** average): export speed is what a class waits for, so level 1.
** Nothing set before setjmp changes after it, as libpng's longjmp requires.
*/
static int encode_argb(SDL_Surface *s, const ExportMeta *meta, Buf *out)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, NULL, error_cb, warning_cb);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep row = xmalloc((size_t)s->w * 3);
    size_t start = out->len;
    volatile int ok = 0;
    if (!png || !info) {
        snprintf(export_err, sizeof export_err, "export: png: out of memory");
    } else if (setjmp(png_jmpbuf(png)) == 0) {
        png_set_write_fn(png, out, write_cb, flush_cb);
        png_set_IHDR(png, info, (png_uint_32)s->w, (png_uint_32)s->h, 8, PNG_COLOR_TYPE_RGB,
                     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_set_compression_level(png, EXPORT_PNG_LEVEL);
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
        png_text text[3];
        int ntext = 0;
        if (meta && meta->title) set_text(&text[ntext++], "Title", meta->title);
        if (meta && meta->description) set_text(&text[ntext++], "Description", meta->description);
        set_text(&text[ntext++], "Software", "attnlab " ATTNLAB_VERSION);
        png_set_text(png, info, text, ntext);
        png_write_info(png, info);
        for (int y = 0; y < s->h; y++) {
            const uint32_t *src = (const uint32_t *)((const uint8_t *)s->pixels + (size_t)y * (size_t)s->pitch);
            for (int x = 0; x < s->w; x++) {
                row[3 * x + 0] = (png_byte)(src[x] >> 16);
                row[3 * x + 1] = (png_byte)(src[x] >> 8);
                row[3 * x + 2] = (png_byte)src[x];
            }
            png_write_row(png, row);
        }
        png_write_end(png, NULL);
        ok = 1;
    }
    if (!ok) {
        /* Take back whatever half an image was appended. */
        out->len = start;
        if (out->s) out->s[start] = '\0';
    }
    png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
    free(row);
    return ok ? 0 : -1;
}

/* Convert to ARGB8888 if needed, lock, encode. */
int export_png_encode(SDL_Surface *s, const ExportMeta *meta, Buf *out)
{
    export_err[0] = '\0';
    if (!s || s->w <= 0 || s->h <= 0) {
        snprintf(export_err, sizeof export_err, "export: nothing to encode");
        return -1;
    }
    SDL_Surface *conv = NULL;
    if (s->format->format != SDL_PIXELFORMAT_ARGB8888) {
        conv = SDL_ConvertSurfaceFormat(s, SDL_PIXELFORMAT_ARGB8888, 0);
        if (!conv) {
            snprintf(export_err, sizeof export_err, "export: cannot convert the canvas: %s",
                     SDL_GetError());
            return -1;
        }
        s = conv;
    }
    SDL_LockSurface(s);
    int rc = encode_argb(s, meta, out);
    SDL_UnlockSurface(s);
    if (conv) SDL_FreeSurface(conv);
    return rc;
}

/* Encode to memory, then write the file in one atomic step. */
int export_png(SDL_Surface *s, const char *path, const ExportMeta *meta)
{
    if (!path || !*path) {
        snprintf(export_err, sizeof export_err, "export: no file name");
        return -1;
    }
    Buf b = { 0 };
    if (export_png_encode(s, meta, &b) < 0) {
        buf_free(&b);
        return -1;
    }
    char msg[600];
    int rc = fileio_write_atomic(path, b.s, b.len, false, msg, sizeof msg);
    if (rc < 0) snprintf(export_err, sizeof export_err, "export: %s", msg);
    buf_free(&b);
    return rc;
}
