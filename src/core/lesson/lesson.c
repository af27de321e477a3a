/*
** lesson.c: the lesson parser (the parts: lesson_int.h).
**
** A lesson is read line by line. The file is first checked as a whole (size,
** NUL bytes, UTF-8, line lengths) so the line parser only ever sees sane text.
** Sections start with `[setup]` or `[STAGE_ID]`; inside a setup, `key: value`
** lines are settings (lesson_keys.c) and `NAME = ...` lines define matrices
** (written out as indented rows, or generated: lesson_matrix.c,
** lesson_gen.c); inside a stage, option lines come first and everything
** after is prose. A setup is checked when it ends and the stages when the
** file ends (lesson_check.c). Every error stops the parse with one message,
** "FILE:LINE:COL: error: what was expected, what was found".
*/
#include "lesson_int.h"
#include "lesson_model.h"
#include "core/io/fileio.h"
#include "core/stage/stage_table.h"
#include "core/text/utf8.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name of a stage id. */
const char *lesson_stage_name(StageId id)
{
    return (unsigned)id < STAGE_COUNT ? stage_kind(id)->name : "?";
}

/* Look a stage id up by name. */
bool lesson_stage_from_name(const char *name, StageId *id)
{
    for (int i = 0; i < STAGE_COUNT; i++)
        if (!strcmp(name, stage_kind((StageId)i)->name)) { *id = (StageId)i; return true; }
    return false;
}

/* The K/V heads of a setup. */
int lesson_kv_heads(const Setup *su)
{
    return su->kv_heads > 0 ? su->kv_heads : su->heads;
}

/* The words of each row a next_token stage lists. */
int lesson_stage_top(const Lesson *L, const Stage *st)
{
    int n = L->setups[st->setup].nvocab;
    int k = st->top > 0 ? st->top : 5;
    return k < n ? k : n > 0 ? n : 1;
}

/* The setups of a compare stage. */
void lesson_compare_setups(const Lesson *L, const Stage *st, int *a, int *b)
{
    assert(st->setup >= 0 && st->setup < L->nsetups);
    *b = st->cmp_b >= 0 ? st->cmp_b : st->setup;
    *a = st->cmp_a >= 0 ? st->cmp_a : *b - 1;
}

/* Whether two token lists (n and m long) are the same tokens. */
static bool same_tokens(char **a, int n, char **b, int m)
{
    if (n != m) return false;
    for (int i = 0; i < n; i++)
        if (strcmp(a[i], b[i])) return false;
    return true;
}

/* The setups of a model_view stage. */
int lesson_grid_setups(const Lesson *L, int k, int *out)
{
    assert(k >= 0 && k < L->nsetups);
    const Setup *last = &L->setups[k];
    int H = last->heads > 0 ? last->heads : 1, n = 0;
    for (int s = 0; s <= k; s++) {
        const Setup *su = &L->setups[s];
        if ((su->heads > 0 ? su->heads : 1) == H && same_tokens(su->qtokens, su->nq, last->qtokens, last->nq)
            && same_tokens(su->ktokens, su->nk, last->ktokens, last->nk))
            out[n++] = s;
    }
    assert(n >= 1 && n <= LESSON_MAX_SETUPS);
    return n;
}

/* What a compare stage can show, in the order of CompareShow. */
static const char *const shows[SHOW_COUNT] = { "weights", "output", "next_token" };

/* The name of a show. */
const char *lesson_show_name(CompareShow s)
{
    assert((unsigned)s < SHOW_COUNT);
    return shows[s];
}

/* The show called by the n bytes at name. */
bool lesson_show_from_name(const char *name, size_t n, CompareShow *s)
{
    for (int i = 0; i < SHOW_COUNT; i++)
        if (strlen(shows[i]) == n && !strncmp(name, shows[i], n)) {
            *s = (CompareShow)i;
            return true;
        }
    return false;
}

