/*
** npy.c: the .npy header parser, the data decoder, and reading arrays from
** .npy files and .npz archives (libzip, or zipread.c without it).
**
** The format (numpy's NEP 1): the magic "\x93NUMPY", a major and a minor
** version byte, the header length (2 bytes little-endian for version 1.0,
** 4 bytes for 2.0 and 3.0), then that many bytes of a Python dict literal
**   {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
** padded with spaces and ended by '\n', then the numbers. The dict is parsed
** with a small scanner that knows exactly these three keys and the literals
** they take; anything else is an error that says what was expected.
*/
#define _POSIX_C_SOURCE 200809L
#include "npy.h"
#include "fileio.h"
#include "core/text/utf8.h"
#include "core/util.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifndef ATTNLAB_NO_ZIP
#include <zip.h>
#else
#include "zipread.h"                /* a build without libzip (the browser edition) */
typedef struct zip zip_t;
typedef struct zip_file zip_file_t;
#endif

#define MAGIC "\x93NUMPY"
#define MAGIC_LEN 6

struct NpyFile {
    NpyHeader h;
    int fd;                     /* a .npy file, or -1 */
    zip_t *zip;                 /* a .npz archive, or NULL */
    zip_file_t *member;
    unsigned char *mem;         /* without libzip: the member, extracted whole */
    size_t mem_len, mem_pos;
    Error mem_err;              /* why it could not be read */
    char *key;                  /* the member's name "KEY.npy", whole; "" for a .npy */
    const unsigned char *data;  /* an array in memory (npy_open_data): its data, not owned, or NULL */
    unsigned char *head;        /* the bytes read so far: the header and maybe some data */
    size_t head_len;
    size_t avail;               /* bytes after the header (file size or member size) */
};

