/*
** test_checkpoint.c: model folders (src/core/io/checkpoint.c). Each test
** writes a config.json and a model.safetensors of a small GPT-2 or BERT
** (every tensor the architecture has, zeros), opens it, and breaks it one
** way at a time: a missing file, an architecture attnlab does not read, a
** missing field, heads that do not divide the width, a missing tensor, a
** shape the config does not give, an integer dtype. Each is refused with
** its exact message.
*/
#define _POSIX_C_SOURCE 200809L
#include "suites.h"
#include "core/io/checkpoint.h"
#include "core/lesson/model_cache.h"
#include "core/compute/trace.h"
#include "core/lesson/lesson_model.h"
#include "core/lesson/lessonsave.h"
#include "core/util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir[64];

/* A fresh folder for the files of one test. */
static void setup(void)
{
    tscratch_make(dir, sizeof dir, "checkpoint");
}

/* Remove it and what the test wrote. */
static void teardown(void)
{
    tscratch_remove(dir);
}

/* Write text to dir/name. */
static void put(const char *name, const char *text)
{
    char path[128];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* A tensor to write: name and shape (ndim 1 or 2). */
typedef struct { char name[128]; int ndim; long long d[2]; const char *dtype; } T;

/* dir/model.safetensors holding ts (zeros), F32 unless a dtype is given. */
static void put_tensors(const T *ts, int n)
{
    Buf h = { 0 };
    buf_puts(&h, "{");
    long long at = 0;
    for (int i = 0; i < n; i++) {
        const char *dt = ts[i].dtype ? ts[i].dtype : "F32";
        long long bytes = (strcmp(dt, "F16") && strcmp(dt, "BF16") ? 4 : 2) * ts[i].d[0] * (ts[i].ndim > 1 ? ts[i].d[1] : 1);
        buf_printf(&h, "%s\"%s\": {\"dtype\": \"%s\", \"shape\": [%lld", i ? ", " : "", ts[i].name, dt, ts[i].d[0]);
        if (ts[i].ndim > 1) buf_printf(&h, ", %lld", ts[i].d[1]);
        buf_printf(&h, "], \"data_offsets\": [%lld, %lld]}", at, at + bytes);
        at += bytes;
    }
    buf_puts(&h, "}");
    char path[128];
    snprintf(path, sizeof path, "%s/model.safetensors", dir);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    for (int i = 0; i < 8; i++) fputc((int)((unsigned long long)h.len >> (8 * i) & 0xff), f);
    fwrite(h.s, 1, h.len, f);
    for (long long i = 0; i < at; i++) fputc(0, f);
    ck_assert_int_eq(fclose(f), 0);
    buf_free(&h);
}

/* The tensors of a GPT-2 of 2 layers, 8 wide, MLP 32, 10 words, 16
** positions, each name after prefix. */
static int gpt2_tensors(T *ts, const char *prefix)
{
    int n = 0;
#define ADD(nm, nd, a, b) do { snprintf(ts[n].name, sizeof ts[n].name, "%s%s", prefix, nm); \
        ts[n].ndim = nd; ts[n].d[0] = a; ts[n].d[1] = b; ts[n].dtype = NULL; n++; } while (0)
    ADD("wte.weight", 2, 10, 8);
    ADD("wpe.weight", 2, 16, 8);
    for (int l = 0; l < 2; l++) {
        char b[64];
        static const struct { const char *s; int nd; int a, b; } parts[] = {
            { "ln_1.weight", 1, 8, 0 }, { "ln_1.bias", 1, 8, 0 }, { "attn.c_attn.weight", 2, 8, 24 },
            { "attn.c_attn.bias", 1, 24, 0 }, { "attn.c_proj.weight", 2, 8, 8 }, { "attn.c_proj.bias", 1, 8, 0 },
            { "ln_2.weight", 1, 8, 0 }, { "ln_2.bias", 1, 8, 0 }, { "mlp.c_fc.weight", 2, 8, 32 },
            { "mlp.c_fc.bias", 1, 32, 0 }, { "mlp.c_proj.weight", 2, 32, 8 }, { "mlp.c_proj.bias", 1, 8, 0 },
        };
        for (size_t k = 0; k < sizeof parts / sizeof *parts; k++) {
            snprintf(b, sizeof b, "h.%d.%s", l, parts[k].s);
            ADD(b, parts[k].nd, parts[k].a, parts[k].b);
        }
    }
    ADD("ln_f.weight", 1, 8, 0);
    ADD("ln_f.bias", 1, 8, 0);
#undef ADD
    return n;
}

