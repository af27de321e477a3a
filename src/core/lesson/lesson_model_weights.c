/*
** lesson_model_weights.c: a model's weights handed to its lesson as
** arrays (see lesson_model.h): float32 views of the mapped file where a
** tensor is stored as the lesson reads it, copies where it must be
** converted (F16, BF16), every number checked finite once per folder.
*/
#include "lesson_model_int.h"
#include "lesson.h"
#include "core/text/utf8.h"

#include <assert.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A new array called key of rows x cols. */
static Arr *add_arr(ModelLesson *m, const char *key, long rows, long cols)
{
    m->arr = xrealloc(m->arr, sizeof *m->arr * (size_t)(m->narr + 1));
    Arr *a = &m->arr[m->narr++];
    memset(a, 0, sizeof *a);
    Buf b = { 0 };
    buf_printf(&b, "%s%s", m->prefix, key);
    a->key = buf_take(&b);
    a->shape[0] = rows;
    a->shape[1] = cols;
    return a;
}

/* Tensor name's numbers as float32, NULL with err filled: straight from the
** file when it holds aligned F32, else a copy (*owned, caller frees). Every
** number is finite. */
static const float *tensor(ModelLesson *m, const char *name, float **owned, Error *err)
{
    const StTensor *t = ckpt_tensor(m->ck, name);
    const SafeTensors *st = ckpt_tensors(m->ck);
    assert(t);                                  /* ckpt_open checked every name the tables list */
    *owned = NULL;
    const void *p = st_data(st, t);
    if (t->dtype == ST_F32 && (uintptr_t)p % sizeof(float) == 0) {
        const float *f = p;
        bool any = !m->checked && !mat_floats_finite(f, t->count);
        for (int64_t i = 0; any && i < t->count; i++)
            if (!isfinite(f[i])) {
                error_set(err, ERR_INVALID, st_shown(st), 0, 0, "%s holds %s at index %lld", t->name,
                          isnan(f[i]) ? "NaN" : "an infinity", (long long)i);
                return NULL;
            }
        return f;
    }
    double *d = xmalloc(sizeof *d * (size_t)t->count);
    bool ok = st_read(st, t, d, err);
    float *f = ok ? xmalloc(sizeof *f * (size_t)t->count) : NULL;
    for (int64_t i = 0; ok && i < t->count; i++) f[i] = (float)d[i];
    free(d);
    *owned = f;
    return f;
}

/* Put tensor name (rows x cols, C order) as array key: columns [c0, c0 + nc)
** of it, or, transposed, its rows [c0, c0 + nc) as columns. A view of the
** numbers where they are (the mapped file, or the tensor's converted copy),
** which the lesson keeps instead of copying. */
static bool put(ModelLesson *m, const char *key, const char *name, long rows, long cols, long c0, long nc,
                bool transposed, Error *err)
{
    float *owned;
    const float *f = tensor(m, name, &owned, err);
    if (!f) return false;
    Arr *a = add_arr(m, key, transposed ? cols : rows, nc);
    a->data = transposed ? f + c0 * cols : f + c0;
    a->owned = owned;
    a->view = true;
    a->transposed = transposed;
    a->ld = cols;
    return true;
}

/* Put a vector (the whole tensor, or n numbers from at) as a row. */
static bool put_row(ModelLesson *m, const char *key, const char *name, long at, long n, Error *err)
{
    const StTensor *t = ckpt_tensor(m->ck, name);
    return put(m, key, name, 1, (long)t->count, at, n < 0 ? (long)t->count : n, false, err);
}