/* The width of an operand's result in a checked setup. */
int lesson_operand_width(const Setup *su, const Operand *o)
{
    const char *name = o->weight ? o->weight : o->input;
    const LessonMatrix *m = name ? lesson_matrix(su, name) : NULL;     /* a setup given its weights has none */
    return m ? m->m->cols : 0;
}

/* The width of what a checked setup's attention hands on. */
int lesson_attention_width(const Setup *su)
{
    const LessonMatrix *o = su->output_proj ? lesson_matrix(su, su->output_proj) : NULL;
    if (o) return o->m->cols;
    return lesson_operand_width(su, &su->values) / lesson_kv_heads(su) * su->heads;
}

/* Whether head h of a setup is switched off. */
bool lesson_head_ablated(const Setup *su, int h)
{
    return h >= 1 && h <= LESSON_MAX_HEADS && (su->ablated & (1u << (h - 1)));
}

/* The activations' names, in the order of Activation. */
static const char *const activations[] = { "relu", "gelu", "gelu_tanh" };

/* The name of an activation. */
const char *lesson_activation_name(Activation a)
{
    assert((unsigned)a < sizeof activations / sizeof *activations);
    return activations[a];
}

/* The activation called by the n bytes at name. */
bool lesson_activation_from_name(const char *name, size_t n, Activation *a)
{
    for (size_t i = 0; i < sizeof activations / sizeof *activations; i++)
        if (strlen(activations[i]) == n && !strncmp(name, activations[i], n)) {
            *a = (Activation)i;
            return true;
        }
    return false;
}

/* The block size of an online_softmax stage. */
int lesson_stage_block(const Lesson *L, const Stage *st)
{
    if (st->block > 0) return st->block;
    int n = L->setups[st->setup].nk;
    return n >= 4 ? (n + 3) / 4 : 1;
}

/* ---------------------------------------------------------------- sections */

/* The setup being read. */
Setup *lp_setup(Parser *p)
{
    assert(p->L->nsetups > 0);          /* matrices and settings are read inside a [setup] */
    return &p->L->setups[p->L->nsetups - 1];
}

/* The stage being read. */
Stage *lp_stage(Parser *p)
{
    assert(p->sec == SEC_STAGE && p->L->nstages > 0);
    return &p->L->stages[p->L->nstages - 1];
}

/* Close the paragraph being collected into the current stage. */
static void flush_para(Parser *p)
{
    if (p->para.len == 0) return;
    Stage *st = lp_stage(p);
    if ((st->npara & (st->npara - 1)) == 0) {   /* 0, 1, 2, 4, ...: the arrays double */
        st->paras = xrealloc(st->paras, sizeof *st->paras * (size_t)(st->npara ? 2 * st->npara : 1));
        st->para_ties = xrealloc(st->para_ties, sizeof *st->para_ties * (size_t)(st->npara ? 2 * st->npara : 1));
    }
    st->para_ties[st->npara] = p->para_tie;
    st->paras[st->npara++] = buf_take(&p->para);
    p->para_tie = 0;
}