static const char *gpt2_config = "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 2, \"n_embd\": 8, "
                                 "\"vocab_size\": 10, \"n_positions\": 16, \"n_inner\": null, "
                                 "\"activation_function\": \"gelu_new\", \"layer_norm_epsilon\": 1e-05}";

/* Open dir; it must fail with exactly msg after "FILE: error: ", FILE in dir. */
static void refused(const char *file, const char *msg)
{
    Error e;
    ck_assert_ptr_null(ckpt_open(dir, &e));
    char line[ERROR_LINE_MAX], want[ERROR_LINE_MAX];
    error_format(&e, line, sizeof line);
    snprintf(want, sizeof want, "%s/%s: error: %s", dir, file, msg);
    ck_assert_str_eq(line, want);
}

START_TEST(test_gpt2_folder)
{
    T ts[64];
    for (int pass = 0; pass < 2; pass++) {          /* GPT2Model's names, then GPT2LMHeadModel's */
        put("config.json", gpt2_config);
        put_tensors(ts, gpt2_tensors(ts, pass ? "transformer." : ""));
        Error e;
        Checkpoint *c = ckpt_open(dir, &e);
        ck_assert_msg(c != NULL, "%s", e.msg);
        const ModelConfig *m = ckpt_config(c);
        ck_assert_int_eq(m->arch, ARCH_GPT2);
        ck_assert_int_eq(m->layers, 2);
        ck_assert_int_eq(m->inner, 32);                 /* n_inner null: 4 x the width */
        ck_assert_str_eq(m->activation, "gelu_tanh");
        ck_assert(m->eps == 1e-5);
        const StTensor *w = ckpt_tensor(c, "h.1.mlp.c_fc.weight");
        ck_assert_ptr_nonnull(w);
        ck_assert_int_eq(w->shape[1], 32);
        ckpt_free(c);
    }
}
END_TEST

START_TEST(test_gpt2_folder_refused)
{
    T ts[64];
    int n = gpt2_tensors(ts, "");
    refused("config.json", "cannot open: No such file or directory");
    put("config.json", "{\"model_type\": \"llama\"}");
    refused("config.json", "model_type llama is not one attnlab reads (gpt2, bert)");
    put("config.json", "[]");
    refused("config.json", "not a JSON object");
    put("config.json", "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 2, \"n_embd\": 8, \"vocab_size\": 10}");
    refused("config.json", "no n_positions");
    put("config.json", "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 3, \"n_embd\": 8, \"vocab_size\": 10, "
                       "\"n_positions\": 16}");
    refused("config.json", "3 heads do not divide the width, 8");
    put("config.json", "{\"model_type\": \"gpt2\", \"n_layer\": 2.5, \"n_head\": 2, \"n_embd\": 8}");
    refused("config.json", "n_layer is not a whole number from 1 to 100000000");
    put("config.json", "{\"model_type\": \"gpt2\", \"n_layer\": 2, \"n_head\": 2, \"n_embd\": 8, \"vocab_size\": 10, "
                       "\"n_positions\": 16, \"activation_function\": \"relu\"}");
    refused("config.json", "activation_function relu is not one attnlab computes (gelu_new, gelu)");
    put("config.json", gpt2_config);
    refused("model.safetensors", "cannot open: No such file or directory");
    put_tensors(ts, n - 1);                             /* no ln_f.bias */
    refused("model.safetensors", "no tensor ln_f.bias, which a gpt2 checkpoint has");
    put_tensors(ts + 1, n - 1);                         /* no wte */
    refused("model.safetensors", "no tensor wte.weight: not a gpt2 checkpoint, or not one of its names");
    T fewer[64];
    memcpy(fewer, ts, sizeof *ts * (size_t)n);
    memmove(&fewer[5], &fewer[6], sizeof *fewer * (size_t)(n - 6));   /* no h.0.attn.c_attn.bias */
    put_tensors(fewer, n - 1);
    refused("model.safetensors", "no tensor h.0.attn.c_attn.bias, which a gpt2 checkpoint has (config.json says 2 "
                                 "layers)");
    ts[16].d[1] = 31;                                   /* h.1.attn.c_attn: a wrong shape */
    put_tensors(ts, n);
    refused("model.safetensors", "h.1.attn.c_attn.weight: shape [8, 31], but config.json says [8, 24]");
}
END_TEST

