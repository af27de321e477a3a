/*
** lesson_keys.c: `key: value` lines (see lesson_int.h).
**
** Every key a lesson may set is one row of the table below: its name, the
** section it belongs to (the head before the first section, a [setup], or
** a stage), the function that reads its value, the field of KeyLines that
** remembers where the section set it (a key is set at most once per
** section), and whether it makes sense in a setup given its weights. The
** messages for an unknown key list the keys of its section in table order.
** Adding a key: a field in KeyLines (lesson_int.h), a row here, a reader.
*/
#include "lesson_int.h"
#include "core/colormaps.h"
#include "core/text/i18n.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct LessonKey;

/* One `key: value` line: the key as written, where it starts, the value
** (after the ':' and its spaces), and the key's row. */
typedef struct KeyUse { const char *name, *at, *s; const struct LessonKey *key; } KeyUse;

/* Reads the value of one key. */
typedef bool (*KeyFn)(Parser *p, const KeyUse *u);
/* Takes the n tokens t (owned) of a token-list key, written out or loaded. */
typedef bool (*TokensFn)(Parser *p, const KeyUse *u, char **t, int n);

/* A key that does not apply to a setup given its weights (`attention: A`). */
#define KEY_NOT_GIVEN 1u

/* One key a lesson may set. */
typedef struct LessonKey {
    const char *name;
    Section sec;                /* the section it belongs to */
    KeyFn parse;
    size_t line;                /* offsetof(KeyLines, ...): where this section set it */
    unsigned flags;             /* KEY_NOT_GIVEN */
    TokensFn take;              /* a token list (also `NAME = load "FILE.npy"`), or NULL */
    int max;                    /* the most tokens of that list */
} LessonKey;

/* How messages speak of the keys of each section. */
static const struct { const char *what, *where, *scope, *hint; } sections[] = {
    [SEC_HEAD] = { "key", "at the top of the lesson", "", "" },
    [SEC_SETUP] = { "setting", "in [setup]", " in this setup", "(matrices are defined with NAME = ...)" },
    [SEC_STAGE] = { "stage option", "", " in this stage", "(leave a blank line between the options and the text)" },
};

/* ------------------------------------------------------------------ head */

/* The text of `title:` or `summary:`, which may continue on indented lines. */
static bool text_key(Parser *p, const char *key, const char *s, char **dst)
{
    if (!*s) return FAIL(p, s, "expected text after '%s:'", key);
    *dst = xstrdup(s);
    p->cont_target = dst;
    p->cont_len = strlen(s);
    p->cont_cap = p->cont_len + 1;
    return true;
}

/* `title: TEXT`. */
static bool key_title(Parser *p, const KeyUse *u)
{
    return text_key(p, u->name, u->s, &p->L->title);
}

/* `summary: TEXT`. */
static bool key_summary(Parser *p, const KeyUse *u)
{
    return text_key(p, u->name, u->s, &p->L->summary);
}

/* `language: ja`: a code for the interface's catalogue (see i18n.h). */
static bool key_language(Parser *p, const KeyUse *u)
{
    const char *v = u->s;
    if (!*v) return FAIL(p, v, "expected text after '%s:'", u->name);
    char code[64];
    size_t n = strcspn(v, " \t");
    snprintf(code, sizeof code, "%.*s", (int)(n < sizeof code - 1 ? n : sizeof code - 1), v);
    if (!i18n_lang_valid(code))
        return FAIL(p, v, "'%s' is not a language code; write two or three lowercase letters, "
                    "optionally with a region (ja, es, ar, pt_BR)", code);
    if (v[n]) return FAIL(p, skip_ws(v + n), "expected one language code after 'language:'");
    p->L->language = xstrdup(code);
    p->cont_target = NULL;
    return true;
}

/* ---------------------------------------------------------- setup: tokens */

/* `seed: N`: numpy's np.random.seed(N), for the draws that follow. */
static bool key_seed(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Setup *su = lp_setup(p);
    int64_t seed;
    if (!lp_int(p, &s, 0, INT64_C(4294967295), "the seed", &seed) || !lp_end(p, s)) return false;
    rng_seed(&p->rng, (uint32_t)seed);
    p->seeded = true;
    p->seed = (uint32_t)seed;
    su->seed = (uint32_t)seed;
    su->seeded = true;
    return true;
}

/* `torch_seed: S`: torch.manual_seed(S). */
static bool key_torch_seed(Parser *p, const KeyUse *u)
{
    return lp_torch_seed(p, u->s);
}

/* Replace the token list *dst (*dn of them) by t (n of them, taken over). */
static void set_tokens(char ***dst, int *dn, char **t, int n)
{
    lp_tokens_free(*dst, *dn);
    *dst = t;
    *dn = n;
}

