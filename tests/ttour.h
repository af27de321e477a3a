/*
** ttour.h: what the suites of the interactive program share: the tour
** opened in a fresh AppState, and counting a frame's draw commands.
*/
#ifndef ATTNLAB_TTOUR_H
#define ATTNLAB_TTOUR_H

#include "app/state.h"
#include "view/draw.h"

/* The tour, from tests/ (where the suites run). */
#define TTOUR_PATH "../lessons/01-tour.lesson"

/* A new AppState with the tour open, or fail the test. */
AppState *ttour_open(void);
/* The commands of role in d whose text contains part (any text if NULL). */
int ttour_count_role(const DrawList *d, DrawRole role, const char *part);

#endif
