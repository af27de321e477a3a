/*
** lesson_model.c: a model setup made into the layers' setups (see
** lesson_model.h).
**
** The author's text is read as lines. Lines before, and sections after
** the model's own, are kept as they are; the model setup is replaced by
** one generated setup a layer, each followed by the author's stages when
** its layer is shown. Every generated line remembers the author's line it
** stands for, so that the parser's messages point at what the author
** wrote. The weights are handed to the parser as float32 arrays: straight
** from the mapped file when a tensor is stored as the lesson reads it, a
** copy when it must be cut (GPT-2's Q, K and V are one matrix), turned
** (BERT's nn.Linear stores W transposed) or converted (F16, BF16).
*/
#include "lesson_model.h"
#include "lesson_int.h"
#include "lesson_model_int.h"
#include "model_cache.h"
#include "core/io/checkpoint.h"
#include "core/io/fileio.h"
#include "core/stage/stage_table.h"
#include "core/text/i18n.h"
#include "core/text/tokenizer.h"
#include "core/text/utf8.h"
#include "core/util.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


/* One line of the author's text. */
typedef struct Line {
    const char *s;
    size_t n;
} Line;

/* The author's lines of text (len bytes), CR before LF dropped; their count. */
static Line *split_lines(const char *text, size_t len, int *n)
{
    int cap = 64;
    Line *l = xmalloc(sizeof *l * (size_t)cap);
    *n = 0;
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && text[j] != '\n') j++;
        size_t m = j - i;
        if (m && text[i + m - 1] == '\r') m--;
        if (*n == cap) l = xrealloc(l, sizeof *l * (size_t)(cap *= 2));
        l[(*n)++] = (Line){ text + i, m };
        i = j + 1;
    }
    return l;
}

/* Whether line l starts a section, and its kind into kind (size n). */
static bool section(Line l, char *kind, size_t n)
{
    if (!l.n || l.s[0] != '[') return false;
    size_t k = 1;
    while (k < l.n && (isalnum((unsigned char)l.s[k]) || l.s[k] == '_')) k++;
    snprintf(kind, n, "%.*s", (int)(k - 1), l.s + 1);
    return true;
}

/* Whether line l is `key:` (after any indent), and where its value starts. */
static bool key_line(Line l, const char *key, size_t *value)
{
    size_t i = 0, k = strlen(key);
    while (i < l.n && (l.s[i] == ' ' || l.s[i] == '\t')) i++;
    if (i + k >= l.n || memcmp(l.s + i, key, k)) return false;
    i += k;
    while (i < l.n && (l.s[i] == ' ' || l.s[i] == '\t')) i++;
    if (i >= l.n || l.s[i] != ':') return false;
    i++;
    while (i < l.n && (l.s[i] == ' ' || l.s[i] == '\t')) i++;
    *value = i;
    return true;
}

/* Whether text has a setup with a model line. */
bool lml_wanted(const char *text, size_t len)
{
    int n;
    Line *l = split_lines(text, len, &n);
    bool in_setup = false, found = false;
    char kind[32];
    size_t v;
    for (int i = 0; i < n && !found; i++) {
        if (section(l[i], kind, sizeof kind)) in_setup = !strcmp(kind, "setup");
        else found = in_setup && key_line(l[i], "model", &v);
    }
    free(l);
    return found;
}

/* s (n bytes) quoted as a token or a value: \" \\ and \xHH for control bytes. */
static void quote(Buf *b, const char *s, size_t n)
{
    buf_append(b, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') buf_printf(b, "\\%c", c);
        else if (c < 0x20 || c == 0x7F) buf_printf(b, "\\x%02X", c);
        else buf_append(b, (const char *)&c, 1);
    }
    buf_append(b, "\"", 1);
}