START_TEST(test_bert_folder)
{
    static const char *cfg = "{\"model_type\": \"bert\", \"num_hidden_layers\": 1, \"num_attention_heads\": 2, "
                             "\"hidden_size\": 8, \"intermediate_size\": 16, \"vocab_size\": 12, "
                             "\"max_position_embeddings\": 20, \"type_vocab_size\": 2, \"layer_norm_eps\": 1e-12, "
                             "\"hidden_act\": \"gelu\"}";
    static const struct { const char *s; int nd; int a, b; } parts[] = {
        { "embeddings.word_embeddings.weight", 2, 12, 8 }, { "embeddings.position_embeddings.weight", 2, 20, 8 },
        { "embeddings.token_type_embeddings.weight", 2, 2, 8 }, { "embeddings.LayerNorm.gamma", 1, 8, 0 },
        { "embeddings.LayerNorm.beta", 1, 8, 0 },
        { "encoder.layer.0.attention.self.query.weight", 2, 8, 8 }, { "encoder.layer.0.attention.self.query.bias", 1, 8, 0 },
        { "encoder.layer.0.attention.self.key.weight", 2, 8, 8 }, { "encoder.layer.0.attention.self.key.bias", 1, 8, 0 },
        { "encoder.layer.0.attention.self.value.weight", 2, 8, 8 }, { "encoder.layer.0.attention.self.value.bias", 1, 8, 0 },
        { "encoder.layer.0.attention.output.dense.weight", 2, 8, 8 },
        { "encoder.layer.0.attention.output.dense.bias", 1, 8, 0 },
        { "encoder.layer.0.attention.output.LayerNorm.weight", 1, 8, 0 },
        { "encoder.layer.0.attention.output.LayerNorm.bias", 1, 8, 0 },
        { "encoder.layer.0.intermediate.dense.weight", 2, 16, 8 }, { "encoder.layer.0.intermediate.dense.bias", 1, 16, 0 },
        { "encoder.layer.0.output.dense.weight", 2, 8, 16 }, { "encoder.layer.0.output.dense.bias", 1, 8, 0 },
        { "encoder.layer.0.output.LayerNorm.weight", 1, 8, 0 }, { "encoder.layer.0.output.LayerNorm.bias", 1, 8, 0 },
    };
    T ts[32];
    int n = (int)(sizeof parts / sizeof *parts);
    for (int i = 0; i < n; i++) {
        snprintf(ts[i].name, sizeof ts[i].name, "bert.%s", parts[i].s);   /* BertForMaskedLM's names */
        ts[i].ndim = parts[i].nd;
        ts[i].d[0] = parts[i].a;
        ts[i].d[1] = parts[i].b;
        ts[i].dtype = i == 3 ? "BF16" : NULL;
    }
    put("config.json", cfg);
    put_tensors(ts, n);
    Error e;
    Checkpoint *c = ckpt_open(dir, &e);
    ck_assert_msg(c != NULL, "%s", e.msg);
    ck_assert_int_eq(ckpt_config(c)->arch, ARCH_BERT);
    ck_assert_int_eq(ckpt_config(c)->types, 2);
    ck_assert_str_eq(ckpt_config(c)->activation, "gelu");
    ck_assert_ptr_nonnull(ckpt_tensor(c, "embeddings.LayerNorm.gamma"));  /* found under its older name */
    ckpt_free(c);
    ts[6].dtype = "I32";                                /* query.bias of integers */
    put_tensors(ts, n);
    refused("model.safetensors", "bert.encoder.layer.0.attention.self.query.bias: dtype I32, not F64, F32, F16 or BF16");
}
END_TEST