/* A token-list key: its tokens written out, handed to the key's take. */
static bool key_token_list(Parser *p, const KeyUse *u)
{
    char **t; int n;
    assert(u->key->take);
    return lp_tokens(p, u->s, u->key->max, &t, &n) && u->key->take(p, u, t, n);
}

/* `tokens: ...`: self-attention on one sequence. */
static bool take_tokens(Parser *p, const KeyUse *u, char **t, int n)
{
    Setup *su = lp_setup(p);
    int other = p->set.query_tokens ? p->set.query_tokens : p->set.key_tokens;
    if (other) {
        lp_tokens_free(t, n);
        return FAIL(p, u->at, "this setup already set query_tokens or key_tokens (line %d): use 'tokens:' for "
                    "self-attention, or 'query_tokens:' and 'key_tokens:' for cross-attention, not both", other);
    }
    set_tokens(&su->qtokens, &su->nq, t, n);
    set_tokens(&su->ktokens, &su->nk, lp_tokens_copy(t, n), n);
    su->cross = false;
    return true;
}

/* `query_tokens: ...` or `key_tokens: ...`: cross-attention between two. */
static bool take_side_tokens(Parser *p, const KeyUse *u, char **t, int n)
{
    Setup *su = lp_setup(p);
    bool q = u->name[0] == 'q';
    if (p->set.tokens) {
        lp_tokens_free(t, n);
        return FAIL(p, u->at, "this setup already set tokens (line %d): use 'tokens:' for self-attention, "
                    "or 'query_tokens:' and 'key_tokens:' for cross-attention, not both", p->set.tokens);
    }
    if (q) set_tokens(&su->qtokens, &su->nq, t, n);
    else set_tokens(&su->ktokens, &su->nk, t, n);
    if (!su->cross) {
        /* becoming cross-attention: keys and values now default to Y,
        ** unless this setup says where they come from */
        Operand *kv[2] = { &su->keys, &su->values };
        int set[2] = { p->set.keys, p->set.values };
        for (int i = 0; i < 2; i++)
            if (!set[i]) {
                free(kv[i]->input); free(kv[i]->weight); free(kv[i]->bias);
                kv[i]->input = kv[i]->weight = kv[i]->bias = NULL;
            }
    }
    su->cross = true;
    return true;
}

/* `dims: ...`, `key_dims: ...` or `value_dims: ...`: names for the columns
** of the queries' or the keys' input, or of the values. */
static bool take_dims(Parser *p, const KeyUse *u, char **t, int n)
{
    Setup *su = lp_setup(p);
    if (u->name[0] == 'v') {
        set_tokens(&su->value_dims, &su->nvalue_dims, t, n);
        su->value_dims_line = p->lineno;
        return true;
    }
    if (u->name[0] == 'd') set_tokens(&su->dims, &su->ndims, t, n);
    else set_tokens(&su->key_dims, &su->nkey_dims, t, n);
    su->dims_line = p->lineno;
    return true;
}

/* `vocab: ...`: the word of each column of the unembedding. */
static bool take_vocab(Parser *p, const KeyUse *u, char **t, int n)
{
    (void)u;
    Setup *su = lp_setup(p);
    set_tokens(&su->vocab, &su->nvocab, t, n);
    return true;
}

/* ------------------------------------------------------ setup: operands */

/* `+ NAME` at *sp, if there: a bias, a matrix this setup defines, into *b
** (a new string; NULL when there is no '+'). */
static bool plus_bias(Parser *p, const char **sp, char **b)
{
    const char *s = skip_ws(*sp);
    *b = NULL;
    if (*s != '+') return true;
    s++;
    *b = lp_known_matrix(p, &s);
    *sp = s;
    return *b != NULL;
}

/* `queries: X @ W_q + b_q`, `queries: X @ W_q` or `queries: X` (and keys,
** values). */
static bool key_operand(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Setup *su = lp_setup(p);
    Operand *o = u->name[0] == 'q' ? &su->queries : u->name[0] == 'k' ? &su->keys : &su->values;
    free(o->input);
    free(o->weight);
    free(o->bias);
    o->input = o->weight = o->bias = NULL;
    o->line = p->lineno;
    o->col = lp_col(p, skip_ws(s));
    o->input = lp_ident(p, &s, "a matrix name");
    if (!o->input) return false;
    s = skip_ws(s);
    if (*s == '@' || !strncmp(s, "\xc2\xb7", 2)) {
        s += *s == '@' ? 1 : 2;
        o->weight = lp_ident(p, &s, "a weight matrix name after '@'");
        if (!o->weight) return false;
        if (!plus_bias(p, &s, &o->bias)) return false;
    } else if (*s == '+') {
        return FAIL(p, s, "a bias is added after a weight: write %s: %s @ W + b", u->name, o->input);
    }
    return lp_end(p, s);
}