/*
** The pages a paragraph is tied to, when its first line s starts with
** "(side by side)" (the page of every head side by side) or "(head 1, 3)"
** (those heads' pages): into p->para_tie; *rest is where its text starts.
** Any other "(" starts prose. False (an error) for a head the setup does
** not have, a list that does not close, or a tie with no text after it.
*/
static bool para_tie(Parser *p, const char *s, const char **rest)
{
    *rest = s;
    const char *side = "(side by side)";
    bool heads = strncmp(s, "(head ", 6) == 0 || strncmp(s, "(heads ", 7) == 0;
    if (strncmp(s, side, strlen(side)) != 0 && !heads) return true;
    int H = p->L->setups[lp_stage(p)->setup].heads;
    const char *c = s + 1;
    if (!heads) {
        p->para_tie = LESSON_TIE_SIDE_BY_SIDE;
        c = s + strlen(side);
    } else {
        if (H < 2)
            return lp_fail_at(p, lp_col(p, s), "a paragraph tied to a head needs a setup of several heads");
        c = skip_ws(c + (c[4] == 's' ? 5 : 4));
        for (;;) {
            const char *at = c;
            long h = 0;
            for (; *c >= '0' && *c <= '9'; c++) h = h > LESSON_MAX_HEADS ? h : 10 * h + (*c - '0');
            if (c == at) return lp_fail_at(p, lp_col(p, at), "expected a head number in \"(head ...)\"");
            if (h < 1 || h > H) return lp_fail_at(p, lp_col(p, at), "head %.*s: the setup has %d heads",
                                                    (int)(c - at) > 12 ? 12 : (int)(c - at), at, H);
            p->para_tie |= 1u << h;
            c = skip_ws(c);
            if (*c == ')') { c++; break; }
            if (*c != ',') return lp_fail_at(p, lp_col(p, c), "expected \",\" or \")\" after a head number");
            c = skip_ws(c + 1);
        }
    }
    *rest = skip_ws(c);
    if (!**rest) return lp_fail_at(p, lp_col(p, s), "a tied paragraph's text starts on the line of its tie");
    return true;
}

/* End the current section: finish rows, paragraphs and checks. */
static bool end_section(Parser *p)
{
    if (!lp_finish_rows(p)) return false;
    p->cont_target = NULL;
    if (p->sec == SEC_STAGE) flush_para(p);
    if (p->sec == SEC_SETUP) return lp_check_setup(p, lp_setup(p));
    return true;
}

/* Deep-copy a setup to start the next one from it. */
static void inherit_setup(Setup *dst, const Setup *src)
{
    *dst = *src;
    dst->title = NULL;
    dst->qtokens = lp_tokens_copy(src->qtokens, src->nq);
    dst->ktokens = lp_tokens_copy(src->ktokens, src->nk);
    dst->dims = lp_tokens_copy(src->dims, src->ndims);
    dst->key_dims = lp_tokens_copy(src->key_dims, src->nkey_dims);
    dst->value_dims = lp_tokens_copy(src->value_dims, src->nvalue_dims);
    dst->mats = src->nmats ? xmalloc(sizeof *dst->mats * (size_t)src->nmats) : NULL;
    for (int i = 0; i < src->nmats; i++) {      /* the matrices shared until one is changed (own_matrix) */
        dst->mats[i] = src->mats[i];
        dst->mats[i].name = xstrdup(src->mats[i].name);
        dst->mats[i].how = xstrdup(src->mats[i].how);
        dst->mats[i].borrowed = true;
    }
    dst->vocab = lp_tokens_copy(src->vocab, src->nvocab);
    Operand *o[3] = { &dst->queries, &dst->keys, &dst->values };
    for (int i = 0; i < 3; i++) {
        o[i]->input = o[i]->input ? xstrdup(o[i]->input) : NULL;
        o[i]->weight = o[i]->weight ? xstrdup(o[i]->weight) : NULL;
        o[i]->bias = o[i]->bias ? xstrdup(o[i]->bias) : NULL;
    }
    char **strs[] = { &dst->mask_matrix, &dst->output_proj, &dst->add_w1, &dst->add_w2, &dst->add_v, &dst->pad_token,
                      &dst->attention, &dst->output_bias, &dst->norm.gamma, &dst->norm.beta, &dst->mlp.w_in,
                      &dst->mlp.b_in, &dst->mlp.w_out, &dst->mlp.b_out, &dst->mlp_norm.gamma, &dst->mlp_norm.beta,
                      &dst->unembed, &dst->unembed_bias, &dst->final_norm.gamma, &dst->final_norm.beta };
    for (size_t i = 0; i < sizeof strs / sizeof *strs; i++)
        if (*strs[i]) *strs[i] = xstrdup(*strs[i]);
    /* heads switched off belong to their own layer: a later setup starts with all on */
    dst->ablated = dst->ablate_mean = 0;
    dst->ablate_line = 0;
}

