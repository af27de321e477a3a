/*
** zipread.c: zip archives in memory, and the inflater their deflated
** members need (see zipread.h).
**
** The directory is read from the end: the end-of-central-directory record
** (and its ZIP64 form when a count or an offset does not fit 32 bits), then
** one central entry per member. A member's data starts after its local
** header, whose name and extra field lengths are the only fields read from
** it: sizes, method and CRC come from the central directory, as np.savez
** writes local headers with ZIP64 placeholders and data descriptors.
*/
#include "zipread.h"
#include "core/util.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ZipArchive {
    const unsigned char *bytes;
    size_t len;
    ZipEntry *e;
    int n;
    char *names;                /* the members' names, each NUL-terminated */
};

/* Fill err with a reason (ERR_INVALID, about no file: the caller names
** it); returns NULL for `return fail(...)`. */
static void *fail(Error *err, const char *why)
{
    error_set(err, ERR_INVALID, NULL, 0, 0, "%s", why);
    return NULL;
}

/* Little-endian fields. */
static uint32_t u16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t u32(const unsigned char *p) { return u16(p) | u16(p + 2) << 16; }
static uint64_t u64(const unsigned char *p) { return u32(p) | (uint64_t)u32(p + 4) << 32; }

/* ---------------------------------------------------------------- inflate */

/*
** Inflating (RFC 1951). Codes are canonical Huffman codes: a code is known
** by its length counts and its symbols in order. Decoding looks the next
** FAST_BITS bits up in a table, which holds every code that short; longer
** codes (rare) are decoded a bit at a time from the counts, the way zlib's
** puff.c explains it.
*/
#define FAST_BITS 9
#define MAX_BITS 15

typedef struct Huff {
    short count[MAX_BITS + 1];      /* codes of each length */
    short symbol[288];              /* symbols in code order */
    unsigned short fast[1 << FAST_BITS];   /* symbol << 4 | length; 0: look further */
} Huff;

typedef struct Inflate {
    const unsigned char *in;
    size_t inlen, pos;
    uint64_t bits;                  /* bits read ahead, the next one lowest */
    int nbits;
    unsigned char *out;
    size_t outlen, outpos;
} Inflate;

enum { INF_OK = 0, INF_BAD = -1, INF_MORE = -2 };

/* Top the bit buffer up from the input. */
static void refill(Inflate *s)
{
    while (s->nbits <= 56 && s->pos < s->inlen) {
        s->bits |= (uint64_t)s->in[s->pos++] << s->nbits;
        s->nbits += 8;
    }
}

/* The next need bits (up to 16), or -1 when the input ends first. */
static int getbits(Inflate *s, int need)
{
    if (s->nbits < need) refill(s);
    if (s->nbits < need) return -1;
    int v = (int)(s->bits & ((1u << need) - 1));
    s->bits >>= need;
    s->nbits -= need;
    return v;
}

/* The canonical code of lens[0 .. n); -1 when over-subscribed. */
static int build(Huff *h, const unsigned char *lens, int n)
{
    short offs[MAX_BITS + 2];
    memset(h->count, 0, sizeof h->count);
    memset(h->fast, 0, sizeof h->fast);
    for (int i = 0; i < n; i++) h->count[lens[i]]++;
    int left = 1;
    for (int len = 1; len <= MAX_BITS; len++) {
        left = left * 2 - h->count[len];
        if (left < 0) return -1;
    }
    offs[1] = 0;
    for (int len = 1; len <= MAX_BITS; len++) offs[len + 1] = (short)(offs[len] + h->count[len]);
    for (int i = 0; i < n; i++)
        if (lens[i]) h->symbol[offs[lens[i]]++] = (short)i;
    /* the short codes into the table: a code's bits come first-bit-lowest */
    unsigned code = 0;
    for (int len = 1, k = 0; len <= FAST_BITS; len++, code <<= 1) {
        for (int j = 0; j < h->count[len]; j++, k++, code++) {
            unsigned rev = 0;
            for (int b = 0; b < len; b++) rev |= ((code >> b) & 1u) << (len - 1 - b);
            for (unsigned f = rev; f < (1u << FAST_BITS); f += 1u << len)
                h->fast[f] = (unsigned short)(h->symbol[k] << 4 | len);
        }
    }
    return 0;
}