/* `W` or `W + b` at s, to the end of the line: a matrix this setup
** defines and its optional bias, replacing *w and *b. */
static bool weight_and_bias(Parser *p, const char *s, char **w, char **b)
{
    free(*w);
    free(*b);
    *b = NULL;
    *w = lp_known_matrix(p, &s);
    return *w && plus_bias(p, &s, b) && lp_end(p, s);
}

/* `output: W_o` or `output: W_o + b_o`. */
static bool key_output(Parser *p, const KeyUse *u)
{
    Setup *su = lp_setup(p);
    return weight_and_bias(p, u->s, &su->output_proj, &su->output_bias);
}

/* ------------------------------------------------ setup: the rest of a block */

/* `layer_norm: G B [eps E]`, `mlp_norm: ...` and `final_norm: ...`: the
** row of γ, the row of β, and ε (LESSON_NORM_EPS unless given); `none`
** forgets the one the setup above had. */
static bool key_norm(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Setup *su = lp_setup(p);
    LayerNorm *n = u->name[0] == 'l' ? &su->norm : u->name[0] == 'm' ? &su->mlp_norm : &su->final_norm;
    free(n->gamma);
    free(n->beta);
    memset(n, 0, sizeof *n);
    if (is_word(skip_ws(s), "none")) return lp_end(p, skip_ws(s) + 4);   /* the one above's, forgotten */
    n->line = p->lineno;
    n->eps = LESSON_NORM_EPS;
    if (!(n->gamma = lp_known_matrix(p, &s)) || !(n->beta = lp_known_matrix(p, &s))) return false;
    s = skip_ws(s);
    if (is_word(s, "eps")) {
        const char *at = skip_ws(s + 3);
        if (!lp_expr_line(p, at, &n->eps)) return false;
        if (!(n->eps > 0)) return FAIL(p, at, "eps must be greater than 0, found %g", n->eps);
        return true;
    }
    return lp_end(p, s);
}

/* `mlp: W_in [+ b_in] ACT W_out [+ b_out]`, ACT one of relu, gelu,
** gelu_tanh. */
static bool key_mlp(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Mlp *m = &lp_setup(p)->mlp;
    free(m->w_in); free(m->b_in); free(m->w_out); free(m->b_out);
    memset(m, 0, sizeof *m);
    m->line = p->lineno;
    if (!(m->w_in = lp_known_matrix(p, &s)) || !plus_bias(p, &s, &m->b_in)) return false;
    s = skip_ws(s);
    size_t n = ident_len(s);
    if (!lesson_activation_from_name(s, n, &m->act)) {
        char f[48];
        lp_found(s, f, sizeof f);
        return FAIL(p, s, "expected the activation after %s%s%s (relu, gelu or gelu_tanh), found %s", m->w_in,
                    m->b_in ? " + " : "", m->b_in ? m->b_in : "", f);
    }
    s += n;
    if (!(m->w_out = lp_known_matrix(p, &s)) || !plus_bias(p, &s, &m->b_out)) return false;
    return lp_end(p, s);
}

/* `unembed: W_U`, `unembed: W_U + b_U`, or `unembed: none` (the setup
** above unembeds, this one does not). */
static bool key_unembed(Parser *p, const KeyUse *u)
{
    Setup *su = lp_setup(p);
    if (is_word(skip_ws(u->s), "none")) {
        free(su->unembed);
        free(su->unembed_bias);
        su->unembed = su->unembed_bias = NULL;
        return lp_end(p, skip_ws(u->s) + 4);
    }
    return weight_and_bias(p, u->s, &su->unembed, &su->unembed_bias);
}

/* `ablate: H ... [zero | mean]` or `ablate: none`: heads switched off in
** this setup, their outputs replaced by 0 (zero, the default) or by their
** mean over the tokens. */
static bool key_ablate(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Setup *su = lp_setup(p);
    su->ablated = su->ablate_mean = 0;
    su->ablate_line = p->lineno;
    if (is_word(s, "none")) return lp_end(p, s + 4);
    while (*(s = skip_ws(s)) && isdigit((unsigned char)*s)) {
        const char *at = s;
        int64_t h;
        if (!lp_int(p, &s, 1, LESSON_MAX_HEADS, "a head", &h)) return false;
        if (su->ablated & (1u << (h - 1))) return FAIL(p, at, "head %" PRId64 " is switched off twice", h);
        su->ablated |= 1u << (h - 1);
    }
    if (!su->ablated) {
        char f[48];
        lp_found(s, f, sizeof f);
        return FAIL(p, s, "expected the heads to switch off (ablate: 1 3, counting from 1), or none, found %s", f);
    }
    if (is_word(s, "mean") || is_word(s, "zero")) {
        if (s[0] == 'm') su->ablate_mean = su->ablated;
        s += 4;
    } else if (*s) {
        char f[48];
        lp_found(s, f, sizeof f);
        return FAIL(p, s, "expected zero or mean after the heads, found %s", f);
    }
    return lp_end(p, s);
}

