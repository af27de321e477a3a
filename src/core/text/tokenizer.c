/*
** tokenizer.c: GPT-2's byte-level BPE and BERT's WordPiece (see
** tokenizer.h), on the Unicode tables of unidata.h.
*/
#include "tokenizer.h"
#include "unidata.h"
#include "utf8.h"
#include "core/io/fileio.h"
#include "core/util.h"

#include <assert.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

/* A map from byte strings to numbers: open addressing, a power of two of
** slots, at most half of them used. The keys are the caller's. */
typedef struct StrMap {
    const char **key;
    int *klen, *val;
    size_t cap, used;
} StrMap;

/* FNV-1a of n bytes of s. */
static uint64_t hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Room for n keys. */
static void map_init(StrMap *m, size_t n)
{
    m->cap = 16;
    while (m->cap < 2 * n + 2) m->cap *= 2;
    m->key = xcalloc(m->cap, sizeof *m->key);
    m->klen = xcalloc(m->cap, sizeof *m->klen);
    m->val = xcalloc(m->cap, sizeof *m->val);
    m->used = 0;
}

/* Release m's slots (not its keys). */
static void map_free(StrMap *m)
{
    free(m->key);
    free(m->klen);
    free(m->val);
}

/* The slot of key s (n bytes): where it is, or the empty one it would go to. */
static size_t map_slot(const StrMap *m, const char *s, size_t n)
{
    size_t i = (size_t)hash(s, n) & (m->cap - 1);
    while (m->key[i] && ((size_t)m->klen[i] != n || memcmp(m->key[i], s, n))) i = (i + 1) & (m->cap - 1);
    return i;
}

/* The value of s, or -1. */
static int map_get(const StrMap *m, const char *s, size_t n)
{
    size_t i = map_slot(m, s, n);
    return m->key[i] ? m->val[i] : -1;
}

/* Put s → v unless s is there; whether it was new. */
static bool map_put(StrMap *m, const char *s, size_t n, int v)
{
    assert(m->used * 2 < m->cap);
    size_t i = map_slot(m, s, n);
    if (m->key[i]) return false;
    m->key[i] = s;
    m->klen[i] = (int)n;
    m->val[i] = v;
    m->used++;
    return true;
}

struct Tokenizer {
    TokKind kind;
    char **words;           /* by id, owned */
    int nwords;
    StrMap vocab;           /* word → id */
    StrMap merges;          /* "left right" → rank (BPE) */
    char *merge_text;       /* merges.txt, its pairs' storage */
    char sym[256][4];       /* BPE: each byte as its printable character, UTF-8 */
    bool lower;             /* WordPiece: lower the case and remove accents */
    int unk, cls, sep;      /* WordPiece's special tokens' ids */
};

/* Append code point cp to b as UTF-8. */
static void buf_cp(Buf *b, uint32_t cp)
{
    char u[4];
    buf_append(b, u, (size_t)utf8_encode(cp, u));
}

/* The ids growing as text is cut. */
typedef struct Ids {
    int *v, n, cap;
} Ids;

/* Append id to ids. */
static void ids_add(Ids *ids, int id)
{
    if (ids->n == ids->cap) {
        ids->cap = ids->cap ? 2 * ids->cap : 64;
        ids->v = xrealloc(ids->v, sizeof *ids->v * (size_t)ids->cap);
    }
    ids->v[ids->n++] = id;
}

/* A new word of n bytes for id, into the vocabulary; false when the id or
** the word is there already. */
static bool add_word(Tokenizer *t, int id, const char *s, size_t n)
{
    if (id < 0 || id >= t->nwords || t->words[id]) return false;
    t->words[id] = xmalloc(n + 1);
    memcpy(t->words[id], s, n);
    t->words[id][n] = '\0';
    return map_put(&t->vocab, t->words[id], n, id);
}

/* Path dir/name into out (size n). */
static void join(char *out, size_t n, const char *dir, const char *name)
{
    snprintf(out, n, "%s/%s", dir, name);
}

