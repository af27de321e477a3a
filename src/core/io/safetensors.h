/*
** safetensors.h: the tensors of a model checkpoint (model.safetensors), mapped.
**
** A .safetensors file is an 8-byte little-endian length N, a JSON object
** of N bytes naming each tensor ({"wte.weight": {"dtype": "F32", "shape":
** [50257, 768], "data_offsets": [0, 154389504]}, ...}, with an optional
** "__metadata__" of strings), then the tensors' bytes, little-endian, in
** C order. The header is read with cJSON (Debian's libcjson) and checked
** whole before a tensor is touched: every dtype known, every shape's
** bytes the size its offsets give (with no product overflowing), every
** tensor inside the file, the tensors one after another with neither a gap
** nor an overlap (the format's own rule), no name twice. The data is mapped,
** not read: a 500 MB checkpoint costs the pages a computation touches.
** Nothing is allocated from what the file says before it is checked
** against the file's size.
**
** Numbers come out as doubles (st_read): F64, F32, F16 and BF16 are read
** exactly (each is a double exactly); the integer and bool dtypes are named
** in messages and refused as numbers.
**
**   Error err;
**   SafeTensors *st = st_open("gpt2/model.safetensors", &err);
**   const StTensor *t = st ? st_find(st, "wte.weight") : NULL;
**   double *v = xmalloc(sizeof *v * t->count);
**   st_read(st, t, v, &err);
**   st_free(st);
**
** Errors name the file (Error.file) and, where one is at fault, the tensor:
** "h.0.attn.c_attn.weight: shape [768, 2304] of F32 is 7077888 bytes, but
** its offsets give 7077884".
*/
#ifndef ATTNLAB_SAFETENSORS_H
#define ATTNLAB_SAFETENSORS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/error.h"

#define ST_MAX_DIMS   8                 /* dimensions of one tensor */
#define ST_MAX_HEADER (100u << 20)      /* the header's bytes (the format's own limit: 100 MB) */
#define ST_MAX_TENSORS 100000           /* tensors in one file */

/* The element types of the format, in one table (safetensors.c). */
typedef enum StDtype { ST_F64, ST_F32, ST_F16, ST_BF16, ST_I64, ST_I32, ST_I16, ST_I8, ST_U8, ST_BOOL,
                       ST_NDTYPES } StDtype;

typedef struct StTensor {
    char *name;
    StDtype dtype;
    int ndim;
    int64_t shape[ST_MAX_DIMS];
    int64_t count;                      /* elements: the shape's product (1 for a scalar) */
    uint64_t begin, end;                /* bytes, from the start of the data */
} StTensor;

typedef struct SafeTensors SafeTensors;

/* The checkpoint at path, its header checked and its data mapped; NULL with
** err filled (about path). */
SafeTensors *st_open(const char *path, Error *err);
/* Unmap and release it (NULL is fine). */
void st_free(SafeTensors *st);

/* Its tensors, in the order of their data. */
int st_count(const SafeTensors *st);
const StTensor *st_at(const SafeTensors *st, int i);
/* The tensor called name, or NULL. */
const StTensor *st_find(const SafeTensors *st, const char *name);
/* The format's name of a dtype ("F32"), and its size in bytes. */
const char *st_dtype_name(StDtype d);
int st_dtype_size(StDtype d);
/* Whether st_read takes d: F64, F32, F16 and BF16. */
bool st_dtype_number(StDtype d);

/* Tensor t's numbers as doubles into out (t->count of them, C order): true,
** or false with err filled (about the file: an integer dtype, or a NaN or
** an infinity, named with its place). */
bool st_read(const SafeTensors *st, const StTensor *t, double *out, Error *err);
/* Tensor t's bytes as the file holds them (little-endian, t->end - t->begin
** of them), mapped: valid until st_free. */
const void *st_data(const SafeTensors *st, const StTensor *t);
/* The file's name as messages show it. */
const char *st_shown(const SafeTensors *st);

#endif
