/*
** stage_table.c: the table of stage kinds (see stage_table.h), and the few
** small functions its rows name: how many sub-steps a stage unfolds into,
** how many cells they show, what it costs, what else it needs.
*/
#include "stage_table.h"
#include "stage_int.h"
#include "core/compute/mat.h"

#include <assert.h>
#include <inttypes.h>
#include <stdio.h>

/* ------------------------------------------------------------ the K/V cache */

/* Decoding shows a page per token, then the comparison with the whole. */
static int64_t decode_steps(const Lesson *L, const Stage *st)
{
    return L->setups[st->setup].nq + 1;
}

/* The cells of a kv_cache stage's pages: per token t, each head's q, its
** row of weights and its output, each K/V head's k and v and its t + 1
** cached keys and values; then each head's comparison (decoded and full
** weights and outputs). */
static int64_t decode_cells(const StageSize *z)
{
    int64_t n = z->nq, H = z->heads, G = z->kv_heads;
    return H * n * (z->dq + z->dv) + G * n * (z->dk + z->dv) + G * (z->dk + z->dv) * n * (n + 1) / 2
         + H * n * (n + 1) / 2 + H * (2 * n * z->nk + 2 * n * z->dv);
}

/* Decoding and the online softmax compute each head again, in pieces:
** about four multiply-adds per query, key and number of the widest matrix. */
static int64_t again_work(const Setup *su)
{
    int64_t d = 0;
    for (int i = 0; i < su->nmats; i++)
        if (su->mats[i].m->cols > d) d = su->mats[i].m->cols;
    return 4 * (int64_t)su->nq * su->nk * d;
}

/* ------------------------------------------------------- the online softmax */

/* The blocks of keys of an online_softmax stage. */
static int64_t online_blocks(int64_t nk, int64_t block)
{
    assert(block > 0);
    return (nk + block - 1) / block;
}

/* A page per block, then the last one (the division and the comparison). */
static int64_t online_steps(const Lesson *L, const Stage *st)
{
    return online_blocks(L->setups[st->setup].nk, lesson_stage_block(L, st)) + 1;
}

/* The cells of its pages: per block its scores, the max, rescale and sum
** of every block so far and the running output; then the output,
** softmax·V and their difference. */
static int64_t online_cells(const StageSize *z)
{
    int64_t nb = online_blocks(z->nk, z->block);
    return z->nq * z->nk + 3 * z->nq * nb * (nb + 1) / 2 + z->nq * nb * z->dv + 3 * z->nq * z->dv;
}

/* A block no larger than the keys, and a running output that is a matrix:
** after each block, for each query, blocks × one head's value width numbers
** (at most LESSON_MAX_ONLINE_WIDTH). */
static bool online_check(const Lesson *L, const Stage *st, const StageSize *z, Error *err)
{
    (void)L;
    if (st->block > z->nk)
        return error_set(err, ERR_INVALID, NULL, 0, 0, "stage online_softmax has block: %d but the setup has %" PRId64
                         " keys", st->block, z->nk);
    int64_t nb = online_blocks(z->nk, z->block), dv = z->dv;
    if (nb * dv <= LESSON_MAX_ONLINE_WIDTH) return true;
    int64_t per = LESSON_MAX_ONLINE_WIDTH / dv;             /* (dv is at most LESSON_MAX_LOAD_DIM = the width) */
    int64_t fit = (z->nk + per - 1) / per;                  /* the smallest block with few enough blocks */
    return error_set(err, ERR_LIMIT, NULL, 0, 0, "stage online_softmax keeps its running output after each of its %"
                     PRId64 " blocks, %" PRId64 " numbers a query (blocks x the %" PRId64 " values of a head), over the "
                     "limit of %d; use block: %" PRId64 " or more", nb, nb * dv, dv, LESSON_MAX_ONLINE_WIDTH, fit);
}

/* ------------------------------------------------------------ the next token */

/* No more words a row than the vocabulary has. */
static bool top_check(const Lesson *L, const Stage *st, const StageSize *z, Error *err)
{
    (void)L;
    if (st->top <= z->vocab) return true;
    return error_set(err, ERR_INVALID, NULL, 0, 0, "stage next_token has top: %d but the vocabulary has %" PRId64 " words",
                     st->top, z->vocab);
}