/* `additive: W1 W2 v`: the weights and the vector of additive scoring. */
static bool key_additive(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Setup *su = lp_setup(p);
    free(su->add_w1); free(su->add_w2); free(su->add_v);
    su->add_w1 = su->add_w2 = su->add_v = NULL;
    if (!(su->add_w1 = lp_known_matrix(p, &s))) return false;
    if (!(su->add_w2 = lp_known_matrix(p, &s))) return false;
    if (!(su->add_v = lp_known_matrix(p, &s))) return false;
    return lp_end(p, s);
}

/* `attention: A` (the weights are given) or `attention: none`. */
static bool key_attention(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Setup *su = lp_setup(p);
    free(su->attention);
    su->attention = NULL;
    su->attention_line = p->lineno;
    if (is_word(s, "none")) return lp_end(p, s + 4);
    su->attention = lp_known_matrix(p, &s);
    return su->attention && lp_end(p, s);
}

/*
** A setting that is one of two words, a or b, as the rest of the line:
** *first is whether it is a. On anything else, the message names the key
** and both words.
*/
static bool two_words(Parser *p, const char *s, const char *key, const char *a, const char *b, bool *first)
{
    if (is_word(s, a) || is_word(s, b)) {
        *first = is_word(s, a);
        return lp_end(p, s + ident_len(s));
    }
    char f[48];
    lp_found(s, f, sizeof f);
    return FAIL(p, s, "expected %s to be %s or %s, found %s", key, a, b, f);
}

/* `norm_order: pre | post`: where the block's norms stand. */
static bool key_norm_order(Parser *p, const KeyUse *u)
{
    Setup *su = lp_setup(p);
    bool pre;
    su->post_norm_line = p->lineno;
    if (!two_words(p, u->s, "norm_order", "pre", "post", &pre)) return false;
    su->post_norm = !pre;
    return true;
}

/* `residual: yes | no`. */
static bool key_residual(Parser *p, const KeyUse *u)
{
    Setup *su = lp_setup(p);
    su->residual_line = p->lineno;
    return two_words(p, u->s, "residual", "yes", "no", &su->residual);
}

/* -------------------------------------------------------- setup: scores */

/* `score: scaled_dot | dot | additive`. */
static bool key_score(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Setup *su = lp_setup(p);
    if (is_word(s, "scaled_dot")) su->score = SCORE_SCALED_DOT;
    else if (is_word(s, "dot")) su->score = SCORE_DOT;
    else if (is_word(s, "additive")) su->score = SCORE_ADDITIVE;
    else {
        char f[48];
        lp_found(s, f, sizeof f);
        return FAIL(p, s, "expected score to be scaled_dot, dot or additive, found %s", f);
    }
    return lp_end(p, s + ident_len(s));
}

/* `divisor: EXPR` or `temperature: EXPR`, greater than 0. */
static bool key_scalar(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Setup *su = lp_setup(p);
    double x;
    if (!lp_expr_line(p, s, &x)) return false;
    if (!(x > 0)) return FAIL(p, s, "%s must be greater than 0, found %g", u->name, x);
    if (u->name[0] == 'd') su->divisor = x; else su->temperature = x;
    return true;
}

/* `heads: H`. */
static bool key_heads(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    int64_t h;
    if (!lp_int(p, &s, 1, LESSON_MAX_HEADS, "the number of heads", &h) || !lp_end(p, s)) return false;
    lp_setup(p)->heads = (int)h;
    return true;
}

/* `kv_heads: G`: grouped-query heads. */
static bool key_kv_heads(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Setup *su = lp_setup(p);
    int64_t g;
    su->kv_line = p->lineno;
    if (!lp_int(p, &s, 1, LESSON_MAX_HEADS, "the number of K/V heads", &g) || !lp_end(p, s)) return false;
    su->kv_heads = (int)g;
    return true;
}

/* `positions: none | sinusoidal | rope [base B] | alibi`. */
static bool key_positions(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Setup *su = lp_setup(p);
    static const char *const kinds[] = { "none", "sinusoidal", "rope", "alibi" };
    su->positions_line = p->lineno;
    for (int i = 0; i < (int)(sizeof kinds / sizeof *kinds); i++) {
        if (!is_word(s, kinds[i])) continue;
        su->positions = (PositionKind)i;
        su->rope_base = 10000.0;
        s = skip_ws(s + strlen(kinds[i]));
        if (i == POS_ROPE && is_word(s, "base")) {
            const char *at = skip_ws(s + 4);
            if (!lp_expr_line(p, at, &su->rope_base)) return false;
            if (!(su->rope_base > 1)) return FAIL(p, at, "the RoPE base must be greater than 1, found %g", su->rope_base);
            return true;
        }
        return lp_end(p, s);
    }
    char f[48];
    lp_found(s, f, sizeof f);
    return FAIL(p, s, "expected positions to be none, sinusoidal, rope [base B] or alibi, found %s", f);
}

