/*
** tfonts.c: the real-font fixture of the suites (tfonts.h).
*/
#include "tfonts.h"
#include "suites.h"
#include "tstages.h"

#include <stddef.h>

FontSet *tfonts;

/* Open DejaVu Sans for one test. */
void tfonts_setup(void)
{
    Error err;
    tfonts = font_create(NULL, &err);
    ck_assert_msg(tfonts != NULL, "font_create: %s", eline(&err));
    tstages_use_pager(font_measure, tfonts);        /* pages cut as this font lays them out */
}

/* And give it back. */
void tfonts_teardown(void)
{
    tstages_use_pager(NULL, NULL);
    font_free(tfonts);
    tfonts = NULL;
}