/* GPT-2's vocab.json: an object of word → id, the ids 0..n-1. */
static bool read_vocab_json(Tokenizer *t, const char *dir, Error *err)
{
    char path[4096];
    join(path, sizeof path, dir, "vocab.json");
    size_t len;
    char *text = fileio_read(path, TOK_MAX_FILE, &len, err);
    if (!text) return false;
    cJSON *root = cJSON_ParseWithLength(text, len);
    char *shown = util_shown(path);
    bool ok = root && cJSON_IsObject(root);
    if (!ok) error_set(err, ERR_INVALID, shown, 0, 0, "not a JSON object of words and their ids");
    int n = ok ? cJSON_GetArraySize(root) : 0;
    if (ok && n < 1) ok = error_set(err, ERR_INVALID, shown, 0, 0, "no words");
    if (ok) {
        t->nwords = n;
        t->words = xcalloc((size_t)n, sizeof *t->words);
        map_init(&t->vocab, (size_t)n);
    }
    for (const cJSON *w = ok ? root->child : NULL; w && ok; w = w->next) {
        double v = cJSON_IsNumber(w) ? w->valuedouble : -1;
        if (v != (int)v || !add_word(t, (int)v, w->string, strlen(w->string))) {
            char *ws = util_shown(w->string);
            ok = error_set(err, ERR_INVALID, shown, 0, 0, "%s: the id must be a whole number from 0 to %d, given to no other word",
                           ws, n - 1);
            free(ws);
        }
    }
    cJSON_Delete(root);
    free(text);
    free(shown);
    return ok;
}

/* GPT-2's merges.txt: a "#version" line, then a pair a line, in rank order. */
static bool read_merges(Tokenizer *t, const char *dir, Error *err)
{
    char path[4096];
    join(path, sizeof path, dir, "merges.txt");
    size_t len;
    t->merge_text = fileio_read(path, TOK_MAX_FILE, &len, err);
    if (!t->merge_text) return false;
    size_t lines = 1;
    for (size_t i = 0; i < len; i++) lines += t->merge_text[i] == '\n';
    map_init(&t->merges, lines);
    char *shown = util_shown(path);
    bool ok = true;
    int rank = 0, line = 0;
    for (char *s = t->merge_text; ok && s < t->merge_text + len;) {
        char *end = memchr(s, '\n', (size_t)(t->merge_text + len - s));
        if (!end) end = t->merge_text + len;
        size_t n = (size_t)(end - s);
        if (n && s[n - 1] == '\r') n--;
        line++;
        char *sp = memchr(s, ' ', n);
        if (n == 0 || (line == 1 && n >= 9 && !memcmp(s, "#version:", 9))) {
            /* a blank line or the version */
        } else if (!sp || sp == s || sp == s + n - 1 || memchr(sp + 1, ' ', (size_t)(s + n - sp - 1))) {
            ok = error_set(err, ERR_INVALID, shown, line, 1, "a merge is two tokens with one space between them");
        } else {
            map_put(&t->merges, s, n, rank++);      /* a repeated pair keeps its first rank */
        }
        s = end + 1;
    }
    free(shown);
    return ok;
}

/* GPT-2's printable character for each byte: the printable Latin-1 bytes
** stand for themselves, the others (controls, the space, ...) for 256 + their order. */
static void byte_symbols(Tokenizer *t)
{
    int extra = 0;
    for (int b = 0; b < 256; b++) {
        bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        uint32_t cp = printable ? (uint32_t)b : 256u + (uint32_t)extra++;
        Buf buf = { 0 };
        buf_cp(&buf, cp);
        assert(buf.len < sizeof t->sym[b]);
        memcpy(t->sym[b], buf.s, buf.len + 1);
        buf_free(&buf);
    }
}

