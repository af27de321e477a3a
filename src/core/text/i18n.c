/*
** i18n.c: reading GNU .mo catalogues and looking strings up.
**
** The .mo format (GNU gettext manual, "The Format of GNU MO Files"): a header
** of 32-bit words in the writer's byte order,
**
**     0  magic 0x950412de         (read as 0xde120495: the other byte order)
**     4  file format revision     (major revision 0 or 1 in the high 16 bits)
**     8  N, the number of strings
**    12  O, offset of the table of originals
**    16  T, offset of the table of translations
**    20  S, H: size and offset of a hash table (not needed: we bisect)
**
** and two tables of N (length, offset) pairs. String i of each table is
** `length` bytes at `offset`, followed by a NUL. The originals are sorted
** byte-wise, so a lookup is a binary search. The entry with the empty
** original is the header ("Content-Type: text/plain; charset=UTF-8" …).
*/
#include "i18n.h"
#include "core/io/fileio.h"
#include "core/util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MO_MAGIC 0x950412deu
#define MO_MAGIC_SWAPPED 0xde120495u
#define MO_HEADER_BYTES 28
#define MAX_USED 16             /* languages kept loaded at once (a lesson each) */

typedef struct MoString {
    const char *s;
    uint32_t len;
} MoString;

struct I18nCatalog {
    char *data;                 /* the file's bytes */
    MoString *orig, *trans;     /* n of each; a dropped translation has s NULL */
    int n;
};

/* Catalogues used so far, and the one in use (an index, or -1). */
static struct { char lang[I18N_LANG_MAX + 1]; I18nCatalog *cat; } used[MAX_USED];
static int nused, current = -1;

/* The 32-bit word at offset off of d, in the file's byte order. */
static uint32_t word(const unsigned char *d, size_t off, bool swapped)
{
    uint32_t b0 = d[off], b1 = d[off + 1], b2 = d[off + 2], b3 = d[off + 3];
    return swapped ? (b0 << 24 | b1 << 16 | b2 << 8 | b3) : (b3 << 24 | b2 << 16 | b1 << 8 | b0);
}

/* Fill err with what is wrong with the catalogue called name; NULL. */
static I18nCatalog *fail(I18nCatalog *c, Error *err, const char *name, const char *what)
{
    error_set(err, ERR_INVALID, name, 0, 0, "%s", what);
    i18n_catalog_free(c);
    return NULL;
}

/*
** Read table number `which` (originals or translations) at offset tab:
** every pair must lie inside the file and every string must end in a NUL
** inside it. Returns false for the first entry that does not.
*/
static bool read_table(const I18nCatalog *c, size_t size, uint32_t tab, bool swapped, MoString *out)
{
    const unsigned char *d = (const unsigned char *)c->data;
    if (tab > size || (size - tab) / 8 < (size_t)c->n) return false;
    for (int i = 0; i < c->n; i++) {
        uint32_t len = word(d, tab + 8 * (size_t)i, swapped), off = word(d, tab + 8 * (size_t)i + 4, swapped);
        if (off > size || len >= size - off || d[off + len] != '\0') return false;
        out[i].s = c->data + off;
        out[i].len = len;
    }
    return true;
}

/* Byte-wise order of two counted strings (as msgfmt sorts them). */
static int cmp_counted(const char *a, size_t alen, const char *b, size_t blen)
{
    int r = memcmp(a, b, alen < blen ? alen : blen);
    return r ? r : alen < blen ? -1 : alen > blen;
}

/* One printf conversion: its width and precision as written ("" when
** absent, "*" for an int argument) and its length modifier and class. */
typedef struct Conv {
    char width[12], prec[12], type[8];
} Conv;

