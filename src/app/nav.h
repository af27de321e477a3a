/*
** nav.h: the keys a lecturer steers a stage in pages with: to the next or
** previous head (its first page), the next or previous decoded token of a
** K/V cache (the same head's page of it), the next or previous stage
** (its first page, whatever pages of this one are left), and a click on a
** head's panel of the comparison page (its first page).
**
** Where each goes is worked out from the view shown alone (nav_head,
** nav_token, nav_stage: pure, tested without a lesson); the app_* actions
** go there and say in a toast where they went, or why they did not move
** (a stage without heads or tokens, the first or last one).
**
**   NavTarget t = nav_head(view, +1);     // t.why == NAV_GO: show t.step
**   app_nav_head(a, +1);                  // the same, done, with its toast
*/
#ifndef ATTNLAB_NAV_H
#define ATTNLAB_NAV_H

#include "state.h"
#include "core/stage/stage.h"

/* What a key found. */
typedef enum NavWhy {
    NAV_GO,             /* go to stage / step */
    NAV_NONE,           /* the stage has no heads or tokens to go through */
    NAV_FIRST,          /* nothing before this page (or stage) */
    NAV_LAST,           /* nothing after it */
} NavWhy;

/* Where a key goes: stage and step (0-based) when why is NAV_GO, and the
** head or token arrived at (1-based) of count. */
typedef struct NavTarget {
    NavWhy why;
    int stage, step;
    int which, count;
} NavTarget;

/* The next (dir > 0) or previous head's first page from view v: from the
** comparison page, head 1; from the heads joined, the last head. */
NavTarget nav_head(const View *v, int dir);
/* The next or previous token of a K/V cache of ntokens tokens from v (the
** comparison after them counts as past the last): its page of the head v
** shows. */
NavTarget nav_token(const View *v, int ntokens, int dir);
/* The next or previous stage of nstages from stage k, on its first page. */
NavTarget nav_stage(int k, int nstages, int dir);
/* Head h of v's comparison page when panel k is one of its heads' panels
** (then its first page in *step), else 0. */
int nav_compare_head(const View *v, int k, int *step);

/* Where in a stage's pages the view is, by head (to come back to it once
** the stage is made again for other tokens): the head its page shows (0:
** none) and how many pages past that head's first. */
typedef struct NavSpot {
    int head, within;
} NavSpot;
NavSpot nav_spot(const View *v);
/* The step of spot s in v (the same head's page, as far in as it has, or
** the step s was taken at when v has no such head), from step. */
int nav_spot_step(const View *v, NavSpot s, int step);

/* The actions of the keys: go, and say where (or why not) in a toast. */
void app_nav_head(AppState *a, int dir);
void app_nav_token(AppState *a, int dir);
void app_nav_stage(AppState *a, int dir);
/* The pointer over panel k (its title or cells; -1 none): on the
** comparison page, over a head's panel, a toast says a click shows it. */
void app_nav_point(AppState *a, int k);
/* A click on panel k: on the comparison page, a head's panel goes to its
** first page (true); false when the click is not the comparison's (nor
** in predict mode, where a click is a guess). */
bool app_nav_click(AppState *a, int k);

#endif