/* A quoted value at s (n bytes; \" and \\ escapes) into *out; false with
** err at line:col when it is not one. */
static bool quoted(const char *s, size_t n, char **out, const char *file, int line, int col, Error *err)
{
    if (!n || s[0] != '"') return error_set(err, ERR_INVALID, file, line, col, "expected a value in double quotes");
    Buf b = { 0 };
    size_t i = 1;
    for (; i < n && s[i] != '"'; i++) {
        if (s[i] == '\\' && i + 3 < n && s[i + 1] == 'x' && isxdigit((unsigned char)s[i + 2]) &&
            isxdigit((unsigned char)s[i + 3])) {
            char hex[3] = { s[i + 2], s[i + 3], 0 };
            char c = (char)strtol(hex, NULL, 16);
            buf_append(&b, &c, 1);
            i += 3;
            continue;
        }
        if (s[i] == '\\' && i + 1 < n && (s[i + 1] == '"' || s[i + 1] == '\\')) i++;
        buf_append(&b, s + i, 1);
    }
    size_t j = i + 1;
    while (j < n && (s[j] == ' ' || s[j] == '\t')) j++;
    if (i >= n || (j < n && s[j] != '#')) {
        buf_free(&b);
        return error_set(err, ERR_INVALID, file, line, col + (int)(i >= n ? 0 : j),
                         i >= n ? "the value has no closing '\"'" : "nothing may follow the closing '\"'");
    }
    *out = buf_take(&b);
    if (!*out) *out = xstrdup("");
    return true;
}

/* The model setup of l (n lines): its section line's index, and the index
** of its text: line (-1 when it has none) and its model: line; false when
** there is no model setup. */
static bool find_model(const Line *l, int n, int *text_at, int *model_at)
{
    char kind[32];
    bool in_setup = false;
    int text = -1;
    *model_at = -1;
    for (int i = 0; i < n; i++) {
        size_t v;
        if (section(l[i], kind, sizeof kind)) {
            if (*model_at >= 0) break;
            in_setup = !strcmp(kind, "setup");
            text = -1;
        } else if (in_setup && key_line(l[i], "model", &v)) {
            *model_at = i;
        } else if (in_setup && key_line(l[i], "text", &v)) {
            text = i;
        }
    }
    *text_at = *model_at >= 0 ? text : -1;
    return *model_at >= 0;
}

/* The sentence the model setup reads. */
char *lml_sentence(const char *text, size_t len)
{
    int n, t, m;
    Line *l = split_lines(text, len, &n);
    char *out = NULL;
    size_t v;
    Error ignored;
    if (find_model(l, n, &t, &m) && t >= 0 && key_line(l[t], "text", &v) &&
        !quoted(l[t].s + v, l[t].n - v, &out, "", 0, 0, &ignored))
        out = NULL;
    free(l);
    return out;
}

/* The text with its model setup reading sentence. */
char *lml_with_text(const char *text, size_t len, const char *sentence, size_t *out_len)
{
    int n, t, m;
    Line *l = split_lines(text, len, &n);
    if (!find_model(l, n, &t, &m)) {
        free(l);
        return NULL;
    }
    Buf b = { 0 };
    for (int i = 0; i < n; i++) {
        if (i != t) {
            buf_append(&b, l[i].s, l[i].n);
            buf_append(&b, "\n", 1);
        }
        if (i == (t >= 0 ? t : m)) {
            buf_puts(&b, "text: ");
            quote(&b, sentence, strlen(sentence));
            buf_append(&b, "\n", 1);
        }
    }
    free(l);
    *out_len = b.len;
    return buf_take(&b);
}

/* Append line s (n bytes) standing for the author's line src (negative:
** a line made here, not the author's own). */
static void emit(ModelLesson *m, int src, const char *s, size_t n)
{
    if (m->nlines == m->cap) m->lines = xrealloc(m->lines, sizeof *m->lines * (size_t)(m->cap = m->cap ? 2 * m->cap : 256));
    m->lines[m->nlines++] = src;
    char kind[32];
    if (section((Line){ s, n }, kind, sizeof kind) && !strcmp(kind, "setup")) m->setups++;
    buf_append(&m->text, s, n);
    buf_append(&m->text, "\n", 1);
}

/* Append a formatted line standing for src. */
__attribute__((format(printf, 3, 4))) static void emitf(ModelLesson *m, int src, const char *fmt, ...)
{
    Buf b = { 0 };
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&b, fmt, ap);
    va_end(ap);
    emit(m, src, buf_str(&b), b.len);
    buf_free(&b);
}

/* The model setup's own fields. */
typedef struct Fields {
    int model_line, text_line, layers_line, ablate_line;
    char *model, *text;
    bool shown[LESSON_MAX_SETUPS];
    unsigned ablate[LESSON_MAX_SETUPS];         /* heads switched off, a bit each (1 << (h - 1)) */
    bool ablate_mean;                           /* by their mean over the tokens, not 0 */
    char title[256];
} Fields;