/* BERT's vocab.txt: a word a line, the line's number (from 0) its id. */
static bool read_vocab_txt(Tokenizer *t, const char *dir, Error *err)
{
    char path[4096];
    join(path, sizeof path, dir, "vocab.txt");
    size_t len;
    char *text = fileio_read(path, TOK_MAX_FILE, &len, err);
    if (!text) return false;
    int lines = 0;
    for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
    if (len && text[len - 1] != '\n') lines++;
    t->nwords = lines;
    t->words = xcalloc((size_t)lines + 1, sizeof *t->words);
    map_init(&t->vocab, (size_t)lines);
    char *shown = util_shown(path);
    bool ok = true;
    int id = 0;
    for (char *s = text; ok && s < text + len; id++) {
        char *end = memchr(s, '\n', (size_t)(text + len - s));
        if (!end) end = text + len;
        size_t n = (size_t)(end - s);
        while (n && (s[n - 1] == '\r' || s[n - 1] == ' ')) n--;
        if (!add_word(t, id, s, n) && n) map_put(&t->vocab, t->words[id] ? t->words[id] : "", 0, id);
        s = end + 1;
    }
    t->unk = map_get(&t->vocab, "[UNK]", 5);
    t->cls = map_get(&t->vocab, "[CLS]", 5);
    t->sep = map_get(&t->vocab, "[SEP]", 5);
    const char *missing = t->unk < 0 ? "[UNK]" : t->cls < 0 ? "[CLS]" : t->sep < 0 ? "[SEP]" : NULL;
    if (missing) ok = error_set(err, ERR_INVALID, shown, 0, 0, "no %s among its %d words", missing, lines);
    free(shown);
    free(text);
    return ok;
}

/* tokenizer_config.json's do_lower_case (true when the file or the field is missing). */
static bool read_lower(const char *dir)
{
    char path[4096];
    join(path, sizeof path, dir, "tokenizer_config.json");
    size_t len;
    Error ignored;
    char *text = fileio_read(path, 1u << 20, &len, &ignored);
    cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
    const cJSON *j = root ? cJSON_GetObjectItemCaseSensitive(root, "do_lower_case") : NULL;
    bool lower = !cJSON_IsFalse(j);
    cJSON_Delete(root);
    free(text);
    return lower;
}

/* The tokenizer in dir. */
Tokenizer *tok_open(const char *dir, TokKind kind, Error *err)
{
    Tokenizer *t = xcalloc(1, sizeof *t);
    t->kind = kind;
    bool ok;
    if (kind == TOK_BPE) {
        byte_symbols(t);
        ok = read_vocab_json(t, dir, err) && read_merges(t, dir, err);
    } else {
        t->lower = read_lower(dir);
        ok = read_vocab_txt(t, dir, err);
    }
    if (!ok) {
        tok_free(t);
        return NULL;
    }
    return t;
}

/* Release t. */
void tok_free(Tokenizer *t)
{
    if (!t) return;
    for (int i = 0; i < t->nwords; i++) free(t->words[i]);
    free(t->words);
    if (t->vocab.key) map_free(&t->vocab);
    if (t->merges.key) map_free(&t->merges);
    free(t->merge_text);
    free(t);
}

/* The word of id. */
const char *tok_word(const Tokenizer *t, int id)
{
    return id >= 0 && id < t->nwords ? t->words[id] : NULL;
}

/* The vocabulary's size. */
int tok_size(const Tokenizer *t)
{
    return t->nwords;
}

/* ---------------------------------------------------------------- BPE */

/* A symbol of a word being merged: bytes [at, at + len) of its text. */
typedef struct Sym {
    int at, len;
} Sym;

/* The merge rank of symbols a and b of text, or -1. */
static int pair_rank(const Tokenizer *t, const char *text, Sym a, Sym b, Buf *key)
{
    buf_clear(key);
    buf_append(key, text + a.at, (size_t)a.len);
    buf_append(key, " ", 1);
    buf_append(key, text + b.at, (size_t)b.len);
    return map_get(&t->merges, key->s, key->len);
}

