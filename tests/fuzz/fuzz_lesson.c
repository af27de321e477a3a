/*
** fuzz_lesson.c: a libFuzzer harness for the whole path a lesson file takes,
** without SDL.
**
** The input is a lesson file. It is parsed; if it is valid, the trace is
** computed; if that works, every stage is turned into a View, laid out
** (once per distinct stage: see drawn_before)
** (fixed-width measure, light theme at 1280x800 and dark at 640x400 with a
** hovered cell and a focused panel), written as SVG, a few cells of every
** panel are explained, the whole lesson is dumped as JSON, and finally a
** few cells of its matrices are edited and saved into the text as the
** window saves them (lessonsave.h), and the saved text is parsed again. The
** invariants checked besides "no crash, no sanitizer report":
**   - no coordinate the layout gives the SVG writer is NaN or infinite
**     (svg_nonfinite_count stays 0);
**   - an error message is one line "fuzz.lesson:LINE:COL: error: ..." with
**     LINE >= 1 and COL >= 1;
**   - saving with no edit gives the same bytes;
**   - the edited, saved text parses again to the same stages and tokens and
**     to the edited matrices, bit for bit (unless the save is refused
**     because the file would grow past a limit, or a mask would hold a
**     value other than 0 and 1).
** Any broken invariant aborts, which libFuzzer reports as a crash.
**
** Build: see tests/fuzz/rules.mk (`make fuzz`).
*/
#include "core/stage/dump.h"
#include "core/stage/explain.h"
#include "core/lesson/lesson.h"
#include "core/lesson/lessonsave.h"
#include "core/stage/stage.h"
#include "core/compute/trace.h"
#include "core/util.h"
#include "view/draw.h"
#include "view/layout.h"
#include "view/svg.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME "fuzz.lesson"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop with a message: libFuzzer keeps the input as a crash. */
static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_lesson: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* True when s is valid UTF-8 (the window draws error messages). */
static int valid_utf8(const unsigned char *s)
{
    while (*s) {
        int n = *s < 0x80 ? 1 : *s >= 0xc2 && *s <= 0xdf ? 2 : *s >= 0xe0 && *s <= 0xef ? 3
              : *s >= 0xf0 && *s <= 0xf4 ? 4 : 0;
        if (!n) return 0;
        for (int i = 1; i < n; i++)
            if ((s[i] & 0xc0) != 0x80) return 0;
        s += n;
    }
    return 1;
}

/* An error must be invalid input or over a limit, and print as one line of
** UTF-8, "fuzz.lesson:L:C: error: ...", L and C >= 1. */
static void check_error(const Error *err)
{
    char text[ERROR_LINE_MAX];
    error_format(err, text, sizeof text);
    if (!valid_utf8((const unsigned char *)text)) die("error message is not valid UTF-8", text);
    int line = 0, col = 0, n = 0;
    if (sscanf(text, NAME ":%d:%d: error: %n", &line, &col, &n) != 2 || n == 0)
        die("malformed error message", text);
    if (line < 1 || col < 1 || err->line != line || err->col != col)
        die("error position is not 1-based or disagrees with err->line/col", text);
    if (strchr(text, '\n') || text[n] == '\0') die("error message is empty or has a newline", text);
    if (err->kind != ERR_INVALID && err->kind != ERR_LIMIT) die("a lesson's error is neither invalid input nor a limit", text);
}

/* Explain a few cells of every panel: corners and the middle. */
static void explain_panels(const Lesson *L, const Trace *T, const View *v)
{
    for (int k = 0; k < v->npanels; k++) {
        const Panel *p = &v->panels[k];
        int rows = p->m->rows, cols = p->m->cols;
        int cells[3][2] = { { 0, 0 }, { rows - 1, cols - 1 }, { rows / 2, cols / 2 } };
        for (int c = 0; c < 3; c++) {
            char *text = explain_cell(L, T, v->setup, p->matrix, cells[c][0] + p->row_offset, cells[c][1]);
            free(text);
        }
    }
}