/* `ablate: 9.6 10.1 mean`: heads by layer and number (of a model of
** layers x heads), into f. */
static bool parse_ablate(Fields *f, Line l, size_t v, int layers, int heads, const char *file, Error *err)
{
    size_t i = v;
    while (i < l.n && l.s[i] != '#') {
        if (l.s[i] == ' ' || l.s[i] == '\t') {
            i++;
            continue;
        }
        size_t at = i;
        if (l.n - i >= 4 && !memcmp(l.s + i, "mean", 4)) {
            f->ablate_mean = true;
            i += 4;
            continue;
        }
        long a = 0, h = 0;
        while (i < l.n && isdigit((unsigned char)l.s[i]) && a < 100000) a = a * 10 + (l.s[i++] - '0');
        bool dot = i < l.n && l.s[i] == '.' && i > at;
        if (dot) i++;
        size_t hs = i;
        while (i < l.n && isdigit((unsigned char)l.s[i]) && h < 100000) h = h * 10 + (l.s[i++] - '0');
        if (!dot || i == hs || a < 1 || a > layers || h < 1 || h > heads || (i < l.n && l.s[i] != ' ' && l.s[i] != '\t'))
            return error_set(err, ERR_INVALID, file, f->ablate_line, (int)at + 1,
                             "expected heads as LAYER.HEAD (layers 1 to %d, heads 1 to %d: 9.6 10.1), then mean if "
                             "they are replaced by their mean", layers, heads);
        f->ablate[a - 1] |= 1u << (h - 1);
    }
    return true;
}

/* `layers: 1 6 12` or `layers: 1-4` (of n): the shown ones, into f. */
static bool parse_layers(Fields *f, Line l, size_t v, int n, const char *file, Error *err)
{
    memset(f->shown, 0, sizeof f->shown);
    size_t i = v;
    bool any = false;
    while (i < l.n && l.s[i] != '#') {
        if (l.s[i] == ' ' || l.s[i] == '\t' || l.s[i] == ',') { i++; continue; }
        size_t at = i;
        long a = 0, b;
        while (i < l.n && isdigit((unsigned char)l.s[i]) && a < 100000) a = a * 10 + (l.s[i++] - '0');
        b = a;
        if (i < l.n && l.s[i] == '-' && i > at) {
            i++;
            b = 0;
            size_t bs = i;
            while (i < l.n && isdigit((unsigned char)l.s[i]) && b < 100000) b = b * 10 + (l.s[i++] - '0');
            if (i == bs) b = -1;
        }
        if (i == at || a < 1 || b < a || b > n || (i < l.n && l.s[i] != ' ' && l.s[i] != '\t' && l.s[i] != ',')) {
            return error_set(err, ERR_INVALID, file, f->layers_line, (int)at + 1,
                             "expected layer numbers from 1 to %d (such as 1 6 %d, or 1-%d)", n, n, n);
        }
        for (long k = a; k <= b; k++) f->shown[k - 1] = true;
        any = true;
    }
    if (!any) return error_set(err, ERR_INVALID, file, f->layers_line, (int)v + 1, "expected layer numbers from 1 to %d", n);
    return true;
}

/* The slide title of a stage of kind (its default, in the interface's
** language) for layer (from 1; 0: the whole model). */
static void layer_title(Buf *b, const char *kind, const char *own, size_t own_len, int layer)
{
    const char *title = own;
    size_t n = own_len;
    if (!own) {
        for (int i = 0; i < STAGE_COUNT && !own; i++)
            if (!strcmp(kind, stage_kind((StageId)i)->name)) title = _(stage_kind((StageId)i)->title);
        n = title ? strlen(title) : 0;
    }
    if (!title) return;
    buf_append(b, title, n);
    if (layer > 0) buf_printf(b, _(", layer %d"), layer);
}

/* A blank line and a stage section of kind titled for layer, standing for src. */
static void emit_section(ModelLesson *m, int src, const char *kind, int layer)
{
    Buf b = { 0 };
    buf_printf(&b, "[%s: ", kind);
    layer_title(&b, kind, NULL, 0, layer);
    buf_puts(&b, "]");
    emit(m, src, "", 0);
    emit(m, src, buf_str(&b), b.len);
    buf_free(&b);
}