/* The next symbol of code h, or -1 (a code the stream does not have, or
** the input ends). */
static int decode(Inflate *s, const Huff *h)
{
    refill(s);
    unsigned e = h->fast[s->bits & ((1u << FAST_BITS) - 1)];
    if (e && (int)(e & 15) <= s->nbits) {
        s->bits >>= e & 15;
        s->nbits -= (int)(e & 15);
        return (int)(e >> 4);
    }
    int code = 0, first = 0, index = 0;
    for (int len = 1; len <= MAX_BITS; len++) {
        int b = getbits(s, 1);
        if (b < 0) return -1;
        code |= b;
        int count = h->count[len];
        if (code - first < count) return h->symbol[index + code - first];
        index += count;
        first = (first + count) << 1;
        code <<= 1;
    }
    return -1;
}

/* A stored block: the bytes after the next byte boundary. */
static int stored(Inflate *s)
{
    s->pos -= (size_t)(s->nbits / 8);       /* give back the whole bytes read ahead */
    s->bits = 0;
    s->nbits = 0;
    if (s->inlen - s->pos < 4) return INF_BAD;
    unsigned len = u16(s->in + s->pos), nlen = u16(s->in + s->pos + 2);
    s->pos += 4;
    if (len != (~nlen & 0xffffu) || s->inlen - s->pos < len) return INF_BAD;
    if (s->outlen - s->outpos < len) return INF_MORE;
    memcpy(s->out + s->outpos, s->in + s->pos, len);
    s->outpos += len;
    s->pos += len;
    return INF_OK;
}

/* The symbols of one compressed block, up to its end code. */
static int codes(Inflate *s, const Huff *lit, const Huff *dist)
{
    static const short lbase[29] = { 3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31,
                                     35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258 };
    static const short lextra[29] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0 };
    static const unsigned short dbase[30] = { 1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385,
                                              513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577 };
    static const short dextra[30] = { 0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10,
                                      11, 11, 12, 12, 13, 13 };
    for (;;) {
        int sym = decode(s, lit);
        if (sym < 0) return INF_BAD;
        if (sym < 256) {
            if (s->outpos == s->outlen) return INF_MORE;
            s->out[s->outpos++] = (unsigned char)sym;
            continue;
        }
        if (sym == 256) return INF_OK;
        sym -= 257;
        if (sym >= 29) return INF_BAD;
        int x = getbits(s, lextra[sym]);
        if (x < 0) return INF_BAD;
        size_t len = (size_t)(lbase[sym] + x);
        int d = decode(s, dist);
        if (d < 0 || d >= 30) return INF_BAD;
        int y = getbits(s, dextra[d]);
        if (y < 0) return INF_BAD;
        size_t back = (size_t)dbase[d] + (size_t)y;
        if (back > s->outpos) return INF_BAD;
        if (s->outlen - s->outpos < len) return INF_MORE;
        unsigned char *o = s->out + s->outpos;          /* byte by byte: the copy may overlap itself */
        for (size_t i = 0; i < len; i++) o[i] = o[(ptrdiff_t)i - (ptrdiff_t)back];
        s->outpos += len;
    }
}

/* A block with the fixed codes. */
static int fixed(Inflate *s)
{
    unsigned char lens[288];
    Huff lit, dist;
    for (int i = 0; i < 288; i++) lens[i] = i < 144 ? 8 : i < 256 ? 9 : i < 280 ? 7 : 8;
    build(&lit, lens, 288);
    memset(lens, 5, 30);
    build(&dist, lens, 30);
    return codes(s, &lit, &dist);
}

