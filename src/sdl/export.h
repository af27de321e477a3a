/*
** export.h: a rendered canvas (canvas.h) as a PNG file.
**
** The image is 8-bit RGB (alpha dropped), with text chunks naming the
** lesson, the stage and the program, and no time chunk: the same picture
** always gives the same bytes. The PNG is built in memory and then written
** with fileio_write_atomic, so a failure never leaves half a file.
**
**     Error e;
**     Offscreen *o = render_offscreen_create(1280, 800, fonts, &e);
**     render_drawlist(o->render, list, &e);
**     ExportMeta meta = { "Attention, step by step", "softmax: Attention weights" };
**     if (export_png(o->canvas, "out.png", &meta, &e) < 0)
**         error_print(&e, stderr);       // "out.png: error: cannot write: ..."
**
** Text chunks: "Title" (meta->title), "Description" (meta->description),
** "Software" ("attnlab VERSION"). Pure-ASCII values go in tEXt chunks, others
** in uncompressed iTXt chunks (tEXt is Latin-1 only; lessons are UTF-8).
**
** Two encoders write the same pixels. The fast one (built unless the
** Makefile says PNG_FAST=none) compresses with ISA-L's igzip at level 1 and
** writes the PNG chunks itself; the portable one goes through libpng and
** zlib. Both give byte-identical files from run to run; their files differ
** from each other (other deflate streams), never in the decoded pixels.
** export_png_encode uses the fast one when it is built in;
** export_png_encode_with picks one (tests compare them).
**
** Ownership: export functions only read the canvas and meta; the encoded
** bytes belong to the caller's Buf. The scratch buffers of the encoder are
** kept between calls (the second export of a run faults in no new pages) and
** live until the process ends; the module is not thread-safe.
*/
#ifndef ATTNLAB_EXPORT_H
#define ATTNLAB_EXPORT_H

#include "canvas.h"
#include "core/error.h"
#include "core/util.h"

/* deflate level: 1, the fastest, in both encoders; rows are not filtered, which suits flat
** colour (measurements in export.c and docs/performance.md). */
#define EXPORT_PNG_LEVEL 1

typedef struct ExportMeta {
    const char *title;          /* the lesson title, or NULL to leave it out */
    const char *description;    /* stage id and title, e.g. "softmax: Attention weights", or NULL */
} ExportMeta;

/* The encoders: the default (the fast one when built in), libpng + zlib,
** ISA-L (the same as LIBPNG when not built in). */
typedef enum ExportEncoder { EXPORT_ENC_DEFAULT, EXPORT_ENC_LIBPNG, EXPORT_ENC_ISAL } ExportEncoder;

/* The name of the encoder export_png_encode uses: "isa-l" or "libpng". */
const char *export_png_encoder(void);
/* Append the PNG encoding of s to out with encoder enc. 0, or -1 with err
** filled ("export: ...", ERR_RUNTIME; err may be NULL). */
int export_png_encode_with(const Canvas *s, const ExportMeta *meta, ExportEncoder enc, Buf *out, Error *err);
/* Append the PNG encoding of s to out. Returns 0, or -1 with err filled. */
int export_png_encode(const Canvas *s, const ExportMeta *meta, Buf *out, Error *err);
/* Append the bytes a PNG of s compresses: each row a filter byte (0, none)
** and its RGB bytes (for comparing encoders in `make bench`). 0, or -1 with
** err filled. */
int export_png_rows(const Canvas *s, Buf *out, Error *err);
/* Write s as a PNG file at path, atomically. Returns 0, or -1 with err
** filled (an encoding error, or fileio_write_atomic's about path); on
** failure no file is created or changed. */
int export_png(const Canvas *s, const char *path, const ExportMeta *meta, Error *err);

#endif