/* The author's section line l (of kind) with its title saying the layer. */
static void emit_titled(ModelLesson *m, int src, Line l, const char *kind, int layer)
{
    const char *close = l.s + l.n;
    while (close > l.s && close[-1] != ']') close--;
    const char *colon = memchr(l.s, ':', l.n);
    if (close == l.s || (colon && colon > close)) colon = NULL;
    if (close == l.s) {                         /* not a whole section line: the parser says so, where */
        emit(m, abs(src), l.s, l.n);
        return;
    }
    const char *own = colon ? colon + 1 : NULL;
    while (own && own < close - 1 && *own == ' ') own++;
    Buf b = { 0 };
    buf_printf(&b, "[%s: ", kind);
    layer_title(&b, kind, own, own ? (size_t)(close - 1 - own) : 0, layer);
    buf_puts(&b, "]");
    buf_append(&b, close, (size_t)(l.s + l.n - close));
    emit(m, src, buf_str(&b), b.len);
    buf_free(&b);
}

/* Whether every head of the model's layers over n tokens fits one
** model_view grid (stage_grid.c's limits, as from_torch asks them). */
static bool grid_fits(const ModelConfig *c, int n)
{
    long L = c->layers, H = c->heads, N = n;
    return L > 1 && L * N <= 16384 && H * N <= 16384 && L * H * N * N <= (1L << 24);
}

/* Whether a stage of kind is drawn once for the whole model, after its last layer. */
static bool whole_model(const char *kind)
{
    return !strcmp(kind, "next_token") || !strcmp(kind, "model_view");
}

/* The lines of setup k (from 0) of the model. */
static void emit_setup(ModelLesson *m, const ModelConfig *c, const Fields *f, int k, const Tokenizer *tok,
                       const int *ids, int n)
{
    int src = -f->model_line;
    bool last = k == c->layers - 1, gpt2 = c->arch == ARCH_GPT2;
    emit(m, src, "", 0);
    if (f->title[0]) emitf(m, src, "[setup: %s, layer %d]", f->title, k + 1);
    else emitf(m, src, "[setup: Layer %d]", k + 1);
    if (k == 0) {
        Buf b = { 0 };
        buf_puts(&b, "tokens:");
        for (int i = 0; i < n; i++) {
            const char *w = tok_word(tok, ids[i]);
            size_t len = strlen(w);
            buf_append(&b, " ", 1);
            quote(&b, w, len > LESSON_MAX_TOKEN ? utf8_floor(w, len, LESSON_MAX_TOKEN) : len);
        }
        emit(m, src, buf_str(&b), b.len);
        buf_free(&b);
        emitf(m, src, "X = load \"%s\" %sX", LML_FILE, m->prefix);
    }
    for (int j = 0; j < LML_NLAYER_MATS; j++)
        emitf(m, src, "%s = load \"%s\" %sL%d.%s", lml_layer_mats[j], LML_FILE, m->prefix, k, lml_layer_mats[j]);
    if (last && gpt2) {
        static const char *const ends[] = { "lnf_g", "lnf_b", "W_U", "vocab" };
        for (int j = 0; j < 4; j++) emitf(m, src, "%s = load \"%s\" %s%s", ends[j], LML_FILE, m->prefix, ends[j]);
    }
    if (k == 0 && m->nmodels > 1) {
        /* a model after another starts afresh: nothing of the last one's top layer carries over */
        emit(m, src, "residual: no", 12);
        emit(m, src, "unembed: none", 13);
        emit(m, src, "final_norm: none", 16);
        if (gpt2) emit(m, src, "norm_order: pre", 15);      /* (its causal mask comes below) */
        else emit(m, src, "mask: none", 10);
    }
    emit(m, src, "queries: X @ W_q + b_q", 22);
    emit(m, src, "keys: X @ W_k + b_k", 19);
    emit(m, src, "values: X @ W_v + b_v", 21);
    emit(m, src, "output: W_o + b_o", 17);
    if (k == 0 && gpt2) emit(m, src, "mask: causal", 12);
    emitf(m, src, "layer_norm: ln1_g ln1_b eps %.17g", c->eps);
    emitf(m, src, "mlp_norm: ln2_g ln2_b eps %.17g", c->eps);
    if (last && gpt2) {
        emitf(m, src, "final_norm: lnf_g lnf_b eps %.17g", c->eps);
        emit(m, src, "unembed: W_U", 12);
    }
    emitf(m, src, "mlp: W_in + b_in %s W_out + b_out", strcmp(c->activation, "gelu") ? "gelu_tanh" : "gelu");
    emitf(m, src, "heads: %d", c->heads);
    if (k > 0) emit(m, src, "residual: yes", 13);
    if (!gpt2) emit(m, src, "norm_order: post", 16);
    if (f->ablate[k]) {
        Buf b = { 0 };
        buf_puts(&b, "ablate:");
        for (int h = 0; h < c->heads; h++)
            if (f->ablate[k] >> h & 1) buf_printf(&b, " %d", h + 1);
        if (f->ablate_mean) buf_puts(&b, " mean");
        emit(m, -f->ablate_line, buf_str(&b), b.len);
        buf_free(&b);
    }
}

