/*
** lesson_model_int.h: what the two halves of a model lesson share
** (lesson_model.c writes the lesson, lesson_model_weights.c hands it the
** model's weights as arrays). Not for other modules.
*/
#ifndef ATTNLAB_LESSON_MODEL_INT_H
#define ATTNLAB_LESSON_MODEL_INT_H

#include "lesson_model.h"
#include "model_cache.h"
#include "core/io/checkpoint.h"
#include "core/text/tokenizer.h"
#include "core/util.h"

/* An array handed to the parser, and what it owns. */
typedef struct Arr {
    char *key;
    long shape[2];
    const void *data;
    void *owned;
    bool f64, words;            /* doubles; the vocabulary's words (|S64) */
    bool view, transposed;      /* a float32 view (LessonArray.borrow): element (i, j) at data[i*ld + j] or data[j*ld + i] */
    long ld;
} Arr;

struct ModelLesson {
    Buf text;
    int *lines, nlines, cap;        /* the author's line of each generated line */
    Arr *arr;
    int narr;
    LessonArray *la;
    ModelFolder *folder[LML_MAX_MODELS];    /* each model's, shared with the other lessons of it (model_cache.h) */
    int nmodels;
    const Checkpoint *ck;           /* the model being read's checkpoint */
    bool checked;                   /* its weights are known to be finite */
    char prefix[16];                /* before its arrays' names: "" for the first model, "M2." ... */
    int setups;                     /* setups written so far, the author's and the layers' */
    int prev_first, prev_layers;    /* the model before this one: its first layer's setup (from 1), its layers */
    char *dir;                      /* the first model's folder */
};

/* The names every layer's setup loads, in the order they are written. */
#define LML_NLAYER_MATS 16
extern const char *const lml_layer_mats[LML_NLAYER_MATS];

/* The embeddings the first layer reads, as array X, for the n token ids. */
bool lml_put_input(ModelLesson *m, const ModelConfig *c, const int *ids, int n, Error *err);
/* Layer k's (from 0) weights as arrays L<k>.W_q ... */
bool lml_put_layer(ModelLesson *m, const ModelConfig *c, int k, Error *err);
/* GPT-2's unembedding, final norm and words. */
bool lml_put_unembed(ModelLesson *m, const ModelConfig *c, const Tokenizer *tok, Error *err);

#endif
