/*
** checkpoint.c: a model folder checked against its architecture (checkpoint.h).
*/
#define _POSIX_C_SOURCE 200809L
#include "checkpoint.h"
#include "fileio.h"
#include "core/util.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The sizes a tensor's shape is made of. */
typedef enum Dim { D_W, D_3W, D_INNER, D_VOCAB, D_POS, D_TYPES } Dim;

/* A tensor an architecture needs: its name (with %d for the layer when
** per_layer), the other name of a layer norm's (or NULL), and its shape. */
typedef struct Need {
    const char *name, *alias;
    bool per_layer;
    int ndim;
    Dim dims[2];
} Need;

#define VEC(n, d) { n, NULL, false, 1, { d, 0 } }
#define MAT(n, a, b) { n, NULL, false, 2, { a, b } }
#define LVEC(n, d) { n, NULL, true, 1, { d, 0 } }
#define LMAT(n, a, b) { n, NULL, true, 2, { a, b } }
#define LNORM(n, alias) { n, alias, true, 1, { D_W, 0 } }
#define NORM(n, alias) { n, alias, false, 1, { D_W, 0 } }

/* GPT-2: Conv1D weights are (in, out). */
static const Need gpt2_needs[] = {
    MAT("wte.weight", D_VOCAB, D_W), MAT("wpe.weight", D_POS, D_W),
    LNORM("h.%d.ln_1.weight", NULL), LNORM("h.%d.ln_1.bias", NULL),
    LMAT("h.%d.attn.c_attn.weight", D_W, D_3W), LVEC("h.%d.attn.c_attn.bias", D_3W),
    LMAT("h.%d.attn.c_proj.weight", D_W, D_W), LVEC("h.%d.attn.c_proj.bias", D_W),
    LNORM("h.%d.ln_2.weight", NULL), LNORM("h.%d.ln_2.bias", NULL),
    LMAT("h.%d.mlp.c_fc.weight", D_W, D_INNER), LVEC("h.%d.mlp.c_fc.bias", D_INNER),
    LMAT("h.%d.mlp.c_proj.weight", D_INNER, D_W), LVEC("h.%d.mlp.c_proj.bias", D_W),
    NORM("ln_f.weight", NULL), NORM("ln_f.bias", NULL),
};

/* BERT: Linear weights are (out, in); layer norms by either name. */
static const Need bert_needs[] = {
    MAT("embeddings.word_embeddings.weight", D_VOCAB, D_W),
    MAT("embeddings.position_embeddings.weight", D_POS, D_W),
    MAT("embeddings.token_type_embeddings.weight", D_TYPES, D_W),
    NORM("embeddings.LayerNorm.weight", "embeddings.LayerNorm.gamma"),
    NORM("embeddings.LayerNorm.bias", "embeddings.LayerNorm.beta"),
    LMAT("encoder.layer.%d.attention.self.query.weight", D_W, D_W), LVEC("encoder.layer.%d.attention.self.query.bias", D_W),
    LMAT("encoder.layer.%d.attention.self.key.weight", D_W, D_W), LVEC("encoder.layer.%d.attention.self.key.bias", D_W),
    LMAT("encoder.layer.%d.attention.self.value.weight", D_W, D_W), LVEC("encoder.layer.%d.attention.self.value.bias", D_W),
    LMAT("encoder.layer.%d.attention.output.dense.weight", D_W, D_W),
    LVEC("encoder.layer.%d.attention.output.dense.bias", D_W),
    LNORM("encoder.layer.%d.attention.output.LayerNorm.weight", "encoder.layer.%d.attention.output.LayerNorm.gamma"),
    LNORM("encoder.layer.%d.attention.output.LayerNorm.bias", "encoder.layer.%d.attention.output.LayerNorm.beta"),
    LMAT("encoder.layer.%d.intermediate.dense.weight", D_INNER, D_W), LVEC("encoder.layer.%d.intermediate.dense.bias", D_INNER),
    LMAT("encoder.layer.%d.output.dense.weight", D_W, D_INNER), LVEC("encoder.layer.%d.output.dense.bias", D_W),
    LNORM("encoder.layer.%d.output.LayerNorm.weight", "encoder.layer.%d.output.LayerNorm.gamma"),
    LNORM("encoder.layer.%d.output.LayerNorm.bias", "encoder.layer.%d.output.LayerNorm.beta"),
};

