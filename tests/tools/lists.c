/*
** lists.c: the names of the program's tables, one a line, for what copies
** them outside C: the fuzzing dictionary is made from this (tests/fuzz/
** rules.mk), and the docs and the Python module are checked against it
** (tests/lists.sh).
**
**     lists stages      every stage id, in the table's order
**     lists keys        every setting key: "top NAME", "setup NAME", "stage NAME"
**     lists dict        the two as libFuzzer dictionary entries: "[NAME]", "[NAME: ", "NAME: "
**     lists keys-desktop the window's keys as its help shows them, a row a line: "KEYS<TAB>WHAT"
*/
#include <stdio.h>
#include <string.h>

#include "app/keys.h"
#include "core/lesson/lesson.h"

/* Where a key belongs, as a word. */
static const char *place_word(LessonPlace p)
{
    return p == LESSON_TOP ? "top" : p == LESSON_SETUP ? "setup" : "stage";
}

int main(int argc, char **argv)
{
    const char *what = argc == 2 ? argv[1] : "";
    if (strcmp(what, "stages") && strcmp(what, "keys") && strcmp(what, "dict") && strcmp(what, "keys-desktop")) {
        fprintf(stderr, "usage: lists stages|keys|dict|keys-desktop\n");
        return 2;
    }
    if (!strcmp(what, "keys-desktop")) {       /* the rows of the window's help, untranslated */
        int n;
        const KeyRow *rows = app_key_rows(&n);
        for (int i = 0; i < n; i++)
            if ((rows[i].editions & EDITION_DESKTOP) && rows[i].ctx == KEYS_MAIN && rows[i].keys)
                printf("%s\t%s\n", rows[i].keys, rows[i].help ? rows[i].help : "");
        return 0;
    }
    bool dict = !strcmp(what, "dict");
    if (dict) printf("# Made by tests/tools/lists.c from the stage and key tables: every stage and setting key.\n");
    for (int id = 0; (dict || !strcmp(what, "stages")) && id < STAGE_COUNT; id++) {
        const char *name = lesson_stage_name((StageId)id);
        if (dict) printf("\"[%s]\"\n\"[%s: \"\n", name, name);
        else printf("%s\n", name);
    }
    LessonPlace place;
    const char *name;
    for (int i = 0; (dict || !strcmp(what, "keys")) && (name = lesson_key_name(i, &place)); i++) {
        if (dict) printf("\"%s: \"\n", name);
        else printf("%s %s\n", place_word(place), name);
    }
    return 0;
}
