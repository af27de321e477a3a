/*
** dump.c: JSON output of every matrix every stage shows. Small matrices are
** written where each stage shows them; big ones once per setup, in the
** "matrices" table at the end, so that 64 stages over the same 256x1024
** embeddings write them once (see dump.h for the shape and the budget).
*/
#include "dump.h"
#include "stage.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* What one dump keeps track of: its output, the big matrices the stages
** referred to (written once per setup at the end) and the numbers left in
** its budget. */
typedef struct Shared {
    int setup;                  /* 0-based */
    char *name;
    const Mat *m;               /* borrowed from the trace */
    int order;                  /* its place among the shared, as first shown */
} Shared;

typedef struct Dump {
    Buf *out;
    Shared *shared;
    int nshared, cap;
    int64_t budget;             /* numbers still allowed (DUMP_MAX_NUMBERS) */
} Dump;

/* One number: 17 significant digits, null for −∞. (snprintf into a local
** buffer: half the cost of buf_printf, which formats twice.) */
static void number(Buf *out, double v)
{
    char s[32];
    if (!isfinite(v)) { buf_append(out, "null", 4); return; }
    int n = snprintf(s, sizeof s, "%.17g", v);
    buf_append(out, s, (size_t)n);
}

/* The rows of m as a JSON array of arrays, or null when they would go past
** the budget. */
static void data(Dump *d, const Mat *m)
{
    Buf *out = d->out;
    int64_t cells = (int64_t)m->rows * m->cols;
    if (cells > d->budget) { buf_puts(out, "null"); return; }
    d->budget -= cells;
    buf_puts(out, "[");
    for (int i = 0; i < m->rows; i++) {
        buf_puts(out, i ? ",\n        [" : "\n        [");
        for (int j = 0; j < m->cols; j++) {
            if (j) buf_append(out, ", ", 2);
            number(out, mat_get(m, i, j));
        }
        buf_puts(out, "]");
    }
    buf_puts(out, "]");
}

/* Remember that a stage of setup s showed the big matrix name; true the
** first time. */
static bool share(Dump *d, int s, const char *name, const Mat *m)
{
    for (int i = d->nshared - 1; i >= 0; i--)          /* a compare stage shows another setup's: look at all */
        if (d->shared[i].setup == s && !strcmp(d->shared[i].name, name)) return false;
    if (d->nshared == d->cap) {
        d->cap = d->cap ? 2 * d->cap : 16;
        d->shared = xrealloc(d->shared, sizeof *d->shared * (size_t)d->cap);
    }
    d->shared[d->nshared] = (Shared){ s, xstrdup(name), m, d->nshared };
    d->nshared++;
    return true;
}

/* One panel's matrix: its numbers inline when it is small (or a part the
** view made), else "shared": true and its numbers in the setup's table. A
** part of a trace matrix is named "weights[3]" (its row 3, whole) or
** "K[1..3, 1..4]" (its rows 1 to 3 and columns 1 to 4): counted from 1 and
** inclusive, as the hovers and the window's zoom count. */
static void panel(Dump *d, int setup, const Panel *p, const Mat *whole)
{
    Buf *out = d->out;
    const Mat *m = p->m;
    buf_puts(out, "{\"name\": ");
    if (p->owned && !p->difference) {
        char name[120];
        if (p->kind == PANEL_PLOT) snprintf(name, sizeof name, "%s[head %d]", p->matrix, p->col_offset + 1);
        else if (m->rows == 1 && p->col_offset == 0 && whole && m->cols == whole->cols)
            snprintf(name, sizeof name, "%s[%d]", p->matrix, p->row_offset + 1);
        else
            snprintf(name, sizeof name, "%s[%d..%d, %d..%d]", p->matrix, p->row_offset + 1, p->row_offset + m->rows,
                     p->col_offset + 1, p->col_offset + m->cols);
        dump_string(out, name);
    } else {
        dump_string(out, p->matrix);
    }
    if (p->from) buf_printf(out, ", \"setup\": %d", p->from);
    buf_printf(out, ", \"rows\": %d, \"cols\": %d, \"row_labels\": ", m->rows, m->cols);
    labels(out, p->row_labels, m->rows);
    buf_puts(out, ", \"col_labels\": ");
    labels(out, p->col_labels, m->cols);
    if (!p->owned && (long)m->rows * m->cols > DUMP_INLINE_CELLS) {
        share(d, setup, p->matrix, m);
        buf_puts(out, ", \"shared\": true}");
        return;
    }
    buf_puts(out, ", \"data\": ");
    data(d, m);
    buf_puts(out, "}");
}

