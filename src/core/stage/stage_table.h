/*
** stage_table.h: what each kind of stage is, in one table.
**
** Everything the program knows about a stage kind is one row of
** stage_table.c, read by every part that treats stages differently (the
** model: Lua's lopcodes.h, one table every part of the VM reads):
**
**   name, title     the section name in a lesson (lesson.c) and the
**                   default title on the slide (stage.c)
**   needs, check    what its setup must have, checked by the parser
**                   (lesson_check.c words each need; check is anything
**                   particular to the stage)
**   given           what it can show of a setup given its weights
**   build           the builder of its panels, formula and notes (stage.c,
**                   stage_modern.c), and given_text, its words for a
**                   setup given its weights
**   blind_note      whether the slide says when a query sees no key
**   work            the multiply-adds it costs beyond its setup's own
**                   (the LESSON_MAX_WORK budget)
**   extra           what the trace computes for it alone (trace.c)
**   hides           the trace kinds of its panels that predict mode hides
**                   while the class guesses (src/app/predict.c)
**   steps, cells    its sub-steps (pages) and the cells they show (the
**                   LESSON_MAX_PAGES and LESSON_MAX_STEP_CELLS budgets; the
**                   builders number their sub-steps with stage_steps),
**                   whether they are blocks of keys, and what makes them
**                   fewer (for the messages of those budgets)
**
** Adding a stage: its id in StageId (lesson.h, in the order of
** docs/lesson-format.md), its row in stage_table.c (with any small
** function its row names), and its builder (a void f(Ctx *) in stage.c,
** stage_modern.c or a file of its own, declared in stage_int.h). Nothing
** else switches on the stage. What the new stage shows needs words in
** docs/lesson-format.md and, for its title, in the message catalogues.
*/
#ifndef ATTNLAB_STAGE_TABLE_H
#define ATTNLAB_STAGE_TABLE_H

#include <stdbool.h>
#include <stdint.h>
#include "core/lesson/lesson.h"
#include "core/compute/trace.h"

struct Ctx;                     /* a stage builder's context (stage_int.h) */

/* What a stage needs of its setup; lesson_check.c says each in words. */
enum {
    STAGE_NEEDS_HEADS = 1 << 0,         /* heads: 2 or more */
    STAGE_NEEDS_MASK = 1 << 1,          /* any mask */
    STAGE_NEEDS_PROJECTION = 1 << 2,    /* a weight on queries, keys or values */
    STAGE_NEEDS_ADDITIVE = 1 << 3,      /* score: additive */
    STAGE_NEEDS_DOT = 1 << 4,           /* dot-product scores */
    STAGE_NEEDS_CROSS = 1 << 5,         /* query_tokens and key_tokens */
    STAGE_NEEDS_SINUSOIDAL = 1 << 6,    /* positions: sinusoidal */
    STAGE_NEEDS_ROPE = 1 << 7,          /* positions: rope */
    STAGE_NEEDS_ALIBI = 1 << 8,         /* positions: alibi */
    STAGE_NEEDS_KV_HEADS = 1 << 9,      /* kv_heads: G */
    STAGE_NEEDS_CAUSAL = 1 << 10,       /* a mask that hides later tokens (causal; no prefix) */
    STAGE_NEEDS_NORM = 1 << 11,         /* layer_norm: before attention */
    STAGE_NEEDS_MLP = 1 << 12,          /* mlp: */
    STAGE_NEEDS_UNEMBED = 1 << 13,      /* unembed: and vocab: */
};

/* What a stage shows of a setup given its weights (`attention: A`). */
typedef enum StageGiven {
    GIVEN_NO,                   /* it shows what comes before the weights: an error */
    GIVEN_YES,                  /* it starts from the weights */
    GIVEN_WITH_VALUES           /* it starts from the weights and needs values */
} StageGiven;

/* What the trace computes for a stage alone (trace.c). */
typedef enum StageExtra {
    EXTRA_NONE,
    EXTRA_DECODE,               /* decoding token by token from a K/V cache */
    EXTRA_ONLINE,               /* the online softmax, in the stage's blocks */
    EXTRA_TOP,                  /* the words among each row's likeliest, for the stage's top: */
    EXTRA_GRID                  /* every head of the setups above with its tokens, in one grid */
} StageExtra;

/* The sizes a stage's sub-steps are counted from: the setup's queries and
** keys, one head's widths, the stage's block of keys, and the words of
** the setup's vocabulary. */
typedef struct StageSize {
    int64_t nq, nk, dq, dk, dv, block, vocab;
    int64_t heads, kv_heads;    /* the query heads the stage shows, and the K/V heads they read */
} StageSize;

/* One kind of stage. */
typedef struct StageKind {
    StageId id;
    const char *name;           /* "softmax": the section name */
    const char *title;          /* the default title, marked N_(): translate with _() */
    unsigned needs;             /* STAGE_NEEDS_* */
    /* anything else it needs of st (in L, checked up to its setup) and its
    ** sizes: true when it fits, else false with the message in err (the
    ** parser adds the place unless err has a line) */
    bool (*check)(const Lesson *L, const Stage *st, const StageSize *z, Error *err);
    StageGiven given;
    void (*build)(struct Ctx *c);
    void (*given_text)(struct Ctx *c);  /* or NULL: the built formula stands */
    bool blind_note;
    bool own_ablation_words;    /* its own note says which heads are off (compare): no ablation line added */
    int64_t (*work)(const Setup *su);   /* or NULL: nothing beyond the setup's */
    StageExtra extra;
    uint64_t hides;             /* TK_BIT(kind) of every kind predict mode hides */
    int64_t (*steps)(const Lesson *L, const Stage *st);     /* or NULL: one page */
    int64_t (*cells)(const StageSize *z);                   /* the cells of its sub-step pages */
    bool blocks;                /* its sub-steps are blocks of `block:` keys (lesson_stage_block) */
    const char *smaller;        /* what makes those fewer, for messages ("use fewer tokens") */
} StageKind;

/* The row of a stage id (which must be one). */
const StageKind *stage_kind(StageId id);
/* The sub-steps stage st unfolds into (1 for most). */
int stage_steps(const Lesson *L, const Stage *st);
/* Whether predict mode hides a panel of kind k on a stage of kind id. */
bool stage_hides(StageId id, TraceKind k);

#endif
