/*
** stage_int.h: what the stage builders share, inside src/core only.
**
** stage.c builds the classic stages and owns the helpers that add panels
** (a heatmap of a trace matrix, an input, one row of a matrix, every head
** of a kind) and word the formulas; stage_modern.c builds the stages of
** positions, masks made of parts, grouped-query heads, the K/V cache and
** the online softmax with the same helpers; stage_block.c the rest of a
** transformer block; stage_compare.c two setups side by side;
** stage_grid.c every head of every layer in one grid. The stage
** table (stage_table.c) names each builder. Nothing outside these files
** includes this header.
*/
#ifndef ATTNLAB_STAGE_INT_H
#define ATTNLAB_STAGE_INT_H

#include "stage.h"
#include "stage_table.h"
#include "core/text/i18n.h"
#include "core/util.h"

#define AX_QUERIES _("queries")
#define AX_KEYS _("keys (attended to)")
#define AX_DIMS _("dimensions")

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
    bool paged;         /* the builder made its own pages (stage_by_heads) */
    bool dense;         /* pages are asked of the pager as View.dense ones (a head's parts, past STAGE_HEAD_PARTS) */
    bool whole;         /* no pages: every panel on one view (StageOpts.whole) */
    StagePager *pager;  /* where pages are cut (StageOpts.pager), or NULL */
    const char *note;   /* the note line the pages will carry, known before they are built (a query that sees
                        ** no key, heads switched off), or NULL: the pager plans room for it */
    const bool *blind;  /* query r sees no key (its row label is marked), for the stages that say so; or NULL */
} Ctx;

/* What labels a side of a heatmap: query tokens, key tokens, dimensions
** (d1 …), the named features of the queries' or keys' input, or the
** dimensions of the values (what outputs are made of: `value_dims:`, or
** the features of the input used as values; a head's own columns of them),
** or the columns of Q (K) a head reads, numbered as in the whole matrix, or
** the words a next_token stage shows (its TK_TOP_IDS), or every word of
** the vocabulary in order. */
typedef enum { LAB_Q, LAB_K, LAB_DIM, LAB_QFEAT, LAB_KFEAT, LAB_VDIM, LAB_QHEAD, LAB_KHEAD, LAB_WORDS, LAB_VOCAB } LabelKind;

/* Whether a paragraph tied to tie (Stage.para_ties) is on a page showing
** the own panels of heads h0 … h1 (0: none), or every head (every). */
bool stage_para_shown(unsigned tie, bool every, int h0, int h1);

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
/* A one-row panel: row r of a trace matrix. */
Panel *stage_row(Ctx *c, TraceRef ref, int r, const char *title, LabelKind cols, const char *col_axis);
/* The n labels of side k of a matrix of head h, as panels get them: as
** named, numbered from 1 under `indices: yes` (stage_labels.c; caller
** frees each and the list). */
char **stage_labels(const Ctx *c, LabelKind k, int n, int h);
/* The label of query r: its token, marked (STAGE_BLIND_MARK) when it sees
** no key. */
char *stage_query_label(const Ctx *c, int r);
/* Label l (taken) with its place i (0-based) counted from 1: "3 sat" (a
** dimension's own "d3" stays). */
char *stage_with_index(char *l, int i);
/* The widest of the first n labels of side k of head h's matrices. */
char *stage_widest_label(const Ctx *c, LabelKind k, int n, int h);
/* A panel of rows [r0, r1) and columns [c0, c1) of a trace matrix. */
Panel *stage_part(Ctx *c, TraceRef ref, int r0, int r1, int c0, int c1, const char *title, LabelKind rows,
                  LabelKind cols, const char *row_axis, const char *col_axis);
/* Show a 0/1 mask: Blues, fixed [0, 1], no decimals. */
Panel *stage_as_mask(Ctx *c, Panel *p);

/* ---- stage_pager.c: where pages are cut, as the layout answers */