/* Read the model setup's lines [from, to): its fields into f. */
static bool read_fields(Fields *f, const Line *l, int from, int to, const char *file, Error *err)
{
    const char *t = memchr(l[from].s, ':', l[from].n);
    if (t) {
        size_t a = (size_t)(t + 1 - l[from].s), e = l[from].n;
        while (a < e && l[from].s[a] == ' ') a++;
        while (e > a && (l[from].s[e - 1] == ']' || l[from].s[e - 1] == ' ')) e--;
        snprintf(f->title, sizeof f->title, "%.*s", (int)(e - a), l[from].s + a);
    }
    for (int i = from + 1; i < to; i++) {
        size_t v, k = 0;
        while (k < l[i].n && (l[i].s[k] == ' ' || l[i].s[k] == '\t')) k++;
        if (k == l[i].n || l[i].s[k] == '#') continue;
        if (key_line(l[i], "model", &v)) {
            f->model_line = i + 1;
            free(f->model);
            if (!quoted(l[i].s + v, l[i].n - v, &f->model, file, i + 1, (int)v + 1, err)) return false;
        } else if (key_line(l[i], "text", &v)) {
            f->text_line = i + 1;
            free(f->text);
            if (!quoted(l[i].s + v, l[i].n - v, &f->text, file, i + 1, (int)v + 1, err)) return false;
        } else if (key_line(l[i], "layers", &v)) {
            f->layers_line = i + 1;
        } else if (key_line(l[i], "ablate", &v)) {
            f->ablate_line = i + 1;
        } else {
            return error_set(err, ERR_INVALID, file, i + 1, (int)k + 1,
                             "a setup that reads a model takes model:, text:, layers: and ablate: (its matrices come "
                             "from the model's folder)");
        }
    }
    if (!f->text) return error_set(err, ERR_INVALID, file, f->model_line, 1, "the model's setup has no text: to read");
    return true;
}

/* The folder of the user's models: $XDG_DATA_HOME/attnlab/models or
** ~/.local/share/attnlab/models ("" without a home). Caller frees. */
static char *user_models(void)
{
    const char *data = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    Buf b = { 0 };
    if (data && *data == '/') buf_printf(&b, "%s/attnlab/models", data);
    else if (home && *home) buf_printf(&b, "%s/.local/share/attnlab/models", home);
    else return xstrdup("");
    return buf_take(&b);
}

/* The folder a lesson's model: names: beside the lesson, or, when a bare
** name is not there, the user's models ($XDG_DATA_HOME/attnlab/models/NAME,
** ~/.local/share/attnlab/models/NAME), where the README downloads GPT-2. */
static char *model_dir(const char *lesson, const char *name)
{
    char *dir = lesson_relative(lesson, name);
    Buf b = { 0 };
    buf_printf(&b, "%s/config.json", dir);
    bool there = access(buf_str(&b), F_OK) == 0;
    buf_free(&b);
    char *mine = user_models();
    if (there || strchr(name, '/') || !mine[0]) {
        free(mine);
        return dir;
    }
    buf_printf(&b, "%s/%s/config.json", mine, name);
    free(mine);
    if (access(buf_str(&b), F_OK) != 0) {
        buf_free(&b);
        return dir;
    }
    free(dir);
    b.s[b.len - strlen("/config.json")] = '\0';
    return buf_take(&b);
}

/* An error about the model's own files (which name the file, without a
** line) moved to the lesson's line that names the model, the file kept in
** its words. */
static void at_line(Error *err, const char *file, int line)
{
    if (err->line || !strcmp(file, LESSON_STDIN_SHOWN)) return;     /* attnlab --model: no lesson to point at */
    Error e = *err;
    if (e.file[0]) error_set(err, e.kind, file, line, 1, "%s: %s", e.file, e.msg);
    else error_set(err, e.kind, file, line, 1, "%s", e.msg);
}

