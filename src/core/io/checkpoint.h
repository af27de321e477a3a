/*
** checkpoint.h: a Hugging Face model folder (config.json and
** model.safetensors), checked against what its architecture must hold.
**
** A folder downloaded from the Hugging Face hub for GPT-2 (GPT2Model or
** GPT2LMHeadModel) or BERT (BertModel and the Bert* heads) holds
** config.json, which says the architecture ("model_type") and its sizes,
** and model.safetensors, which holds the weights by name. ckpt_open reads
** the one (cJSON), opens the other (safetensors.h), finds the names'
** prefix ("transformer.", "bert." or none) and checks that every tensor the
** architecture needs is there with the shape the config gives and a number
** dtype, before anything is computed: one table per architecture
** (checkpoint.c) says which names and which shapes. Names are asked for
** without the prefix ("h.0.attn.c_attn.weight"); BERT's layer norms are
** found under either of their names (weight/bias or gamma/beta).
**
**   Error err;
**   Checkpoint *c = ckpt_open("models/gpt2", &err);
**   const ModelConfig *cfg = ckpt_config(c);            // 12 layers, 768 wide ...
**   const StTensor *w = ckpt_tensor(c, "h.0.attn.c_attn.weight");
**   ckpt_free(c);
**
** Errors name the file at fault (config.json or model.safetensors) and the
** tensor or field: "model.safetensors: error: h.3.mlp.c_fc.weight: shape
** [768, 3000], but config.json says [768, 3072]".
*/
#ifndef ATTNLAB_CHECKPOINT_H
#define ATTNLAB_CHECKPOINT_H

#include "core/error.h"
#include "core/io/safetensors.h"

#define CKPT_MAX_CONFIG (1u << 20)      /* config.json's bytes */

/* The architectures read, in one table (checkpoint.c). */
typedef enum ModelArch { ARCH_GPT2, ARCH_BERT, ARCH_COUNT } ModelArch;

typedef struct ModelConfig {
    ModelArch arch;
    int layers, heads, width, inner;    /* blocks, heads a block, the stream's width, the MLP's */
    int vocab, positions, types;        /* words, positions, token types (BERT's segments; 0 for GPT-2) */
    double eps;                         /* the layer norms' epsilon */
    const char *activation;             /* "gelu_tanh" (GPT-2's gelu_new) or "gelu" (erf) */
} ModelConfig;

typedef struct Checkpoint Checkpoint;

/* The model in folder dir, checked; NULL with err filled. */
Checkpoint *ckpt_open(const char *dir, Error *err);
/* Release it (NULL is fine). */
void ckpt_free(Checkpoint *c);
/* Its sizes. */
const ModelConfig *ckpt_config(const Checkpoint *c);
/* Its tensor called name (without the folder's prefix; a layer norm by
** either of its names), or NULL. */
const StTensor *ckpt_tensor(const Checkpoint *c, const char *name);
/* Its tensors' file. */
const SafeTensors *ckpt_tensors(const Checkpoint *c);
/* The architecture's name in config.json ("gpt2"). */
const char *ckpt_arch_name(ModelArch a);

#endif