/* Free a layer norm's names and forget it. */
static void norm_clear(LayerNorm *n)
{
    free(n->gamma);
    free(n->beta);
    memset(n, 0, sizeof *n);
}

/* Forget the parts of a transformer block a setup has (its norms, MLP,
** unembedding and output bias), as a setup given its weights must. */
void lp_clear_block(Setup *su)
{
    norm_clear(&su->norm);
    norm_clear(&su->mlp_norm);
    norm_clear(&su->final_norm);
    su->post_norm = false;
    free(su->mlp.w_in); free(su->mlp.b_in); free(su->mlp.w_out); free(su->mlp.b_out);
    memset(&su->mlp, 0, sizeof su->mlp);
    free(su->unembed); free(su->unembed_bias);
    su->unembed = su->unembed_bias = NULL;
    for (int i = 0; i < 3; i++) {
        Operand *o = i == 0 ? &su->queries : i == 1 ? &su->keys : &su->values;
        free(o->bias);
        o->bias = NULL;
    }
}

/* `[setup]` or `[setup: Title]` (title tlen bytes long): a new setup,
** starting from the one above. */
static bool start_setup(Parser *p, const char *open, const char *title, size_t tlen)
{
    Lesson *L = p->L;
    if (L->nsetups >= p->max_setups) return FAIL(p, open, "too many setups (the limit is %d)", p->max_setups);
    for (int i = 0; L->nsetups > 0 && i < L->setups[L->nsetups - 1].nmats; i++) {
        const LessonMatrix *lm = &L->setups[L->nsetups - 1].mats[i];
        if (lm->mapped) continue;           /* a view of a model's mapped file: no copy, however many setups have it */
        int64_t n = (int64_t)lm->m->rows * lm->m->cols;
        if (!(lm->loaded ? lp_add_loaded : lp_add_numbers)(p, p->lineno, 1, n)) return false;
    }
    L->setups = xrealloc(L->setups, sizeof *L->setups * (size_t)(L->nsetups + 1));
    Setup *su = &L->setups[L->nsetups];
    if (L->nsetups > 0) inherit_setup(su, &L->setups[L->nsetups - 1]);
    else {
        memset(su, 0, sizeof *su);
        su->heads = 1;
        su->temperature = 1.0;
    }
    L->nsetups++;
    su->line = p->lineno;
    su->seed = p->seed;
    su->seeded = p->seeded;
    su->title = tlen ? xstrndup(title, tlen) : NULL;
    p->sec = SEC_SETUP;
    return true;
}

/* `[STAGE_ID]` or `[STAGE_ID: Title]`: a new stage of the setup above
** (name n bytes at name_at). */
static bool start_stage(Parser *p, const char *open, const char *name_at, size_t n, const char *title, size_t tlen)
{
    Lesson *L = p->L;
    char name[40] = "";
    if (n > 0 && n < sizeof name) memcpy(name, name_at, n);
    StageId id;
    if (!lesson_stage_from_name(name, &id)) {
        char list[400] = "setup";
        for (int i = 0; i < STAGE_COUNT; i++) {
            const char *kind = stage_kind((StageId)i)->name;
            assert(strlen(list) + 2 + strlen(kind) < sizeof list);      /* every stage name fits */
            strcat(list, ", "); strcat(list, kind);
        }
        char f[48];
        if (n > 0) snprintf(f, sizeof f, "'%.*s'", (int)(n < 40 ? n : 40), name_at);
        else lp_found(name_at, f, sizeof f);
        return FAIL(p, name_at, "unknown section %s; expected one of: %s", f, list);
    }
    if (L->nsetups == 0) return FAIL(p, name_at, "stage %s comes before any [setup]: the stage needs a setup above it", name);
    if (L->nstages >= LESSON_MAX_STAGES) return FAIL(p, open, "too many stages (the limit is %d)", LESSON_MAX_STAGES);
    L->stages = xrealloc(L->stages, sizeof *L->stages * (size_t)(L->nstages + 1));
    Stage *st = &L->stages[L->nstages++];
    memset(st, 0, sizeof *st);
    st->id = id;
    st->setup = L->nsetups - 1;
    st->line = p->lineno;
    st->decimals = -1;
    st->cmp_a = st->cmp_b = -1;
    st->title = tlen ? xstrndup(title, tlen) : NULL;
    p->sec = SEC_STAGE;
    p->stage_prose = false;
    return true;
}