/* ------------------------------------------------------------------ table */

/* What predict mode hides, as bits of trace kinds. */
#define SCORES (TK_BIT(TK_RAW) | TK_BIT(TK_SCALED) | TK_BIT(TK_BIASED) | TK_BIT(TK_MASKED))
#define WEIGHTS (TK_BIT(TK_WEIGHTS))
#define OUTPUTS (TK_BIT(TK_OUTPUT) | TK_BIT(TK_ABLATED) | TK_BIT(TK_CONCAT) | TK_BIT(TK_FINAL))
#define ONLINE (TK_BIT(TK_OS_MAX) | TK_BIT(TK_OS_SUM) | TK_BIT(TK_OS_RESCALE) | TK_BIT(TK_OS_ACC) | TK_BIT(TK_OS_OUT) \
                | TK_BIT(TK_OS_DIFF))

/* Every kind of stage, in the order of StageId. */
static const StageKind kinds[STAGE_COUNT] = {
    [STAGE_EMBEDDINGS] = { STAGE_EMBEDDINGS, "embeddings", N_("Token embeddings"),
        .build = stage_embeddings },
    [STAGE_RAW_SCORES] = { STAGE_RAW_SCORES, "raw_scores", N_("Raw attention scores"),
        .build = stage_raw_scores, .blind_note = true, .hides = TK_BIT(TK_RAW) },
    [STAGE_SCALED_SCORES] = { STAGE_SCALED_SCORES, "scaled_scores", N_("Scaling the scores"),
        .needs = STAGE_NEEDS_DOT, .build = stage_scaled_scores, .blind_note = true, .hides = SCORES },
    [STAGE_SOFTMAX] = { STAGE_SOFTMAX, "softmax", N_("Softmax: scores become weights"),
        .given = GIVEN_YES, .build = stage_softmax, .given_text = stage_given_weights, .blind_note = true,
        .hides = SCORES | WEIGHTS },
    [STAGE_WEIGHTED_SUM] = { STAGE_WEIGHTED_SUM, "weighted_sum", N_("The weighted sum of values"),
        .given = GIVEN_WITH_VALUES, .build = stage_weighted_sum, .blind_note = true, .hides = WEIGHTS | OUTPUTS },
    [STAGE_QKV_PROJECTION] = { STAGE_QKV_PROJECTION, "qkv_projection", N_("Projections: queries, keys and values"),
        .needs = STAGE_NEEDS_PROJECTION, .build = stage_qkv },
    [STAGE_MULTI_HEAD] = { STAGE_MULTI_HEAD, "multi_head", N_("Multi-head attention"),
        .needs = STAGE_NEEDS_HEADS, .given = GIVEN_YES, .build = stage_multi_head, .given_text = stage_given_multi_head,
        .blind_note = true, .hides = WEIGHTS | OUTPUTS },
    [STAGE_CAUSAL_MASK] = { STAGE_CAUSAL_MASK, "causal_mask", N_("The causal mask"),
        .needs = STAGE_NEEDS_MASK, .given = GIVEN_YES, .build = stage_causal_mask, .given_text = stage_given_mask,
        .blind_note = true, .hides = SCORES | WEIGHTS },
    [STAGE_ENTROPY] = { STAGE_ENTROPY, "entropy", N_("How focused is each query?"),
        .given = GIVEN_YES, .build = stage_entropy, .blind_note = true, .hides = TK_BIT(TK_ENTROPY) },
    [STAGE_CROSS_ATTENTION] = { STAGE_CROSS_ATTENTION, "cross_attention", N_("Cross-attention"),
        .needs = STAGE_NEEDS_CROSS, .given = GIVEN_YES, .build = stage_cross, .given_text = stage_given_weights,
        .blind_note = true, .hides = WEIGHTS | OUTPUTS },
    [STAGE_ADDITIVE_SCORES] = { STAGE_ADDITIVE_SCORES, "additive_scores", N_("Additive (Bahdanau) scores"),
        .needs = STAGE_NEEDS_ADDITIVE, .build = stage_additive, .blind_note = true, .hides = SCORES | WEIGHTS },
    [STAGE_PER_TOKEN] = { STAGE_PER_TOKEN, "per_token", N_("One query at a time"),
        .given = GIVEN_YES, .build = stage_per_token, .given_text = stage_given_per_token, .blind_note = true,
        .hides = WEIGHTS | OUTPUTS },          /* the scores stay: the class guesses from them */
    [STAGE_POSITIONAL_ENCODING] = { STAGE_POSITIONAL_ENCODING, "positional_encoding", N_("Sinusoidal positions"),
        .needs = STAGE_NEEDS_SINUSOIDAL, .build = stage_positional, .blind_note = true },
    [STAGE_ROPE] = { STAGE_ROPE, "rope", N_("Rotary positions (RoPE)"),
        .needs = STAGE_NEEDS_ROPE, .build = stage_rope, .blind_note = true },
    [STAGE_ALIBI] = { STAGE_ALIBI, "alibi", N_("ALiBi: a distance penalty"),
        .needs = STAGE_NEEDS_ALIBI, .build = stage_alibi, .blind_note = true, .hides = SCORES },
    [STAGE_GROUPED_QUERY] = { STAGE_GROUPED_QUERY, "grouped_query", N_("Grouped-query heads"),
        .needs = STAGE_NEEDS_KV_HEADS, .build = stage_grouped_query, .blind_note = true },
    [STAGE_KV_CACHE] = { STAGE_KV_CACHE, "kv_cache", N_("Decoding with a K/V cache"),
        .needs = STAGE_NEEDS_CAUSAL, .build = stage_kv_cache, .blind_note = true, .work = again_work,
        .extra = EXTRA_DECODE, .hides = WEIGHTS | OUTPUTS | TK_BIT(TK_KV_WEIGHTS) | TK_BIT(TK_KV_OUTPUT),
        .steps = decode_steps, .cells = decode_cells, .smaller = "use fewer tokens or narrower heads" },
    [STAGE_ONLINE_SOFTMAX] = { STAGE_ONLINE_SOFTMAX, "online_softmax", N_("FlashAttention's online softmax"),
        .check = online_check, .build = stage_online, .blind_note = true, .work = again_work, .extra = EXTRA_ONLINE,
        .hides = SCORES | OUTPUTS | ONLINE, .steps = online_steps, .cells = online_cells, .blocks = true,
        .smaller = "use fewer tokens" },
    [STAGE_LAYER_NORM] = { STAGE_LAYER_NORM, "layer_norm", N_("Layer norm"),
        .needs = STAGE_NEEDS_NORM, .build = stage_layer_norm },
    [STAGE_MLP] = { STAGE_MLP, "mlp", N_("The MLP"),
        .needs = STAGE_NEEDS_MLP, .build = stage_mlp },
    [STAGE_NEXT_TOKEN] = { STAGE_NEXT_TOKEN, "next_token", N_("The next token"),
        .needs = STAGE_NEEDS_UNEMBED, .check = top_check, .build = stage_next_token, .extra = EXTRA_TOP,
        .hides = TK_BIT(TK_TOP_LOGITS) | TK_BIT(TK_TOP_PROBS) },
    [STAGE_COMPARE] = { STAGE_COMPARE, "compare", N_("Two setups side by side"),
        .check = stage_compare_check, .given = GIVEN_YES, .build = stage_compare, .own_ablation_words = true },
    [STAGE_MODEL_VIEW] = { STAGE_MODEL_VIEW, "model_view", N_("Every head of every layer"),
        .check = stage_model_view_check, .given = GIVEN_YES, .build = stage_model_view, .extra = EXTRA_GRID },
};

/* The row of a stage id. */
const StageKind *stage_kind(StageId id)
{
    assert((unsigned)id < STAGE_COUNT);
    const StageKind *k = &kinds[id];
    assert(k->id == id && k->name && k->build);         /* every id has its row, in order */
    return k;
}

/* Sub-steps: the row's count, else one. */
int stage_steps(const Lesson *L, const Stage *st)
{
    const StageKind *k = stage_kind(st->id);
    return k->steps ? (int)k->steps(L, st) : 1;
}

/* Whether predict mode hides kind k on this stage. */
bool stage_hides(StageId id, TraceKind k)
{
    return (unsigned)k < TK_COUNT && (stage_kind(id)->hides & TK_BIT(k));
}