/* The embeddings the first layer reads: GPT-2's token and position
** embeddings added in float32 as torch adds them; BERT's token, segment 0
** and position embeddings added and normalised. */
bool lml_put_input(ModelLesson *m, const ModelConfig *c, const int *ids, int n, Error *err)
{
    bool gpt2 = c->arch == ARCH_GPT2;
    float *ow[5] = { 0 };
    const float *tok = tensor(m, gpt2 ? "wte.weight" : "embeddings.word_embeddings.weight", &ow[0], err);
    const float *pos = tok ? tensor(m, gpt2 ? "wpe.weight" : "embeddings.position_embeddings.weight", &ow[1], err) : NULL;
    const float *typ = pos && !gpt2 ? tensor(m, "embeddings.token_type_embeddings.weight", &ow[2], err) : NULL;
    const float *g = typ ? tensor(m, "embeddings.LayerNorm.weight", &ow[3], err) : NULL;
    const float *b = g ? tensor(m, "embeddings.LayerNorm.bias", &ow[4], err) : NULL;
    bool ok = gpt2 ? pos != NULL : b != NULL;
    int d = c->width;
    if (ok) {
        double *x = xmalloc(sizeof *x * (size_t)n * (size_t)d);
        for (int i = 0; i < n; i++) {
            double *row = x + (size_t)i * (size_t)d;
            for (int j = 0; j < d; j++) {
                float e = tok[(size_t)ids[i] * (size_t)d + (size_t)j];
                if (!gpt2) e += typ[j];
                row[j] = (float)(e + pos[(size_t)i * (size_t)d + (size_t)j]);
            }
            if (gpt2) continue;
            double mean = 0, var = 0;
            for (int j = 0; j < d; j++) mean += row[j];
            mean /= d;
            for (int j = 0; j < d; j++) var += (row[j] - mean) * (row[j] - mean);
            var /= d;
            for (int j = 0; j < d; j++) row[j] = (row[j] - mean) / sqrt(var + c->eps) * g[j] + b[j];
        }
        Arr *a = add_arr(m, "X", n, d);
        a->data = a->owned = x;
        a->f64 = true;
    }
    for (int k = 0; k < 5; k++) free(ow[k]);
    return ok;
}