/* Fill err with a reason of kind k (about no file: the caller names it);
** returns -1 for `return fail_as(...)`. */
static int fail_as(Error *err, ErrorKind k, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail_as(Error *err, ErrorKind k, const char *fmt, ...)
{
    char what[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    error_set(err, k, NULL, 0, 0, "%s", what);
    return -1;
}

/* The same for what is not a valid array. */
#define fail(err, ...) fail_as((err), ERR_INVALID, __VA_ARGS__)
/* ---------------------------------------------------------------- header */

/* The dict scanner: a position in the header text and where it ends. */
typedef struct Scan {
    const char *s, *end;
    Error *err;
} Scan;

/* Skip spaces (the padding) and tabs. */
static void sc_ws(Scan *c)
{
    while (c->s < c->end && (*c->s == ' ' || *c->s == '\t')) c->s++;
}

/* Describe what is at the scan position, for "found ...". */
static void sc_found(const Scan *c, char *out, size_t n)
{
    if (c->s >= c->end) { snprintf(out, n, "the end of the header"); return; }
    if (*c->s == '\n') { snprintf(out, n, "a line break"); return; }   /* messages are one line */
    int len = 1;                /* one literal: up to a separator */
    while (c->s + len < c->end && len < 24 && !strchr(" ,:}\n", c->s[len])) len++;
    snprintf(out, n, "'%.*s'", len, c->s);
}

/* Expect one character. */
static int sc_char(Scan *c, char ch, const char *what)
{
    sc_ws(c);
    if (c->s < c->end && *c->s == ch) { c->s++; return 0; }
    char f[40];
    sc_found(c, f, sizeof f);
    return fail(c->err, "bad header: expected %s, found %s", what, f);
}

/* A quoted string ('...' or "...") of at most cap-1 bytes, into out. */
static int sc_string(Scan *c, char *out, size_t cap, const char *what)
{
    sc_ws(c);
    if (c->s >= c->end || (*c->s != '\'' && *c->s != '"')) {
        char f[40];
        sc_found(c, f, sizeof f);
        return fail(c->err, "bad header: expected %s in quotes, found %s", what, f);
    }
    char q = *c->s++;
    const char *start = c->s;
    while (c->s < c->end && *c->s != q) {
        if (*c->s == '\\') return fail(c->err, "bad header: unexpected '\\' in %s", what);
        if (*c->s == '\n') return fail(c->err, "bad header: a line break in %s", what);
        c->s++;
    }
    if (c->s >= c->end) return fail(c->err, "bad header: %s has no closing quote", what);
    size_t len = (size_t)(c->s - start);
    c->s++;
    if (len >= cap) return fail(c->err, "bad header: %s '%.20s...' is too long", what, start);
    memcpy(out, start, len);
    out[len] = '\0';
    return 0;
}

/* True if the next word is w (followed by a non-identifier character). */
static bool sc_word(Scan *c, const char *w)
{
    size_t k = strlen(w);
    if ((size_t)(c->end - c->s) < k || memcmp(c->s, w, k)) return false;
    if (c->s + k < c->end && (c->s[k] == '_' || (c->s[k] >= 'a' && c->s[k] <= 'z') || (c->s[k] >= 'A' && c->s[k] <= 'Z')
                              || (c->s[k] >= '0' && c->s[k] <= '9')))
        return false;
    c->s += k;
    return true;
}

/* The descr string: byte order, kind and size of a supported dtype. */
static int parse_descr(Scan *c, NpyHeader *h)
{
    sc_ws(c);
    if (c->s < c->end && (*c->s == '[' || *c->s == '{'))
        return fail(c->err, "unsupported dtype: a structured array (a list of fields); "
                    "expected one number per element (float, int, uint or bool)");
    if (sc_string(c, h->descr, sizeof h->descr, "the dtype ('descr')") < 0) return -1;
    const char *d = h->descr;
    static const uint16_t one = 1;
    bool native_big = *(const unsigned char *)&one == 0;
    char order = d[0];
    if (order == '<' || order == '>' || order == '|' || order == '=') d++;
    else order = '?';
    char kind = d[0];
    int size = 0;
    if (kind && d[1] >= '1' && d[1] <= '8' && d[2] == '\0') size = d[1] - '0';
    if ((kind == 'U' || kind == 'S') && d[1] >= '0' && d[1] <= '9') {
        /* strings of up to N characters (UTF-32, 4 bytes each) or N bytes */
        const char *e = d + 1;
        while (*e >= '0' && *e <= '9') e++;
        bool wide = e - (d + 1) > 9;                /* more digits than any width that loads */
        long chars = wide ? 0 : strtol(d + 1, NULL, 10);
        if (!*e && (wide || chars < 1 || chars > NPY_MAX_STRING))
            return fail(c->err, "dtype '%s' holds strings %.*s %s wide; a string array loads when they are 1 to %d "
                        "wide ('<U64', '|S64'), and a token holds at most %d bytes", h->descr, (int)(e - (d + 1)), d + 1,
                        kind == 'U' ? "characters" : "bytes", NPY_MAX_STRING, NPY_TOKEN_BYTES);
        size = *e ? 0 : (int)chars * (kind == 'U' ? 4 : 1);
    }
    bool ok = order != '?' &&
              ((kind == 'f' && (size == 2 || size == 4 || size == 8)) ||
               ((kind == 'i' || kind == 'u') && (size == 1 || size == 2 || size == 4 || size == 8)) ||
               (kind == 'b' && size == 1) || ((kind == 'U' || kind == 'S') && size > 0));
    if (ok && order == '|' && size != 1 && kind != 'S') ok = false;      /* "not applicable" fits one byte, or bytes */
    if (ok && kind == 'S' && order != '|') ok = false;
    if (!ok)
        return fail(c->err, "unsupported dtype '%s'; expected float16/32/64, int8/16/32/64, uint8/16/32/64 "
                    "or bool ('<f8', '>f4', '<i8', '|u1', '|b1', ...)", h->descr);
    h->kind = kind;
    h->itemsize = size;
    h->big_endian = order == '>' || (order == '=' && native_big);
    return 0;
}

/* The shape tuple: (), (N,), (N, M), ... Sizes past the budget stop early. */
static int parse_shape(Scan *c, NpyHeader *h)
{
    if (sc_char(c, '(', "the shape as a tuple '(...)'") < 0) return -1;
    h->ndim = 0;
    h->count = 1;
    for (;;) {
        sc_ws(c);
        if (c->s < c->end && *c->s == ')') { c->s++; return 0; }
        if (c->s >= c->end || *c->s < '0' || *c->s > '9') {
            char f[40];
            sc_found(c, f, sizeof f);
            return fail(c->err, "bad header: expected a size (a whole number >= 0) in the shape, found %s", f);
        }
        long v = 0;
        while (c->s < c->end && *c->s >= '0' && *c->s <= '9') {
            if (v > NPY_MAX_COUNT)
                return fail_as(c->err, ERR_LIMIT, "shape has a dimension over %ld, the most numbers an array may hold", NPY_MAX_COUNT);
            v = v * 10 + (*c->s++ - '0');
        }
        if (c->s < c->end && *c->s == 'L') c->s++;          /* Python 2's long */
        if (v > NPY_MAX_COUNT)
            return fail_as(c->err, ERR_LIMIT, "shape has a dimension over %ld, the most numbers an array may hold", NPY_MAX_COUNT);
        if (h->ndim == NPY_MAX_DIMS)
            return fail_as(c->err, ERR_LIMIT, "shape has more than %d dimensions", NPY_MAX_DIMS);
        h->shape[h->ndim++] = v;
        h->count *= v;                      /* both <= 2^22: no overflow */
        if (h->count > NPY_MAX_COUNT)
            return fail_as(c->err, ERR_LIMIT, "shape holds more than %ld numbers, over the limit", NPY_MAX_COUNT);
        sc_ws(c);
        if (c->s < c->end && *c->s == ',') { c->s++; continue; }
        if (sc_char(c, ')', "',' or ')' in the shape") < 0) return -1;
        return 0;
    }
}

/* The dict between the braces: each of the three keys exactly once. */
static int parse_dict(Scan *c, NpyHeader *h)
{
    bool seen[3] = { false, false, false };
    static const char *const keys[3] = { "descr", "fortran_order", "shape" };
    if (sc_char(c, '{', "'{' to start the header dict") < 0) return -1;
    for (;;) {
        sc_ws(c);
        if (c->s < c->end && *c->s == '}') { c->s++; break; }
        char key[24];
        if (sc_string(c, key, sizeof key, "a key") < 0) return -1;
        int k = 0;
        while (k < 3 && strcmp(key, keys[k])) k++;
        if (k == 3) return fail(c->err, "bad header: unknown key '%s'; expected 'descr', 'fortran_order' and 'shape'", key);
        if (seen[k]) return fail(c->err, "bad header: key '%s' appears twice", key);
        seen[k] = true;
        if (sc_char(c, ':', "':' after the key") < 0) return -1;
        sc_ws(c);
        if (k == 0 && parse_descr(c, h) < 0) return -1;
        if (k == 1) {
            if (sc_word(c, "True")) h->fortran = true;
            else if (sc_word(c, "False")) h->fortran = false;
            else {
                char f[40];
                sc_found(c, f, sizeof f);
                return fail(c->err, "bad header: expected True or False for 'fortran_order', found %s", f);
            }
        }
        if (k == 2 && parse_shape(c, h) < 0) return -1;
        sc_ws(c);
        if (c->s < c->end && *c->s == ',') { c->s++; continue; }
        if (sc_char(c, '}', "',' or '}' after a value") < 0) return -1;
        break;
    }
    for (int k = 0; k < 3; k++)
        if (!seen[k]) return fail(c->err, "bad header: the key '%s' is missing", keys[k]);
    sc_ws(c);
    if (c->s < c->end && *c->s == '\n') c->s++;
    sc_ws(c);
    if (c->s != c->end) {
        char f[40];
        sc_found(c, f, sizeof f);
        return fail(c->err, "bad header: expected only padding after the dict, found %s", f);
    }
    return 0;
}

/* Parse the magic, version, header length and dict at the start of buf. */
int npy_parse_header(const unsigned char *buf, size_t len, NpyHeader *h, size_t *need, Error *err)
{
    memset(h, 0, sizeof *h);
    *need = 0;
    size_t pre = 10;
    if (len < MAGIC_LEN || memcmp(buf, MAGIC, MAGIC_LEN)) {
        if (len < MAGIC_LEN && !memcmp(buf, MAGIC, len)) { *need = MAGIC_LEN; return fail(err, "truncated: the file ends inside the magic string"); }
        return fail(err, "not a NumPy .npy file: it does not start with the magic string \\x93NUMPY");
    }
    if (len < 8) { *need = 8; return fail(err, "truncated: the file ends before the format version"); }
    h->major = buf[6];
    h->minor = buf[7];
    if (h->major < 1 || h->major > 3 || h->minor != 0)
        return fail(err, "unsupported .npy format version %d.%d; expected 1.0, 2.0 or 3.0", h->major, h->minor);
    if (h->major > 1) pre = 12;
    if (len < pre) { *need = pre; return fail(err, "truncated: the file ends inside the header length"); }
    size_t hlen = (size_t)buf[8] | (size_t)buf[9] << 8;
    if (h->major > 1) hlen |= (size_t)buf[10] << 16 | (size_t)buf[11] << 24;
    if (hlen > NPY_MAX_HEADER)
        return fail_as(err, ERR_LIMIT, "header is %zu bytes, over the limit of %d bytes", hlen, NPY_MAX_HEADER);
    if (len < pre + hlen) {
        *need = pre + hlen;
        return fail(err, "truncated: the header says it is %zu bytes, the file ends after %zu", hlen, len - pre);
    }
    const char *text = (const char *)buf + pre;
    if (hlen == 0 || text[hlen - 1] != '\n') return fail(err, "bad header: it does not end with a newline");
    for (size_t i = 0; i < hlen; i++) {
        unsigned char ch = (unsigned char)text[i];
        if ((ch < 0x20 && ch != '\n' && ch != '\t') || ch >= 0x7f)
            return fail(err, "bad header: byte 0x%02x at offset %zu is not printable ASCII", ch, pre + i);
    }
    Scan c = { text, text + hlen, err };
    if (parse_dict(&c, h) < 0) return -1;
    h->header_len = pre + hlen;
    h->data_len = (size_t)h->count * (size_t)h->itemsize;
    return 0;
}

/* ------------------------------------------------------------------ data */

/* Element k of the data as a double. */
static double element(const NpyHeader *h, const unsigned char *p)
{
    unsigned char b[8] = { 0 };
    int s = h->itemsize;
    static const uint16_t one = 1;
    bool little_host = *(const unsigned char *)&one == 1;
    for (int i = 0; i < s; i++) b[i] = p[(h->big_endian == little_host) ? s - 1 - i : i];
    uint64_t u = 0;
    if (h->kind == 'f') {
        if (s == 2) { uint16_t x; memcpy(&x, b, 2); return util_half_to_double(x); }
        if (s == 4) { float x; memcpy(&x, b, 4); return x; }
        double x; memcpy(&x, b, 8); return x;
    }
    switch (s) {
    case 1: { uint8_t x = b[0]; return h->kind == 'i' ? (double)(int8_t)x : (double)x; }
    case 2: { uint16_t x; memcpy(&x, b, 2); return h->kind == 'i' ? (double)(int16_t)x : (double)x; }
    case 4: { uint32_t x; memcpy(&x, b, 4); return h->kind == 'i' ? (double)(int32_t)x : (double)x; }
    default: memcpy(&u, b, 8); return h->kind == 'i' ? (double)(int64_t)u : (double)u;
    }
}

/* Where a multi-index is, counting from 1 as every message does, and as
** numpy writes it: "(1, 3) (numpy's [0, 2])", into out. */
static void index_text(const NpyHeader *h, const long *idx, char *out, size_t n)
{
    size_t k = (size_t)snprintf(out, n, "(");
    for (int a = 0; a < h->ndim && k < n; a++)
        k += (size_t)snprintf(out + k, n - k, "%s%ld", a ? ", " : "", idx[a] + 1);
    if (k < n) k += (size_t)snprintf(out + k, n - k, ") (numpy's [");
    for (int a = 0; a < h->ndim && k < n; a++)
        k += (size_t)snprintf(out + k, n - k, "%s%ld", a ? ", " : "", idx[a]);
    if (k < n) snprintf(out + k, n - k, "])");
}

/*
** The common case at memory speed: float32 or float64 in C order and the
** host's byte order, as numpy and torch hand them over. Every number is
** converted (exactly: float to double) and 0 returned when all are finite;
** -1 when one is not, and then the general loop below runs again to name
** it. The data and out do not overlap.
*/
static int decode_native_float(const NpyHeader *h, const unsigned char *data, double *out)
{
    static const uint16_t one = 1;
    bool little_host = *(const unsigned char *)&one == 1;
    assert(h->kind == 'f' && !h->fortran && h->big_endian != little_host);
    bool finite = true;
    if (h->itemsize == 4) {
        for (long k = 0; k < h->count; k++) {
            float x;
            memcpy(&x, data + (size_t)k * 4, 4);
            out[k] = x;
            finite &= isfinite(x) != 0;
        }
    } else {
        memcpy(out, data, (size_t)h->count * sizeof(double));
        for (long k = 0; k < h->count; k++) finite &= isfinite(out[k]) != 0;
    }
    return finite ? 0 : -1;
}

/* Whether the data is float32 or float64 in C order and the host's byte order. */
static bool native_float(const NpyHeader *h)
{
    static const uint16_t one = 1;
    bool little_host = *(const unsigned char *)&one == 1;
    return h->kind == 'f' && (h->itemsize == 4 || h->itemsize == 8) && !h->fortran && h->big_endian != little_host;
}

/* Convert the data to doubles in C order. */
int npy_decode(const NpyHeader *h, const unsigned char *data, size_t len, double *out, Error *err)
{
    if (h->kind == 'U' || h->kind == 'S')
        return fail(err, "holds strings (dtype '%s'), not numbers", h->descr);
    if (len < h->data_len)
        return fail(err, "truncated: the shape and dtype need %zu bytes of data, found %zu", h->data_len, len);
    if (native_float(h) && decode_native_float(h, data, out) == 0) return 0;
    long idx[NPY_MAX_DIMS] = { 0 }, stride[NPY_MAX_DIMS];
    long st = 1;
    for (int a = h->ndim - 1; a >= 0; a--) { stride[a] = st; st *= h->shape[a]; }
    for (long k = 0; k < h->count; k++) {
        /* the file's k-th number sits at idx; in Fortran order the first axis runs fastest */
        long off = 0;
        for (int a = 0; a < h->ndim; a++) off += idx[a] * stride[a];
        const unsigned char *p = data + (size_t)k * (size_t)h->itemsize;
        double v = element(h, p);
        if (h->kind == 'b' && p[0] > 1) {
            char at[128];
            index_text(h, idx, at, sizeof at);
            return fail(err, "the bool at %s is %d, expected 0 or 1", at, p[0]);
        }
        if (!isfinite(v)) {
            char at[128];
            index_text(h, idx, at, sizeof at);
            return fail(err, "the number at %s is %s; NaN and infinity are not allowed",
                        at, isnan(v) ? "NaN" : "infinite");
        }
        out[off] = v;
        if (h->fortran) {
            for (int a = 0; a < h->ndim && ++idx[a] == h->shape[a]; a++) idx[a] = 0;
        } else {
            for (int a = h->ndim - 1; a >= 0 && ++idx[a] == h->shape[a]; a--) idx[a] = 0;
        }
    }
    return 0;
}

/* ----------------------------------------------------------------- files */

/*
** Open path for reading without ever blocking: O_NONBLOCK keeps a FIFO from
** waiting for a writer, and only a regular file within NPY_MAX_FILE bytes
** is accepted. Returns the descriptor (its size in *size), or -1.
*/
static int open_regular(const char *path, off_t *size, Error *err)
{
    Error e;
    size_t len = 0;
    int fd = fileio_open(path, (size_t)NPY_MAX_FILE, &len, &e);
    if (fd < 0) return fail_as(err, e.kind, "%s", e.msg);         /* fileio's reason, without the path */
    *size = (off_t)len;
    return fd;
}

#ifndef ATTNLAB_NO_ZIP
/* Up to len bytes of the archive member; bytes read, or -1. */
static long member_read(NpyFile *f, void *buf, size_t len)
{
    return (long)zip_fread(f->member, buf, len);
}

/* Why the member could not be read. */
static const char *member_error(const NpyFile *f)
{
    return zip_file_strerror(f->member);
}

/* Close the member and its archive. */
static void member_close(NpyFile *f)
{
    if (f->member) zip_fclose(f->member);
    if (f->zip) zip_discard(f->zip);
}
#else
/* Up to len bytes of the extracted member; bytes read. */
static long member_read(NpyFile *f, void *buf, size_t len)
{
    size_t k = f->mem_len - f->mem_pos < len ? f->mem_len - f->mem_pos : len;
    memcpy(buf, f->mem + f->mem_pos, k);
    f->mem_pos += k;
    return (long)k;
}

/* Why the member could not be read. */
static const char *member_error(const NpyFile *f)
{
    return f->mem_err.msg;
}

/* Free the extracted member. */
static void member_close(NpyFile *f)
{
    free(f->mem);
}
#endif

/* Whether f reads an archive's member (not a .npy file). */
static bool is_member(const NpyFile *f)
{
#ifdef ATTNLAB_NO_ZIP
    return f->mem != NULL;
#else
    return f->member != NULL;
#endif
}

/* Read up to len bytes at offset from a file or the member; bytes read, or -1. */
static long read_some(NpyFile *f, unsigned char *buf, size_t len, size_t offset)
{
    assert(!f->data);           /* an array in memory is never read: npy_read decodes it where it is */
    size_t got = 0;
    while (got < len) {
        long r = is_member(f) ? member_read(f, buf + got, len - got)
                              : (long)pread(f->fd, buf + got, len - got, (off_t)(offset + got));
        if (r < 0 && !is_member(f) && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) break;
        got += (size_t)r;
    }
    return (long)got;
}

/* The reason the last read failed. */
static const char *read_error(const NpyFile *f)
{
    return is_member(f) ? member_error(f) : strerror(errno);
}

/* "KEY.npy", the member np.savez names after the keyword KEY, whatever
** its length, as f->key. */
static void member_name(NpyFile *f, const char *key)
{
    free(f->key);
    f->key = xmalloc(strlen(key) + 5);
    memcpy(f->key, key, strlen(key));
    memcpy(f->key + strlen(key), ".npy", 5);
}

#ifdef ATTNLAB_NO_ZIP
/*
** The member KEY.npy of the archive open as fd (which is closed), without
** libzip: the archive is read whole (it is at most NPY_MAX_FILE bytes, as
** the member uncompressed) and the member extracted whole by zipread.c,
** with the messages libzip's road gives. A member that holds more than
** its directory entry says is not an error yet: npy_read reports it.
*/
static int open_member_here(NpyFile *f, int fd, const char *key, Error *err)
{
    struct stat st;
    unsigned char *all = NULL;
    size_t len = 0;
    if (fstat(fd, &st) == 0 && st.st_size >= 0 && st.st_size <= NPY_MAX_FILE) {
        len = (size_t)st.st_size;
        all = xmalloc(len ? len : 1);
    }
    size_t have = 0;
    while (all && have < len) {
        ssize_t r = pread(fd, all + have, len - have, (off_t)have);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        have += (size_t)r;
    }
    close(fd);
    Error why;
    ZipArchive *z = all && have == len ? zip_read_open(all, len, &why) : NULL;
    if (!z) {
        free(all);
        return fail(err, "not a readable .npz (zip) archive: %s", !all || have != len ? "Read error" : why.msg);
    }
    member_name(f, key);
    int i = zip_read_find(z, f->key);
    const ZipEntry *e = zip_read_entry(z, i);
    int rc = 0;
    if (!e) rc = fail(err, "the archive has no member %s (np.savez names it after the keyword)", f->key);
    else if (e->method != 0 && e->method != 8)
        rc = fail(err, "%s is compressed with zip method %u; expected stored or deflated (np.savez, np.savez_compressed)",
                  f->key, e->method);
    else if (e->flags & 1) rc = fail(err, "%s is encrypted", f->key);
    else if (e->size > (uint64_t)NPY_MAX_FILE)
        rc = fail_as(err, ERR_LIMIT, "%s is %llu bytes uncompressed, over the limit of %lld bytes",
                  f->key, (unsigned long long)e->size, (long long)NPY_MAX_FILE);
    if (rc == 0) {
        bool more;
        f->mem = zip_read_extract(z, i, &f->mem_len, &more, &f->mem_err);
        if (!f->mem) rc = fail(err, "%s is damaged: %s", f->key, f->mem_err.msg);
        if (f->mem && more) {                /* a byte past what the directory announces: npy_read's error */
            f->mem = xrealloc(f->mem, f->mem_len + 1);
            f->mem[f->mem_len++] = 0;
        }
        f->avail = (size_t)e->size;
    }
    zip_read_close(z);
    free(all);
    return rc;
}
#endif

/* Open the member KEY.npy of an archive already open as fd. */
static int open_member(NpyFile *f, int fd, const char *key, Error *err)
{
#ifdef ATTNLAB_NO_ZIP
    return open_member_here(f, fd, key, err);
#else
    int ze = 0;
    f->zip = zip_fdopen(fd, ZIP_RDONLY | ZIP_CHECKCONS, &ze);
    if (!f->zip) {
        close(fd);
        zip_error_t e;
        zip_error_init_with_code(&e, ze);
        fail(err, "not a readable .npz (zip) archive: %s", zip_error_strerror(&e));
        zip_error_fini(&e);
        return -1;
    }
    member_name(f, key);
    zip_int64_t i = zip_name_locate(f->zip, f->key, 0);
    if (i < 0) return fail(err, "the archive has no member %s (np.savez names it after the keyword)", f->key);
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(f->zip, (zip_uint64_t)i, 0, &st) < 0 || !(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_METHOD))
        return fail_as(err, ERR_IO, "%s: cannot read its entry in the archive: %s", f->key, zip_strerror(f->zip));
    if (st.comp_method != ZIP_CM_STORE && st.comp_method != ZIP_CM_DEFLATE)
        return fail(err, "%s is compressed with zip method %u; expected stored or deflated (np.savez, np.savez_compressed)",
                    f->key, (unsigned)st.comp_method);
    if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE)
        return fail(err, "%s is encrypted", f->key);
    if (st.size > (zip_uint64_t)NPY_MAX_FILE)
        return fail_as(err, ERR_LIMIT, "%s is %llu bytes uncompressed, over the limit of %lld bytes",
                    f->key, (unsigned long long)st.size, (long long)NPY_MAX_FILE);
    f->member = zip_fopen_index(f->zip, (zip_uint64_t)i, 0);
    if (!f->member) return fail_as(err, ERR_IO, "%s: cannot open: %s", f->key, zip_strerror(f->zip));
    f->avail = (size_t)st.size;
    return 0;
#endif
}