/* ---------------------------------------------------------- setup: masks */

/* The parts a mask can be made of. */
static const struct { const char *word; unsigned bit; } mask_parts[] = {
    { "causal", MASKP_CAUSAL }, { "sliding", MASKP_SLIDING }, { "prefix", MASKP_PREFIX }, { "padding", MASKP_PADDING },
};

/* The MASKP_ bit of the mask part at s, or 0 when s is not one. */
static unsigned mask_part(const char *s)
{
    for (size_t i = 0; i < sizeof mask_parts / sizeof *mask_parts; i++)
        if (is_word(s, mask_parts[i].word)) return mask_parts[i].bit;
    return 0;
}

/*
** `mask: causal sliding 3 padding <pad> prefix 2`: parts in any order, each
** at most once. A lone `causal` is the plain causal mask (MASK_CAUSAL);
** sliding and prefix are kinds of causal masks and bring the causal part
** with them.
*/
static bool parse_mask_parts(Parser *p, Setup *su, const char *s)
{
    unsigned parts = 0;
    su->mask_line = p->lineno;
    free(su->pad_token);
    su->pad_token = NULL;
    su->window = su->prefix = 0;
    while (*(s = skip_ws(s))) {
        const char *at = s;
        size_t n = ident_len(s);
        unsigned bit = mask_part(s);
        if (!bit) {
            char f[48];
            lp_found(s, f, sizeof f);
            return FAIL(p, s, "expected a mask part (causal, sliding W, prefix P or padding TOKEN), found %s", f);
        }
        if (parts & bit) return FAIL(p, at, "mask part '%.*s' is given twice", (int)n, s);
        parts |= bit;
        s += n;
        int64_t x;
        if (bit == MASKP_SLIDING) {
            if (!lp_int(p, &s, 1, LESSON_MAX_TOKENS, "the window (keys each query sees)", &x)) return false;
            su->window = (int)x;
        } else if (bit == MASKP_PREFIX) {
            if (!lp_int(p, &s, 1, LESSON_MAX_TOKENS, "the prefix length", &x)) return false;
            su->prefix = (int)x;
        } else if (bit == MASKP_PADDING) {          /* a token as the tokens are written: bare or "quoted" */
            s = skip_ws(s);
            if (!*s) return FAIL(p, s, "expected the pad token after 'padding', e.g. padding <pad>");
            if (!lp_token(p, &s, &su->pad_token)) return false;
        }
    }
    if (parts & (MASKP_SLIDING | MASKP_PREFIX)) parts |= MASKP_CAUSAL;
    su->mask_parts = parts;
    su->mask = parts == MASKP_CAUSAL ? MASK_CAUSAL : MASK_PARTS;
    return true;
}

/* `mask: none`, parts (see above), `allow NAME` or `block NAME`. */
static bool key_mask(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Setup *su = lp_setup(p);
    free(su->mask_matrix);
    su->mask_matrix = NULL;
    if (is_word(s, "none")) { su->mask = MASK_NONE; return lp_end(p, s + 4); }
    if (mask_part(s)) return parse_mask_parts(p, su, s);
    if (is_word(s, "allow") || is_word(s, "block")) {
        su->mask = s[0] == 'a' ? MASK_ALLOW : MASK_BLOCK;
        s += 5;
        su->mask_matrix = lp_known_matrix(p, &s);
        return su->mask_matrix && lp_end(p, s);
    }
    char f[48];
    lp_found(s, f, sizeof f);
    return FAIL(p, s, "expected mask to be none, causal, allow NAME or block NAME (parts combine: causal sliding W prefix P padding TOKEN), found %s", f);
}

/* ---------------------------------------------------------------- stages */

/* `cmap: NAME`: one of the colormaps (colormaps.h). */
static bool key_cmap(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    size_t n = ident_len(s);
    int i = colormaps_find(s, n);
    if (i >= 0) {
        lp_stage(p)->cmap = xstrdup(colormaps_names()[i]);
        return lp_end(p, s + n);
    }
    char f[48], list[COLORMAPS_LIST_MAX];
    lp_found(s, f, sizeof f);
    colormaps_list(list, sizeof list);
    return FAIL(p, s, "unknown colormap %s; expected %s", f, list);
}

/* A whole number in [lo, hi] for a stage option, into *out. */
static bool stage_int(Parser *p, const char *s, int64_t lo, int64_t hi, const char *what, int *out)
{
    int64_t x;
    if (!lp_int(p, &s, lo, hi, what, &x) || !lp_end(p, s)) return false;
    *out = (int)x;
    return true;
}

/* `decimals: D`, 0 to 6. */
static bool key_decimals(Parser *p, const KeyUse *u)
{
    return stage_int(p, u->s, 0, 6, "decimals", &lp_stage(p)->decimals);
}

