/*
** lesson_model.h: a lesson that names a trained model's folder.
**
** A setup may read a downloaded Hugging Face model instead of matrices:
**
**     [setup: GPT-2 reads a sentence]
**     model: "gpt2"                    # its folder, beside the lesson
**     text: "The cat sat on the mat because it"
**     layers: 1 6 12                   # whose stages are shown (all by default)
**
** The folder's tokenizer cuts the text, and the setup becomes one setup a
** layer, as the layers compute: the first reads the embeddings (the
** tokens' and their positions'; BERT's normalised), each continues the
** stream of the one before, and GPT-2's last ends in the next token over
** its whole vocabulary. The stages the author writes after the setup are
** repeated for every shown layer (next_token and model_view once, after
** the last), with their prose; without any, each shown layer gets its
** heads, its MLP (BERT's layer norm too), then the next token (GPT-2) and
** the model view of every head. The matrices come from model.safetensors
** in memory, as `load` lines of a generated lesson (lml_expand), which
** the parser reads as any other; its messages point at the author's lines.
**
** A lesson may read up to LML_MAX_MODELS models, each a setup with
** `model:`: a later one starts afresh (`residual: no`, `unembed: none`),
** and its compare stages compare its layers with the same layers of the
** one before (the usual lesson: one model twice, heads switched off in
** the second). Their layers come to at most LESSON_MAX_SETUPS in all.
**
** `attnlab --model DIR "a sentence"` writes such a lesson itself
** (lml_default_text).
*/
#ifndef ATTNLAB_LESSON_MODEL_H
#define ATTNLAB_LESSON_MODEL_H

#include "lesson.h"

/* The first line of the lesson lml_default_text writes: its messages name
** no line of it, nor it (the user never saw it). */
#define LML_CLI_MARK "# the lesson of attnlab --model"

/* The most models one lesson reads (each a setup with model:, often one
** model twice, a head switched off in the second, and a compare stage). */
#define LML_MAX_MODELS 4

/* The file the generated `load` lines name, which no folder holds. */
#define LML_FILE "model.npz"

typedef struct ModelLesson ModelLesson;

/* Whether text (len bytes) has a setup with a `model:` line. */
bool lml_wanted(const char *text, size_t len);
/* The lesson text (len bytes, read from filename) with its model setup
** made into the layers' setups and stages, and the arrays it loads; NULL
** with err filled (at the author's line). */
ModelLesson *lml_expand(const char *text, size_t len, const char *filename, Error *err);
/* The generated text and its length. */
const char *lml_text(const ModelLesson *m, size_t *len);
/* The arrays its load lines read (valid until lml_free). */
const LessonArray *lml_arrays(const ModelLesson *m, int *n);
/* The author's line of line (1-based) of the generated text; *verbatim
** says whether it is that line as the author wrote it (its columns hold). */
int lml_line(const ModelLesson *m, int line, bool *verbatim);
/* The model folder's own name ("gpt2"; valid until the next call). */
const char *lml_name(const ModelLesson *m);
/* Release it. */
void lml_free(ModelLesson *m);
/* The sentence the model setup of text (len bytes) reads (caller frees),
** or NULL when it has none. */
char *lml_sentence(const char *text, size_t len);
/* text (len bytes) with its model setup reading sentence instead (caller
** frees; *out_len its length), or NULL when it has no model setup. */
char *lml_with_text(const char *text, size_t len, const char *sentence, size_t *out_len);
/* The sentence a model reads when none is given: who gets the drink, a
** question a trained GPT-2 answers with its heads. */
#define LML_SENTENCE "When Mary and John went to the store, John gave a drink to"

/* The lesson `attnlab --model DIR SENTENCE` opens, and the browser edition
** for a folder opened (caller frees); a NULL sentence is LML_SENTENCE. Its
** first line is LML_CLI_MARK: its messages name no line of it. */
char *lml_default_text(const char *dir, const char *sentence);

#endif