/* Open a .npy file or an archive member and read its header. */
NpyFile *npy_open(const char *path, const char *key, Error *err)
{
    error_clear(err);
    off_t size = 0;
    int fd = open_regular(path, &size, err);
    if (fd < 0) return NULL;
    NpyFile *f = xcalloc(1, sizeof *f);
    f->fd = -1;
    f->key = xstrdup("");
    if (key) {
        if (open_member(f, fd, key, err) < 0) { npy_close(f); return NULL; }
    } else {
        f->fd = fd;
        f->avail = (size_t)size;
    }
    /* the header is at most 12 + NPY_MAX_HEADER bytes: read that much (or
    ** all there is) and parse it */
    size_t want = f->avail < 12 + NPY_MAX_HEADER ? f->avail : 12 + NPY_MAX_HEADER;
    f->head = xmalloc(want ? want : 1);
    long got = read_some(f, f->head, want, 0);
    Error why;
    size_t need;
    if (got < 0) {
        fail_as(err, ERR_IO, "%s%scannot read: %s", f->key, *f->key ? ": " : "", read_error(f));
    } else if (f->head_len = (size_t)got, npy_parse_header(f->head, f->head_len, &f->h, &need, &why) < 0) {
        fail_as(err, why.kind, "%s%s%s", f->key, *f->key ? ": " : "", why.msg);
    } else if (f->avail - f->h.header_len != f->h.data_len) {
        size_t have = f->avail - f->h.header_len;
        if (have < f->h.data_len)
            fail(err, "%s%struncated: the header's shape and dtype '%s' need %zu bytes of data, found %zu",
                 f->key, *f->key ? ": " : "", f->h.descr, f->h.data_len, have);
        else
            fail(err, "%s%sthe header's shape and dtype '%s' need %zu bytes of data, but %zu follow it",
                 f->key, *f->key ? ": " : "", f->h.descr, f->h.data_len, have);
    } else {
        return f;
    }
    npy_close(f);
    return NULL;
}