/* One pre-token's bytes (s, n) merged and looked up, its ids appended. */
static bool bpe_word(const Tokenizer *t, const char *s, size_t n, Ids *ids, Error *err)
{
    Buf text = { 0 }, key = { 0 };
    Sym *sym = xmalloc(sizeof *sym * n);
    int ns = 0;
    for (size_t i = 0; i < n; i++) {
        const char *c = t->sym[(unsigned char)s[i]];
        sym[ns++] = (Sym){ (int)text.len, (int)strlen(c) };
        buf_append(&text, c, strlen(c));
    }
    for (;;) {
        int best = -1, at = -1;
        for (int i = 0; i + 1 < ns; i++) {
            int r = pair_rank(t, text.s, sym[i], sym[i + 1], &key);
            if (r >= 0 && (best < 0 || r < best)) best = r, at = i;
        }
        if (best < 0) break;
        /* every pair of that rank, left to right; the symbols are adjacent in text */
        int w = 0;
        for (int i = 0; i < ns; i++) {
            if (i + 1 < ns && i >= at && pair_rank(t, text.s, sym[i], sym[i + 1], &key) == best) {
                sym[w++] = (Sym){ sym[i].at, sym[i].len + sym[i + 1].len };
                i++;
            } else {
                sym[w++] = sym[i];
            }
        }
        ns = w;
    }
    bool ok = true;
    for (int i = 0; i < ns && ok; i++) {
        int id = map_get(&t->vocab, text.s + sym[i].at, (size_t)sym[i].len);
        if (id >= 0) ids_add(ids, id);
        else {
            char piece[64];
            snprintf(piece, sizeof piece, "%.*s", sym[i].len < 48 ? sym[i].len : 48, text.s + sym[i].at);
            ok = error_set(err, ERR_INVALID, NULL, 0, 0, "the vocabulary (vocab.json) has no word for \"%s\"", piece);
        }
    }
    free(sym);
    buf_free(&text);
    buf_free(&key);
    return ok;
}

/* A decoded character of the text: its code point and byte offset. */
typedef struct Ch {
    uint32_t cp;
    size_t at;
} Ch;

/* The text's characters (n + 1 of them, the last a 0 at the end). */
static Ch *decode(const char *text, size_t len, size_t *n)
{
    Ch *c = xmalloc(sizeof *c * (len + 1));
    size_t k = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t step = utf8_decode(text + i, len - i, &cp);
        c[k++] = (Ch){ cp, i };
        i += step;
    }
    c[k] = (Ch){ 0, len };
    *n = k;
    return c;
}

/* Whether c continues a run of class k in GPT-2's pattern (1 letters,
** 2 numbers, 3 anything that is neither nor a space). */
static bool in_run(uint32_t cp, int k)
{
    UniClass u = unidata_class(cp);
    if (k == 1) return u == UC_LETTER;
    if (k == 2) return u == UC_NUMBER;
    return !unidata_is_space(cp) && u != UC_LETTER && u != UC_NUMBER;
}

/* The length in characters of GPT-2's next pre-token at c[i] (n characters
** in all): its pattern's alternatives in their order, 's|'t|'re|'ve|'m|'ll|'d,
** ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+', '\s+(?!\S)', '\s+'. */
static size_t gpt2_piece(const Ch *c, size_t i, size_t n)
{
    static const char *const suffixes[] = { "s", "t", "re", "ve", "m", "ll", "d" };
    if (c[i].cp == '\'')
        for (size_t k = 0; k < sizeof suffixes / sizeof *suffixes; k++) {
            size_t m = strlen(suffixes[k]), j = 0;
            while (j < m && i + 1 + j < n && c[i + 1 + j].cp == (uint32_t)suffixes[k][j]) j++;
            if (j == m) return m + 1;
        }
    for (int k = 1; k <= 3; k++) {
        size_t j = i + (c[i].cp == ' ');
        if (j < n && in_run(c[j].cp, k)) {
            while (j < n && in_run(c[j].cp, k)) j++;
            return j - i;
        }
    }
    assert(unidata_is_space(c[i].cp));
    size_t j = i;
    while (j < n && unidata_is_space(c[j].cp)) j++;
    if (j < n && j - i > 1) j--;           /* leave the last space to the word after it */
    return j - i;
}

/* GPT-2's ids of text. */
static bool bpe_encode(const Tokenizer *t, const char *text, Ids *ids, Error *err)
{
    size_t n, len = strlen(text);
    Ch *c = decode(text, len, &n);
    bool ok = true;
    for (size_t i = 0; i < n && ok;) {
        size_t m = gpt2_piece(c, i, n);
        assert(m > 0);
        ok = bpe_word(t, text + c[i].at, c[i + m].at - c[i].at, ids, err);
        i += m;
    }
    free(c);
    return ok;
}

/* ---------------------------------------------------------- WordPiece */