/* The next setup at or after line at that names a model: its header
** line *from, the end of its own lines *to (its first stage), the end of
** its stages *end (the next setup, or nl); false when there is none. */
static bool next_model(const Line *l, int nl, int at, int *from, int *to, int *end)
{
    char kind[32];
    *from = -1;
    *to = *end = nl;
    for (int i = at; i < nl; i++) {
        size_t v;
        if (!section(l[i], kind, sizeof kind)) continue;
        if (*from >= 0 && *to == nl) *to = i;
        if (*from >= 0 && !strcmp(kind, "setup")) {
            *end = i;
            break;
        }
        if (*from < 0 && !strcmp(kind, "setup")) {
            int j = i + 1;
            while (j < nl && !section(l[j], kind, sizeof kind) && !key_line(l[j], "model", &v)) j++;
            if (j < nl && !section(l[j], kind, sizeof kind)) *from = i;
        }
    }
    return *from >= 0;
}

/* Whether the stage whose header is line i (its lines up to end) says
** key, and whether it says `show: next_token` (*next). */
static bool stage_says(const Line *l, int i, int end, const char *key, bool *next)
{
    char kind[32];
    bool said = false;
    *next = false;
    for (int j = i + 1; j < end && !section(l[j], kind, sizeof kind); j++) {
        size_t v;
        said = said || key_line(l[j], key, &v);
        if (key_line(l[j], "show", &v)) {
            size_t e = l[j].n;
            while (v < e && (l[j].s[v] == ' ' || l[j].s[v] == '\t')) v++;
            *next = e - v >= 10 && !memcmp(l[j].s + v, "next_token", 10);
        }
    }
    return said;
}

/* The author's stages l[to, end) of a model, for its layer k (from 0) of
** c->layers (shown of them shown): each section kept or left out whole; a compare stage of a
** model after another compares with that one's same layer (its last, for
** the next token) unless it says a:. */
static void emit_stages(ModelLesson *m, const Line *l, int to, int end, const ModelConfig *c, const Fields *f, int k,
                        int shown)
{
    char kind[32];
    bool keep = false, last = k == c->layers - 1;
    for (int i = to; i < end; i++) {
        bool head = section(l[i], kind, sizeof kind), next = false;
        bool cmp = head && !strcmp(kind, "compare"), has_a = cmp && stage_says(l, i, end, "a", &next);
        bool once = whole_model(kind) || (cmp && next);
        if (head) keep = once ? last : f->shown[k];
        if (keep && head && !once && shown > 1) emit_titled(m, -(i + 1), l[i], kind, k + 1);
        else if (keep) emit(m, i + 1, l[i].s, l[i].n);
        if (keep && cmp && !has_a && m->prev_first > 0) {
            int their = next ? m->prev_layers - 1 : k < m->prev_layers ? k : m->prev_layers - 1;
            emitf(m, -(i + 1), "a: %d", m->prev_first + their);
        }
    }
}