/* The header of an open file. */
const NpyHeader *npy_header(const NpyFile *f)
{
    return &f->h;
}

/* The data of an open file, whole and checked (a new buffer of
** f->h.data_len bytes), or NULL with err filled. */
static unsigned char *read_data(NpyFile *f, Error *err)
{
    const NpyHeader *h = &f->h;
    unsigned char *data = xmalloc(h->data_len ? h->data_len : 1);
    size_t have = f->head_len - h->header_len;        /* data already read with the header */
    memcpy(data, f->head + h->header_len, have);
    long got = read_some(f, data + have, h->data_len - have, f->head_len);
    int rc = 0;
    char byte[1];
    if (got < 0)
        rc = fail_as(err, ERR_IO, "%s%scannot read: %s", f->key, *f->key ? ": " : "", read_error(f));
    else if (have + (size_t)got < h->data_len)
        rc = fail(err, "%s%struncated: the data ends after %zu of %zu bytes",
                  f->key, *f->key ? ": " : "", have + (size_t)got, h->data_len);
    else if (is_member(f) && (got = member_read(f, byte, 1)) != 0)
        /* one byte more: at the end libzip checks the CRC; a member whose
        ** directory entry understates its size has more (never inflated) */
        rc = got > 0 ? fail(err, "%s holds more data than the archive's directory says (%zu bytes)", f->key, f->avail)
                     : fail(err, "%s is damaged: %s", f->key, member_error(f));
    if (rc == 0) return data;
    free(data);
    return NULL;
}