/* `head: H`: the head shown first. */
static bool key_head(Parser *p, const KeyUse *u)
{
    return stage_int(p, u->s, 1, LESSON_MAX_HEADS, "head", &lp_stage(p)->head);
}

/* `query: Q`: per_token's query. */
static bool key_query(Parser *p, const KeyUse *u)
{
    return stage_int(p, u->s, 1, LESSON_MAX_TOKENS, "query", &lp_stage(p)->query);
}

/* `block: B`: online_softmax's keys per block. */
static bool key_block(Parser *p, const KeyUse *u)
{
    return stage_int(p, u->s, 1, LESSON_MAX_TOKENS, "block (keys per block)", &lp_stage(p)->block);
}

/* `top: K`: next_token's words per row. */
static bool key_top(Parser *p, const KeyUse *u)
{
    return stage_int(p, u->s, 1, LESSON_MAX_TOP, "top (words per row)", &lp_stage(p)->top);
}

/* `scale: shared | own`: whether panels meant to be compared share a colour scale. */
static bool key_scale(Parser *p, const KeyUse *u)
{
    bool shared = !lp_stage(p)->own_scale;
    if (!two_words(p, u->s, "scale", "shared", "own", &shared)) return false;
    lp_stage(p)->own_scale = !shared;
    return true;
}

/* `indices: yes` or `no`: number the rows and columns on the axes. */
static bool key_indices(Parser *p, const KeyUse *u)
{
    return two_words(p, u->s, "indices", "yes", "no", &lp_stage(p)->indices);
}

/* A compare stage's option: anything else says where it belongs. */
static bool compare_only(Parser *p, const KeyUse *u)
{
    if (lp_stage(p)->id == STAGE_COMPARE) return true;
    return FAIL(p, u->at, "'%s:' is an option of compare stages; this stage is %s", u->name,
                lesson_stage_name(lp_stage(p)->id));
}

/* `show: weights | output | next_token`: what a compare stage sets side by side. */
static bool key_show(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    size_t n = ident_len(s);
    if (!compare_only(p, u)) return false;
    if (lesson_show_from_name(s, n, &lp_stage(p)->show)) return lp_end(p, s + n);
    char f[48];
    lp_found(s, f, sizeof f);
    return FAIL(p, s, "expected show to be weights, output or next_token, found %s", f);
}

/* `a: N` or `a: TITLE` (and `b:`): a setup above the compare stage, by its
** number from 1 or its title as written in its [setup: TITLE]. */
static bool key_setup_ref(Parser *p, const KeyUse *u)
{
    const char *s = u->s;
    Stage *st = lp_stage(p);
    int n = p->L->nsetups, which = -1;
    if (!compare_only(p, u)) return false;
    if (!*s) return FAIL(p, s, "expected a setup after '%s:': its number (1 to %d) or its title", u->name, n);
    if (isdigit((unsigned char)*s)) {
        int64_t k;
        if (!lp_int(p, &s, 1, p->max_setups, "a setup", &k) || !lp_end(p, s)) return false;
        if (k > n) return FAIL(p, u->s, "%s: names setup %" PRId64 ", but the lesson has %d setup%s above this stage", u->name,
                               k, n, n == 1 ? "" : "s");
        which = (int)k - 1;
    } else {
        size_t len = strlen(s);
        while (len > 0 && (s[len - 1] == ' ' || s[len - 1] == '\t')) len--;
        for (int i = 0; i < n && which < 0; i++) {
            const char *t = p->L->setups[i].title;
            if (t && strlen(t) == len && !strncmp(t, s, len)) which = i;
        }
        if (which < 0) return FAIL(p, s, "no setup above this stage is called '%.*s'; name one by its number (1 to %d) "
                                   "or by its title", (int)(len < 60 ? len : 60), s, n);
    }
    if (u->name[0] == 'a') {
        st->cmp_a = which;
        st->cmp_line = p->lineno;
    } else {
        st->cmp_b = which;
        if (!p->set.a) st->cmp_line = p->lineno;
    }
    return true;
}

/* ------------------------------------------------------------------ table */

#define LINE(f) offsetof(KeyLines, f)

