/*
** describe.c: the slide as text (see describe.h).
*/
#include "describe.h"
#include "predict.h"
#include "core/stage/dump.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>

/* A string field: "name": "text", or null. */
static void text_field(Buf *b, const char *name, const char *s)
{
    buf_printf(b, "\"%s\": ", name);
    if (s) dump_string(b, s);
    else buf_puts(b, "null");
}

/* A list of n strings (missing ones as ""). */
static void strings(Buf *b, char *const *l, int n)
{
    buf_puts(b, "[");
    for (int i = 0; i < n; i++) {
        if (i) buf_puts(b, ", ");
        dump_string(b, l && l[i] ? l[i] : "");
    }
    buf_puts(b, "]");
}

/* A number as the slide prints it with decimals (< 0: exactly), an exact
** 0 or 1 too when even (Panel.even_decimals). */
static void number(Buf *b, double x, int decimals, bool even)
{
    char s[64];
    if (!isfinite(x)) util_fmt_num(s, sizeof s, x, 0);
    else if (decimals >= 0) util_fmt_cell_even(s, sizeof s, x, decimals, false, even);
    else util_fmt_shortest(s, sizeof s, x);
    dump_string(b, s);
}

/* Rows r0 to r1 (not included) of a panel's numbers, as a list of lists;
** a plot's bound after its series. */
static void cell_rows(Buf *b, const Panel *p, int decimals, int r0, int r1)
{
    bool bound = p->kind == PANEL_PLOT && p->bounds;
    int cols = p->m ? p->m->cols : 0;
    buf_puts(b, "[");
    for (int r = r0; r < r1; r++) {
        buf_puts(b, r > r0 ? ", [" : "[");
        for (int c = 0; c < cols; c++) {
            if (c) buf_puts(b, ", ");
            number(b, mat_get(p->m, r, c), decimals, p->even_decimals);
        }
        if (bound) {
            buf_puts(b, cols ? ", " : "");
            number(b, p->bounds[r], decimals, false);
        }
        buf_puts(b, "]");
    }
    buf_puts(b, "]");
}

/* One panel's labels and (with numbers) its numbers; a plot's rows are its
** points, its columns its series and then the bound, if it has one. */
static void panel(Buf *b, const Panel *p, int decimals, bool hidden, bool numbers)
{
    bool plot = p->kind == PANEL_PLOT;
    int rows = p->m ? p->m->rows : 0, cols = p->m ? p->m->cols : 0;
    buf_puts(b, "{");
    text_field(b, "title", p->title);
    buf_printf(b, ", \"kind\": \"%s\", ", plot ? "plot" : "heatmap");
    text_field(b, "rowAxis", p->row_axis);
    buf_puts(b, ", ");
    text_field(b, "colAxis", plot ? p->y_axis : p->col_axis);
    buf_puts(b, ", \"rows\": ");
    strings(b, p->row_labels, rows);
    buf_puts(b, ", \"cols\": [");
    char *const *names = plot ? p->series : p->col_labels;
    for (int c = 0; c < cols; c++) {
        if (c) buf_puts(b, ", ");
        dump_string(b, names && names[c] ? names[c] : "");
    }
    if (plot && p->bounds) {                         /* the bound after the series */
        if (cols) buf_puts(b, ", ");
        dump_string(b, p->bound_label ? p->bound_label : "");
    }
    buf_puts(b, "]");
    buf_printf(b, ", \"hidden\": %s, \"cells\": ", hidden ? "true" : "false");
    cell_rows(b, p, decimals, 0, hidden || !numbers ? 0 : rows);
    buf_puts(b, "}");
}

/* The digits panel k prints with (Panel.decimals of the frame shown), or
** -1 for the shortest exact form. */
static int decimals_of(const DrawList *shown, int k)
{
    return shown && k < shown->npanels ? shown->panels[k].decimals : -1;
}

/* The slide as JSON. */
char *app_describe(const AppState *a, const DrawList *shown, bool numbers)
{
    const View *v = a->view;
    if (!a->doc || !v) return NULL;
    Buf b = { 0 };
    buf_puts(&b, "{");
    text_field(&b, "lesson", a->doc->L->title);
    buf_printf(&b, ", \"stage\": %d, \"stages\": %d, \"step\": %d, \"steps\": %d, ", v->stage + 1, v->nstages,
               v->step + 1, v->nsteps);
    text_field(&b, "title", v->title);
    buf_puts(&b, ", ");
    text_field(&b, "formula", v->formula);
    buf_puts(&b, ", ");
    text_field(&b, "note", v->note);
    buf_puts(&b, ", \"paras\": ");
    strings(&b, v->paras, v->npara);
    buf_puts(&b, ", \"panels\": [");
    unsigned long long hidden = app_hidden_panels(a);
    for (int k = 0; k < v->npanels; k++) {
        if (k) buf_puts(&b, ", ");
        panel(&b, &v->panels[k], decimals_of(shown, k), k < 64 && ((hidden >> k) & 1), numbers);
    }
    buf_puts(&b, "]}");
    return buf_take(&b);
}

/* Rows r0 to r1 of panel k's numbers as JSON. */
char *app_describe_rows(const AppState *a, const DrawList *shown, int k, int r0, int r1)
{
    const View *v = a->view;
    if (!a->doc || !v || k < 0 || k >= v->npanels || (k < 64 && (app_hidden_panels(a) >> k & 1))) return NULL;
    const Panel *p = &v->panels[k];
    int rows = p->m ? p->m->rows : 0;
    r0 = r0 < 0 ? 0 : r0 > rows ? rows : r0;
    r1 = r1 < r0 ? r0 : r1 > rows ? rows : r1;
    Buf b = { 0 };
    cell_rows(&b, p, decimals_of(shown, k), r0, r1);
    return buf_take(&b);
}