/* A block with its own codes, themselves sent with a code. */
static int dynamic(Inflate *s)
{
    static const unsigned char order[19] = { 16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15 };
    unsigned char lens[288 + 32];
    Huff lit, dist;
    int nlit = getbits(s, 5), ndist = getbits(s, 5), ncode = getbits(s, 4);
    if (nlit < 0 || ndist < 0 || ncode < 0) return INF_BAD;
    nlit += 257;
    ndist += 1;
    ncode += 4;
    if (nlit > 286 || ndist > 30) return INF_BAD;
    memset(lens, 0, 19);
    for (int i = 0; i < ncode; i++) {
        int v = getbits(s, 3);
        if (v < 0) return INF_BAD;
        lens[order[i]] = (unsigned char)v;
    }
    if (build(&lit, lens, 19) != 0) return INF_BAD;
    for (int i = 0; i < nlit + ndist;) {
        int sym = decode(s, &lit);
        if (sym < 0) return INF_BAD;
        if (sym < 16) {
            lens[i++] = (unsigned char)sym;
            continue;
        }
        int rep, v = 0;
        if (sym == 16) {
            if (i == 0) return INF_BAD;
            v = lens[i - 1];
            rep = getbits(s, 2);
            rep = rep < 0 ? -1 : rep + 3;
        } else if (sym == 17) {
            rep = getbits(s, 3);
            rep = rep < 0 ? -1 : rep + 3;
        } else {
            rep = getbits(s, 7);
            rep = rep < 0 ? -1 : rep + 11;
        }
        if (rep < 0 || i + rep > nlit + ndist) return INF_BAD;
        memset(lens + i, v, (size_t)rep);
        i += rep;
    }
    if (lens[256] == 0) return INF_BAD;               /* no end-of-block code */
    if (build(&lit, lens, nlit) != 0 || build(&dist, lens + nlit, ndist) != 0) return INF_BAD;
    return codes(s, &lit, &dist);
}

/* Inflate in[0 .. inlen) into exactly outlen bytes at out. */
static int inflate_all(const unsigned char *in, size_t inlen, unsigned char *out, size_t outlen)
{
    Inflate s = { in, inlen, 0, 0, 0, out, outlen, 0 };
    int last;
    do {
        last = getbits(&s, 1);
        int type = getbits(&s, 2), r;
        if (last < 0 || type < 0) return INF_BAD;
        if (type == 0) r = stored(&s);
        else if (type == 1) r = fixed(&s);
        else if (type == 2) r = dynamic(&s);
        else r = INF_BAD;
        if (r != INF_OK) return r;
    } while (!last);
    return s.outpos == s.outlen ? INF_OK : INF_BAD;
}

/* CRC-32 (the zip polynomial, reflected), four bits at a time. */
static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    static const uint32_t t[16] = { 0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4,
                                    0x4db26158, 0x5005713c, 0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
                                    0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c };
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        c = (c >> 4) ^ t[c & 15];
        c = (c >> 4) ^ t[c & 15];
    }
    return ~c;
}

/* -------------------------------------------------------------- directory */

#define SIG_END      0x06054b50u
#define SIG_END64    0x06064b50u
#define SIG_LOCATOR  0x07064b50u
#define SIG_CENTRAL  0x02014b50u
#define SIG_LOCAL    0x04034b50u

/* Where the central directory is and how many entries it has: from the
** end record, or its ZIP64 form. False when there is none to be found. */
static bool find_directory(const unsigned char *b, size_t len, uint64_t *count, uint64_t *off, uint64_t *size)
{
    if (len < 22) return false;
    size_t lowest = len - 22 > 65535 ? len - 22 - 65535 : 0;
    for (size_t i = len - 22 + 1; i-- > lowest;) {
        if (u32(b + i) != SIG_END || i + 22 + u16(b + i + 20) > len) continue;
        *count = u16(b + i + 10);
        *size = u32(b + i + 12);
        *off = u32(b + i + 16);
        if (*count != 0xffff && *size != 0xffffffffu && *off != 0xffffffffu) return true;
        if (i < 20 || u32(b + i - 20) != SIG_LOCATOR) return true;
        uint64_t at = u64(b + i - 20 + 8);
        if (len < 56 || at > len - 56 || u32(b + at) != SIG_END64) return false;
        *count = u64(b + at + 32);
        *size = u64(b + at + 40);
        *off = u64(b + at + 48);
        return true;
    }
    return false;
}

/* The ZIP64 extra field of a central entry: the fields that did not fit. */
static bool zip64_sizes(const unsigned char *x, size_t xlen, ZipEntry *e, bool big_size, bool big_csize, bool big_off)
{
    for (size_t p = 0; p + 4 <= xlen;) {
        unsigned id = u16(x + p), n = u16(x + p + 2);
        if (p + 4 + n > xlen) return false;
        if (id == 1) {
            size_t q = p + 4, end = q + n;
            if (big_size) { if (q + 8 > end) return false; e->size = u64(x + q); q += 8; }
            if (big_csize) { if (q + 8 > end) return false; e->csize = u64(x + q); q += 8; }
            if (big_off) { if (q + 8 > end) return false; e->offset = u64(x + q); }
            return true;
        }
        p += 4 + n;
    }
    return !big_size && !big_csize && !big_off;
}