/* One layer's weights (k from 0) as arrays named L<k>.W_q ... */
bool lml_put_layer(ModelLesson *m, const ModelConfig *c, int k, Error *err)
{
    char key[64], name[160];
    long d = c->width, in = c->inner;
    bool ok = true;
#define KEY(s) (snprintf(key, sizeof key, "L%d.%s", k, s), key)
#define NAME(s) (snprintf(name, sizeof name, s, k), name)
    if (c->arch == ARCH_GPT2) {
        static const char *const qkv[3] = { "W_q", "W_k", "W_v" }, *const bqkv[3] = { "b_q", "b_k", "b_v" };
        for (int j = 0; j < 3 && ok; j++) {
            ok = put(m, KEY(qkv[j]), NAME("h.%d.attn.c_attn.weight"), d, 3 * d, j * d, d, false, err) &&
                 put_row(m, KEY(bqkv[j]), NAME("h.%d.attn.c_attn.bias"), j * d, d, err);
        }
        ok = ok && put(m, KEY("W_o"), NAME("h.%d.attn.c_proj.weight"), d, d, 0, d, false, err) &&
             put_row(m, KEY("b_o"), NAME("h.%d.attn.c_proj.bias"), 0, -1, err) &&
             put_row(m, KEY("ln1_g"), NAME("h.%d.ln_1.weight"), 0, -1, err) &&
             put_row(m, KEY("ln1_b"), NAME("h.%d.ln_1.bias"), 0, -1, err) &&
             put_row(m, KEY("ln2_g"), NAME("h.%d.ln_2.weight"), 0, -1, err) &&
             put_row(m, KEY("ln2_b"), NAME("h.%d.ln_2.bias"), 0, -1, err) &&
             put(m, KEY("W_in"), NAME("h.%d.mlp.c_fc.weight"), d, in, 0, in, false, err) &&
             put_row(m, KEY("b_in"), NAME("h.%d.mlp.c_fc.bias"), 0, -1, err) &&
             put(m, KEY("W_out"), NAME("h.%d.mlp.c_proj.weight"), in, d, 0, d, false, err) &&
             put_row(m, KEY("b_out"), NAME("h.%d.mlp.c_proj.bias"), 0, -1, err);
    } else {
        static const char *const qkv[3] = { "query", "key", "value" }, *const wn[3] = { "W_q", "W_k", "W_v" },
                                 *const bn[3] = { "b_q", "b_k", "b_v" };
        char fmt[96];
        for (int j = 0; j < 3 && ok; j++) {
            snprintf(fmt, sizeof fmt, "encoder.layer.%%d.attention.self.%s.weight", qkv[j]);
            ok = put(m, KEY(wn[j]), NAME(fmt), d, d, 0, d, true, err);
            snprintf(fmt, sizeof fmt, "encoder.layer.%%d.attention.self.%s.bias", qkv[j]);
            ok = ok && put_row(m, KEY(bn[j]), NAME(fmt), 0, -1, err);
        }
        ok = ok && put(m, KEY("W_o"), NAME("encoder.layer.%d.attention.output.dense.weight"), d, d, 0, d, true, err) &&
             put_row(m, KEY("b_o"), NAME("encoder.layer.%d.attention.output.dense.bias"), 0, -1, err) &&
             put_row(m, KEY("ln1_g"), NAME("encoder.layer.%d.attention.output.LayerNorm.weight"), 0, -1, err) &&
             put_row(m, KEY("ln1_b"), NAME("encoder.layer.%d.attention.output.LayerNorm.bias"), 0, -1, err) &&
             put(m, KEY("W_in"), NAME("encoder.layer.%d.intermediate.dense.weight"), in, d, 0, in, true, err) &&
             put_row(m, KEY("b_in"), NAME("encoder.layer.%d.intermediate.dense.bias"), 0, -1, err) &&
             put(m, KEY("W_out"), NAME("encoder.layer.%d.output.dense.weight"), d, in, 0, d, true, err) &&
             put_row(m, KEY("b_out"), NAME("encoder.layer.%d.output.dense.bias"), 0, -1, err) &&
             put_row(m, KEY("ln2_g"), NAME("encoder.layer.%d.output.LayerNorm.weight"), 0, -1, err) &&
             put_row(m, KEY("ln2_b"), NAME("encoder.layer.%d.output.LayerNorm.bias"), 0, -1, err);
    }
#undef KEY
#undef NAME
    return ok;
}

/* The names every layer's setup loads, in the order they are written. */
const char *const lml_layer_mats[LML_NLAYER_MATS] = { "W_q", "W_k", "W_v", "b_q", "b_k", "b_v", "W_o", "b_o", "ln1_g", "ln1_b",
                                          "ln2_g", "ln2_b", "W_in", "b_in", "W_out", "b_out" };

/* GPT-2's unembedding (the token embeddings, turned) and its words. */
bool lml_put_unembed(ModelLesson *m, const ModelConfig *c, const Tokenizer *tok, Error *err)
{
    if (!put(m, "W_U", "wte.weight", c->vocab, c->width, 0, c->vocab, true, err) ||
        !put_row(m, "lnf_g", "ln_f.weight", 0, -1, err) || !put_row(m, "lnf_b", "ln_f.bias", 0, -1, err))
        return false;
    /* the words as numpy's fixed-width bytes ("|S64"), each cut to a token's size */
    char *w = xcalloc((size_t)c->vocab, LESSON_MAX_TOKEN);
    for (int i = 0; i < c->vocab; i++) {
        const char *s = tok_word(tok, i);
        char fallback[24];
        if (!s || !*s) snprintf(fallback, sizeof fallback, "#%d", i), s = fallback;
        size_t n = strlen(s);
        if (n > LESSON_MAX_TOKEN) n = utf8_floor(s, n, LESSON_MAX_TOKEN);
        memcpy(w + (size_t)i * LESSON_MAX_TOKEN, s, n);
    }
    Arr *a = add_arr(m, "vocab", c->vocab, 0);
    a->words = true;
    a->data = a->owned = w;
    return true;
}