/* `[setup]`, `[setup: Title]`, `[STAGE_ID]` or `[STAGE_ID: Title]`. */
static bool parse_section(Parser *p, const char *s)
{
    if (!end_section(p)) return false;
    const char *open = s;
    const char *name_at = skip_ws(s + 1);
    size_t n = ident_len(name_at);
    const char *q = skip_ws(name_at + n);
    const char *title = NULL, *close = strchr(q, ']');
    if (!close) return FAIL(p, open, "expected ']' to close the section header");
    if (*q == ':') {
        title = skip_ws(q + 1);
    } else if (q != close) {
        char f[48];
        lp_found(q, f, sizeof f);
        return FAIL(p, q, "expected ':' or ']' after the section name, found %s", f);
    }
    if (!lp_end(p, close + 1)) return false;
    size_t tlen = title ? (size_t)(close - title) : 0;
    while (tlen > 0 && (title[tlen - 1] == ' ' || title[tlen - 1] == '\t')) tlen--;
    memset(&p->set, 0, sizeof p->set);
    if (n == 5 && !strncmp(name_at, "setup", 5)) return start_setup(p, open, title, tlen);
    return start_stage(p, open, name_at, n, title, tlen);
}

/* Strip a trailing " # comment" from a settings line (not from prose). */
static void strip_comment(char *s)
{
    for (char *c = s; *c; c++) {
        if (*c == '"') {                /* a quoted file name or token: its '#' is not a comment */
            const char *end = lp_quoted_end(c);
            if (!end) break;
            c = (char *)end - 1;
            continue;
        }
        if (*c == '#' && (c == s || c[-1] == ' ' || c[-1] == '\t')) { *c = '\0'; break; }
    }
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = '\0';
}