/* The small GPT-2 folder of gpt2_tensors (zeros) with a tokenizer of ten
** words: the two merges make "ab" and "Ġa". */
static void gpt2_with_tokenizer(void)
{
    T ts[64];
    put("config.json", gpt2_config);
    put_tensors(ts, gpt2_tensors(ts, "transformer."));
    put("vocab.json", "{\"a\": 0, \"b\": 1, \"c\": 2, \"\\u0120\": 3, \"\\u0120a\": 4, \"ab\": 5, \"x\": 6, \"y\": 7, "
                      "\"z\": 8, \"<|endoftext|>\": 9}");
    put("merges.txt", "#version: 0.2\n\xc4\xa0 a\na b\n");
}

/* A lesson reading the folder with text and more lines (after the setup's). */
static Lesson *model_lesson(const char *text, const char *more, Error *e)
{
    char lesson[1024], path[128];
    snprintf(lesson, sizeof lesson, "title: t\n\n[setup: Reading]\nmodel: \"%s\"\ntext: \"%s\"\n%s", dir, text, more);
    snprintf(path, sizeof path, "%s/m.lesson", dir);
    return lesson_parse(lesson, strlen(lesson), path, e);
}

/* The message of a lesson that does not load, without the folder's name. */
static void model_refused(const char *text, const char *more, const char *msg)
{
    Error e;
    ck_assert_ptr_null(model_lesson(text, more, &e));
    char line[ERROR_LINE_MAX], want[ERROR_LINE_MAX];
    error_format(&e, line, sizeof line);
    snprintf(want, sizeof want, "%s/m.lesson:%s", dir, msg);
    ck_assert_str_eq(line, want);
}

START_TEST(test_model_lesson)
{
    gpt2_with_tokenizer();
    Error e;
    Lesson *L = model_lesson("ab a", "\n[multi_head]\n\n[next_token]\n", &e);
    ck_assert_msg(L != NULL, "%s", e.msg);
    ck_assert(L->from_model);
    ck_assert_int_eq(L->nsetups, 2);                    /* a setup a layer */
    ck_assert_int_eq(L->nstages, 3);                    /* multi_head for each layer, next_token once */
    ck_assert_int_eq(L->setups[0].nq, 2);
    ck_assert_str_eq(L->setups[0].qtokens[0], "ab");
    ck_assert_str_eq(L->setups[0].qtokens[1], "\xc4\xa0" "a");
    ck_assert_str_eq(L->stages[1].title, "Multi-head attention, layer 2");
    const LessonMatrix *w = lesson_matrix(&L->setups[1], "W_U");
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_null(w->m->data);                     /* a view of the mapped file, not a copy */
    ck_assert_int_eq(w->m->rows, 8);
    ck_assert_int_eq(w->m->cols, 10);
    Trace *tr = attn_run(L, &e);
    ck_assert_msg(tr != NULL, "%s", e.msg);
    ck_assert_ptr_null(w->m->data);                     /* the products read the view as it is */
    ck_assert(mat_get(w->m, 7, 9) == 0.0);              /* a look at a cell makes the doubles */
    ck_assert_ptr_nonnull(w->m->data);
    trace_free(tr);
    /* its numbers are the model's: an edit is not saved into the lesson */
    LsaveEdit ed = { .setup = 0, .row = 0, .col = 0, .value = 1.0 };
    snprintf(ed.matrix, sizeof ed.matrix, "W_q");
    size_t n;
    ck_assert_ptr_null(lsave_apply("", 0, L, &ed, 1, &n, &e));
    lesson_free(L);
    /* the sentence the window's field starts with, and a new one in its place */
    const char *src = "title: t\n[setup]\nmodel: \"m\"\ntext: \"old \\\"one\\\"\"\n[softmax]\n";
    char *now = lml_sentence(src, strlen(src));
    ck_assert_str_eq(now, "old \"one\"");
    free(now);
    char *edited = lml_with_text(src, strlen(src), "new\tone", &n);
    ck_assert_str_eq(edited, "title: t\n[setup]\nmodel: \"m\"\ntext: \"new\\x09one\"\n[softmax]\n");
    free(edited);
}
END_TEST

