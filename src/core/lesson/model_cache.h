/*
** model_cache.h: a model folder's checkpoint and tokenizer, shared by the
** lessons that read it.
**
** Typing a sentence into the window or the page makes the lesson of a
** model again (lesson_model.c) while the one before it still lives. The
** second takes the first's open folder instead of mapping the weights,
** looking at every one of them for NaN and reading the vocabulary again:
** what is left of a typed sentence is its arithmetic. A folder is the same
** when its path and its files' sizes, times and inode numbers are; it is
** closed when the last lesson reading it goes. Safe to use from several
** threads.
**
**   ModelFolder *f = mf_open("models/gpt2", &err);
**   const Checkpoint *c = mf_checkpoint(f);
**   ...
**   mf_free(f);
*/
#ifndef ATTNLAB_MODEL_CACHE_H
#define ATTNLAB_MODEL_CACHE_H

#include "core/error.h"
#include "core/io/checkpoint.h"
#include "core/text/tokenizer.h"

#include <stdbool.h>

typedef struct ModelFolder ModelFolder;

/* The folder dir, open (shared with any lesson that has it open) or opened
** now: its checkpoint and its architecture's tokenizer. NULL with err
** filled by ckpt_open or tok_open. */
ModelFolder *mf_open(const char *dir, Error *err);
/* Its checkpoint. */
const Checkpoint *mf_checkpoint(const ModelFolder *f);
/* Its tokenizer. */
const Tokenizer *mf_tokenizer(const ModelFolder *f);
/* Whether every weight a lesson reads has been looked at for NaN and
** infinities (mf_set_checked), so that the next lesson need not. */
bool mf_checked(const ModelFolder *f);
/* Say that every weight a lesson reads is finite. */
void mf_set_checked(ModelFolder *f);
/* Let go of f: the folder closes with its last lesson. NULL is allowed. */
void mf_free(ModelFolder *f);

#endif
