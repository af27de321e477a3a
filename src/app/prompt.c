/*
** prompt.c: confirmations and the Save as field (see prompt.h).
*/
#define _POSIX_C_SOURCE 200809L
#include "prompt.h"
#include "nav.h"
#include "library.h"
#include "core/text/i18n.h"
#include "core/text/utf8.h"
#include "core/util.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Forget what was asked. */
static void ask_none(AppState *a)
{
    a->ask = ASK_NONE;
    free(a->ask_path);
    a->ask_path = NULL;
}

/* Ask something: the question must be seen, so the black screen goes. */
static void ask(AppState *a, AppAsk what)
{
    ask_none(a);
    a->ask = what;
    a->black = false;
}

/* Whether there are edits that would be lost. */
static bool unsaved(const AppState *a)
{
    return a->doc && a->doc->dirty;
}

/* Quit now or ask. */
void app_request_quit(AppState *a)
{
    if (a->ask == ASK_QUIT || !unsaved(a)) {
        a->quit = true;
        return;
    }
    ask(a, ASK_QUIT);
}

/* Open now or ask. */
void app_request_open(AppState *a, const char *path)
{
    if (unsaved(a)) {
        ask(a, ASK_OPEN);
        a->ask_path = xstrdup(path);
        return;
    }
    char *p = xstrdup(path);                  /* path may be a picker item, freed by opening */
    if (app_open(a, p) == 0) a->picker = false;
    free(p);
}

/* The name field, filled with the proposal. */
void app_save_as_start(AppState *a)
{
    if (!a->doc) return;
    ask(a, ASK_SAVE_AS);
    doc_save_as_default(a->doc, a->ask_text, sizeof a->ask_text);
}

/* The field of a file name (Save as, or the file to open), with the text
** to start with. */
static void ask_field(AppState *a, AppAsk what, const char *start)
{
    ask(a, what);
    snprintf(a->ask_text, sizeof a->ask_text, "%s", start);
    a->ask_note[0] = '\0';
}

/* Whether a file name or a sentence is being typed. */
static bool typing(const AppState *a)
{
    return a->ask == ASK_SAVE_AS || a->ask == ASK_OPEN_FILE || a->ask == ASK_SENTENCE;
}

/* The sentence the model of the lesson reads now. */
char *app_sentence_now(AppState *a)
{
    char *now = a->doc ? doc_sentence(a->doc) : NULL;
    if (!now) app_toast(a, "%s", _("this lesson reads no model: a setup with model: and text: reads a sentence"));
    return now;
}

/* I: the field of the sentence a model's lesson reads, with the one it reads now. */
void app_sentence_start(AppState *a)
{
    char *now = app_sentence_now(a);
    if (now) ask_field(a, ASK_SENTENCE, now);
    free(now);
}

/* A model's lesson reads sentence: every layer again, on the same stage and
** on it the same head's page (the pages of a head change with the tokens).
** false when it cannot (the message is on screen, the lesson as it was). */
bool app_read_sentence(AppState *a, const char *sentence)
{
    NavSpot spot = a->view ? nav_spot(a->view) : (NavSpot){ 0, 0 };
    int step = a->step;
    DocEvent ev = doc_read_sentence(a->doc, sentence);
    if (!app_follow(a, &ev)) return false;
    if (a->view) app_show(a, nav_spot_step(a->view, spot, step), a->head);
    return true;
}

/* O without a dialog program: the path field, in dir. */
void app_open_file_start(AppState *a, const char *dir)
{
    char start[sizeof a->ask_text];
    snprintf(start, sizeof start, "%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/");
    ask_field(a, ASK_OPEN_FILE, start);
}

/* Tab: complete the path typed. */
void app_ask_complete(AppState *a)
{
    if (a->ask == ASK_OPEN_FILE) app_complete_path(a->ask_text, sizeof a->ask_text, a->ask_note, sizeof a->ask_note);
}

/* Typing (control characters are not part of a file name). */
void app_ask_type(AppState *a, const char *text)
{
    if (!typing(a)) return;
    a->ask_note[0] = '\0';
    size_t n = strlen(a->ask_text);
    for (const char *c = text; *c && n + 1 < sizeof a->ask_text; c++)
        if ((unsigned char)*c >= 0x20 && *c != 0x7f) a->ask_text[n++] = *c;
    a->ask_text[n] = '\0';
}

/* Backspace: one UTF-8 character. */
void app_ask_backspace(AppState *a)
{
    if (!typing(a)) return;
    a->ask_note[0] = '\0';
    size_t n = strlen(a->ask_text);
    a->ask_text[utf8_prev(a->ask_text, a->ask_text + n) - a->ask_text] = '\0';
}