/* Read and decode all the numbers. */
int npy_read(NpyFile *f, double *out, Error *err)
{
    error_clear(err);
    Error why;
    if (f->data) {              /* in memory: decoded where it is */
        if (npy_decode(&f->h, f->data, f->h.data_len, out, &why) < 0)
            return fail_as(err, why.kind, "%s%s%s", f->key, *f->key ? ": " : "", why.msg);
        return 0;
    }
    unsigned char *data = read_data(f, err);
    if (!data) return -1;
    int rc = 0;
    if (npy_decode(&f->h, data, f->h.data_len, out, &why) < 0)
        rc = fail_as(err, why.kind, "%s%s%s", f->key, *f->key ? ": " : "", why.msg);
    free(data);
    return rc;
}

/* Element k of a string array as UTF-8 (numpy's padding of NULs at the
** end dropped), appended to b. -1 when a UTF-32 code unit is not a
** character, -2 when a NUL is inside the string (numpy keeps 'a\0b'
** whole; a token cannot hold one). */
static int string_element(const NpyHeader *h, const unsigned char *p, Buf *b)
{
    if (h->kind == 'S') {
        size_t n = 0;
        while (n < (size_t)h->itemsize && p[n]) n++;
        for (size_t i = n; i < (size_t)h->itemsize; i++) if (p[i]) return -2;
        buf_append(b, (const char *)p, n);
        return 0;
    }
    bool ended = false;
    for (int i = 0; i < h->itemsize / 4; i++) {
        const unsigned char *u = p + 4 * i;
        uint32_t cp = h->big_endian ? (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3]
                                    : (uint32_t)u[3] << 24 | (uint32_t)u[2] << 16 | (uint32_t)u[1] << 8 | u[0];
        if (cp == 0) {
            ended = true;
            continue;
        }
        if (ended) return -2;
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return -1;
        char enc[4];
        buf_append(b, enc, (size_t)utf8_encode(cp, enc));
    }
    return 0;
}