/* Read the directory. */
ZipArchive *zip_read_open(const unsigned char *bytes, size_t len, Error *err)
{
    uint64_t count, off, size;
    if (!find_directory(bytes, len, &count, &off, &size)) return fail(err, "Not a zip archive");
    if (off > len || size > len - off || count > size / 46) return fail(err, "Zip archive inconsistent");
    ZipArchive *z = xcalloc(1, sizeof *z);
    z->bytes = bytes;
    z->len = len;
    z->e = xcalloc(count ? (size_t)count : 1, sizeof *z->e);
    z->names = xmalloc((size_t)size + 1);          /* names are inside the directory: they fit */
    size_t p = (size_t)off, end = (size_t)(off + size), np = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (end - p < 46 || u32(bytes + p) != SIG_CENTRAL) goto bad;
        const unsigned char *c = bytes + p;
        size_t nlen = u16(c + 28), xlen = u16(c + 30), clen = u16(c + 32);
        if (end - p - 46 < nlen + xlen + clen) goto bad;
        ZipEntry *e = &z->e[z->n];
        e->flags = u16(c + 8);
        e->method = u16(c + 10);
        e->crc = u32(c + 16);
        e->csize = u32(c + 20);
        e->size = u32(c + 24);
        e->offset = u32(c + 42);
        if (!zip64_sizes(c + 46 + nlen, xlen, e, e->size == 0xffffffffu, e->csize == 0xffffffffu,
                         e->offset == 0xffffffffu))
            goto bad;
        memcpy(z->names + np, c + 46, nlen);
        z->names[np + nlen] = '\0';
        e->name = z->names + np;                    /* the final address: names never moves */
        np += nlen + 1;
        z->n++;
        p += 46 + nlen + xlen + clen;
    }
    return z;
bad:
    zip_read_close(z);
    return fail(err, "Zip archive inconsistent");
}

/* How many members. */
int zip_read_count(const ZipArchive *z)
{
    return z->n;
}

/* Member i. */
const ZipEntry *zip_read_entry(const ZipArchive *z, int i)
{
    return i >= 0 && i < z->n ? &z->e[i] : NULL;
}

/* The member called name. */
int zip_read_find(const ZipArchive *z, const char *name)
{
    for (int i = 0; i < z->n; i++)
        if (!strcmp(z->e[i].name, name)) return i;
    return -1;
}

/* Member i, whole. */
unsigned char *zip_read_extract(const ZipArchive *z, int i, size_t *len, bool *more, Error *err)
{
    const ZipEntry *e = zip_read_entry(z, i);
    if (more) *more = false;
    if (!e) return fail(err, "No such file");
    if (e->flags & 1) return fail(err, "Encrypted data not supported");
    if (e->method != 0 && e->method != 8) return fail(err, "Compression method not supported");
    if (e->offset > z->len || z->len - e->offset < 30 || u32(z->bytes + e->offset) != SIG_LOCAL)
        return fail(err, "Zip archive inconsistent");
    size_t data = (size_t)e->offset + 30 + u16(z->bytes + e->offset + 26) + u16(z->bytes + e->offset + 28);
    if (data > z->len || e->csize > z->len - data || e->size > (uint64_t)(size_t)-1 / 2)
        return fail(err, "Premature end of file");
    if (e->method == 0 && e->csize != e->size) return fail(err, "Zip archive inconsistent");
    *len = (size_t)e->size;
    unsigned char *out = xmalloc(*len ? *len : 1);
    int r = INF_OK;
    if (e->method == 0) memcpy(out, z->bytes + data, *len);
    else r = inflate_all(z->bytes + data, (size_t)e->csize, out, *len);
    if (r == INF_MORE && more) {
        *more = true;
        return out;
    }
    const char *why = r == INF_MORE ? "Data holds more than the directory says" : r != INF_OK ? "Compression error"
                    : crc32_of(out, *len) != e->crc ? "CRC error" : NULL;
    if (!why) return out;
    free(out);
    return fail(err, why);
}

/* Release the directory. */
void zip_read_close(ZipArchive *z)
{
    if (!z) return;
    free(z->e);
    free(z->names);
    free(z);
}
