/*
** tstages.h: every stage of every lesson in a directory (the bundled ones,
** the script lessons), for the tests that check a property over all of
** them: loaded, traced, viewed; a lesson given as text, loaded and
** traced; and every sub-step of a stage.
*/
#ifndef ATTNLAB_TSTAGES_H
#define ATTNLAB_TSTAGES_H

#include "core/lesson/lesson.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"
#include "view/layout.h"

/* The pager the suites cut stages into pages with, as the program does
** (StageOpts.pager): the layout's answer measured with the measure last
** given to tstages_use_pager, else the fixed measure. */
StagePager *tstages_pager(void);
/* From now on (in this test's process), pages as measure (with ctx) lays
** them out: font_measure and tfonts for the suites that draw with the real
** font. */
void tstages_use_pager(MeasureFn measure, void *ctx);

/* Stage k of L as the program shows it: cut into pages by tstages_pager. */
View *tstages_view(const Lesson *L, const Trace *T, int k);

/* What tstages_each calls for stage k of lesson file name. */
typedef void (*TStageFn)(const char *name, const Lesson *L, const Trace *T, int k, View *v, void *ctx);

/* Call fn for every stage of every lesson in dir ("../lessons" for the
** bundled ones, "scripts" for the lessons in other scripts); the number of
** stages visited. A lesson that does not load or compute fails the test. */
int tstages_each(const char *dir, TStageFn fn, void *ctx);

/* A lesson given as text (name: its file name in messages), which must
** load and compute: its trace, and the lesson in *l. */
Trace *tstages_run(const char *text, const char *name, Lesson **l);

/* What tstages_each_step calls for each sub-step's view. */
typedef void (*TStepFn)(const View *v, void *ctx);

/* Every sub-step of stage k of L, of head (0: every head), given to fn. */
void tstages_each_step(const Lesson *L, const Trace *T, int k, int head, TStepFn fn, void *ctx);

#endif
