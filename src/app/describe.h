/*
** describe.h: the slide on screen as text, for those who do not see the
** canvas and for those who want its numbers in a spreadsheet.
**
** The browser edition builds a DOM view of every stage from this: the
** stage's title, formula, note and explanation (announced to a screen
** reader when the stage changes) and, for each panel, a table of its
** numbers with the row and column labels as headers. The numbers are
** printed as the slide prints them (the digits the layout chose, "−∞" for
** a masked score); panels that predict mode hides give no numbers.
**
** One JSON object:
**   {"lesson": "...", "stage": 3, "stages": 10, "step": 1, "steps": 1,
**    "title": "...", "formula": "...", "note": "..." or null, "paras": [...],
**    "panels": [{"title": "...", "kind": "heatmap" or "plot", "rowAxis": "...",
**                "colAxis": "...", "rows": [...], "cols": [...],
**                "cells": [[...], ...], "hidden": false}]}
*/
#ifndef ATTNLAB_DESCRIBE_H
#define ATTNLAB_DESCRIBE_H

#include "state.h"
#include "view/draw.h"

/* The slide as JSON (the caller frees), or NULL with no lesson. shown: the
** last frame laid out from a's view (its panels' digits), or NULL for the
** shortest exact form of every number. Without numbers, every panel's
** "cells" is empty (the words alone, for a stage with many cells). */
char *app_describe(const AppState *a, const DrawList *shown, bool numbers);

/* Rows r0 to r1 (not included, clamped to the panel) of panel k's
** "cells", as a JSON list of lists (the caller frees), or NULL when there
** is no such panel or predict mode hides it: the tables' rows made as
** they come into view, without the whole stage's numbers each step. */
char *app_describe_rows(const AppState *a, const DrawList *shown, int k, int r0, int r1);

#endif