/* Lay out v in both themes and write each page as SVG. */
static void draw_view(const View *v, DrawList *d)
{
    Theme light = layout_theme(false), dark = layout_theme(true);
    LayoutOpts o = layout_defaults(1280, 800, &light, layout_measure_fixed, NULL);
    LayoutCache *lc = layout_cache_create();
    layout_view(lc, v, &o, d);
    size_t len = 0;
    char *svg = svg_write(d, v->title, "fuzz", &len);
    if (!svg || strlen(svg) != len) die("svg_write length", NULL);
    free(svg);

    o = layout_defaults(640, 400, &dark, layout_measure_fixed, NULL);
    o.focus_panel = 0;
    o.hover_panel = 0;
    o.hover_row = 0;
    o.hover_col = 0;
    o.text_scale = 1.5f;
    layout_view(lc, v, &o, d);
    layout_cache_free(lc);
    svg = svg_write(d, NULL, NULL, NULL);
    free(svg);
    if (svg_nonfinite_count() != 0) die("the layout gave a coordinate that is not finite", v->title);
}

/* True when an earlier stage shows the same panels as stage k (same setup,
** id, head, query, decimals and colormap: only titles and prose differ).
** Laying such a stage out again finds nothing new, and 64 copies of a stage
** over 1024x1024 matrices would take minutes under the sanitizers. */
static bool drawn_before(const Lesson *L, int k)
{
    const Stage *a = &L->stages[k];
    for (int i = 0; i < k; i++) {
        const Stage *b = &L->stages[i];
        if (a->id == b->id && a->setup == b->setup && a->head == b->head && a->query == b->query
            && a->decimals == b->decimals && a->own_scale == b->own_scale
            && !(a->cmap || b->cmap ? !a->cmap || !b->cmap || strcmp(a->cmap, b->cmap) : 0))
            return true;
    }
    return false;
}

/* Two parses of the same lesson hold the same data. */
static void check_same(const Lesson *a, const Lesson *b)
{
    int used = a->nsetups;
    if (used != b->nsetups || a->nstages != b->nstages) die("re-parse: different number of setups or stages", NULL);
    if (strcmp(a->title, b->title)) die("re-parse: title differs", b->title);
    if (a->summary && (!b->summary || strcmp(a->summary, b->summary))) die("re-parse: summary differs", b->summary);
    for (int k = 0; k < a->nstages; k++) {
        const Stage *x = &a->stages[k], *y = &b->stages[k];
        if (x->id != y->id || x->setup != y->setup || x->decimals != y->decimals || x->head != y->head
            || x->query != y->query || x->npara != y->npara)
            die("re-parse: a stage differs", lesson_stage_name(x->id));
        for (int i = 0; i < x->npara; i++)
            if (strcmp(x->paras[i], y->paras[i])) die("re-parse: a paragraph differs", y->paras[i]);
    }
    for (int s = 0; s < used; s++) {
        const Setup *x = &a->setups[s], *y = &b->setups[s];
        if (x->nq != y->nq || x->nk != y->nk || x->cross != y->cross || x->heads != y->heads
            || x->score != y->score || x->mask != y->mask || x->temperature != y->temperature
            || x->divisor != y->divisor)
            die("re-parse: a setting differs", NULL);
        for (int i = 0; i < x->nq; i++)
            if (strcmp(x->qtokens[i], y->qtokens[i])) die("re-parse: a query token differs", y->qtokens[i]);
        for (int i = 0; i < x->nk; i++)
            if (strcmp(x->ktokens[i], y->ktokens[i])) die("re-parse: a key token differs", y->ktokens[i]);
        if (x->nmats != y->nmats) die("re-parse: number of matrices differs", NULL);
        for (int i = 0; i < x->nmats; i++) {
            const LessonMatrix *mx = &x->mats[i], *my = lesson_matrix(y, mx->name);
            if (!my || mx->stack != my->stack || mx->m->rows != my->m->rows || mx->m->cols != my->m->cols)
                die("re-parse: a matrix is missing or has another shape", mx->name);
            size_t cells = (size_t)mx->m->rows * (size_t)mx->m->cols;
            for (size_t j = 0; j < cells; j++)
                if (memcmp(&mx->m->data[j], &my->m->data[j], sizeof(double))) {
                    char where[160];
                    snprintf(where, sizeof where, "%s in setup %d, cell (%zu, %zu): %.17g, read back %.17g", mx->name,
                             s + 1, j / (size_t)mx->m->cols + 1, j % (size_t)mx->m->cols + 1, mx->m->data[j],
                             my->m->data[j]);
                    die("re-parse: a matrix has other values", where);
                }
        }
    }
}

