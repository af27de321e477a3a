/*
** link.h: the slide on screen as the fields of a link, and back.
**
** The browser edition keeps its address in step with what it shows, so a
** link (or Reload, or Back) brings a student to the very slide: the page
** writes the lesson's name and these fields into the URL's fragment, and
** reads them back. The fields, joined by '&':
**
**   stage=3        the stage, 1-based (a bare "3" is read as stage=3)
**   step=2         its sub-step, 1-based (kv_cache, online_softmax)
**   head=2         the head shown alone
**   mask=off|on    the current stage's setup with its mask removed, or a
**   scaling=off|on causal one added; √d_k scaling; the softmax temperature:
**   temp=1.25      written only where they differ from the lesson's file
**   theme=dark|light, cmap=NAME (a colormap for every panel)
**
**   char *f = app_link_fields(a);        // "stage=3&head=2&theme=light"
**   app_link_apply(b, f);                // b shows the same slide
**
** Unknown fields (the page's own "lesson=") and values out of range are
** skipped, so an old or hand-written link opens what it can.
*/
#ifndef ATTNLAB_LINK_H
#define ATTNLAB_LINK_H

#include "state.h"

/* The fields of the slide on screen (the caller frees); "" with no lesson. */
char *app_link_fields(const AppState *a);
/* Show the slide the fields describe (no message is left on screen). */
void app_link_apply(AppState *a, const char *fields);

#endif
