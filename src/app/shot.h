/*
** shot.h: one stage as an image file, headless: PNG through the offscreen
** software renderer, or SVG from the same display list. `--export` writes
** every stage this way, and the window's S key writes the current stage the
** same way, so both give the same bytes. How a stage is laid out for a
** picture and what its file is called are the browser's too (picture.h).
*/
#ifndef ATTNLAB_SHOT_H
#define ATTNLAB_SHOT_H

#include <stdbool.h>
#include <stddef.h>
#include "cli_core.h"
#include "picture.h"
#include "core/lesson/lesson.h"
#include "core/compute/trace.h"
#include "core/util.h"
#include "sdl/font.h"
#include "view/draw.h"
#include "view/layout.h"

/* 0 if the canvas (size times scale) is within RENDER_MAX_SIDE a side, the
** same for PNG and SVG; -1 with err filled (ERR_LIMIT). */
int app_shot_check(const ShotOpts *opts, Error *err);
/* Write stage k to path (written to a temporary name, then renamed), laid
** out with lc. 0, or -1 with err filled. */
int app_shot_write(FontSet *fonts, LayoutCache *lc, const Lesson *L, const Trace *T, int k, const ShotOpts *opts,
                   const char *path, Error *err);
/* Write a laid-out list to path: a PNG drawn by the offscreen renderer, or
** SVG. 0, or -1 with err filled. The PNG's canvas is kept for the next
** picture of its size: call app_shot_release before freeing fonts. */
int app_shot_save_list(FontSet *fonts, const DrawList *d, bool svg, const char *path, const char *title,
                       const char *desc, Error *err);
/* Encode a laid-out list as PNG (on the kept canvas) or SVG, appended to
** out. 0, or -1 with err filled. */
int app_shot_encode(FontSet *fonts, const DrawList *d, bool svg, const char *title, const char *desc, Buf *out,
                    Error *err);
/* Free the canvas kept by the last PNG (nothing when there is none). */
void app_shot_release(void);
/* Create dir (one level) if it is missing: 0, or -1 with err filled. */
int app_shot_ensure_dir(const char *dir, Error *err);

/* Write every stage (every sub-step of those that have them) of every lesson in paths to dir (created if missing),
** printing each file unless quiet; only the stages sel chooses (NULL: all).
** dir "-" writes the one picture they make to standard output instead.
** Returns the exit code: 0, 1 (I/O, font) or 2 (an invalid lesson or
** selection; the others are still written). */
int app_export(const char *dir, char **paths, int n, const ShotOpts *opts, const StageSel *sel, const char *font,
               bool quiet);

#endif
