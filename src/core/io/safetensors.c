/*
** safetensors.c: a checkpoint's tensors, checked and mapped (safetensors.h).
*/
#define _POSIX_C_SOURCE 200809L                 /* pread, mmap */
#include "safetensors.h"
#include "fileio.h"
#include "core/util.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The largest file read: a terabyte where addresses are 64-bit (past any
** checkpoint, short of size_t's wrap); a gigabyte where they are 32-bit
** (the browser edition, whose 2 GB heap holds the file's copy and the
** numbers computed from it). */
#if SIZE_MAX > 0xffffffffu
#define ST_MAX_FILE ((size_t)1 << 40)
#else
#define ST_MAX_FILE ((size_t)1 << 30)
#endif

/* The dtypes: the format's name, bytes, and whether st_read takes them. */
static const struct { const char *name; int size; bool number; } dtypes[ST_NDTYPES] = {
    [ST_F64] = { "F64", 8, true },  [ST_F32] = { "F32", 4, true },  [ST_F16] = { "F16", 2, true },
    [ST_BF16] = { "BF16", 2, true }, [ST_I64] = { "I64", 8, false }, [ST_I32] = { "I32", 4, false },
    [ST_I16] = { "I16", 2, false }, [ST_I8] = { "I8", 1, false },   [ST_U8] = { "U8", 1, false },
    [ST_BOOL] = { "BOOL", 1, false },
};

/* The format's name of d. */
const char *st_dtype_name(StDtype d)
{
    assert(d >= 0 && d < ST_NDTYPES);
    return dtypes[d].name;
}

/* Bytes of one element of d. */
int st_dtype_size(StDtype d)
{
    assert(d >= 0 && d < ST_NDTYPES);
    return dtypes[d].size;
}

/* Whether d holds numbers a lesson reads. */
bool st_dtype_number(StDtype d)
{
    assert(d >= 0 && d < ST_NDTYPES);
    return dtypes[d].number;
}

#include <cjson/cJSON.h>
#include <sys/mman.h>
#include <unistd.h>

struct SafeTensors {
    char *shown;                        /* the path, as messages show it */
    StTensor *t;
    int n;
    const unsigned char *map;           /* the whole file, mapped */
    size_t size;
    size_t data;                        /* where the tensors' bytes start: 8 + the header */
};

