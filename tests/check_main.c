/*
** check_main.c: runs the Check suites and prints Check's summary. Run from
** tests/ so the reference figures under tests/reference/ are found.
**
**     check_attnlab                  every suite
**     check_attnlab layout export    only these suites
**     check_attnlab -x layout export every suite but these
**
** `make test` runs the slow suites in a process of their own, beside the
** rest, so that two cores share the work. Time limits: each test case sets
** its own (tcase_set_timeout, at least ten times what it takes on an idle
** machine), and the Makefile scales them all with CK_TIMEOUT_MULTIPLIER from
** the machine's load; they catch hangs, never slowness. A case that sets
** none gets HANG_LIMIT seconds, not Check's own 4: the load can rise after
** the tests start, and a case of one second must not fail for it.
*/
#define _XOPEN_SOURCE 700
#include "suites.h"

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every suite, by the name its module gives it. */
static const struct {
    const char *name;
    Suite *(*make)(void);
} suites[] = {
    { "mat", mat_suite }, { "rng", rng_suite }, { "trng", trng_suite }, { "attn", attn_suite },
    { "lesson", lesson_suite }, { "lessonsave", lessonsave_suite }, { "stage", stage_suite }, { "drawn", drawn_suite },
    { "state", state_suite }, { "predict", predict_suite }, { "statefiles", state_files_suite }, { "doc", doc_suite },
    { "zoom", zoom_suite }, { "render", render_suite },
    { "cmap", cmap_suite }, { "layout", layout_suite }, { "layout_cache", layout_cache_suite }, { "scale", scale_suite },
    { "svg", svg_suite }, { "fileio", fileio_suite },
    { "export", export_suite }, { "npy", npy_suite }, { "safetensors", safetensors_suite }, { "checkpoint", checkpoint_suite },
    { "highlight", highlight_suite },
    { "utf8", utf8_suite }, { "text", text_suite }, { "shape", shape_suite }, { "textbreak", textbreak_suite },
    { "i18n", i18n_suite }, { "keys", keys_suite }, { "nav", nav_suite }, { "link", link_suite }, { "zipread", zipread_suite },
    { "open", open_suite },
    { "slides", slides_suite }, { "slide_prose", slide_prose_suite }, { "pages", pages_suite },
    { "counting", counting_suite }, { "edges", edges_suite }, { "api", api_suite },
};
#define NSUITES (sizeof suites / sizeof suites[0])

static int run(int argc, char **argv);

/* Seconds a test case without a limit of its own may run before it is taken
** for a hang (CK_DEFAULT_TIMEOUT, when the caller sets it, wins). */
#define HANG_LIMIT "120"

/* Whether name is one of the n words in list. */
static int named(const char *name, char **list, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(name, list[i]) == 0) return 1;
    return 0;
}

/* Remove a directory and what is in it (the suites' home). */
static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st; (void)flag; (void)ftw;
    return remove(path);
}

/* Add the chosen suites to one runner; exit non-zero on any failure. The
** user's own directories (recent files, the window's state, their lessons)
** are a fresh empty one of the run's, never the home of whoever runs the
** tests. */
int main(int argc, char **argv)
{
    char home[] = "/tmp/attnlab-check-XXXXXX", dir[sizeof home + 16];
    if (!mkdtemp(home)) return 2;
    snprintf(dir, sizeof dir, "%s/state", home);
    setenv("XDG_STATE_HOME", dir, 1);
    snprintf(dir, sizeof dir, "%s/data", home);
    setenv("XDG_DATA_HOME", dir, 1);
    setenv("HOME", home, 1);
    setenv("CK_DEFAULT_TIMEOUT", HANG_LIMIT, 0);
    int code = run(argc, argv);
    nftw(home, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    return code;
}

/* Run the suites named on the command line (see the top of the file). */
static int run(int argc, char **argv)
{
    int exclude = argc > 1 && strcmp(argv[1], "-x") == 0;
    char **names = argv + 1 + exclude;
    int nnames = argc - 1 - exclude;
    for (int i = 0; i < nnames; i++) {
        size_t k = 0;
        while (k < NSUITES && strcmp(suites[k].name, names[i]) != 0) k++;
        if (k == NSUITES) {
            fprintf(stderr, "check_attnlab: no suite named '%s'\n", names[i]);
            return 2;
        }
    }
    SRunner *sr = NULL;
    for (size_t k = 0; k < NSUITES; k++) {
        int chosen = nnames == 0 || named(suites[k].name, names, nnames) != exclude;
        if (!chosen) continue;
        if (!sr) sr = srunner_create(suites[k].make());
        else srunner_add_suite(sr, suites[k].make());
    }
    if (!sr) {
        fprintf(stderr, "check_attnlab: no suite left to run\n");
        return 2;
    }
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