/* The values of a matrix as cells print them. */
typedef struct StageVals {
    bool any;                   /* some value is finite */
    double lo, hi;              /* the finite range */
    bool any_nx;                /* some value is other than an exact 0 or 1 (printed with decimals) */
    double nx_lo, nx_hi;        /* their range */
    bool nonfinite;             /* some value is masked (−∞) */
    bool ints;                  /* every finite value is whole */
} StageVals;

/* The values of m. */
StageVals stage_vals(const Mat *m);
/* The values of panel p's matrix: for one borrowed from the trace c->T,
** read once while that trace lives (its matrices never change), with the
** pager's memory. */
StageVals stage_panel_vals(const Ctx *c, const Panel *p);
/* The values of m, a matrix of the trace T: read once while T lives, kept
** by pg (NULL: read every time). */
StageVals stage_trace_vals(StagePager *pg, const Trace *T, const Mat *m);
/* a and b together. */
StageVals stage_vals_join(StageVals a, StageVals b);
/* Plan panel p for the values span over every sub-step, coloured on group. */
void stage_set_span(Panel *p, StageVals span, StageVals group);
/* Whether a page of panels[0 .. n) (planned as they will be shown; at most
** VIEW_MAX_PANELS), the stage's explanation and a note line when note is
** not empty, prints every number it can on the projector slide (those of
** panels[must .. n) at the goal font, whatever they could do alone; n:
** none): the layout's answer through c->pager, remembered (without a
** pager: true). */
bool stage_page_fits(Ctx *c, const Panel *panels, int n, const char *note, int must);
/* The width of a text in DejaVu Sans, in font sizes, estimated (which of
** several labels is the widest: stage_labels.c). */
float stage_text_em(const char *s);

/* ---- stage_pages.c: a stage split into pages */

/* Adds head h's panels to c->v (the same panels for every head). */
typedef void (*StageHeadFn)(Ctx *c, int h);
/* Adds panels to c->v. */
typedef void (*StageFn)(Ctx *c);
/* Show a stage head by head: every head's panels, or the chosen head's, in
** as many pages as the slide needs (a head, or a part of one, a page). */
void stage_by_heads(Ctx *c, StageHeadFn one);
/* The same, then what tail adds (no head's), on the last page when all
** fits one, else on pages of its own after the heads'. */
void stage_heads_paged(Ctx *c, StageHeadFn one, StageFn tail);
/* The name ("h2", "h1-2", "h2-1", "h1-2-1") and the header's words
** ("head 2 of 4", ...) of a page showing heads h0 … h1, part (1-based) of
** nparts (1: the heads whole). */
void stage_heads_page_words(const Ctx *c, int h0, int h1, int part, int nparts, char **name, char **label);
/* Split a stage built whole into parts that fit the slide, and keep the
** part asked for (nothing when it fits, or the builder made pages). */
void stage_paginate(Ctx *c);
/* Free what a panel owns (its labels, texts and any matrix it made). */
void stage_panel_free(Panel *p);
/* A new panel at the end of v's, zeroed (the array grows: pointers to
** v's panels taken before are stale after). */
Panel *stage_new_panel(View *v);
/* Free every panel of v and their array (v holds none after). */
void stage_panels_free(View *v);

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
void stage_mask_part_panels(Ctx *c);
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
/* ... and stage_compare.c's: two setups side by side, and what it checks. */
void stage_compare(Ctx *c);
bool stage_compare_check(const Lesson *L, const Stage *st, const StageSize *z, Error *err);
/* ... and stage_grid.c's: every head of every layer in one grid, and its size. */
void stage_model_view(Ctx *c);
bool stage_model_view_check(const Lesson *L, const Stage *st, const StageSize *z, Error *err);
/* A line for a slide computed after heads switched off (`ablate:`), in its
** setup or in one whose stream it continues (`residual: yes`), or NULL. */
char *stage_ablation_note(const Ctx *c);
/* The heads switched off in setup su (of at most H heads) and what
** replaces each: "head 1 → 0, head 3 → its mean over the tokens". */
void stage_ablated_heads(Buf *b, const Setup *su, int H);

#endif