/* Read a 1-D array of strings. */
int npy_read_strings(NpyFile *f, char **out, Error *err)
{
    error_clear(err);
    const NpyHeader *h = &f->h;
    if (h->kind != 'U' && h->kind != 'S')
        return fail(err, "%s%sholds numbers (dtype '%s'), not strings", f->key, *f->key ? ": " : "", h->descr);
    unsigned char *data = f->data ? xmalloc(h->data_len ? h->data_len : 1) : read_data(f, err);
    if (!data) return -1;
    if (f->data) memcpy(data, f->data, h->data_len);
    for (long k = 0; k < h->count; k++) {
        Buf b = {0};
        int bad = string_element(h, data + (size_t)k * (size_t)h->itemsize, &b);
        if (bad < 0) {
            buf_free(&b);
            for (long i = 0; i < k; i++) free(out[i]);
            free(data);
            return fail(err, bad == -1 ? "%s%sstring %ld holds a code unit that is not a character"
                                       : "%s%sstring %ld holds a NUL character inside it, which a token cannot hold",
                        f->key, *f->key ? ": " : "", k + 1);
        }
        if (!b.s) buf_puts(&b, "");
        out[k] = buf_take(&b);
    }
    free(data);
    return 0;
}

/* Close everything. */
void npy_close(NpyFile *f)
{
    if (!f) return;
    if (!f->data) member_close(f);
    if (f->fd >= 0) close(f->fd);
    free(f->head);
    free(f->key);
    free(f);
}

