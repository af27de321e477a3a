/*
** link.c: the slide as a link's fields, and back (see link.h).
*/
#include "link.h"
#include "core/text/i18n.h"
#include "core/util.h"
#include "view/cmap.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The setup of the stage on screen, and the same setup as the file has it
** (NULL when the file's parse is not at hand). */
static const Setup *setups(const AppState *a, const Setup **file)
{
    const Lesson *L = a->doc->L, *disk = a->doc->disk_L;
    int s = L->stages[a->stage].setup;
    *file = disk && disk->nsetups == L->nsetups ? &disk->setups[s] : NULL;
    return &L->setups[s];
}

/* The value of cell (row, col) of matrix name in setup s of the file on
** disk, in *v; false when the file's parse does not have it. */
static bool file_value(const AppState *a, int s, const char *name, int row, int col, double *v)
{
    const Lesson *disk = a->doc->disk_L;
    if (!disk || s >= disk->nsetups) return false;
    const LessonMatrix *lm = lesson_matrix(&disk->setups[s], name);
    if (!lm || !lm->m || row >= lm->m->rows || col >= lm->m->cols) return false;
    *v = mat_get(lm->m, row, col);
    return true;
}

/* "&edits=S.M.R.C:V,...": each edited cell in effect once (its last value),
** where it differs from the file, in the order first edited. */
static void edit_fields(const AppState *a, Buf *b)
{
    const Doc *d = a->doc;
    int from = doc_edits_from(d), n = 0;
    for (int i = from; i < d->nedits; i++) {
        const DocEdit *e = &d->edits[i];
        bool later = false;                         /* the cell is edited again above: that value counts */
        for (int j = i + 1; j < d->nedits && !later; j++)
            later = d->edits[j].setup == e->setup && d->edits[j].row == e->row && d->edits[j].col == e->col
                 && !strcmp(d->edits[j].matrix, e->matrix);
        double was;
        if (later || (file_value(a, e->setup, e->matrix, e->row, e->col, &was) && was == e->now)) continue;
        char v[32];
        util_fmt_shortest(v, sizeof v, e->now);         /* reads back as the same double */
        buf_printf(b, "%s%d.%s.%d.%d:%s", n++ ? "," : "&edits=", e->setup + 1, e->matrix, e->row + 1, e->col + 1, v);
    }
}

/* "&ablate=S.H[m],...": heads switched off where the file has them on (or
** the other way: "S.H+"), a head replaced by its mean marked m. */
static void ablate_fields(const AppState *a, Buf *b)
{
    const Lesson *L = a->doc->L, *disk = a->doc->disk_L;
    int n = 0;
    for (int s = 0; s < L->nsetups; s++) {
        const Setup *su = &L->setups[s], *file = disk && disk->nsetups == L->nsetups ? &disk->setups[s] : NULL;
        for (int h = 1; h <= su->heads && h <= 32; h++) {
            unsigned bit = 1u << (h - 1);
            bool off = su->ablated & bit, mean = su->ablate_mean & bit;
            bool was_off = file && (file->ablated & bit), was_mean = file && (file->ablate_mean & bit);
            if (off == was_off && mean == was_mean) continue;
            buf_printf(b, "%s%d.%d%s", n++ ? "," : "&ablate=", s + 1, h, !off ? "+" : mean ? "m" : "");
        }
    }
}

/* The fields of the slide. */
char *app_link_fields(const AppState *a)
{
    Buf b = { 0 };
    buf_puts(&b, "");
    if (!a->doc || !a->view) return buf_take(&b);
    buf_printf(&b, "stage=%d", a->stage + 1);
    if (a->view->nsteps > 1 && a->step > 0) buf_printf(&b, "&step=%d", a->step + 1);
    if (a->head > 0) buf_printf(&b, "&head=%d", a->head);
    const Setup *file, *su = setups(a, &file);
    bool masked = su->mask != MASK_NONE;
    if (!file || masked != (file->mask != MASK_NONE)) buf_printf(&b, "&mask=%s", masked ? "on" : "off");
    if (su->score != SCORE_ADDITIVE && (!file || su->score != file->score))
        buf_printf(&b, "&scaling=%s", su->score == SCORE_SCALED_DOT ? "on" : "off");
    if (!file || su->temperature != file->temperature) {
        char t[32];
        util_fmt_shortest(t, sizeof t, su->temperature);   /* reads back as the same double */
        buf_printf(&b, "&temp=%s", t);
    }
    if (a->dark) buf_puts(&b, "&theme=dark");          /* light is every lesson's own */
    if (a->cmap >= 0) buf_printf(&b, "&cmap=%s", cmap_names()[a->cmap]);
    ablate_fields(a, &b);
    edit_fields(a, &b);
    return buf_take(&b);
}

/* The value of field key in fields ("" if it has none; NULL if absent),
** copied into out. A bare number stands for stage. */
static const char *field(const char *fields, const char *key, char *out, size_t n)
{
    size_t kl = strlen(key);
    for (const char *f = fields; *f;) {
        size_t len = strcspn(f, "&;");
        const char *eq = memchr(f, '=', len);
        bool bare = !eq && len > 0 && strspn(f, "0123456789") == len;
        if ((eq && (size_t)(eq - f) == kl && !strncmp(f, key, kl)) || (bare && !strcmp(key, "stage"))) {
            const char *v = eq ? eq + 1 : f;
            size_t vl = len - (size_t)(v - f);
            snprintf(out, n, "%.*s", (int)(vl < n ? vl : n - 1), v);
            return out;
        }
        f += len;
        if (*f) f++;
    }
    return NULL;
}

/* A whole number from a field, or fallback. */
static int number(const char *v, int fallback)
{
    char *end;
    long n = v && *v ? strtol(v, &end, 10) : 0;
    return v && *v && !*end && n > 0 && n < 100000 ? (int)n : fallback;
}

/* The fields a link may hold; "lesson" and "text" are the page's own. */
static const char *const known[] = { "stage", "step", "head", "mask", "scaling", "temp", "theme", "cmap", "edits",
                                     "ablate", "lesson", "text", NULL };

/* The first field of fields whose name is not known, into out; false when all are. */
static bool unknown_field(const char *fields, char *out, size_t n)
{
    for (const char *f = fields; *f;) {
        size_t len = strcspn(f, "&;"), name = strcspn(f, "=&;");
        bool bare = name == len && len > 0 && strspn(f, "0123456789") == len, ok = bare || len == 0;
        for (int i = 0; !ok && known[i]; i++) ok = strlen(known[i]) == name && !strncmp(f, known[i], name);
        if (!ok) {
            snprintf(out, n, "%.*s", (int)(name < 40 ? name : 40), f);
            return true;
        }
        f += len;
        if (*f) f++;
    }
    return false;
}

/* One item of a link's list, applied to a; false when it is not one or
** the lesson has no such thing. */
typedef bool (*ItemFn)(AppState *a, const char *item);

/* Each comma-separated item of list, in order, through fn; false at the
** first that fails, its text (cut to fit) in bad. */
static bool each_item(AppState *a, const char *list, ItemFn fn, char *bad, size_t n)
{
    for (const char *q = list; *q;) {
        size_t len = strcspn(q, ",");
        char item[128];
        snprintf(item, sizeof item, "%.*s", (int)(len < sizeof item - 1 ? len : sizeof item - 1), q);
        if (len >= sizeof item || !fn(a, item)) {
            snprintf(bad, n, "%s", item);
            return false;
        }
        q += len;
        if (*q) q++;
    }
    return true;
}

/* "S.H" (head H of setup S off), "S.Hm" (replaced by its mean), "S.H+" (on). */
static bool ablate_item(AppState *a, const char *item)
{
    int s, h, used = 0;
    if (sscanf(item, "%d.%d%n", &s, &h, &used) != 2 || used == 0) return false;
    char mode = item[used];
    if ((mode && item[used + 1]) || !(mode == 0 || mode == 'm' || mode == '+')) return false;
    return s >= 1 && s <= a->doc->L->nsetups && h >= 1 && h <= a->doc->L->setups[s - 1].heads && h <= 32
        && app_set_ablation(a, s - 1, h, mode == '+' ? 0 : mode == 'm' ? 2 : 1);
}

/* "S.NAME.R.C:V": cell (R, C) of matrix NAME in setup S set to V (a matrix
** name is an identifier: no dot in it). */
static bool edit_item(AppState *a, const char *item)
{
    char name[LESSON_MAX_NAME + 1], *end = NULL;
    int s, r, c, used = 0;
    _Static_assert(LESSON_MAX_NAME == 32, "the name's width in the format");
    if (sscanf(item, "%d.%32[A-Za-z0-9_].%d.%d:%n", &s, name, &r, &c, &used) != 4 || used == 0 || !item[used]) return false;
    double v = strtod(item + used, &end);
    return !*end && isfinite(v) && s >= 1 && s <= a->doc->L->nsetups && r >= 1 && c >= 1
        && app_edit_cell(a, s - 1, name, r - 1, c - 1, v);
}

/* Show the slide of the fields; what the link asked that cannot be shown
** is said in the toast (the settings' own messages are not). */
void app_link_apply(AppState *a, const char *fields)
{
    char v[64], said[300] = "", bad[128];
    const char *f;
    if ((f = field(fields, "theme", v, sizeof v))) {
        if (!strcmp(f, "dark")) a->dark = true;
        else if (!strcmp(f, "light")) a->dark = false;
    }
    if ((f = field(fields, "cmap", v, sizeof v))) {
        a->cmap = -1;
        for (int i = 0; cmap_names()[i]; i++)
            if (!strcmp(cmap_names()[i], f)) a->cmap = i;
    }
    if (!a->doc) return;
    if (unknown_field(fields, bad, sizeof bad))
        snprintf(said, sizeof said, _("this link's field \xe2\x80\x9c%s\xe2\x80\x9d means nothing here: the rest is shown"), bad);
    /* the lesson's own numbers first: edits and heads switched off belong to it, whatever stage is shown */
    char *list = NULL;
    size_t cap = strlen(fields) + 1;
    list = xmalloc(cap);
    if (field(fields, "ablate", list, cap) && !each_item(a, list, ablate_item, bad, sizeof bad))
        snprintf(said, sizeof said, _("this link's heads to switch off stop at \xe2\x80\x9c%s\xe2\x80\x9d, which this lesson does not have"), bad);
    if (field(fields, "edits", list, cap) && !each_item(a, list, edit_item, bad, sizeof bad))
        snprintf(said, sizeof said, _("this link's edits stop at \xe2\x80\x9c%s\xe2\x80\x9d, which is no cell of this lesson"), bad);
    free(list);
    int n = a->doc->L->nstages, want = a->stage + 1;
    if ((f = field(fields, "stage", v, sizeof v))) {
        char *end;
        long k = strtol(f, &end, 10);
        if (!*f || *end || k < 1) snprintf(said, sizeof said, _("this link's stage \xe2\x80\x9c%s\xe2\x80\x9d is no stage number"), f);
        else if (k > n) {
            snprintf(said, sizeof said, _("this link asks for stage %ld; the lesson has %d: here is the last"), k, n);
            want = n;
        } else want = (int)k;
    }
    app_goto(a, want);
    const Setup *file, *su = setups(a, &file);
    (void)file;
    if ((f = field(fields, "mask", v, sizeof v)) && (!strcmp(f, "on") || !strcmp(f, "off"))
        && (su->mask != MASK_NONE) != !strcmp(f, "on"))
        app_toggle_mask(a);
    if ((f = field(fields, "scaling", v, sizeof v)) && (!strcmp(f, "on") || !strcmp(f, "off"))
        && su->score != SCORE_ADDITIVE && (su->score == SCORE_SCALED_DOT) != !strcmp(f, "on"))
        app_toggle_scaling(a);
    if ((f = field(fields, "temp", v, sizeof v))) {
        char *end;
        double t = strtod(f, &end);
        if (*f && !*end && t != su->temperature) app_set_temperature(a, t);
    }
    app_show(a, number(field(fields, "step", v, sizeof v), 1) - 1, number(field(fields, "head", v, sizeof v), 0));
    a->toast[0] = '\0';                    /* the settings' own messages: not news to who follows a link */
    if (said[0]) app_toast(a, "%s", said);
}