/* Every key, by section; within a section in the order messages list them. */
static const LessonKey keys[] = {
    { "title", SEC_HEAD, key_title, LINE(title), 0, NULL, 0 },
    { "summary", SEC_HEAD, key_summary, LINE(summary), 0, NULL, 0 },
    { "language", SEC_HEAD, key_language, LINE(language), 0, NULL, 0 },
    { "seed", SEC_SETUP, key_seed, LINE(seed), 0, NULL, 0 },
    { "tokens", SEC_SETUP, key_token_list, LINE(tokens), 0, take_tokens, LESSON_MAX_TOKENS },
    { "query_tokens", SEC_SETUP, key_token_list, LINE(query_tokens), 0, take_side_tokens, LESSON_MAX_TOKENS },
    { "key_tokens", SEC_SETUP, key_token_list, LINE(key_tokens), 0, take_side_tokens, LESSON_MAX_TOKENS },
    { "queries", SEC_SETUP, key_operand, LINE(queries), KEY_NOT_GIVEN, NULL, 0 },
    { "keys", SEC_SETUP, key_operand, LINE(keys), KEY_NOT_GIVEN, NULL, 0 },
    { "values", SEC_SETUP, key_operand, LINE(values), 0, NULL, 0 },
    { "score", SEC_SETUP, key_score, LINE(score), KEY_NOT_GIVEN, NULL, 0 },
    { "divisor", SEC_SETUP, key_scalar, LINE(divisor), KEY_NOT_GIVEN, NULL, 0 },
    { "temperature", SEC_SETUP, key_scalar, LINE(temperature), KEY_NOT_GIVEN, NULL, 0 },
    { "heads", SEC_SETUP, key_heads, LINE(heads), 0, NULL, 0 },
    { "mask", SEC_SETUP, key_mask, LINE(mask), 0, NULL, 0 },
    { "output", SEC_SETUP, key_output, LINE(output), 0, NULL, 0 },
    { "additive", SEC_SETUP, key_additive, LINE(additive), KEY_NOT_GIVEN, NULL, 0 },
    { "dims", SEC_SETUP, key_token_list, LINE(dims), 0, take_dims, LESSON_MAX_TOKENS },
    { "key_dims", SEC_SETUP, key_token_list, LINE(key_dims), 0, take_dims, LESSON_MAX_TOKENS },
    { "value_dims", SEC_SETUP, key_token_list, LINE(value_dims), 0, take_dims, LESSON_MAX_TOKENS },
    { "torch_seed", SEC_SETUP, key_torch_seed, LINE(torch_seed), 0, NULL, 0 },
    { "residual", SEC_SETUP, key_residual, LINE(residual), KEY_NOT_GIVEN, NULL, 0 },
    { "positions", SEC_SETUP, key_positions, LINE(positions), KEY_NOT_GIVEN, NULL, 0 },
    { "kv_heads", SEC_SETUP, key_kv_heads, LINE(kv_heads), KEY_NOT_GIVEN, NULL, 0 },
    { "attention", SEC_SETUP, key_attention, LINE(attention), 0, NULL, 0 },
    { "layer_norm", SEC_SETUP, key_norm, LINE(layer_norm), KEY_NOT_GIVEN, NULL, 0 },
    { "mlp", SEC_SETUP, key_mlp, LINE(mlp), KEY_NOT_GIVEN, NULL, 0 },
    { "mlp_norm", SEC_SETUP, key_norm, LINE(mlp_norm), KEY_NOT_GIVEN, NULL, 0 },
    { "norm_order", SEC_SETUP, key_norm_order, LINE(norm_order), KEY_NOT_GIVEN, NULL, 0 },
    { "unembed", SEC_SETUP, key_unembed, LINE(unembed), KEY_NOT_GIVEN, NULL, 0 },
    { "final_norm", SEC_SETUP, key_norm, LINE(final_norm), KEY_NOT_GIVEN, NULL, 0 },
    { "vocab", SEC_SETUP, key_token_list, LINE(vocab), 0, take_vocab, LESSON_MAX_VOCAB },
    { "ablate", SEC_SETUP, key_ablate, LINE(ablate), KEY_NOT_GIVEN, NULL, 0 },
    { "cmap", SEC_STAGE, key_cmap, LINE(cmap), 0, NULL, 0 },
    { "decimals", SEC_STAGE, key_decimals, LINE(decimals), 0, NULL, 0 },
    { "head", SEC_STAGE, key_head, LINE(head), 0, NULL, 0 },
    { "query", SEC_STAGE, key_query, LINE(query), 0, NULL, 0 },
    { "scale", SEC_STAGE, key_scale, LINE(scale), 0, NULL, 0 },
    { "block", SEC_STAGE, key_block, LINE(block), 0, NULL, 0 },
    { "indices", SEC_STAGE, key_indices, LINE(indices), 0, NULL, 0 },
    { "top", SEC_STAGE, key_top, LINE(top), 0, NULL, 0 },
    { "show", SEC_STAGE, key_show, LINE(show), 0, NULL, 0 },
    { "a", SEC_STAGE, key_setup_ref, LINE(a), 0, NULL, 0 },
    { "b", SEC_STAGE, key_setup_ref, LINE(b), 0, NULL, 0 },
};

#define NKEYS (sizeof keys / sizeof *keys)

_Static_assert((int)SEC_HEAD == (int)LESSON_TOP && (int)SEC_SETUP == (int)LESSON_SETUP && (int)SEC_STAGE == (int)LESSON_STAGE,
               "a key's section is where it belongs");