/* One line of the file (already without its line ending). */
static bool parse_line(Parser *p, char *line)
{
    p->line = line;
    bool indented = line[0] == ' ' || line[0] == '\t';
    const char *s = skip_ws(line);
    bool blank = *s == '\0';
    bool comment = *s == '#';

    /* Prose: a stage's text after its options, kept verbatim. */
    if (p->sec == SEC_STAGE && p->stage_prose && *s != '[') {
        if (comment) return true;
        if (blank) { flush_para(p); return true; }
        if (!p->para.len && *s == '(' && !para_tie(p, s, &s)) return false;
        if (p->para.len) buf_puts(&p->para, " ");
        buf_puts(&p->para, s);
        return true;
    }
    /* A stage's options sit directly under its header; a blank line or the
    ** first line that is not `option: value` starts the prose. */
    if (p->sec == SEC_STAGE && !p->stage_prose && *s != '[' && !comment) {
        size_t kn = ident_len(s);
        /* an option is a lowercase word: "Note: ..." is prose */
        if (blank || kn == 0 || *skip_ws(s + kn) != ':' || isupper((unsigned char)*s)) {
            p->stage_prose = true;
            return parse_line(p, line);
        }
    }
    if (blank || comment) {
        if (blank && p->rows_target == NULL) p->cont_target = NULL;
        return true;
    }
    strip_comment(line);
    if (indented && *s != '[') {           /* a '[' line starts a section, indented or not */
        if (p->rows_target) return lp_row(p, s);
        if (p->cont_target) {          /* joined with a space, in amortised O(line) */
            size_t b = strlen(s), need = p->cont_len + b + 2;
            if (need > p->cont_cap) {
                p->cont_cap = need > 2 * p->cont_cap ? need : 2 * p->cont_cap;
                *p->cont_target = xrealloc(*p->cont_target, p->cont_cap);
            }
            char *t = *p->cont_target;
            t[p->cont_len] = ' ';
            memcpy(t + p->cont_len + 1, s, b + 1);
            p->cont_len += b + 1;
            return true;
        }
    }
    if (!lp_finish_rows(p)) return false;
    p->cont_target = NULL;
    if (*s == '[') return parse_section(p, s);

    /* key: value  or  NAME = ... */
    if (*s == '_') {
        char f[48];
        lp_found(s, f, sizeof f);
        return FAIL(p, s, "a name starts with a letter, found %s", f);
    }
    size_t n = ident_len(s);
    const char *after = skip_ws(s + n);
    if (n > 0 && *after == '=' && p->sec == SEC_SETUP && lp_is_token_key(s, n)) {
        char key[16];
        snprintf(key, sizeof key, "%.*s", (int)n, s);
        return lp_key_load(p, key, s, after + 1);
    }
    if (n > 0 && *after == '=' && p->sec == SEC_SETUP) return lp_matrix_def(p, s);
    if (n > 0 && *after == '[' && p->sec == SEC_SETUP) return lp_override(p, s);
    if (n == 0 || *after != ':') {
        char f[48];
        lp_found(s, f, sizeof f);
        if (n > 0 && *after == '=')
            return FAIL(p, s, "matrices are defined inside a [setup] section, found %s here", f);
        return FAIL(p, s, "expected 'key: value'%s, found %s",
                    p->sec == SEC_SETUP ? " or 'NAME = ...'" : "", f);
    }
    char key[40];
    if (n >= sizeof key) n = sizeof key - 1;
    memcpy(key, s, n);
    key[n] = '\0';
    return lp_key(p, key, s, after + 1);
}

/* ----------------------------------------------------------------- file */

/* Whole-file checks: NUL bytes, UTF-8, control characters, noncharacters, line lengths. */
static bool check_bytes(Parser *p, const char *text, size_t len)
{
    int line = 1, col = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)text[i];
        p->lineno = line;
        if (c == '\n') {
            line++; col = 1; i++; line_start = i;
            continue;
        }
        /* the CR of a CRLF ends the line and is not part of it */
        if (c == '\r' && (i + 1 == len || text[i + 1] == '\n')) { i++; continue; }
        if (i - line_start >= LESSON_MAX_LINE) {
            lp_fail_at(p, col, "line is longer than %d bytes", LESSON_MAX_LINE);
            p->err->kind = ERR_LIMIT;
            return false;
        }
        if (c == 0) return lp_fail_at(p, col, "NUL byte in the file (is it a text file?)");
        /* any other CR is an old Mac line ending, which would otherwise
        ** run the lines together */
        if (c == '\r')
            return lp_fail_at(p, col, "carriage return (0x0d) that does not end a line; "
                           "save the file with Unix (LF) or Windows (CRLF) line endings");
        if (c < 0x20 && c != '\t' && c != '\r')
            return lp_fail_at(p, col, "control character 0x%02x in the file (is it a text file?)", c);
        int n = utf8_seq_len(text + i, len - i);
        if (n == 0) return lp_fail_at(p, col, "invalid UTF-8 byte 0x%02x (save the file as UTF-8)", c);
        uint32_t cp;
        utf8_decode(text + i, len - i, &cp);
        if (utf8_noncharacter(cp))      /* no font draws one, and every output would show it differently */
            return lp_fail_at(p, col, "U+%04X is a noncharacter, not text (Unicode reserves it for a program's own use); "
                           "delete it or write the character you meant", (unsigned)cp);
        i += (size_t)n;
        col++;
    }
    return true;
}