/* The model setup l[from, to) with its stages l[to, end), the lesson's
** model number m->nmodels: its arrays, then its setups and stages. */
static bool expand_model(ModelLesson *m, const Line *l, int from, int to, int end, const char *filename,
                         const char *file, Error *err)
{
    Fields f = { 0 };
    int *ids = NULL, n = 0;
    char kind[32];
    int me = m->nmodels;
    m->prefix[0] = '\0';
    if (me) snprintf(m->prefix, sizeof m->prefix, "M%d.", me + 1);
    bool ok = read_fields(&f, l, from, to, file, err);
    if (ok && me == LML_MAX_MODELS)
        ok = error_set(err, ERR_LIMIT, file, f.model_line, 1, "a lesson reads at most %d models", LML_MAX_MODELS);
    if (ok) {
        char *dir = model_dir(filename, f.model);
        m->folder[m->nmodels] = mf_open(dir, err);
        ok = m->folder[m->nmodels] != NULL;
        if (ok) m->nmodels++;
        m->ck = ok ? mf_checkpoint(m->folder[me]) : NULL;
        m->checked = ok && mf_checked(m->folder[me]);
        if (!ok && err->kind == ERR_IO && !strchr(f.model, '/') && strstr(err->file, "config.json")) {
            char *shown = util_shown(f.model), *mine = user_models();
            bool cli = !strcmp(file, LESSON_STDIN_SHOWN);      /* attnlab --model NAME */
            error_set(err, ERR_IO, cli ? NULL : file, cli ? 0 : f.model_line, 1,
                      "no model %s: not a folder %s, nor in %s (the README says how to download one)", shown,
                      cli ? "here" : "beside the lesson", mine);
            free(shown);
            free(mine);
        }
        if (!ok) at_line(err, file, f.model_line);
        if (ok && !m->dir) m->dir = dir;
        else free(dir);
    }
    const ModelConfig *c = ok ? ckpt_config(m->ck) : NULL;
    if (ok && m->setups + c->layers > LESSON_MAX_SETUPS)
        ok = me ? error_set(err, ERR_LIMIT, file, f.model_line, 1, "the lesson's setups and models' layers come to %d, "
                            "over the limit of %d", m->setups + c->layers, LESSON_MAX_SETUPS)
                : error_set(err, ERR_LIMIT, file, f.model_line, 1, "the model has %d layers, over the limit of %d",
                            c->layers, LESSON_MAX_SETUPS - m->setups);
    const Tokenizer *tok = ok ? mf_tokenizer(m->folder[me]) : NULL;
    if (ok && tok_size(tok) > c->vocab)
        ok = error_set(err, ERR_INVALID, file, f.model_line, 1, "the tokenizer has %d words, but config.json says %d",
                       tok_size(tok), c->vocab);
    if (ok && (n = tok_encode(tok, f.text, &ids, err)) < 0) {
        ok = false;
        at_line(err, file, f.text_line);
    }
    int most = c ? (c->positions < LESSON_MAX_TOKENS ? c->positions : LESSON_MAX_TOKENS) : 0;
    if (ok && n == 0) ok = error_set(err, ERR_INVALID, file, f.text_line, 1, "the text makes no tokens");
    if (ok && n > most)
        ok = error_set(err, ERR_LIMIT, file, f.text_line, 1, "the text is %d tokens, over the %s's limit of %d", n,
                       most == c->positions ? "model" : "lesson", most);
    if (ok && !f.layers_line)
        for (int k = 0; k < c->layers; k++) f.shown[k] = true;
    if (ok && f.layers_line) {
        size_t v;
        key_line(l[f.layers_line - 1], "layers", &v);
        ok = parse_layers(&f, l[f.layers_line - 1], v, c->layers, file, err);
    }
    if (ok && f.ablate_line) {
        size_t v;
        key_line(l[f.ablate_line - 1], "ablate", &v);
        ok = parse_ablate(&f, l[f.ablate_line - 1], v, c->layers, c->heads, file, err);
    }
    ok = ok && lml_put_input(m, c, ids, n, err);
    for (int k = 0; ok && k < c->layers; k++) ok = lml_put_layer(m, c, k, err);
    if (ok && c->arch == ARCH_GPT2) ok = lml_put_unembed(m, c, tok, err);
    if (ok) {
        bool authored = false;
        for (int i = to; i < end; i++) authored = authored || section(l[i], kind, sizeof kind);
        int first = m->setups + 1, shown = 0;
        for (int k = 0; k < c->layers; k++) shown += f.shown[k];
        for (int k = 0; k < c->layers; k++) {
            emit_setup(m, c, &f, k, tok, ids, n);
            bool last = k == c->layers - 1;
            if (authored) {
                emit_stages(m, l, to, end, c, &f, k, shown);
                continue;
            }
            static const char *const gpt2[] = { "multi_head", "mlp" }, *const bert[] = { "multi_head", "layer_norm", "mlp" };
            const char *const *st = c->arch == ARCH_GPT2 ? gpt2 : bert;
            int ns = c->arch == ARCH_GPT2 ? 2 : 3;
            if (shown * ns + 2 > LESSON_MAX_STAGES) ns = 1;            /* a deep model: its heads only */
            for (int j = 0; j < ns && f.shown[k]; j++) emit_section(m, -f.model_line, st[j], k + 1);
            if (last && c->arch == ARCH_GPT2) emit_section(m, -f.model_line, "next_token", 0);
            if (last && grid_fits(c, n)) emit_section(m, -f.model_line, "model_view", 0);
        }
        m->prev_first = first;
        m->prev_layers = c->layers;
    }
    if (ok) mf_set_checked(m->folder[me]);      /* every weight was looked at: the next lesson of it need not */
    free(ids);
    free(f.model);
    free(f.text);
    return ok;
}