/* Set a cell as the window does: in every setup reading it from the same text. */
static void set_cell(Lesson *L, int setup, const char *name, int r, int c, double v)
{
    for (int s = 0; s < L->nsetups; s++)
        if (lsave_shared(L, setup, s, name, r, c)) mat_set(lesson_matrix(&L->setups[s], name)->m, r, c, v);
}

/*
** Saving: no edit gives the same bytes; then three cells of up to four
** matrices of each setup (first, last, middle) get new values, are saved
** into the text and must read back bit for bit, everything else unchanged.
*/
static void save_edits(const char *text, size_t size, Lesson *L)
{
    Error err;
    const char *msg = err.msg;
    size_t n;
    char *same = lsave_apply(text, size, L, NULL, 0, &n, &err);
    if (!same || n != size || memcmp(same, text, size)) die("saving with no edit changed the text", same ? NULL : msg);
    free(same);
    Lesson *E = lesson_parse(text, size, NAME, &err);
    if (!E) die("the same text did not parse twice", msg);
    for (int s = 0; s < E->nsetups; s++)
        for (int k = 0; k < E->setups[s].nmats && k < 4; k++) {
            LessonMatrix *lm = &E->setups[s].mats[k];
            if (lsave_feeds_transpose(E, s, lm->name) || lsave_gives_attention(E, s, lm->name))
                continue;                                           /* the window refuses these edits */
            int rows = lm->m->rows, cols = lm->m->cols;
            int cells[3][2] = { { 0, 0 }, { rows - 1, cols - 1 }, { rows / 2, cols / 2 } };
            for (int c = 0; c < 3; c++) {
                double old = mat_get(lm->m, cells[c][0], cells[c][1]);
                set_cell(E, s, lm->name, cells[c][0], cells[c][1], old / 3 + 0.1 * (c + 1));
            }
        }
    LsaveEdit *e;
    int ne = lsave_diff(L, E, &e);
    if (ne < 0) die("lsave_diff: two parses of one text differ in structure", NULL);
    char *out = lsave_apply(text, size, L, e, ne, &n, &err);
    free(e);
    if (!out) {
        /* refused: only when the text would grow past a limit or a mask would break */
        if (!strstr(msg, "over the limit") && !strstr(msg, "longer than") && !strstr(msg, "too many cell overrides")
            && !strstr(msg, "may hold only 0 and 1"))
            die("the edited lesson was not saved", msg);
        lesson_free(E);
        return;
    }
    Lesson *B = lesson_parse(out, n, NAME, &err);
    if (!B) {
        fprintf(stderr, "---- saved text ----\n%.*s\n--------------------\n", (int)n, out);
        die("the saved lesson does not parse again", msg);
    }
    check_same(E, B);
    lesson_free(B);
    lesson_free(E);
    free(out);
}

/* One input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Error err;
    Lesson *L = lesson_parse((const char *)data, size, NAME, &err);
    if (!L) {
        check_error(&err);
        return 0;
    }
    Trace *T = attn_run(L, &err);
    if (!T) {
        check_error(&err);
        lesson_free(L);
        return 0;
    }
    DrawList *d = draw_create(1280, 800);
    LayoutFitter *fitter = layout_fitter_create(layout_measure_fixed, NULL);     /* pages cut as the program cuts them */
    StagePager *pager = stage_pager_create(layout_fitter_fits, fitter);
    for (int k = 0; k < L->nstages; k++) {
        StageOpts o = { 0, 0, false, pager };
        View *v = stage_view_with(L, T, k, &o);
        if (!v) die("stage_view returned NULL for a stage in range", NULL);
        if (!drawn_before(L, k)) draw_view(v, d);
        explain_panels(L, T, v);
        stage_view_free(v);
    }
    stage_pager_free(pager);
    layout_fitter_free(fitter);
    draw_free(d);
    if (stage_view(L, T, L->nstages) || stage_view(L, T, -1)) die("stage_view accepted a stage out of range", NULL);

    Buf json = { 0 };
    dump_json(L, T, &json);
    buf_free(&json);

    save_edits((const char *)data, size, L);
    trace_free(T);
    lesson_free(L);
    return 0;
}
