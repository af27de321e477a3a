/*
** ttour.c: the tour opened for the state suites, and a frame's commands
** counted (ttour.h).
*/
#include "ttour.h"

#include <check.h>
#include <string.h>

/* A new AppState with the tour open, or fail the test. */
AppState *ttour_open(void)
{
    AppState *a = app_create();
    ck_assert_msg(app_open(a, TTOUR_PATH) == 0, "%s", a->error);
    return a;
}

/* The commands of role in d whose text contains part (any text if NULL). */
int ttour_count_role(const DrawList *d, DrawRole role, const char *part)
{
    int n = 0;
    for (int i = 0; i < d->n; i++)
        if (d->cmds[i].role == role && (!part || (d->cmds[i].kind == DRAW_TEXT && strstr(draw_str(d, &d->cmds[i]), part))))
            n++;
    return n;
}