/* The generated lesson: every setup that names a model made into its
** layers' setups, the author's other lines as they are. */
ModelLesson *lml_expand(const char *text, size_t len, const char *filename, Error *err)
{
    int nl;
    Line *l = split_lines(text, len, &nl);
    char *file = strcmp(filename, FILEIO_STDIN) ? util_shown(filename) : xstrdup(LESSON_STDIN_SHOWN);
    ModelLesson *m = xcalloc(1, sizeof *m);
    int at = 0, from, to, end;
    bool ok = true;
    while (ok && next_model(l, nl, at, &from, &to, &end)) {
        for (int i = at; i < from; i++) emit(m, i + 1, l[i].s, l[i].n);
        ok = expand_model(m, l, from, to, end, filename, file, err);
        at = end;
    }
    assert(!ok || m->nmodels > 0);              /* lml_wanted said there is one */
    for (int i = at; ok && i < nl; i++) emit(m, i + 1, l[i].s, l[i].n);
    if (ok) {
        m->la = xcalloc((size_t)m->narr, sizeof *m->la);
        for (int i = 0; i < m->narr; i++) {
            Arr *a = &m->arr[i];
            bool words = a->words;
            m->la[i] = (LessonArray){ LML_FILE, a->key, a->f64 ? "<f8" : words ? "|S64" : "<f4", words ? 1 : 2,
                                      a->shape, a->data,
                                      (size_t)a->shape[0] * (words ? LESSON_MAX_TOKEN : (size_t)a->shape[1] * (a->f64 ? 8 : 4)),
                                      a->view, a->transposed, a->ld, false };
        }
    }
    _Static_assert(LESSON_MAX_TOKEN == 64, "the words' dtype says |S64");
    if (!ok && len >= strlen(LML_CLI_MARK) && !memcmp(text, LML_CLI_MARK, strlen(LML_CLI_MARK))) {
        /* attnlab --model, a folder opened in the browser: the lesson is the program's, not the user's */
        if (!strcmp(err->file, file)) err->file[0] = '\0';
        err->line = err->col = 0;
    }
    free(l);
    free(file);
    if (!ok) {
        lml_free(m);
        return NULL;
    }
    return m;
}

/* The generated text. */
const char *lml_text(const ModelLesson *m, size_t *len)
{
    *len = m->text.len;
    return buf_str(&m->text);
}

/* The model folder's name. */
const char *lml_name(const ModelLesson *m)
{
    const char *s = m->dir + strlen(m->dir);
    while (s > m->dir && s[-1] == '/') s--;
    const char *end = s;
    while (s > m->dir && s[-1] != '/') s--;
    static char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(end - s), s);
    return name;
}

/* The arrays. */
const LessonArray *lml_arrays(const ModelLesson *m, int *n)
{
    *n = m->narr;
    return m->la;
}

/* The author's line of a generated line. */
int lml_line(const ModelLesson *m, int line, bool *verbatim)
{
    int src = line < 1 ? line : line <= m->nlines ? m->lines[line - 1] : m->nlines ? -abs(m->lines[m->nlines - 1]) : -1;
    *verbatim = src > 0;
    return abs(src);
}

/* Release m. */
void lml_free(ModelLesson *m)
{
    if (!m) return;
    for (int i = 0; i < m->narr; i++) {
        free(m->arr[i].key);
        free(m->arr[i].owned);
    }
    free(m->arr);
    free(m->la);
    free(m->lines);
    buf_free(&m->text);
    for (int i = 0; i < m->nmodels; i++) mf_free(m->folder[i]);
    free(m->dir);
    free(m);
}

/* The lesson of --model DIR SENTENCE. */
char *lml_default_text(const char *dir, const char *sentence)
{
    Buf b = { 0 };
    const char *base = strrchr(dir, '/');
    base = base && base[1] ? base + 1 : dir;
    buf_puts(&b, LML_CLI_MARK "\ntitle: ");
    for (const char *s = base; *s; s++) buf_append(&b, (unsigned char)*s < 0x20 ? " " : s, 1);
    buf_puts(&b, " reads a sentence\n\n[setup]\nmodel: ");
    quote(&b, dir, strlen(dir));
    buf_puts(&b, "\ntext: ");
    if (!sentence) sentence = LML_SENTENCE;
    quote(&b, sentence, strlen(sentence));
    buf_puts(&b, "\n");
    return buf_take(&b);
}

