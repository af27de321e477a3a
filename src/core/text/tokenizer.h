/*
** tokenizer.h: a trained model's own tokenizer, read from its folder.
**
** A model reads ids, not words, and cuts text where its tokenizer does, so
** a sentence typed into a downloaded model is cut here as the published
** tokenizers cut it:
**
** - GPT-2's byte-level BPE (vocab.json and merges.txt): the text is split
**   into runs of letters, numbers, other characters and spaces (each run
**   keeps one space before it), each run's UTF-8 bytes are written as
**   printable characters (a space as Ġ), and the merges are applied, the
**   lowest ranked pair first, until none applies. Tokens are shown as the
**   vocabulary writes them: "Ġthe".
** - BERT's WordPiece (vocab.txt, and tokenizer_config.json's
**   do_lower_case, true when it is missing): control characters dropped,
**   Chinese characters and punctuation cut apart, the case lowered and
**   accents removed (uncased models), and each word cut into the longest
**   pieces the vocabulary holds, "##" before every piece but the first;
**   a word no pieces make is [UNK]; [CLS] before and [SEP] after.
**
**     Tokenizer *t = tok_open("models/gpt2", TOK_BPE, &err);
**     int *ids, n = tok_encode(t, "The cat sat", &ids, &err);   // 464 3797 3332
**     puts(tok_word(t, ids[1]));                                // "Ġcat"
**     free(ids); tok_free(t);
**
** Errors name the file and line at fault ("merges.txt:7:1: ...").
*/
#ifndef ATTNLAB_TOKENIZER_H
#define ATTNLAB_TOKENIZER_H

#include "core/error.h"

#define TOK_MAX_FILE (64u << 20)       /* a vocabulary or merges file's bytes */
#define TOK_MAX_WORD 100                /* WordPiece: a longer word is [UNK], as BERT's */

typedef enum TokKind { TOK_BPE, TOK_WORDPIECE } TokKind;

typedef struct Tokenizer Tokenizer;

/* The tokenizer of kind in folder dir; NULL with err filled. */
Tokenizer *tok_open(const char *dir, TokKind kind, Error *err);
/* Release it (NULL is fine). */
void tok_free(Tokenizer *t);
/* The ids of text (UTF-8, NUL-terminated) into *ids (malloc'd, caller
** frees; with WordPiece [CLS] and [SEP] included): their count, or -1 with
** err filled. */
int tok_encode(const Tokenizer *t, const char *text, int **ids, Error *err);
/* The vocabulary's text of id (NULL past its end). */
const char *tok_word(const Tokenizer *t, int id);
/* The vocabulary's size (the largest id + 1). */
int tok_size(const Tokenizer *t);

#endif
