/*
** tjson.c: recursive-descent JSON parser for test fixtures.
*/
#include "tjson.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { const char *p; int depth; } Cur;

static Tj *parse_value(Cur *c);

/* Skip JSON whitespace. */
static void skip_ws(Cur *c)
{
    while (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r') c->p++;
}

/* A new node of a kind. */
static Tj *node(TjKind k)
{
    Tj *t = xcalloc(1, sizeof *t);
    t->kind = k;
    return t;
}

/* Parse a string literal into a new C string (escapes decoded, \u as UTF-8). */
static char *parse_string(Cur *c)
{
    if (*c->p != '"') return NULL;
    c->p++;
    Buf b = {0};
    buf_append(&b, "", 0);
    while (*c->p && *c->p != '"') {
        unsigned char ch = (unsigned char)*c->p;
        if (ch < 0x20) { buf_free(&b); return NULL; }
        if (ch == '\\') {
            c->p++;
            char e = *c->p;
            const char *map = "\"\\/bfnrt", *rep = "\"\\/\b\f\n\r\t";
            const char *hit = e ? strchr(map, e) : NULL;
            if (hit) { buf_append(&b, rep + (hit - map), 1); c->p++; continue; }
            if (e != 'u') { buf_free(&b); return NULL; }
            unsigned cp = 0;
            for (int i = 1; i <= 4; i++) {
                char h = c->p[i];
                cp <<= 4;
                if (h >= '0' && h <= '9') cp |= (unsigned)(h - '0');
                else if (h >= 'a' && h <= 'f') cp |= (unsigned)(h - 'a' + 10);
                else if (h >= 'A' && h <= 'F') cp |= (unsigned)(h - 'A' + 10);
                else { buf_free(&b); return NULL; }
            }
            c->p += 5;
            char u[4];
            if (cp < 0x80) { u[0] = (char)cp; buf_append(&b, u, 1); }
            else if (cp < 0x800) { u[0] = (char)(0xc0 | (cp >> 6)); u[1] = (char)(0x80 | (cp & 63)); buf_append(&b, u, 2); }
            else { u[0] = (char)(0xe0 | (cp >> 12)); u[1] = (char)(0x80 | ((cp >> 6) & 63)); u[2] = (char)(0x80 | (cp & 63)); buf_append(&b, u, 3); }
            continue;
        }
        buf_append(&b, c->p, 1);
        c->p++;
    }
    if (*c->p != '"') { buf_free(&b); return NULL; }
    c->p++;
    return buf_take(&b);
}

/* Parse an array or object body after its opening bracket. */
static Tj *parse_container(Cur *c, int obj)
{
    Tj *t = node(obj ? TJ_OBJ : TJ_ARR);
    int cap = 0;
    skip_ws(c);
    char close = obj ? '}' : ']';
    if (*c->p == close) { c->p++; return t; }
    for (;;) {
        char *key = NULL;
        skip_ws(c);
        if (obj) {
            key = parse_string(c);
            skip_ws(c);
            if (!key || *c->p != ':') { free(key); tjson_free(t); return NULL; }
            c->p++;
        }
        Tj *v = parse_value(c);
        if (!v) { free(key); tjson_free(t); return NULL; }
        if (t->n == cap) {
            cap = cap ? cap * 2 : 8;
            t->items = xrealloc(t->items, sizeof *t->items * (size_t)cap);
            if (obj) t->keys = xrealloc(t->keys, sizeof *t->keys * (size_t)cap);
        }
        t->items[t->n] = v;
        if (obj) t->keys[t->n] = key;
        t->n++;
        skip_ws(c);
        if (*c->p == ',') { c->p++; continue; }
        if (*c->p == close) { c->p++; return t; }
        tjson_free(t);
        return NULL;
    }
}

/* Parse any value. */
static Tj *parse_value(Cur *c)
{
    skip_ws(c);
    if (++c->depth > 200) return NULL;
    Tj *t = NULL;
    char ch = *c->p;
    if (ch == '{' || ch == '[') { c->p++; t = parse_container(c, ch == '{'); }
    else if (ch == '"') { char *s = parse_string(c); if (s) { t = node(TJ_STR); t->str = s; } }
    else if (!strncmp(c->p, "null", 4)) { c->p += 4; t = node(TJ_NULL); }
    else if (!strncmp(c->p, "true", 4)) { c->p += 4; t = node(TJ_BOOL); t->num = 1; }
    else if (!strncmp(c->p, "false", 5)) { c->p += 5; t = node(TJ_BOOL); }
    else if (ch == '-' || (ch >= '0' && ch <= '9')) {
        char *end;
        double v = strtod(c->p, &end);
        if (end != c->p) { c->p = end; t = node(TJ_NUM); t->num = v; }
    }
    c->depth--;
    return t;
}

/* Parse a document; trailing garbage fails. */
Tj *tjson_parse(const char *text)
{
    Cur c = { text, 0 };
    Tj *t = parse_value(&c);
    skip_ws(&c);
    if (t && *c.p) { tjson_free(t); return NULL; }
    return t;
}

/* Read a file. */
char *tjson_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    Buf b = {0};
    char chunk[8192];
    size_t n;
    buf_append(&b, "", 0);
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) buf_append(&b, chunk, n);
    fclose(f);
    if (len) *len = b.len;
    return buf_take(&b);
}