/* Enter in the path field: a folder shows what it holds, a file opens. */
static void accept_path(AppState *a)
{
    char path[sizeof a->ask_text + PATH_MAX];
    const char *home = getenv("HOME");
    if (!a->ask_text[0]) return;
    if (a->ask_text[0] == '~' && a->ask_text[1] == '/' && home) snprintf(path, sizeof path, "%s%s", home, a->ask_text + 1);
    else snprintf(path, sizeof path, "%s", a->ask_text);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        size_t n = strlen(a->ask_text);
        if (n + 1 < sizeof a->ask_text && a->ask_text[n - 1] != '/') strcat(a->ask_text, "/");
        app_ask_complete(a);
        return;
    }
    ask_none(a);
    app_request_open(a, path);
}

/* Ctrl+U: empty the field. */
void app_ask_clear(AppState *a)
{
    if (typing(a)) a->ask_text[0] = a->ask_note[0] = '\0';
}

/* Enter. */
void app_ask_accept(AppState *a)
{
    switch (a->ask) {
    case ASK_NONE: return;
    case ASK_QUIT: a->quit = true; return;
    case ASK_OPEN: {
        char *p = a->ask_path;
        a->ask_path = NULL;
        ask_none(a);
        if (app_open(a, p) == 0) a->picker = false;
        free(p);
        return;
    }
    case ASK_SAVE_AS:
        if (!a->ask_text[0]) return;
        if (access(a->ask_text, F_OK) == 0) {      /* never replace a file without asking */
            free(a->ask_path);
            a->ask_path = xstrdup(a->ask_text);
            a->ask = ASK_OVERWRITE;
            return;
        }
        if (app_save_as(a, a->ask_text) == 0) ask_none(a);
        return;
    case ASK_OVERWRITE: {
        char *p = a->ask_path;
        a->ask_path = NULL;
        if (app_save_as(a, p) == 0) ask_none(a);
        else a->ask = ASK_SAVE_AS;
        free(p);
        return;
    }
    case ASK_OPEN_FILE: accept_path(a); return;
    case ASK_SENTENCE:
        if (app_read_sentence(a, a->ask_text)) ask_none(a);
        return;
    }
}

/* Esc. */
void app_ask_cancel(AppState *a)
{
    if (a->ask == ASK_OVERWRITE) {
        free(a->ask_path);
        a->ask_path = NULL;
        a->ask = ASK_SAVE_AS;
        return;
    }
    ask_none(a);
}

/* Escape: the question first, else what the state has open. */
void app_escape(AppState *a)
{
    if (a->ask) app_ask_cancel(a);
    else app_close_overlay(a);
}

/* Open the picked lesson. */
void app_picker_open(AppState *a)
{
    if (!a->picker || a->picker_n == 0) return;
    app_request_open(a, a->picker_items[a->picker_sel]);   /* asks first if there are unsaved edits */
}

/* The longest tail of text that fits in maxw, so the end of a long path shows. */
static const char *fit_tail(const char *text, float size, float maxw, MeasureFn measure, void *ctx)
{
    while (*text && measure(ctx, text, size, 0) > maxw) utf8_next(&text);
    return text;
}

/* The longest head of text that fits in maxw, with "…" when cut, into out
** (size n). */
static void fit_head(const char *text, float size, float maxw, MeasureFn measure, void *ctx, char *out, size_t n)
{
    snprintf(out, n, "%s", text);
    size_t len = strlen(out);
    while (len > 0 && measure(ctx, out, size, 0) > maxw) {
        len = (size_t)(utf8_prev(out, out + len) - out);
        snprintf(out + len, n - len, "\xe2\x80\xa6");
    }
}

/* "edited, not saved" at the top right. */
static void unsaved_mark(const Theme *th, int w, float size, MeasureFn measure, void *ctx, DrawList *out)
{
    const char *label = _("\xe2\x97\x8f edited, not saved");
    float s = size * 0.8f, tw = measure(ctx, label, s, 1), pad = s * 0.6f;
    Rect r = { (float)w - tw - 2 * pad - size * 0.6f, size * 0.5f, tw + 2 * pad, s * 1.8f };
    draw_rect(out, r, th->accent, ROLE_OVERLAY);
    int t = draw_text(out, (Rect){ r.x + pad, r.y, tw, r.h }, label, s, th->bg, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_OVERLAY);
    out->cmds[t].bold = 1;
}

