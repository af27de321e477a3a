/*
** nav.c: the head, token and stage keys, and the comparison page's clicks
** (nav.h).
*/
#include "nav.h"
#include "core/text/i18n.h"

#include <assert.h>

/* A target that does not move. */
static NavTarget stay(NavWhy why)
{
    NavTarget t = { why, -1, -1, 0, 0 };
    return t;
}

/* The heads of v with pages of their own: how many, the first and the last. */
static int paged_heads(const View *v, int *first, int *last)
{
    int n = 0;
    *first = *last = 0;
    for (int h = 1; h <= LESSON_MAX_HEADS; h++)
        if (v->head_step[h] >= 0) {
            if (!n) *first = h;
            *last = h;
            n++;
        }
    return n;
}

/*
** The heads a page stands at, lo … hi: those it shows; before every head
** (0) a page that comes before the first head's (the comparison); after
** every head (LESSON_MAX_HEADS + 1) one after them (the heads joined).
*/
static void page_heads(const View *v, int first, int *lo, int *hi)
{
    if (v->page_h0 > 0) {
        *lo = v->page_h0;
        *hi = v->page_h1 >= v->page_h0 ? v->page_h1 : v->page_h0;
    } else {
        *lo = *hi = v->compare || v->step < v->head_step[first] ? 0 : LESSON_MAX_HEADS + 1;
    }
}

/* Where the view is, by head. */
NavSpot nav_spot(const View *v)
{
    int first, last, lo, hi;
    NavSpot s = { 0, 0 };
    if (paged_heads(v, &first, &last) == 0) return s;
    page_heads(v, first, &lo, &hi);
    if (lo < 1 || lo > LESSON_MAX_HEADS) return s;
    s.head = lo;
    s.within = v->step - v->head_step[lo];
    return s;
}

/* The step of a spot. */
int nav_spot_step(const View *v, NavSpot s, int step)
{
    if (s.head < 1 || v->head_step[s.head] < 0) return step;
    int at = v->head_step[s.head], end = v->nsteps;
    for (int h = s.head + 1; h <= LESSON_MAX_HEADS; h++)
        if (v->head_step[h] > at) {
            end = v->head_step[h];
            break;
        }
    return at + s.within < end ? at + s.within : end - 1;
}

/* The next or previous head's first page. */
NavTarget nav_head(const View *v, int dir)
{
    int first, last, n = paged_heads(v, &first, &last), lo, hi;
    if (n == 0) return stay(NAV_NONE);
    page_heads(v, first, &lo, &hi);
    int h = dir > 0 ? hi + 1 : lo - 1;
    while (h >= 1 && h <= LESSON_MAX_HEADS && v->head_step[h] < 0) h += dir > 0 ? 1 : -1;
    if (h < 1) return stay(NAV_FIRST);
    if (h > LESSON_MAX_HEADS) return stay(NAV_LAST);
    NavTarget t = { NAV_GO, v->stage, v->head_step[h], h, last };
    return t;
}

/* The next or previous token's page of the head shown. */
NavTarget nav_token(const View *v, int ntokens, int dir)
{
    int per = v->token_pages;
    if (v->id != STAGE_KV_CACHE || per <= 0 || ntokens <= 0) return stay(NAV_NONE);
    int cur = v->token >= 0 ? v->token : ntokens;     /* the comparison: past the last token */
    int within = v->token >= 0 ? v->step - cur * per : 0;
    int t = cur + (dir > 0 ? 1 : -1);
    if (t < 0) return stay(NAV_FIRST);
    if (t >= ntokens) return stay(NAV_LAST);
    assert(within >= 0 && within < per);
    NavTarget r = { NAV_GO, v->stage, t * per + within, t + 1, ntokens };
    return r;
}

/* The next or previous stage. */
NavTarget nav_stage(int k, int nstages, int dir)
{
    int to = k + (dir > 0 ? 1 : -1);
    if (to < 0) return stay(NAV_FIRST);
    if (to >= nstages) return stay(NAV_LAST);
    NavTarget t = { NAV_GO, to, 0, to + 1, nstages };
    return t;
}

/* The head of a comparison page's panel k, and its first page. */
int nav_compare_head(const View *v, int k, int *step)
{
    if (!v || !v->compare || k < 0 || k >= v->npanels) return 0;
    int h = v->panels[k].ref.head;
    if (h < 1 || h > LESSON_MAX_HEADS || v->head_step[h] < 0) return 0;
    *step = v->head_step[h];
    return h;
}

/* Why a head key did not move on this page. */
static void no_heads(AppState *a)
{
    const Setup *su = &a->doc->L->setups[a->view->setup];
    bool any = false;
    for (int k = 0; k < a->view->npanels; k++) any = any || a->view->panels[k].ref.head > 0;
    if (su->heads < 2) app_toast(a, _("this stage has one head"));
    else if (!any) app_toast(a, _("this stage shows no heads"));
    else if (a->head) app_toast(a, _("only head %d is shown: H shows every head"), a->head);
    else app_toast(a, _("every head is on this page"));
}

/* . and ,: the next or previous head's first page. */
void app_nav_head(AppState *a, int dir)
{
    if (!a->view) return;
    NavTarget t = nav_head(a->view, dir);
    switch (t.why) {
    case NAV_NONE: no_heads(a); break;
    case NAV_FIRST: app_toast(a, _("no head before this page")); break;
    case NAV_LAST: app_toast(a, _("no head after this page")); break;
    case NAV_GO:
        app_show(a, t.step, a->head);
        app_toast(a, _("head %d of %d"), t.which, t.count);
        break;
    }
}

/* J and Shift+J: the next or previous decoded token. */
void app_nav_token(AppState *a, int dir)
{
    if (!a->view) return;
    NavTarget t = nav_token(a->view, a->doc->L->setups[a->view->setup].nq, dir);
    switch (t.why) {
    case NAV_NONE: app_toast(a, _("this stage does not decode token by token")); break;
    case NAV_FIRST: app_toast(a, _("no token before this page")); break;
    case NAV_LAST: app_toast(a, _("no token after this page: \xe2\x86\x92 shows the comparison")); break;
    case NAV_GO:
        app_show(a, t.step, a->head);
        app_toast(a, _("token %d of %d"), t.which, t.count);
        break;
    }
}

/* Shift+→ and Shift+←: the next or previous stage, on its first page. */
void app_nav_stage(AppState *a, int dir)
{
    if (!a->doc) return;
    NavTarget t = nav_stage(a->stage, a->doc->L->nstages, dir);
    if (t.why == NAV_FIRST) app_toast(a, _("this is the first stage"));
    else if (t.why == NAV_LAST) app_toast(a, _("this is the last stage"));
    else app_goto(a, t.which);
}

/* The pointer over a panel: on the comparison page, say where a click goes. */
void app_nav_point(AppState *a, int k)
{
    int step, h = a->predict == PREDICT_OFF ? nav_compare_head(a->view, k, &step) : 0;
    if (h == a->nav_point) return;
    a->nav_point = h;
    if (h) app_toast(a, _("click: head %d on its own pages (page %d)"), h, step + 1);
}

/* A click on a head's panel of the comparison page: its first page. */
bool app_nav_click(AppState *a, int k)
{
    int step, h = a->predict == PREDICT_OFF ? nav_compare_head(a->view, k, &step) : 0;   /* predict mode: a guess */
    if (!h) return false;
    app_show(a, step, a->head);
    a->nav_point = 0;
    app_toast(a, _("head %d of %d"), h, a->doc->L->setups[a->view->setup].heads);
    return true;
}