/*
** An array in memory as an open file: numpy's dtype (descr, "<f4"), its
** shape and its data in C order, len bytes (which must be what the dtype
** and shape make). The dtype and shape are checked as a .npy file's header
** is (npy_parse_header reads one written from them), with the same limits;
** the data is decoded where it is, never copied, and must outlive f.
*/
NpyFile *npy_open_data(const char *descr, int ndim, const long *shape, const void *data, size_t len, Error *err)
{
    error_clear(err);
    if (!descr || strlen(descr) >= sizeof ((NpyHeader *)0)->descr || strpbrk(descr, "'\\\n")) {
        fail(err, "dtype \"%s\" is not one a .npy file holds (\"<f4\", \"<f8\", \"<U12\", ...)", descr ? descr : "");
        return NULL;
    }
    if (ndim < 0 || ndim > NPY_MAX_DIMS) {
        fail(err, "%d dimensions; an array has 1 to %d", ndim, NPY_MAX_DIMS);
        return NULL;
    }
    if (!data && len > 0) {
        fail(err, "no data for %zu bytes", len);
        return NULL;
    }
    Buf b = {0};
    buf_printf(&b, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int i = 0; i < ndim; i++) buf_printf(&b, "%ld%s", shape[i], ndim == 1 || i < ndim - 1 ? ", " : "");
    buf_puts(&b, "), }\n");
    size_t hlen = b.len;
    unsigned char *head = xmalloc(12 + hlen);
    memcpy(head, MAGIC, MAGIC_LEN);
    head[6] = 2;                                /* version 2.0: a four-byte header length */
    head[7] = 0;
    for (int i = 0; i < 4; i++) head[8 + i] = (unsigned char)(hlen >> (8 * i));
    memcpy(head + 12, b.s, hlen);
    buf_free(&b);
    NpyFile *f = xcalloc(1, sizeof *f);
    f->fd = -1;
    f->key = xstrdup("");
    f->head = head;
    f->head_len = 12 + hlen;
    size_t need;
    if (npy_parse_header(head, f->head_len, &f->h, &need, err) < 0) {
        npy_close(f);
        return NULL;
    }
    if (f->h.data_len != len) {
        fail(err, "the data is %zu bytes, but dtype '%s' and the shape make %zu", len, descr, f->h.data_len);
        npy_close(f);
        return NULL;
    }
    f->data = data ? data : (const unsigned char *)"";
    f->avail = len;
    return f;
}
