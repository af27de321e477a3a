/*
** tjson.h: a small JSON reader for the tests (reference figures, --dump output).
** tjson_parse returns a tree or NULL; tjson_free releases it.
*/
#ifndef ATTNLAB_TJSON_H
#define ATTNLAB_TJSON_H

#include <stddef.h>
#include "core/compute/mat.h"

typedef enum { TJ_NULL, TJ_BOOL, TJ_NUM, TJ_STR, TJ_ARR, TJ_OBJ } TjKind;

typedef struct Tj {
    TjKind kind;
    double num;          /* TJ_NUM, TJ_BOOL (0/1) */
    char *str;           /* TJ_STR */
    int n;               /* items in an array or object */
    struct Tj **items;   /* TJ_ARR, TJ_OBJ values */
    char **keys;         /* TJ_OBJ keys */
} Tj;

/* Parse a whole document; NULL if it is not valid JSON. */
Tj *tjson_parse(const char *text);
/* Parse the file at path; NULL on a read or parse failure. */
Tj *tjson_load(const char *path);
/* Release a tree. */
void tjson_free(Tj *t);
/* Member key of an object, or NULL. */
Tj *tjson_get(const Tj *t, const char *key);
/* Item i of an array, or NULL. */
Tj *tjson_at(const Tj *t, int i);
/* A 2-D array of numbers as a matrix (null elements become -∞); NULL otherwise. */
Mat *tjson_mat(const Tj *t);
/* A 1-D array of numbers as a 1 x n matrix; NULL otherwise. */
Mat *tjson_vec(const Tj *t);
/* Read a whole file into a NUL-terminated buffer (caller frees), or NULL. */
char *tjson_read_file(const char *path, size_t *len);

#endif