/* Key i of the table. */
const char *lesson_key_name(int i, LessonPlace *place)
{
    if (i < 0 || (size_t)i >= NKEYS) return NULL;
    if (place) *place = (LessonPlace)keys[i].sec;
    return keys[i].name;
}

/* The field of set that says where key k was set (0: not in this section). */
static int *line_of(KeyLines *set, const LessonKey *k)
{
    assert(k->line + sizeof(int) <= sizeof *set);
    return (int *)(void *)((char *)set + k->line);
}

/* The line where the section set key k, 0 when it did not. */
static int line_in(const KeyLines *set, const LessonKey *k)
{
    assert(k->line + sizeof(int) <= sizeof *set);
    return *(const int *)(const void *)((const char *)set + k->line);
}

/* The key called name in section sec, or NULL. */
static const LessonKey *find_key(const char *name, Section sec)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (keys[i].sec == sec && !strcmp(keys[i].name, name)) return &keys[i];
    return NULL;
}

/* The names of section sec's keys, ", " between them and last before the
** last one, into out (size n). */
static void key_names(Section sec, const char *last, char *out, size_t n)
{
    size_t len = 0, count = 0, seen = 0;
    for (size_t i = 0; i < NKEYS; i++) count += keys[i].sec == sec;
    out[0] = '\0';
    for (size_t i = 0; i < NKEYS; i++) {
        if (keys[i].sec != sec) continue;
        const char *sep = seen == 0 ? "" : seen + 1 == count ? last : ", ";
        int w = snprintf(out + len, n - len, "%s%s", sep, keys[i].name);
        assert(w > 0 && (size_t)w < n - len);          /* out is sized for the table */
        len += (size_t)w;
        seen++;
    }
}

/* The error for a key its section does not have. */
static bool unknown_key(Parser *p, const char *key, const char *key_at)
{
    char list[400];
    if (p->sec == SEC_HEAD && find_key(key, SEC_SETUP))
        return FAIL(p, key_at, "'%s' belongs in a [setup] section; add '[setup]' above it", key);
    if (p->sec == SEC_HEAD) {
        key_names(SEC_HEAD, " or ", list, sizeof list);
        return FAIL(p, key_at, "unknown key '%s' at the top of the lesson; expected %s", key, list);
    }
    const char *where = sections[p->sec].where;
    key_names(p->sec, ", ", list, sizeof list);
    return FAIL(p, key_at, "unknown %s '%s'%s%s; expected one of: %s %s", sections[p->sec].what, key,
                *where ? " " : "", where, list, sections[p->sec].hint);
}

/* One `key: value` line of the current section. */
bool lp_key(Parser *p, const char *key, const char *key_at, const char *v)
{
    const LessonKey *k = find_key(key, p->sec);
    if (!k) return unknown_key(p, key, key_at);
    int *line = line_of(&p->set, k);
    if (*line) return FAIL(p, key_at, "'%s' is set twice%s (first on line %d)", key, sections[p->sec].scope, *line);
    *line = p->lineno;
    KeyUse u = { key, key_at, skip_ws(v), k };
    return k->parse(p, &u);
}

/* Whether `name = ...` sets a token list. */
bool lp_is_token_key(const char *name, size_t n)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (keys[i].take && strlen(keys[i].name) == n && !strncmp(keys[i].name, name, n)) return true;
    return false;
}

/* `tokens = load "FILE.npy"`: a token-list key read from a NumPy array of strings. */
bool lp_key_load(Parser *p, const char *key, const char *key_at, const char *s)
{
    const LessonKey *k = find_key(key, SEC_SETUP);
    assert(k && k->take);
    int *line = line_of(&p->set, k);
    if (*line) return FAIL(p, key_at, "'%s' is set twice in this setup (first on line %d)", key, *line);
    *line = p->lineno;
    s = skip_ws(s);
    if (!is_word(s, "load")) {
        char f[48];
        lp_found(s, f, sizeof f);
        return FAIL(p, s, "%s is a list of tokens: write '%s: ...' or '%s = load \"FILE.npy\"' (a NumPy array of "
                    "strings), found %s", key, key, key, f);
    }
    char **t; int n;
    KeyUse u = { key, key_at, s, k };
    return lp_load_strings(p, s + 4, k->max, &t, &n) && k->take(p, &u, t, n);
}

/* The first setting of this setup that a setup given its weights ignores. */
const char *lp_key_not_given(const Parser *p, int *line)
{
    assert(p->sec == SEC_SETUP);
    for (size_t i = 0; i < NKEYS; i++) {
        if (!(keys[i].flags & KEY_NOT_GIVEN)) continue;
        assert(keys[i].sec == SEC_SETUP);
        *line = line_in(&p->set, &keys[i]);
        if (*line) return keys[i].name;
    }
    return NULL;
}
