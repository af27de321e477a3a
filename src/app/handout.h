/*
** handout.h: a lesson as a PDF handout, for a class to take home or a
** teacher to put in slides: a page per stage picture (each sub-step of the
** stages that have them), in the lesson's order, laid out as --export lays
** out its pictures, drawn in vector form with real text (sdl/pdf.h).
** `--export DIR --format pdf` writes DIR/<lesson>.pdf for every lesson; the
** window's Ctrl+P (or Ctrl+E) writes the open one, as it is on screen (its
** edits, theme and colormap), into the --shots folder.
**
**   char *path = app_handout_path("out", L);              // "out/01-tour.pdf"
**   int pages;
**   Error err;
**   ExportBudget b;
**   if (!cli_export_begin(&b, NULL, L, T, &err) ||
**       app_handout_write(fonts, lc, L, T, &opts, &b, path, &pages, &err) != 0) error_print(&err, stderr);
*/
#ifndef ATTNLAB_HANDOUT_H
#define ATTNLAB_HANDOUT_H

#include <stddef.h>
#include "shot.h"

/* DIR/<lesson>.pdf (caller frees). */
char *app_handout_path(const char *dir, const Lesson *L);
/* Write every stage picture of L (computed as T) to path, each laid out
** with opts (its size, scale, theme, colormap) and lc, within budget b
** (cli_export_begin's for every stage: nothing is written when the pages
** draw more than it allows); *pages gets their number. 0, or -1 with err
** filled. */
int app_handout_write(FontSet *fonts, LayoutCache *lc, const Lesson *L, const Trace *T, const ShotOpts *opts,
                      ExportBudget *b, const char *path, int *pages, Error *err);

#endif