START_TEST(test_model_folder_shared)
{
    /* lessons of one folder share its checkpoint and tokenizer while any
    ** lives (a typed sentence: the new lesson is made before the old goes) */
    gpt2_with_tokenizer();
    Error e;
    ModelFolder *f = mf_open(dir, &e), *g = mf_open(dir, &e);
    ck_assert_msg(f != NULL, "%s", e.msg);
    ck_assert_ptr_eq(f, g);
    ck_assert(!mf_checked(f));
    Lesson *a = model_lesson("ab a", "", &e);
    ck_assert_msg(a != NULL, "%s", e.msg);
    ck_assert(mf_checked(f));                           /* its weights were looked at once */
    mf_free(g);
    Lesson *b = model_lesson("a b c", "", &e);
    ck_assert_msg(b != NULL, "%s", e.msg);
    lesson_free(a);                                     /* the older goes first, as in the window */
    mf_free(f);
    Trace *t = attn_run(b, &e);
    ck_assert_msg(t != NULL, "%s", e.msg);
    ck_assert_int_eq(b->setups[0].nq, 5);                /* a, Ġ, b, Ġ, c */
    trace_free(t);
    /* a folder whose files changed is opened again, not taken from the last lesson */
    char from[128], to[128];
    snprintf(from, sizeof from, "%s/new.json", dir);
    snprintf(to, sizeof to, "%s/config.json", dir);
    put("new.json", "{\"model_type\": \"gpt2\", \"n_layer\": 3, \"n_head\": 2, \"n_embd\": 8, \"vocab_size\": 10, "
                    "\"n_positions\": 16}");
    ck_assert_int_eq(rename(from, to), 0);
    ck_assert_ptr_null(model_lesson("ab", "", &e));
    ck_assert_msg(strstr(e.msg, "h.2.") != NULL, "the third layer's tensors are missing: %s", e.msg);
    lesson_free(b);
}
END_TEST

START_TEST(test_two_models)
{
    /* the same model twice, a head switched off in the second, and a
    ** compare stage: the second model starts afresh (no stream, no
    ** unembedding carried over), and its compare stages read the first
    ** model's same layer as A */
    gpt2_with_tokenizer();
    char lesson[1024], path[128];
    snprintf(lesson, sizeof lesson,
             "title: t\n[setup: On]\nmodel: \"%s\"\ntext: \"ab a\"\n\n[setup: Off]\nmodel: \"%s\"\ntext: \"ab a\"\n"
             "ablate: 1.2\n\n[compare: Weights]\nhead: 2\n\n[compare: Guess]\nshow: next_token\n", dir, dir);
    snprintf(path, sizeof path, "%s/two.lesson", dir);
    Error e;
    Lesson *L = lesson_parse(lesson, strlen(lesson), path, &e);
    ck_assert_msg(L != NULL, "%s", e.msg);
    ck_assert_int_eq(L->nsetups, 4);
    ck_assert_ptr_nonnull(L->setups[1].unembed);        /* the first model's last layer unembeds */
    ck_assert_ptr_null(L->setups[2].unembed);           /* the second's first does not */
    ck_assert_ptr_null(L->setups[2].final_norm.gamma);
    ck_assert(!L->setups[2].residual && L->setups[3].residual);
    ck_assert_uint_eq(L->setups[2].ablated, 2u);        /* head 2 of its layer 1 */
    ck_assert_int_eq(L->nstages, 9);                    /* the first's six by default; weights for each layer, the guess */
    ck_assert_str_eq(L->stages[6].title, "Weights, layer 1");
    ck_assert_str_eq(L->stages[8].title, "Guess");
    Trace *t = attn_run(L, &e);
    ck_assert_msg(t != NULL, "%s", e.msg);
    trace_free(t);
    lesson_free(L);
    /* five models are one too many */
    Buf b = { 0 };
    buf_puts(&b, "title: t\n");
    for (int i = 0; i < 5; i++) buf_printf(&b, "[setup]\nmodel: \"%s\"\ntext: \"a\"\nlayers: 1\n", dir);
    ck_assert_ptr_null(lesson_parse(b.s, b.len, path, &e));
    ck_assert_str_eq(e.msg, "a lesson reads at most 4 models");
    ck_assert_int_eq(e.line, 19);                       /* the fifth model: line */
    buf_free(&b);
}
END_TEST