/* The architectures: config.json's model_type, the prefixes their heads
** put before the names, their tensors, and config.json's fields for the
** sizes (NULL: none; the second name is an older spelling). */
static const struct {
    const char *name;
    const char *prefixes[4];
    const Need *needs;
    int nneeds;
    const char *layers, *heads, *width, *inner, *vocab, *positions, *positions2, *types, *eps, *act;
    double eps_default;
    const char *act_default;
} archs[ARCH_COUNT] = {
    [ARCH_GPT2] = { "gpt2", { "", "transformer.", NULL }, gpt2_needs, (int)(sizeof gpt2_needs / sizeof *gpt2_needs),
                    "n_layer", "n_head", "n_embd", "n_inner", "vocab_size", "n_positions", "n_ctx", NULL,
                    "layer_norm_epsilon", "activation_function", 1e-5, "gelu_new" },
    [ARCH_BERT] = { "bert", { "", "bert.", NULL }, bert_needs, (int)(sizeof bert_needs / sizeof *bert_needs),
                    "num_hidden_layers", "num_attention_heads", "hidden_size", "intermediate_size", "vocab_size",
                    "max_position_embeddings", NULL, "type_vocab_size", "layer_norm_eps", "hidden_act", 1e-12,
                    "gelu" },
};

/* The name in config.json of architecture a. */
const char *ckpt_arch_name(ModelArch a)
{
    assert(a >= 0 && a < ARCH_COUNT);
    return archs[a].name;
}

#include <cjson/cJSON.h>

struct Checkpoint {
    ModelConfig cfg;
    SafeTensors *st;
    const char *prefix;
};

/* A positive whole field of the config, or dflt when it is missing or null
** (dflt 0: it must be there). */
static bool config_int(const cJSON *root, const char *field, int dflt, int *out, const char *file, Error *err)
{
    const cJSON *j = field ? cJSON_GetObjectItemCaseSensitive(root, field) : NULL;
    if (!j || cJSON_IsNull(j)) {
        if (dflt > 0) {
            *out = dflt;
            return true;
        }
        return error_set(err, ERR_INVALID, file, 0, 0, "no %s", field ? field : "size");
    }
    if (!cJSON_IsNumber(j) || j->valuedouble != floor(j->valuedouble) || j->valuedouble < 1 || j->valuedouble > 1e8)
        return error_set(err, ERR_INVALID, file, 0, 0, "%s is not a whole number from 1 to 100000000", field);
    *out = (int)j->valuedouble;
    return true;
}

