/*
** dump.c: JSON output of every matrix every stage shows.
*/
#include "dump.h"
#include "stage.h"

#include <math.h>
#include <stdio.h>

/* A JSON string literal; control characters escaped as \u00XX. */
void dump_string(Buf *out, const char *s)
{
    buf_puts(out, "\"");
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        if (*c == '"' || *c == '\\') { buf_printf(out, "\\%c", *c); continue; }
        if (*c < 0x20) { buf_printf(out, "\\u%04x", *c); continue; }
        buf_append(out, (const char *)c, 1);
    }
    buf_puts(out, "\"");
}

/* A list of labels. */
static void labels(Buf *out, char *const *l, int n)
{
    buf_puts(out, "[");
    for (int i = 0; i < n; i++) {
        if (i) buf_puts(out, ", ");
        dump_string(out, l[i]);
    }
    buf_puts(out, "]");
}

/* One number: 17 significant digits, null for −∞. */
static void number(Buf *out, double v)
{
    if (isfinite(v)) buf_printf(out, "%.17g", v);
    else buf_puts(out, "null");
}

/* One panel's matrix: a part of a trace matrix is named "weights[3]" (its
** row 3, 1-based, whole) or "K[0:3,0:4]" (rows and columns as Python
** slices of the whole). */
static void panel(Buf *out, const Panel *p, const Mat *whole)
{
    const Mat *m = p->m;
    buf_puts(out, "{\"name\": ");
    if (p->owned) {
        char name[120];
        if (p->kind == PANEL_PLOT) snprintf(name, sizeof name, "%s[head %d]", p->matrix, p->col_offset + 1);
        else if (m->rows == 1 && p->col_offset == 0 && whole && m->cols == whole->cols)
            snprintf(name, sizeof name, "%s[%d]", p->matrix, p->row_offset + 1);
        else
            snprintf(name, sizeof name, "%s[%d:%d,%d:%d]", p->matrix, p->row_offset, p->row_offset + m->rows,
                     p->col_offset, p->col_offset + m->cols);
        dump_string(out, name);
    } else {
        dump_string(out, p->matrix);
    }
    buf_printf(out, ", \"rows\": %d, \"cols\": %d, \"row_labels\": ", m->rows, m->cols);
    labels(out, p->row_labels, m->rows);
    buf_puts(out, ", \"col_labels\": ");
    labels(out, p->col_labels, m->cols);
    buf_puts(out, ", \"data\": [");
    for (int i = 0; i < m->rows; i++) {
        buf_puts(out, i ? ",\n        [" : "\n        [");
        for (int j = 0; j < m->cols; j++) {
            if (j) buf_puts(out, ", ");
            number(out, mat_get(m, i, j));
        }
        buf_puts(out, "]");
    }
    buf_puts(out, "]}");
}

/* The panels of a view as a JSON list. */
static void panels(Buf *out, const View *v, const Trace *T)
{
    buf_puts(out, "[");
    for (int i = 0; i < v->npanels; i++) {
        buf_puts(out, i ? ",\n    " : "\n    ");
        panel(out, &v->panels[i], trace_at(T, v->setup, v->panels[i].ref));
    }
    buf_puts(out, "]");
}

/* Every stage; a stage with sub-steps also lists each one's panels. */
void dump_json(const Lesson *L, const Trace *T, Buf *out)
{
    buf_puts(out, "{\"lesson\": ");
    dump_string(out, L->name);
    buf_puts(out, ", \"title\": ");
    dump_string(out, L->title);
    buf_puts(out, ", \"stages\": [");
    for (int k = 0; k < L->nstages; k++) {
        View *v = stage_view(L, T, k);
        buf_printf(out, "%s\n  {\"index\": %d, \"id\": \"%s\", \"title\": ", k ? "," : "", k + 1, lesson_stage_name(v->id));
        dump_string(out, v->title);
        buf_puts(out, ", \"matrices\": ");
        panels(out, v, T);
        int n = v->nsteps;
        if (n > 1) buf_puts(out, ", \"steps\": [");
        for (int t = 0; t < n && n > 1; t++) {
            StageOpts o = { 0, t };
            View *w = stage_view_with(L, T, k, &o);
            buf_printf(out, "%s\n   {\"step\": ", t ? "," : "");
            dump_string(out, w->step_name ? w->step_name : "");
            buf_puts(out, ", \"note\": ");
            dump_string(out, w->note ? w->note : "");
            buf_puts(out, ", \"matrices\": ");
            panels(out, w, T);
            buf_puts(out, "}");
            stage_view_free(w);
        }
        if (n > 1) buf_puts(out, "]");
        buf_puts(out, "}");
        stage_view_free(v);
    }
    buf_puts(out, "\n]}\n");
}