/*
** The printf conversions of s, at most max, into c; their number, or -1
** when s is not a format we accept: a conversion we do not know, %n,
** positional arguments, a width or precision of more than 10 characters,
** or more than max conversions.
*/
static int conversions(const char *s, Conv *c, int max)
{
    int k = 0;
    for (const char *p = s; *p; p++) {
        if (*p != '%') continue;
        if (*++p == '%') continue;
        if (k == max) return -1;
        Conv *v = &c[k++];
        memset(v, 0, sizeof *v);
        while (*p && strchr("-+ #0'", *p)) p++;
        const char *w = p;
        if (*p == '*') p++;
        else while (*p >= '0' && *p <= '9') p++;
        if (*p == '$' || p - w > 10) return -1;
        memcpy(v->width, w, (size_t)(p - w));
        if (*p == '.') {
            const char *q = p++;
            if (*p == '*') p++;
            else while (*p >= '0' && *p <= '9') p++;
            if (p - q > 10) return -1;
            memcpy(v->prec, q, (size_t)(p - q));
        }
        size_t a = 0;
        while (*p && strchr("hlLqjzt", *p) && a < 4) v->type[a++] = *p++;
        if (!*p || !strchr("diouxXcseEfFgGaAp", *p)) return -1;
        v->type[a] = strchr("diouxXc", *p) ? 'd' : strchr("eEfFgGaA", *p) ? 'f' : *p;
    }
    return k;
}

/*
** True when the translation consumes the same arguments as the original,
** with the same widths and precisions: "%99999999d" in a translation of
** "%d" would pad every slide with a hundred million spaces, so a width or
** a precision the original does not have drops the translation. The one
** exception costs nothing: "%.0s" for a "%s" prints no part of its string,
** as languages without plurals write "%d key%.0s" for "%d key%s".
*/
static bool same_format(const char *orig, const char *trans)
{
    enum { MAX_CONV = 32 };
    Conv a[MAX_CONV], b[MAX_CONV];
    int na = conversions(orig, a, MAX_CONV), nb = conversions(trans, b, MAX_CONV);
    if (na < 0 || na != nb) return false;
    for (int i = 0; i < na; i++) {
        bool swallow = !strcmp(b[i].type, "s") && !b[i].width[0] && !strcmp(b[i].prec, ".0") && !a[i].width[0];
        if (strcmp(a[i].type, b[i].type)) return false;
        if (!swallow && (strcmp(a[i].width, b[i].width) || strcmp(a[i].prec, b[i].prec))) return false;
    }
    return true;
}

/* Parse a .mo file's bytes. */
I18nCatalog *i18n_catalog_parse(const void *data, size_t len, const char *name, Error *err)
{
    const unsigned char *d = data;
    if (!name) name = "catalogue";
    if (!data || len < MO_HEADER_BYTES) return fail(NULL, err, name, "not a .mo file (too short)");
    uint32_t magic = word(d, 0, false);
    if (magic != MO_MAGIC && magic != MO_MAGIC_SWAPPED) return fail(NULL, err, name, "not a .mo file (bad magic number)");
    bool sw = magic == MO_MAGIC_SWAPPED;
    if (word(d, 4, sw) >> 16 > 1) return fail(NULL, err, name, "unknown .mo revision");
    uint32_t count = word(d, 8, sw), otab = word(d, 12, sw), ttab = word(d, 16, sw);
    if (count > len / 16) return fail(NULL, err, name, "corrupt .mo file (string count beyond the file)");
    I18nCatalog *c = xcalloc(1, sizeof *c);
    c->data = xmalloc(len + 1);
    memcpy(c->data, data, len);
    c->data[len] = '\0';
    c->n = (int)count;
    c->orig = xcalloc(count ? count : 1, sizeof *c->orig);
    c->trans = xcalloc(count ? count : 1, sizeof *c->trans);
    if (!read_table(c, len, otab, sw, c->orig)) return fail(c, err, name, "corrupt .mo file (an original lies outside the file)");
    if (!read_table(c, len, ttab, sw, c->trans)) return fail(c, err, name, "corrupt .mo file (a translation lies outside the file)");
    for (int i = 1; i < c->n; i++)
        if (cmp_counted(c->orig[i - 1].s, c->orig[i - 1].len, c->orig[i].s, c->orig[i].len) >= 0)
            return fail(c, err, name, "corrupt .mo file (originals are not sorted)");
    for (int i = 0; i < c->n; i++) {
        if (c->orig[i].len == 0) {          /* the header: only UTF-8 catalogues are read */
            const char *cs = strstr(c->trans[i].s, "charset=");
            if (cs && strncmp(cs + 8, "UTF-8", 5)) return fail(c, err, name, "not a UTF-8 catalogue");
        } else if (!same_format(c->orig[i].s, c->trans[i].s)) {
            c->trans[i].s = NULL;           /* its conversions differ: keep the original */
        }
    }
    return c;
}