/* config.json read into c->cfg. */
static bool read_config(Checkpoint *c, const char *dir, Error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/config.json", dir);
    char *shown = util_shown(path);
    size_t len;
    char *text = fileio_read(path, CKPT_MAX_CONFIG, &len, err);
    cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
    bool ok = false;
    if (!text) goto done;
    if (!root || !cJSON_IsObject(root)) {
        error_set(err, ERR_INVALID, shown, 0, 0, "not a JSON object");
        goto done;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(root, "model_type");
    if (!cJSON_IsString(type)) {
        error_set(err, ERR_INVALID, shown, 0, 0, "no model_type: attnlab reads gpt2 and bert");
        goto done;
    }
    int a = 0;
    while (a < ARCH_COUNT && strcmp(type->valuestring, archs[a].name)) a++;
    if (a == ARCH_COUNT) {
        char *t = util_shown(type->valuestring);
        error_set(err, ERR_INVALID, shown, 0, 0, "model_type %.60s is not one attnlab reads (gpt2, bert)", t);
        free(t);
        goto done;
    }
    ModelConfig *m = &c->cfg;
    m->arch = (ModelArch)a;
    const char *pos = archs[a].positions2 && cJSON_GetObjectItemCaseSensitive(root, archs[a].positions2)
                      && !cJSON_GetObjectItemCaseSensitive(root, archs[a].positions) ? archs[a].positions2
                      : archs[a].positions;     /* (an older spelling, when only it is there) */
    if (!config_int(root, archs[a].layers, 0, &m->layers, shown, err)
        || !config_int(root, archs[a].heads, 0, &m->heads, shown, err)
        || !config_int(root, archs[a].width, 0, &m->width, shown, err)
        || !config_int(root, archs[a].vocab, 0, &m->vocab, shown, err)
        || !config_int(root, pos, 0, &m->positions, shown, err)
        || !config_int(root, archs[a].inner, a == ARCH_GPT2 ? 4 * m->width : 0, &m->inner, shown, err)
        || (archs[a].types && !config_int(root, archs[a].types, 0, &m->types, shown, err)))
        goto done;
    if (m->width % m->heads) {
        error_set(err, ERR_INVALID, shown, 0, 0, "%d heads do not divide the width, %d", m->heads, m->width);
        goto done;
    }
    const cJSON *eps = cJSON_GetObjectItemCaseSensitive(root, archs[a].eps);
    m->eps = cJSON_IsNumber(eps) ? eps->valuedouble : archs[a].eps_default;
    if (!(m->eps > 0 && m->eps < 1)) {
        error_set(err, ERR_INVALID, shown, 0, 0, "%s is not a small positive number", archs[a].eps);
        goto done;
    }
    const cJSON *act = cJSON_GetObjectItemCaseSensitive(root, archs[a].act);
    const char *an = cJSON_IsString(act) ? act->valuestring : archs[a].act_default;
    if (!strcmp(an, "gelu_new") || !strcmp(an, "gelu_pytorch_tanh")) m->activation = "gelu_tanh";
    else if (!strcmp(an, "gelu")) m->activation = "gelu";
    else {
        char *t = util_shown(an);
        error_set(err, ERR_INVALID, shown, 0, 0, "%s %.40s is not one attnlab computes (gelu_new, gelu)",
                  archs[a].act, t);
        free(t);
        goto done;
    }
    ok = true;
done:
    cJSON_Delete(root);
    free(text);
    free(shown);
    return ok;
}

/* The size d stands for. */
static int64_t dim(const ModelConfig *m, Dim d)
{
    switch (d) {
    case D_W: return m->width;
    case D_3W: return 3 * (int64_t)m->width;
    case D_INNER: return m->inner;
    case D_VOCAB: return m->vocab;
    case D_POS: return m->positions;
    case D_TYPES: return m->types;
    }
    return 0;
}

/* The tensor called name with the folder's prefix, or NULL. */
static const StTensor *find(const Checkpoint *c, const char *prefix, const char *name)
{
    char full[512];
    snprintf(full, sizeof full, "%s%s", prefix, name);
    return st_find(c->st, full);
}

/* Every tensor the architecture needs, there, of a number dtype, with the
** config's shape. */
static bool check_tensors(Checkpoint *c, const char *shown, Error *err)
{
    const ModelConfig *m = &c->cfg;
    const Need *needs = archs[m->arch].needs;
    for (int i = 0; i < archs[m->arch].nneeds; i++) {
        const Need *n = &needs[i];
        for (int l = 0; l < (n->per_layer ? m->layers : 1); l++) {
            char name[256], alias[256] = "";
            snprintf(name, sizeof name, n->name, l);
            if (n->alias) snprintf(alias, sizeof alias, n->alias, l);
            const StTensor *t = find(c, c->prefix, name);
            if (!t && alias[0]) t = find(c, c->prefix, alias);
            if (!t && n->per_layer)
                return error_set(err, ERR_INVALID, shown, 0, 0, "no tensor %s%s, which a %s checkpoint has "
                                 "(config.json says %d layers)", c->prefix, name, archs[m->arch].name, m->layers);
            if (!t)
                return error_set(err, ERR_INVALID, shown, 0, 0, "no tensor %s%s, which a %s checkpoint has",
                                 c->prefix, name, archs[m->arch].name);
            if (!st_dtype_number(t->dtype))
                return error_set(err, ERR_INVALID, shown, 0, 0, "%s: dtype %s, not F64, F32, F16 or BF16", t->name,
                                 st_dtype_name(t->dtype));
            bool same = t->ndim == n->ndim;
            for (int k = 0; same && k < n->ndim; k++) same = t->shape[k] == dim(m, n->dims[k]);
            if (!same) {
                char got[160] = "", want[80] = "";
                for (int k = 0; k < t->ndim; k++)
                    snprintf(got + strlen(got), sizeof got - strlen(got), "%s%lld", k ? ", " : "", (long long)t->shape[k]);
                for (int k = 0; k < n->ndim; k++)
                    snprintf(want + strlen(want), sizeof want - strlen(want), "%s%lld", k ? ", " : "",
                             (long long)dim(m, n->dims[k]));
                return error_set(err, ERR_INVALID, shown, 0, 0, "%s: shape [%s], but config.json says [%s]", t->name,
                                 got, want);
            }
        }
    }
    return true;
}

/* Open the folder. */
Checkpoint *ckpt_open(const char *dir, Error *err)
{
    Checkpoint *c = xcalloc(1, sizeof *c);
    if (!read_config(c, dir, err)) {
        ckpt_free(c);
        return NULL;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    c->st = st_open(path, err);
    if (!c->st) {
        ckpt_free(c);
        return NULL;
    }
    const Need *first = &archs[c->cfg.arch].needs[0];
    c->prefix = NULL;
    for (int i = 0; archs[c->cfg.arch].prefixes[i]; i++)
        if (find(c, archs[c->cfg.arch].prefixes[i], first->name)) {
            c->prefix = archs[c->cfg.arch].prefixes[i];
            break;
        }
    char *shown = util_shown(path);
    bool ok = c->prefix ? check_tensors(c, shown, err)
                        : error_set(err, ERR_INVALID, shown, 0, 0, "no tensor %s: not a %s checkpoint, or not one of "
                                    "its names", first->name, archs[c->cfg.arch].name);
    free(shown);
    if (!ok) {
        ckpt_free(c);
        return NULL;
    }
    error_clear(err);
    return c;
}

/* Release. */
void ckpt_free(Checkpoint *c)
{
    if (!c) return;
    st_free(c->st);
    free(c);
}

/* The sizes. */
const ModelConfig *ckpt_config(const Checkpoint *c)
{
    return &c->cfg;
}

/* A tensor by its name without the prefix. */
const StTensor *ckpt_tensor(const Checkpoint *c, const char *name)
{
    const StTensor *t = find(c, c->prefix, name);
    const Need *needs = archs[c->cfg.arch].needs;
    for (int i = 0; !t && i < archs[c->cfg.arch].nneeds; i++) {
        const Need *n = &needs[i];
        for (int l = 0; !t && n->alias && l < (n->per_layer ? c->cfg.layers : 1); l++) {
            char own[256], alias[256];
            snprintf(own, sizeof own, n->name, l);
            snprintf(alias, sizeof alias, n->alias, l);
            if (!strcmp(own, name)) t = find(c, c->prefix, alias);
        }
    }
    return t;
}

/* The tensors' file. */
const SafeTensors *ckpt_tensors(const Checkpoint *c)
{
    return c->st;
}