/* Parse a whole lesson. */
Lesson *lesson_parse(const char *text, size_t len, const char *filename, Error *err)
{
    return lesson_parse_with(text, len, filename, NULL, 0, err);
}

/* lesson_parse, with arrays in memory that `load` finds first. */
static Lesson *parse_text(const char *text, size_t len, const char *filename, const LessonArray *arrays, int narrays,
                          int max_setups, Error *err)
{
    Parser P;
    memset(&P, 0, sizeof P);
    Parser *p = &P;
    assert(max_setups >= 1 && max_setups <= LESSON_MAX_SETUPS);
    p->max_setups = max_setups;
    p->arrays = arrays;
    p->narrays = arrays ? narrays : 0;
    p->err = err;
    error_clear(err);
    p->L = xcalloc(1, sizeof *p->L);
    p->L->path = xstrdup(filename);
    bool std_in = !strcmp(filename, FILEIO_STDIN);      /* messages say <stdin>, pictures stdin-NN-... */
    p->L->shown = std_in ? xstrdup(LESSON_STDIN_SHOWN) : util_shown(filename);
    p->file = p->L->shown;                  /* messages name the file on one line */
    const char *base = strrchr(filename, '/');
    base = std_in ? "stdin" : base ? base + 1 : filename;
    size_t bl = strlen(base);
    if (bl > 7 && !strcmp(base + bl - 7, ".lesson")) bl -= 7;
    p->L->name = xstrndup(base, bl);
    bool ok = true;
    if (len > LESSON_MAX_BYTES) {
        p->lineno = 1;
        ok = lp_fail_at(p, 1, "file is %zu bytes, over the limit of %d bytes", len, LESSON_MAX_BYTES);
        err->kind = ERR_LIMIT;
    }
    unsigned bom = 0;
    if (ok && len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3)) { text += 3; len -= 3; bom = 3; }   /* BOM */
    if (ok) ok = check_bytes(p, text, len);
    char *line = ok ? xmalloc(LESSON_MAX_LINE + 1) : NULL;
    size_t i = 0;
    p->lineno = 0;
    while (ok && i < len) {
        size_t j = i;
        while (j < len && text[j] != '\n') j++;
        size_t n = j - i;
        p->line_crlf = n > 0 && text[i + n - 1] == '\r';
        if (p->line_crlf) n--;                                             /* CRLF */
        p->line_off = bom + (unsigned)i;
        p->line_end = bom + (unsigned)(j < len ? j + 1 : j);
        memcpy(line, text + i, n);
        line[n] = '\0';
        p->lineno++;
        ok = parse_line(p, line);
        i = j + 1;
    }
    if (ok) {
        p->lineno++;
        p->line = "";
        ok = end_section(p);
    }
    free(line);
    if (ok && !p->L->title) { p->lineno = 1; ok = lp_fail_at(p, 1, "the lesson has no title: add 'title: ...' at the top"); }
    if (ok && p->L->nsetups == 0) { p->lineno = 1; ok = lp_fail_at(p, 1, "the lesson has no [setup] section"); }
    if (ok && p->L->nstages == 0) { p->lineno = 1; ok = lp_fail_at(p, 1, "the lesson has no stages: add a section such as [softmax]"); }
    for (int k = 0; ok && k < p->L->nstages; k++) ok = lp_check_stage(p, &p->L->stages[k]);
    free(p->rows);
    free(p->spans);
    buf_free(&p->para);
    if (!ok) {
        lesson_free(p->L);
        return NULL;
    }
    return p->L;
}

