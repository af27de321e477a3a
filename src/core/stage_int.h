/*
** stage_int.h: what the stage builders share, inside src/core only.
**
** stage.c builds the classic stages and owns the helpers that add panels
** (a heatmap of a trace matrix, an input, one row of a matrix, every head
** of a kind) and word the formulas; stage_modern.c builds the stages of
** positions, masks made of parts, grouped-query heads, the K/V cache and
** the online softmax with the same helpers. The stage table
** (stage_table.c) names each builder. Nothing outside these files
** includes this header.
*/
#ifndef ATTNLAB_STAGE_INT_H
#define ATTNLAB_STAGE_INT_H

#include "stage.h"
#include "stage_table.h"
#include "i18n.h"

#define AX_QUERIES _("queries")
#define AX_KEYS _("keys (attended to)")
#define AX_DIMS _("dimensions")
#define MAX_GRID_PAIRS 8        /* scaled_scores shows raw and scaled per head up to this many heads */

/* Everything stage builders need. */
typedef struct Ctx {
    const Lesson *L;
    const Trace *T;
    const TraceSetup *ts;
    const Stage *st;
    const Setup *su;
    View *v;
    int s;
    int H;              /* heads of the setup */
    int sel;            /* the head shown alone (1 … H), or 0 for every head */
    int step;           /* the sub-step asked for (0-based, clamped by the builder) */
} Ctx;

/* What labels a side of a heatmap: query tokens, key tokens, dimensions
** (d1 …), the named features of the queries' or keys' input, or the
** words a next_token stage shows (its TK_TOP_IDS). */
typedef enum { LAB_Q, LAB_K, LAB_DIM, LAB_QFEAT, LAB_KFEAT, LAB_WORDS } LabelKind;

/* printf into a new string. */
char *stage_fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/* Append a heatmap of ref (NULL when the trace has no such matrix or the
** view is full). */
Panel *stage_heat(Ctx *c, TraceRef ref, const char *title, LabelKind rows, LabelKind cols,
                  const char *row_axis, const char *col_axis);
/* An input matrix by name. */
Panel *stage_input(Ctx *c, const char *name, const char *title, LabelKind rows, LabelKind cols,
                   const char *row_axis, const char *col_axis);
/* Make a panel show probabilities: fixed [0, 1] scale, viridis. */
Panel *stage_as_weights(Ctx *c, Panel *p);
/* Put a panel in a colour-scale group, unless the stage says `scale: own`. */
Panel *stage_grouped(Ctx *c, Panel *p, int group);
/* " (head 2 of 4)" when one head of several is shown, else "". */
char *stage_head_suffix(const Ctx *c, int h);
/* What the scores before masking are called ("scaled scores", ...). */
const char *stage_scores_word(const Ctx *c);
/* The division as text for formulas (" ÷ √4"), or "". */
char *stage_division_text(const Ctx *c);
/* Panels for one per-head kind: the chosen head, or every head. */
Panel *stage_heads(Ctx *c, TraceKind k, const char *title, LabelKind rows, LabelKind cols,
                   const char *row_axis, const char *col_axis, bool weights, int group);
/* A one-row panel: row r of a trace matrix. */
Panel *stage_row(Ctx *c, TraceRef ref, int r, const char *title, LabelKind cols, const char *col_axis);
/* A panel of rows [r0, r1) and columns [c0, c1) of a trace matrix. */
Panel *stage_part(Ctx *c, TraceRef ref, int r0, int r1, int c0, int c1, const char *title, LabelKind rows,
                  LabelKind cols, const char *row_axis, const char *col_axis);
/* Show a 0/1 mask: Blues, fixed [0, 1], no decimals. */
Panel *stage_as_mask(Ctx *c, Panel *p);

/* The builders, named by the stage table (stage_table.c): stage.c's ... */
void stage_embeddings(Ctx *c);
void stage_raw_scores(Ctx *c);
void stage_scaled_scores(Ctx *c);
void stage_softmax(Ctx *c);
void stage_weighted_sum(Ctx *c);
void stage_qkv(Ctx *c);
void stage_multi_head(Ctx *c);
void stage_causal_mask(Ctx *c);
void stage_entropy(Ctx *c);
void stage_cross(Ctx *c);
void stage_additive(Ctx *c);
void stage_per_token(Ctx *c);
/* ... their words for a setup given its weights (`attention: A`) ... */
void stage_given_weights(Ctx *c);
void stage_given_multi_head(Ctx *c);
void stage_given_per_token(Ctx *c);
void stage_given_mask(Ctx *c);
/* ... and stage_modern.c's. */
void stage_mask_parts(Ctx *c);
void stage_positional(Ctx *c);
void stage_rope(Ctx *c);
void stage_alibi(Ctx *c);
void stage_grouped_query(Ctx *c);
void stage_kv_cache(Ctx *c);
void stage_online(Ctx *c);
/* ... and stage_block.c's: the rest of a transformer block. */
void stage_layer_norm(Ctx *c);
void stage_mlp(Ctx *c);
void stage_next_token(Ctx *c);
/* A line for the slide of a setup with heads switched off (`ablate:`), or NULL. */
char *stage_ablation_note(const Ctx *c);

#endif
