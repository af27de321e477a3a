/*
** watch.c: live reload (watch.h). The time of the next look is the
** state's (AppState.watch_next, on the app clock); what a change of the
** file means is the document's (doc_reload).
*/
#include "watch.h"
#include "state.h"

/* Time to the next look at the file. */
int app_watch_due_ms(const AppState *a)
{
    if (!a->doc) return -1;
    double left = a->watch_next - a->now;
    return left <= 0 ? 0 : (int)(left * 1000) + 1;
}

/* A look, when due: one stat, and a read when it shows a change. */
bool app_watch_poll(AppState *a)
{
    if (!a->doc || a->now < a->watch_next) return false;
    a->watch_next = a->now + APP_WATCH_PERIOD;
    return doc_file_changed(a->doc) && app_reload_check(a);
}

/* Read and compare. */
bool app_reload_check(AppState *a)
{
    if (!a->doc) return false;
    DocEvent ev = doc_reload(a->doc);
    return app_follow(a, &ev);
}
