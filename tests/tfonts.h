/*
** tfonts.h: DejaVu Sans for the suites that measure or draw text with the
** real font (export, render, text, slides): a Check fixture that opens it
** before each test and gives it back after.
*/
#ifndef ATTNLAB_TFONTS_H
#define ATTNLAB_TFONTS_H

#include "sdl/font.h"

/* The font set of the running test (NULL outside one). */
extern FontSet *tfonts;

/* Open DejaVu Sans, found the way the program finds it, or fail the test;
** the suites' pager (tstages_pager) cuts pages as it lays them out. */
void tfonts_setup(void);
/* Give it back. */
void tfonts_teardown(void);

#endif