/* Order of shared matrices: by setup, then as first shown. */
static int shared_cmp(const void *pa, const void *pb)
{
    const Shared *a = pa, *b = pb;
    if (a->setup != b->setup) return a->setup < b->setup ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

/* The table of big matrices: {"SETUP": {"NAME": rows, ...}, ...}, setups
** 1-based in order, each one's in the order the stages first showed them. */
static void shared_table(Dump *d)
{
    Buf *out = d->out;
    if (d->nshared > 1) qsort(d->shared, (size_t)d->nshared, sizeof *d->shared, shared_cmp);
    buf_puts(out, "{");
    for (int i = 0; i < d->nshared; i++) {
        const Shared *x = &d->shared[i];
        bool first = i == 0 || d->shared[i - 1].setup != x->setup;
        if (first) buf_printf(out, "%s\n  \"%d\": {", i ? "}," : "", x->setup + 1);
        buf_puts(out, first ? "\n    " : ",\n    ");
        dump_string(out, x->name);
        buf_puts(out, ": ");
        data(d, x->m);
        free(x->name);
    }
    buf_puts(out, d->nshared ? "}\n}" : "}");
}

/* The panels of a view as a JSON list. */
static void panels(Dump *d, const View *v, const Trace *T)
{
    Buf *out = d->out;
    buf_puts(out, "[");
    for (int i = 0; i < v->npanels; i++) {
        buf_puts(out, i ? ",\n    " : "\n    ");
        int s = stage_panel_setup(v, &v->panels[i]);
        panel(d, s, &v->panels[i], trace_at(T, s, v->panels[i].ref));
    }
    buf_puts(out, "]");
}

/* Every stage (a stage with sub-steps also lists each one's panels), then
** the shared matrices. */
void dump_json(const Lesson *L, const Trace *T, Buf *out)
{
    dump_json_stages(L, T, NULL, out);
}

/* The JSON of the stages keep says (all when NULL). */
void dump_json_stages(const Lesson *L, const Trace *T, const bool *keep, Buf *out)
{
    Dump d = { out, NULL, 0, 0, DUMP_MAX_NUMBERS };
    buf_puts(out, "{\"lesson\": ");
    dump_string(out, L->name);
    buf_puts(out, ", \"title\": ");
    dump_string(out, L->title);
    buf_puts(out, ", \"stages\": [");
    bool first = true;
    for (int k = 0; k < L->nstages; k++) {
        if (keep && !keep[k]) continue;
        StageOpts whole = { 0, 0, true, NULL };
        View *v = stage_view_with(L, T, k, &whole);
        buf_printf(out, "%s\n  {\"index\": %d, \"id\": \"%s\", \"setup\": %d, \"title\": ", first ? "" : ",", k + 1,
                   lesson_stage_name(v->id), v->setup + 1);
        first = false;
        dump_string(out, v->title);
        if (v->nblind) {                /* queries the mask leaves nothing to attend to: weights and output 0, not NaN */
            buf_puts(out, ", \"queries_without_keys\": [");
            for (int i = 0; i < v->nblind; i++) buf_printf(out, "%s%d", i ? ", " : "", v->blind_rows[i] + 1);
            buf_puts(out, "]");
        }
        if (v->note) {
            buf_puts(out, ", \"note\": ");
            dump_string(out, v->note);
        }
        buf_puts(out, ", \"matrices\": ");
        panels(&d, v, T);
        int n = v->nsteps;
        if (n > 1) buf_puts(out, ", \"steps\": [");
        for (int t = 0; t < n && n > 1; t++) {
            StageOpts o = { 0, t, true, NULL };        /* a step in time, every head and part of it */
            View *w = stage_view_with(L, T, k, &o);
            buf_printf(out, "%s\n   {\"step\": ", t ? "," : "");
            dump_string(out, w->step_name ? w->step_name : "");
            buf_puts(out, ", \"note\": ");
            dump_string(out, w->note ? w->note : "");
            buf_puts(out, ", \"matrices\": ");
            panels(&d, w, T);
            buf_puts(out, "}");
            stage_view_free(w);
        }
        if (n > 1) buf_puts(out, "]");
        buf_puts(out, "}");
        stage_view_free(v);
    }
    buf_puts(out, "\n], \"matrices\": ");
    shared_table(&d);
    buf_puts(out, "}\n");
    free(d.shared);
}