/* Read and parse a .mo file. */
I18nCatalog *i18n_catalog_load(const char *path, Error *err)
{
    size_t len;
    char *bytes = fileio_read(path, I18N_MAX_BYTES, &len, err);
    if (!bytes) {
        if (err && err->kind == ERR_LIMIT) snprintf(err->msg, sizeof err->msg, "too large for a catalogue");
        return NULL;
    }
    I18nCatalog *c = i18n_catalog_parse(bytes, len, path, err);
    free(bytes);
    return c;
}

/* Release a catalogue. */
void i18n_catalog_free(I18nCatalog *c)
{
    if (!c) return;
    free(c->data);
    free(c->orig);
    free(c->trans);
    free(c);
}

/* Binary search of the sorted originals. */
const char *i18n_catalog_lookup(const I18nCatalog *c, const char *msgid)
{
    if (!c || !msgid || !*msgid) return NULL;
    size_t mlen = strlen(msgid);
    int lo = 0, hi = c->n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        int r = cmp_counted(msgid, mlen, c->orig[mid].s, c->orig[mid].len);
        if (r == 0) return c->trans[mid].s && *c->trans[mid].s ? c->trans[mid].s : NULL;
        if (r < 0) hi = mid - 1;
        else lo = mid + 1;
    }
    return NULL;
}

/* Translations held, without the header. */
int i18n_catalog_count(const I18nCatalog *c)
{
    if (!c) return 0;
    int n = 0;
    for (int i = 0; i < c->n; i++) n += c->orig[i].len > 0 && c->trans[i].s && *c->trans[i].s;
    return n;
}

/* Install a catalogue for lang (kept until i18n_reset). */
void i18n_use(const char *lang, I18nCatalog *c)
{
    if (!lang) lang = "";
    for (int i = 0; i < nused; i++)
        if (!strcmp(used[i].lang, lang)) {
            if (used[i].cat != c) i18n_catalog_free(c);     /* the first one stays: its strings may be in use */
            current = i;
            return;
        }
    if (nused == MAX_USED) {                /* a program that opens many languages: untranslated from here */
        i18n_catalog_free(c);
        current = -1;
        return;
    }
    snprintf(used[nused].lang, sizeof used[nused].lang, "%s", lang);
    used[nused].cat = c;
    current = nused++;
}

/* Back to a language used before. */
bool i18n_use_again(const char *lang)
{
    for (int i = 0; lang && i < nused; i++)
        if (!strcmp(used[i].lang, lang)) { current = i; return true; }
    return false;
}

/* Untranslated from now on. */
void i18n_use_none(void)
{
    current = -1;
}

/* The language in use. */
const char *i18n_language(void)
{
    return current >= 0 ? used[current].lang : "";
}

/* Forget every catalogue. */
void i18n_reset(void)
{
    for (int i = 0; i < nused; i++) i18n_catalog_free(used[i].cat);
    memset(used, 0, sizeof used);
    nused = 0;
    current = -1;
}

/* The translation in use, else msgid. */
const char *i18n_get(const char *msgid)
{
    const char *t = current >= 0 ? i18n_catalog_lookup(used[current].cat, msgid) : NULL;
    return t ? t : msgid;
}

/* ll, lll, ll_CC or lll_CC. */
bool i18n_lang_valid(const char *code)
{
    size_t i = 0;
    if (!code) return false;
    while (code[i] >= 'a' && code[i] <= 'z') i++;
    if (i < 2 || i > 3) return false;
    if (!code[i]) return true;
    return code[i] == '_' && code[i + 1] >= 'A' && code[i + 1] <= 'Z' && code[i + 2] >= 'A' && code[i + 2] <= 'Z'
           && !code[i + 3];
}

/* The first of LC_ALL, LC_MESSAGES, LANG that is set, as ll or ll_CC. */
bool i18n_env_language(char *out, size_t n)
{
    static const char *const vars[] = { "LC_ALL", "LC_MESSAGES", "LANG" };
    for (size_t v = 0; v < sizeof vars / sizeof *vars; v++) {
        const char *s = getenv(vars[v]);
        if (!s || !*s) continue;
        char code[32];
        size_t k = strcspn(s, ".@");        /* drop the encoding and the modifier */
        snprintf(code, sizeof code, "%.*s", (int)(k < sizeof code - 1 ? k : sizeof code - 1), s);
        if (!i18n_lang_valid(code) || n == 0) return false;
        snprintf(out, n, "%s", code);
        return true;
    }
    return false;
}