/* Fill err about st's file and return false. The message is one line
** whatever the names in it hold (a tensor's name is any JSON string). */
__attribute__((format(printf, 3, 4))) static bool fail(const SafeTensors *st, Error *err, const char *fmt, ...)
{
    char msg[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char *shown = util_shown(msg);
    error_set(err, ERR_INVALID, st->shown, 0, 0, "%s", shown);
    free(shown);
    return false;
}

/* A JSON number that is a whole number in [0, max], into *out (max at
** most 2^63, so that the conversion is defined). */
static bool whole(const cJSON *j, double max, uint64_t *out)
{
    if (!cJSON_IsNumber(j)) return false;
    double v = j->valuedouble;
    if (!(v >= 0 && v <= max) || v != floor(v)) return false;
    *out = (uint64_t)v;
    return true;
}

/* The dtype called s, or -1. */
static int dtype_of(const char *s)
{
    for (int d = 0; d < ST_NDTYPES; d++)
        if (!strcmp(s, dtypes[d].name)) return d;
    return -1;
}

/* One entry of the header: name's dtype, shape and offsets, checked
** against the data's size, into t. */
static bool entry(SafeTensors *st, const char *name, const cJSON *j, StTensor *t, Error *err)
{
    const uint64_t room = st->size - st->data;        /* the data's bytes */
    if (!cJSON_IsObject(j)) return fail(st, err, "%s: not an object with a dtype, a shape and data_offsets", name);
    const cJSON *dt = cJSON_GetObjectItemCaseSensitive(j, "dtype"), *sh = cJSON_GetObjectItemCaseSensitive(j, "shape");
    const cJSON *off = cJSON_GetObjectItemCaseSensitive(j, "data_offsets");
    if (!cJSON_IsString(dt)) return fail(st, err, "%s: no dtype", name);
    int d = dtype_of(dt->valuestring);
    if (d < 0)
        return fail(st, err, "%s: dtype %.40s is not one the format has (F64, F32, F16, BF16, I64, I32, I16, I8, "
                    "U8, BOOL)", name, dt->valuestring);
    if (!cJSON_IsArray(sh)) return fail(st, err, "%s: no shape", name);
    int nd = cJSON_GetArraySize(sh);
    if (nd > ST_MAX_DIMS) return fail(st, err, "%s: %d dimensions, over the limit of %d", name, nd, ST_MAX_DIMS);
    t->dtype = (StDtype)d;
    t->ndim = nd;
    uint64_t count = 1, bytes;
    int i = 0;
    for (const cJSON *e = sh->child; e; e = e->next, i++) {
        uint64_t v;
        if (!whole(e, 9007199254740992.0, &v)) return fail(st, err, "%s: shape holds something not a size", name);
        t->shape[i] = (int64_t)v;
        if (v && count > ((uint64_t)1 << 60) / v)       /* the product never wraps */
            return fail(st, err, "%s: a shape of more than 2^60 elements", name);
        count *= v;
    }
    t->count = (int64_t)count;
    bytes = count * (uint64_t)dtypes[d].size;         /* at most 2^63 */
    if (!cJSON_IsArray(off) || cJSON_GetArraySize(off) != 2 || !whole(off->child, 0x1p63, &t->begin)
        || !whole(off->child->next, 0x1p63, &t->end))       /* (past 2^63 no file has the bytes) */
        return fail(st, err, "%s: data_offsets is not two byte offsets [begin, end]", name);
    if (t->begin > t->end || t->end > room)
        return fail(st, err, "%s: data_offsets [%llu, %llu] are outside the file's %llu bytes of data", name,
                    (unsigned long long)t->begin, (unsigned long long)t->end, (unsigned long long)room);
    if (t->end - t->begin != bytes) {
        char shape[200] = "";
        for (int k = 0; k < nd; k++)
            snprintf(shape + strlen(shape), sizeof shape - strlen(shape), "%s%lld", k ? ", " : "", (long long)t->shape[k]);
        return fail(st, err, "%s: shape [%s] of %s is %llu bytes, but its offsets give %llu", name, shape,
                    dtypes[d].name, (unsigned long long)bytes, (unsigned long long)(t->end - t->begin));
    }
    t->name = xstrdup(name);
    return true;
}

/* Sort by where the data starts. */
static int by_begin(const void *a, const void *b)
{
    const StTensor *x = a, *y = b;
    return x->begin < y->begin ? -1 : x->begin > y->begin ? 1 : x->end < y->end ? -1 : x->end > y->end;
}

/* Read and check the header: the tensors, one after another from 0 to the
** end of the file, no name twice. */
static bool header(SafeTensors *st, const char *text, size_t len, Error *err)
{
    cJSON *root = cJSON_ParseWithLength(text, len);
    if (!root) {                                        /* (bytes counted from 1, as a reader counts them) */
        const char *at = cJSON_GetErrorPtr();
        size_t byte = at && at >= text && at <= text + len ? (size_t)(at - text) + 1 : 1;
        return fail(st, err, "the header is not JSON (near byte %zu of it)", byte);
    }
    bool ok = cJSON_IsObject(root);
    if (!ok) fail(st, err, "the header is not a JSON object of tensors");
    int n = 0;
    for (const cJSON *e = ok ? root->child : NULL; e; e = e->next) n++;
    if (ok && n > ST_MAX_TENSORS) ok = fail(st, err, "%d tensors, over the limit of %d", n, ST_MAX_TENSORS);
    st->t = xcalloc((size_t)(n ? n : 1), sizeof *st->t);
    for (const cJSON *e = ok ? root->child : NULL; e && ok; e = e->next) {
        if (!e->string) { ok = fail(st, err, "a tensor without a name"); break; }
        if (!strcmp(e->string, "__metadata__")) {
            if (!cJSON_IsObject(e)) ok = fail(st, err, "__metadata__ is not an object of strings");
            continue;
        }
        ok = entry(st, e->string, e, &st->t[st->n], err);
        if (ok) st->n++;
    }
    cJSON_Delete(root);
    if (!ok) return false;
    qsort(st->t, (size_t)st->n, sizeof *st->t, by_begin);
    uint64_t at = 0;
    for (int i = 0; i < st->n; i++) {
        const StTensor *t = &st->t[i];
        if (t->begin > at) return fail(st, err, "%llu bytes before %s belong to no tensor",
                                       (unsigned long long)(t->begin - at), t->name);
        if (t->begin < at) return fail(st, err, "%s overlaps the tensor before it (%s)", t->name, st->t[i - 1].name);
        at = t->end;
    }
    if (at != st->size - st->data)
        return fail(st, err, "the last %llu bytes of the file belong to no tensor",
                    (unsigned long long)(st->size - st->data - at));
    for (int i = 0; i < st->n; i++)                     /* no name twice (JSON allows it; the format does not) */
        for (int j = i + 1; j < st->n; j++)
            if (!strcmp(st->t[i].name, st->t[j].name)) return fail(st, err, "%s is named twice", st->t[i].name);
    return true;
}

/* Open, check, map. */
SafeTensors *st_open(const char *path, Error *err)
{
    SafeTensors *st = xcalloc(1, sizeof *st);
    st->shown = util_shown(path);
    size_t size;
    int fd = fileio_open(path, ST_MAX_FILE, &size, err);
    if (fd < 0) {
        st_free(st);
        return NULL;
    }
    st->size = size;
    unsigned char len8[8];
    bool ok = false;
    char *text = NULL;
    if (size < 8 || pread(fd, len8, 8, 0) != 8) {
        fail(st, err, "truncated: %zu bytes, not even the header's length (8 bytes)", size);
        goto done;
    }
    uint64_t n = 0;
    for (int i = 7; i >= 0; i--) n = n << 8 | len8[i];
    if (n > ST_MAX_HEADER) {
        error_set(err, ERR_LIMIT, st->shown, 0, 0, "the header says it is %llu bytes, over the limit of %u",
                  (unsigned long long)n, ST_MAX_HEADER);
        goto done;
    }
    if (n > size - 8) {
        fail(st, err, "truncated: the header says it is %llu bytes, but the file has %zu after its length",
             (unsigned long long)n, size - 8);
        goto done;
    }
    st->data = 8 + (size_t)n;
    text = xmalloc((size_t)n + 1);
    if (pread(fd, text, (size_t)n, 8) != (ssize_t)n) {
        error_set(err, ERR_IO, st->shown, 0, 0, "cannot read: %s", strerror(errno));
        goto done;
    }
    text[n] = '\0';
    if (!header(st, text, (size_t)n, err)) goto done;
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
        error_set(err, ERR_IO, st->shown, 0, 0, "cannot map: %s", strerror(errno));
        goto done;
    }
    st->map = m;
    ok = true;
done:
    free(text);
    close(fd);
    if (!ok) {
        st_free(st);
        return NULL;
    }
    error_clear(err);
    return st;
}

