/*
** tslides.h: what the suites of the projector slide share: layouts with
** the real font at a size or on the 1280x720 slide, a lesson loaded and
** traced, and walks over the bundled, test and generated lessons.
*/
#ifndef ATTNLAB_TSLIDES_H
#define ATTNLAB_TSLIDES_H

#include "core/lesson/lesson.h"
#include "core/compute/trace.h"
#include "core/stage/stage.h"
#include "view/layout.h"

#define SLIDE_W 1280
#define SLIDE_H 720

/* v laid out at w x h with the real font and the cache lc, which it
** keeps for the next layout (caller frees the list). */
DrawList *tslides_lay_kept(LayoutCache *lc, const View *v, int w, int h);
/* v laid out at w x h with DejaVu Sans (caller frees). */
DrawList *tslides_lay_at(const View *v, int w, int h);
/* v laid out on the projector slide (caller frees). */
DrawList *tslides_lay(const View *v);
/* The lesson at path and its trace in *T, or fail the test. */
Lesson *tslides_load(const char *path, Trace **T);

/* What a walk is given: the file's name, the lesson, its trace. */
typedef void (*TSlidesFn)(const char *name, const Lesson *L, const Trace *T, void *ctx);
/* Every bundled lesson, then every lesson in slide-lessons/, given to fn. */
void tslides_each_lesson(TSlidesFn fn, void *ctx);
/* fn over twelve generated lessons: 11 to 16 tokens from six scripts, 1,
** 2 or 4 heads, causal or not, no positions, RoPE or ALiBi. */
void tslides_each_generated(TSlidesFn fn, void *ctx);

#endif