/* What is asked, in the interface's language: the question into title
** (size n), the keys' hint, and the two answers' words (NULL: none). */
void app_ask_words(const AppState *a, char *title, size_t n, const char **hint, const char **yes, const char **no)
{
    *hint = _("Enter: yes    Esc: no");
    *yes = *no = NULL;
    title[0] = '\0';
    switch (a->ask) {
    case ASK_QUIT:
        snprintf(title, n, _("Quit without saving the edits?"));
        *hint = _("Q or Enter: quit without saving    Ctrl+S: save    Esc: stay");
        break;
    case ASK_OPEN:
        snprintf(title, n, _("Open another lesson without saving the edits?"));
        *hint = _("Enter: open it, dropping the edits    Esc: stay");
        *yes = _("Open it, dropping the edits");
        *no = _("Stay with the edits");
        break;
    case ASK_SAVE_AS:
        snprintf(title, n, _("Save the lesson as:"));
        *hint = _("Enter: save    Esc: cancel");
        break;
    case ASK_OVERWRITE:
        snprintf(title, n, _("%s exists. Replace it?"), a->ask_path ? a->ask_path : "");
        *hint = _("Enter: replace it (the old one is kept as FILE~)    Esc: choose another name");
        break;
    case ASK_OPEN_FILE:
        snprintf(title, n, "%s", _("Open a lesson file:"));
        *hint = _("Tab: complete    Enter: open    Esc: cancel");
        break;
    case ASK_SENTENCE:
        snprintf(title, n, "%s", _("The sentence the model reads:"));
        *hint = _("Enter: read it, every layer again    Ctrl+U: clear    Esc: cancel");
        break;
    default: break;
    }
}

/* The question box, centred (the browser edition asks with the page's own
** dialog instead). */
void app_prompt_draw(const AppState *a, const Theme *th, int w, int h, float size,
                     MeasureFn measure, void *ctx, DrawList *out)
{
    if (unsaved(a) && a->view && !a->black && !a->web) unsaved_mark(th, w, size, measure, ctx, out);   /* (the page
                                                           ** says it in its toolbar, where no title is under it) */
    if (a->ask == ASK_NONE || a->web) return;
    char title[1200];
    const char *hint, *yes, *no;
    app_ask_words(a, title, sizeof title, &hint, &yes, &no);
    float lh = size * 1.6f, pad = size * 1.2f;
    float bw = fminf((float)w - 40, fmaxf(measure(ctx, hint, size * 0.85f, 0), size * 30) + 2 * pad);
    bool note = a->ask == ASK_OPEN_FILE && a->ask_note[0];
    int lines = typing(a) ? (note ? 4 : 3) : 2;
    float bh = lh * lines + 2 * pad, x = ((float)w - bw) / 2, y = ((float)h - bh) / 2;
    draw_rect(out, (Rect){ 0, 0, (float)w, (float)h }, (Color){ 0, 0, 0, 120 }, ROLE_OVERLAY);
    draw_rect(out, (Rect){ x, y, bw, bh }, th->panel_bg, ROLE_OVERLAY);
    draw_frame(out, (Rect){ x, y, bw, bh }, th->accent, 2.0f, ROLE_OVERLAY);
    float iw = bw - 2 * pad;
    int t = draw_text(out, (Rect){ x + pad, y + pad, iw, lh }, fit_tail(title, size, iw, measure, ctx), size, th->fg,
                      ALIGN_LEFT, VALIGN_MIDDLE, ROLE_OVERLAY);
    out->cmds[t].bold = 1;
    float hy = y + pad + lh;
    if (typing(a)) {
        Rect f = { x + pad, y + pad + lh + size * 0.1f, iw, lh - size * 0.2f };
        draw_rect(out, f, th->bg, ROLE_OVERLAY);
        draw_frame(out, f, th->accent, 1.5f, ROLE_OVERLAY);
        char shown[1100];
        snprintf(shown, sizeof shown, "%s|", a->ask_text);           /* the caret at the end */
        draw_text(out, (Rect){ f.x + size * 0.4f, f.y, f.w - size * 0.8f, f.h },
                  fit_tail(shown, size, f.w - size * 0.8f, measure, ctx), size, th->fg, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_OVERLAY);
        hy += lh;
    }
    if (note) {
        char cut[sizeof a->ask_note + 4];
        fit_head(a->ask_note, size * 0.85f, iw, measure, ctx, cut, sizeof cut);
        draw_text(out, (Rect){ x + pad, hy, iw, lh }, cut, size * 0.85f, th->fg, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_OVERLAY);
        hy += lh;
    }
    draw_text(out, (Rect){ x + pad, hy, iw, lh }, hint, size * 0.85f, th->muted, ALIGN_LEFT, VALIGN_MIDDLE, ROLE_OVERLAY);
}