START_TEST(test_model_lesson_refused)
{
    gpt2_with_tokenizer();
    model_refused("a a a a a a a a a a a a a a a a a", "", "5:1: error: the text is 17 tokens, over the model's limit of 16");
    model_refused("ab", "layers: 1 3\n", "6:11: error: expected layer numbers from 1 to 2 (such as 1 6 2, or 1-2)");
    model_refused("ab", "heads: 2\n", "6:1: error: a setup that reads a model takes model:, text:, layers: and ablate: (its "
                  "matrices come from the model's folder)");
    model_refused("ab", "ablate: 1.3\n", "6:9: error: expected heads as LAYER.HEAD (layers 1 to 2, heads 1 to 2: 9.6 "
                  "10.1), then mean if they are replaced by their mean");
    model_refused("ab", "\n[multi_head: x\n", "7:1: error: expected ']' to close the section header");
    model_refused("abd", "", "5:1: error: the vocabulary (vocab.json) has no word for \"d\"");
}
END_TEST

START_TEST(test_unembed_later)
{
    /* 4,096 words: the logits wait until asked for, then equal the product */
    const char *text = "title: t\n[setup]\nseed: 3\ntokens: a b c\nX = randn 3x8\nW_U = load \"w.npy\"\n"
                       "lnf_g = ones 1x8\nlnf_b = zeros 1x8\nfinal_norm: lnf_g lnf_b\nunembed: W_U\n"
                       "vocab = load \"v.npy\"\n[next_token]\n";
    static double w[8 * 4096];
    static char words[4096][16];
    for (int i = 0; i < 4096; i++) snprintf(words[i], sizeof words[i], "w%d", i);
    static const long vshape[1] = { 4096 };
    for (int i = 0; i < 8 * 4096; i++) w[i] = sin(i * 0.37);
    static const long shape[2] = { 8, 4096 };
    LessonArray a[2] = { { .file = "w.npy", .dtype = "<f8", .ndim = 2, .shape = shape, .data = w, .len = sizeof w },
                         { .file = "v.npy", .dtype = "|S16", .ndim = 1, .shape = vshape, .data = words, .len = sizeof words } };
    Error e;
    Lesson *L = lesson_parse_with(text, strlen(text), "u.lesson", a, 2, &e);
    ck_assert_msg(L != NULL, "%s", e.msg);
    Trace *tr = attn_run(L, &e);
    ck_assert_msg(tr != NULL, "%s", e.msg);
    ck_assert(tr->s[0].unembed_later);
    const Mat *ln = trace_at(tr, 0, trace_ref(TK_FINAL_LN, 0)), *W = lesson_matrix(&L->setups[0], "W_U")->m;
    const Mat *lg = trace_at(tr, 0, trace_ref(TK_LOGITS, 0)), *p = trace_at(tr, 0, trace_ref(TK_PROBS, 0));
    ck_assert(!tr->s[0].unembed_later);
    ck_assert_ptr_nonnull(lg);
    ck_assert_ptr_nonnull(p);
    for (int i = 0; i < 3; i++) {
        double sum = 0, total = 0;
        for (int k = 0; k < 8; k++) sum += mat_get(ln, i, k) * mat_get(W, k, 4095);
        ck_assert(sum == mat_get(lg, i, 4095));          /* the textbook order, bit for bit */
        for (int j = 0; j < 4096; j++) total += mat_get(p, i, j);
        ck_assert(fabs(total - 1) < 1e-12);
    }
    ck_assert_ptr_eq(trace_at(tr, 0, trace_ref(TK_LOGITS, 0)), lg);   /* once */
    trace_free(tr);
    lesson_free(L);
}
END_TEST

/* The suite. */
Suite *checkpoint_suite(void)
{
    Suite *s = suite_create("checkpoint");
    TCase *tc = tcase_create("core");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, test_gpt2_folder);
    tcase_add_test(tc, test_gpt2_folder_refused);
    tcase_add_test(tc, test_bert_folder);
    tcase_add_test(tc, test_model_lesson);
    tcase_add_test(tc, test_model_lesson_refused);
    tcase_add_test(tc, test_model_folder_shared);
    tcase_add_test(tc, test_two_models);
    tcase_add_test(tc, test_unembed_later);
    suite_add_tcase(s, tc);
    return s;
}
