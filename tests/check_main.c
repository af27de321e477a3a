/*
** check_main.c: runs every suite and prints Check's summary. Run from tests/
** so the reference figures under tests/reference/ are found.
*/
#include "suites.h"

#include <stdlib.h>

/* Add all suites to one runner; exit non-zero on any failure. */
int main(void)
{
    SRunner *sr = srunner_create(mat_suite());
    srunner_add_suite(sr, rng_suite());
    srunner_add_suite(sr, trng_suite());
    srunner_add_suite(sr, attn_suite());
    srunner_add_suite(sr, lesson_suite());
    srunner_add_suite(sr, lessonsave_suite());
    srunner_add_suite(sr, stage_suite());
    srunner_add_suite(sr, state_suite());
    srunner_add_suite(sr, render_suite());
    srunner_add_suite(sr, cmap_suite());
    srunner_add_suite(sr, layout_suite());
    srunner_add_suite(sr, scale_suite());
    srunner_add_suite(sr, svg_suite());
    srunner_add_suite(sr, fileio_suite());
    srunner_add_suite(sr, export_suite());
    srunner_add_suite(sr, npy_suite());
    srunner_add_suite(sr, highlight_suite());
    srunner_add_suite(sr, utf8_suite());
    srunner_add_suite(sr, text_suite());
    srunner_add_suite(sr, textbreak_suite());
    srunner_add_suite(sr, i18n_suite());
    srunner_add_suite(sr, keys_suite());
    srunner_add_suite(sr, link_suite());
    srunner_add_suite(sr, zipread_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
