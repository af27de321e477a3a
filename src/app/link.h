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
**   theme=dark     (light is every lesson's own), cmap=NAME (every panel's)
**   ablate=2.3,2.4m   heads switched off where the file has them on (setup
**                  2's head 3 by 0, head 4 by its mean; "2.3+": on again)
**   edits=1.X.2.3:0.9,...   each edited cell's value where it differs from
**                  the file: setup, matrix, row and column (1-based); set
**                  as edits of the receiver's own (undoable, saved on request)
**
**   char *f = app_link_fields(a);        // "stage=3&head=2&edits=1.X.1.1:0.5"
**   app_link_apply(b, f);                // b shows the same slide, the same numbers
**
** The page's own fields ("lesson=", "text=") are skipped. What cannot be
** shown is said in the toast and the rest shown: a field of no meaning, a
** stage that is no number, one past the last (the last is shown), an edit
** or a head the lesson does not have (those before it are applied).
*/
#ifndef ATTNLAB_LINK_H
#define ATTNLAB_LINK_H

#include "state.h"

/* The fields of the slide on screen (the caller frees); "" with no lesson. */
char *app_link_fields(const AppState *a);
/* Show the slide the fields describe; the toast says what could not be. */
void app_link_apply(AppState *a, const char *fields);

#endif