/* Whether cp is a Chinese character as BERT counts them (the CJK blocks). */
static bool is_cjk(uint32_t cp)
{
    return (cp >= 0x4E00 && cp <= 0x9FFF) || (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x20000 && cp <= 0x2A6DF) ||
           (cp >= 0x2A700 && cp <= 0x2B73F) || (cp >= 0x2B740 && cp <= 0x2B81F) || (cp >= 0x2B820 && cp <= 0x2CEAF) ||
           (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0x2F800 && cp <= 0x2FA1F);
}

/* Whether BERT cuts at cp as punctuation (ASCII's symbols count too). */
static bool is_punct(uint32_t cp)
{
    if ((cp >= 33 && cp <= 47) || (cp >= 58 && cp <= 64) || (cp >= 91 && cp <= 96) || (cp >= 123 && cp <= 126))
        return true;
    return unidata_class(cp) == UC_PUNCT;
}

/* Whether BERT's words end at cp (Python's str.split() after its cleaning). */
static bool splits(uint32_t cp)
{
    return cp == ' ' || cp == 0x2028 || cp == 0x2029;
}

/* One word's pieces (the longest first) appended, or [UNK]. */
static void wordpiece(const Tokenizer *t, const char *w, size_t n, Ids *ids)
{
    if (utf8_count_n(w, n) > TOK_MAX_WORD) {
        ids_add(ids, t->unk);
        return;
    }
    int first = ids->n;
    Buf key = { 0 };
    for (size_t start = 0; start < n;) {
        int id = -1;
        size_t end = n;
        while (end > start) {
            buf_clear(&key);
            if (start > 0) buf_append(&key, "##", 2);
            buf_append(&key, w + start, end - start);
            if ((id = map_get(&t->vocab, key.s, key.len)) >= 0) break;
            do end--; while (end > start && (w[end] & 0xC0) == 0x80);   /* a character shorter */
        }
        if (id < 0) {
            ids->n = first;
            ids_add(ids, t->unk);
            break;
        }
        ids_add(ids, id);
        start = end;
    }
    buf_free(&key);
}

/* Whether the character at c[i] is a letter as final sigma's rule asks. */
static bool cased_at(const Ch *c, size_t i, size_t n)
{
    return i < n && unidata_class(c[i].cp) == UC_LETTER;
}

/* BERT's ids of text. */
static bool wordpiece_encode(const Tokenizer *t, const char *text, Ids *ids)
{
    size_t n, len = strlen(text);
    Ch *c = decode(text, len, &n);
    Buf word = { 0 };
    ids_add(ids, t->cls);
    for (size_t i = 0; i <= n; i++) {
        uint32_t cp = i < n ? c[i].cp : ' ';
        bool space = cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r' || unidata_class(cp) == UC_SPACE || splits(cp);
        if (!space && (cp == 0 || cp == 0xFFFD || unidata_class(cp) == UC_CONTROL)) continue;
        bool alone = !space && (is_cjk(cp) || is_punct(cp));
        uint32_t out[6];
        int k = 0;
        if (!space && t->lower) {
            uint32_t low[2], part[3];
            int nl = cp == 0x3A3 && cased_at(c, i - 1, i) && !cased_at(c, i + 1, n) ? (low[0] = 0x3C2, 1) : unidata_lower(cp, low);
            for (int a = 0; a < nl; a++) {
                int np = unidata_strip(low[a], part);
                for (int b = 0; b < np; b++) out[k++] = part[b];
            }
            alone = alone || (k == 1 && is_punct(out[0]));
        } else if (!space) {
            out[k++] = cp;
        }
        if ((space || alone) && word.len) {
            wordpiece(t, word.s, word.len, ids);
            buf_clear(&word);
        }
        for (int a = 0; a < k; a++) buf_cp(&word, out[a]);
        if (alone && word.len) {
            wordpiece(t, word.s, word.len, ids);
            buf_clear(&word);
        }
    }
    ids_add(ids, t->sep);
    buf_free(&word);
    free(c);
    return true;
}

/* The ids of text. */
int tok_encode(const Tokenizer *t, const char *text, int **ids, Error *err)
{
    Ids out = { 0 };
    bool ok = t->kind == TOK_BPE ? bpe_encode(t, text, &out, err) : wordpiece_encode(t, text, &out);
    if (!ok) {
        free(out.v);
        return -1;
    }
    *ids = out.v ? out.v : xmalloc(sizeof **ids);
    return out.n;
}