/* Parse a file. */
Tj *tjson_load(const char *path)
{
    char *s = tjson_read_file(path, NULL);
    if (!s) return NULL;
    Tj *t = tjson_parse(s);
    free(s);
    return t;
}

/* Free a tree. */
void tjson_free(Tj *t)
{
    if (!t) return;
    for (int i = 0; i < t->n; i++) {
        tjson_free(t->items[i]);
        if (t->keys) free(t->keys[i]);
    }
    free(t->items);
    free(t->keys);
    free(t->str);
    free(t);
}

/* Object member. */
Tj *tjson_get(const Tj *t, const char *key)
{
    if (!t || t->kind != TJ_OBJ) return NULL;
    for (int i = 0; i < t->n; i++)
        if (!strcmp(t->keys[i], key)) return t->items[i];
    return NULL;
}

/* Array item. */
Tj *tjson_at(const Tj *t, int i)
{
    if (!t || t->kind != TJ_ARR || i < 0 || i >= t->n) return NULL;
    return t->items[i];
}

/* Number or null (-∞). */
static int num_of(const Tj *t, double *v)
{
    if (t->kind == TJ_NUM) { *v = t->num; return 1; }
    if (t->kind == TJ_NULL) { *v = -INFINITY; return 1; }
    return 0;
}

/* 2-D numeric array as a matrix. */
Mat *tjson_mat(const Tj *t)
{
    if (!t || t->kind != TJ_ARR || t->n == 0 || t->items[0]->kind != TJ_ARR) return NULL;
    int rows = t->n, cols = t->items[0]->n;
    Mat *m = mat_create(rows, cols);
    if (!m) return NULL;
    for (int i = 0; i < rows; i++) {
        const Tj *row = t->items[i];
        if (row->kind != TJ_ARR || row->n != cols) { mat_free(m); return NULL; }
        for (int j = 0; j < cols; j++) {
            double v;
            if (!num_of(row->items[j], &v)) { mat_free(m); return NULL; }
            mat_set(m, i, j, v);
        }
    }
    return m;
}

/* 1-D numeric array as a row vector. */
Mat *tjson_vec(const Tj *t)
{
    if (!t || t->kind != TJ_ARR || t->n == 0) return NULL;
    Mat *m = mat_create(1, t->n);
    for (int j = 0; j < t->n; j++) {
        double v;
        if (!num_of(t->items[j], &v)) { mat_free(m); return NULL; }
        mat_set(m, 0, j, v);
    }
    return m;
}
