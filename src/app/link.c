/*
** link.c: the slide as a link's fields, and back (see link.h).
*/
#include "link.h"
#include "core/util.h"
#include "view/cmap.h"

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
    buf_printf(&b, "&theme=%s", a->dark ? "dark" : "light");
    if (a->cmap >= 0) buf_printf(&b, "&cmap=%s", cmap_names()[a->cmap]);
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

/* Show the slide of the fields. */
void app_link_apply(AppState *a, const char *fields)
{
    char v[64];
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
    app_goto(a, number(field(fields, "stage", v, sizeof v), a->stage + 1));
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
}