/* Unmap, free. */
void st_free(SafeTensors *st)
{
    if (!st) return;
    if (st->map) munmap((void *)st->map, st->size);
    for (int i = 0; i < st->n; i++) free(st->t[i].name);
    free(st->t);
    free(st->shown);
    free(st);
}

/* How many tensors. */
int st_count(const SafeTensors *st)
{
    return st->n;
}

/* Tensor i, in the order of their data. */
const StTensor *st_at(const SafeTensors *st, int i)
{
    return i >= 0 && i < st->n ? &st->t[i] : NULL;
}

/* The tensor called name. */
const StTensor *st_find(const SafeTensors *st, const char *name)
{
    for (int i = 0; i < st->n; i++)
        if (!strcmp(st->t[i].name, name)) return &st->t[i];
    return NULL;
}

/* A little-endian number of size bytes at p. */
static uint64_t little(const unsigned char *p, int size)
{
    uint64_t v = 0;
    for (int i = size - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* Element p of dtype d as a double. */
static double element(StDtype d, const unsigned char *p)
{
    uint64_t b = little(p, dtypes[d].size);
    switch (d) {
    case ST_F64: { double v; memcpy(&v, &b, 8); return v; }
    case ST_F32: { uint32_t w = (uint32_t)b; float v; memcpy(&v, &w, 4); return v; }
    case ST_F16: return util_half_to_double((uint16_t)b);
    case ST_BF16: { uint32_t w = (uint32_t)b << 16; float v; memcpy(&v, &w, 4); return v; }
    default: assert(!"a number dtype"); return NAN;
    }
}

/* The numbers, checked finite. */
/* Tensor t's bytes, mapped. */
const void *st_data(const SafeTensors *st, const StTensor *t)
{
    return st->map + st->data + t->begin;
}

/* The file's name for messages. */
const char *st_shown(const SafeTensors *st)
{
    return st->shown;
}

/* Tensor t's numbers as doubles. */
bool st_read(const SafeTensors *st, const StTensor *t, double *out, Error *err)
{
    if (!dtypes[t->dtype].number)
        return fail(st, err, "%s holds %s, not numbers a lesson reads (F64, F32, F16 or BF16)", t->name,
                    dtypes[t->dtype].name);
    const unsigned char *p = st->map + st->data + t->begin;
    int size = dtypes[t->dtype].size;
    for (int64_t i = 0; i < t->count; i++) {
        out[i] = element(t->dtype, p + (size_t)i * (size_t)size);
        if (!isfinite(out[i])) return fail(st, err, "%s holds %s at element %lld", t->name,
                                           isnan(out[i]) ? "NaN" : "an infinity", (long long)i);
    }
    error_clear(err);
    return true;
}