/* Parse a lesson, its `load` lines finding arrays first. A lesson whose
** setup names a model is parsed as the lesson lesson_model.c makes of it,
** its model's arrays before the ones given, its messages at the author's
** lines. */
Lesson *lesson_parse_with(const char *text, size_t len, const char *filename, const LessonArray *arrays, int narrays,
                          Error *err)
{
    if (len > LESSON_MAX_BYTES || !lml_wanted(text, len))
        return parse_text(text, len, filename, arrays, narrays, LESSON_MAX_OWN_SETUPS, err);
    ModelLesson *m = lml_expand(text, len, filename, err);
    if (!m) return NULL;
    size_t glen;
    const char *gtext = lml_text(m, &glen);
    int nm;
    const LessonArray *ma = lml_arrays(m, &nm);
    int given = arrays ? narrays : 0;
    LessonArray *all = xmalloc(sizeof *all * (size_t)(nm + given + 1));
    memcpy(all, ma, sizeof *all * (size_t)nm);
    if (given) memcpy(all + nm, arrays, sizeof *all * (size_t)given);
    Lesson *L = parse_text(gtext, glen, filename, all, nm + given, LESSON_MAX_SETUPS, err);
    if (L) {
        L->from_model = true;
        L->model = m;                                               /* its matrices are views of m's file */
    }
    if (L && !strcmp(filename, FILEIO_STDIN) && lml_name(m)[0]) {     /* attnlab --model: pictures named after the model */
        free(L->name);
        L->name = xstrdup(lml_name(m));
    }
    if (!L && err->line > 0) {
        bool verbatim;
        err->line = lml_line(m, err->line, &verbatim);
        if (!verbatim) err->col = 1;
    }
    free(all);
    if (!L) lml_free(m);
    return L;
}

/* The bytes of a lesson file, within the size limit: fileio_read's error,
** which says the size when the file is too large, at 1:1 then. */
char *lesson_read(const char *path, size_t *len, Error *err)
{
    char *text = fileio_read(path, LESSON_MAX_BYTES, len, err);
    if (!text && err->kind == ERR_LIMIT) err->line = err->col = 1;
    return text;
}

/* Read a file and parse it. */
Lesson *lesson_load(const char *path, Error *err)
{
    size_t len;
    char *text = lesson_read(path, &len, err);
    if (!text) return NULL;
    Lesson *L = lesson_parse(text, len, path, err);
    free(text);
    return L;
}

/* Release a setup's contents. */
static void free_setup(Setup *s)
{
    free(s->title);
    lp_tokens_free(s->qtokens, s->nq);
    lp_tokens_free(s->ktokens, s->nk);
    lp_tokens_free(s->dims, s->ndims);
    lp_tokens_free(s->key_dims, s->nkey_dims);
    lp_tokens_free(s->vocab, s->nvocab);
    lp_tokens_free(s->value_dims, s->nvalue_dims);
    for (int i = 0; i < s->nmats; i++) lp_matrix_free(&s->mats[i]);
    free(s->mats);
    lp_clear_block(s);
    free(s->output_bias);
    Operand *o[3] = { &s->queries, &s->keys, &s->values };
    for (int i = 0; i < 3; i++) { free(o[i]->input); free(o[i]->weight); }
    free(s->mask_matrix);
    free(s->pad_token);
    free(s->attention);
    free(s->output_proj);
    free(s->add_w1); free(s->add_w2); free(s->add_v);
}

/* Release a lesson. */
void lesson_free(Lesson *L)
{
    if (!L) return;
    for (int i = 0; i < L->nsetups; i++) free_setup(&L->setups[i]);
    free(L->setups);
    for (int i = 0; i < L->nstages; i++) {
        Stage *st = &L->stages[i];
        free(st->title);
        free(st->cmap);
        for (int k = 0; k < st->npara; k++) free(st->paras[k]);
        free(st->paras);
        free(st->para_ties);
    }
    free(L->stages);
    for (int i = 0; i < L->ndefs; i++) free(L->defs[i].cells);
    free(L->defs);
    free(L->ovrs);
    free(L->path);
    free(L->shown);
    free(L->name);
    free(L->title);
    free(L->summary);
    free(L->language);
    lml_free(L->model);                         /* the file its matrices were views of */
    free(L);
}
