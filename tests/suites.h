/*
** suites.h: every Check suite of the project, one per module, and the helpers
** the suites share. The runner (check_main.c) adds them all.
*/
#ifndef ATTNLAB_SUITES_H
#define ATTNLAB_SUITES_H

#include <check.h>
#include "core/error.h"
#include "core/compute/mat.h"

Suite *mat_suite(void);
Suite *rng_suite(void);
Suite *trng_suite(void);
Suite *attn_suite(void);
Suite *lesson_suite(void);
Suite *lessonsave_suite(void);
Suite *stage_suite(void);
Suite *drawn_suite(void);
Suite *state_suite(void);
Suite *predict_suite(void);
Suite *state_files_suite(void);
Suite *zoom_suite(void);
Suite *doc_suite(void);
Suite *render_suite(void);
Suite *cmap_suite(void);
Suite *layout_suite(void);
Suite *layout_cache_suite(void);
Suite *scale_suite(void);
Suite *svg_suite(void);
Suite *fileio_suite(void);
Suite *export_suite(void);
Suite *npy_suite(void);
Suite *safetensors_suite(void);
Suite *checkpoint_suite(void);
Suite *highlight_suite(void);
Suite *utf8_suite(void);
Suite *text_suite(void);
Suite *shape_suite(void);
Suite *textbreak_suite(void);
Suite *i18n_suite(void);
Suite *keys_suite(void);
Suite *nav_suite(void);
Suite *link_suite(void);
Suite *zipread_suite(void);
Suite *open_suite(void);
Suite *slides_suite(void);
Suite *api_suite(void);
Suite *slide_prose_suite(void);
Suite *pages_suite(void);
Suite *counting_suite(void);
Suite *edges_suite(void);

/* e as the one line a command prints ("FILE:LINE:COL: error: ..."), in one
** of four buffers used in turn (enough for the arguments of one assert). */
static inline const char *eline(const Error *e)
{
    static char line[4][ERROR_LINE_MAX];
    static int next;
    char *b = line[next++ % 4];
    error_format(e, b, ERROR_LINE_MAX);
    return b;
}

/* Assert two matrices have the same shape and agree to tol everywhere
** (-∞ must meet -∞). */
#define ck_assert_mat_near(a, b, tol) do {                                   \
        const Mat *ma_ = (a), *mb_ = (b);                                    \
        ck_assert_ptr_nonnull(ma_);                                          \
        ck_assert_ptr_nonnull(mb_);                                          \
        ck_assert_int_eq(ma_->rows, mb_->rows);                              \
        ck_assert_int_eq(ma_->cols, mb_->cols);                              \
        for (long i_ = 0; i_ < (long)ma_->rows * ma_->cols; i_++) {          \
            if (ma_->data[i_] == mb_->data[i_]) continue;                    \
            ck_assert_double_eq_tol(ma_->data[i_], mb_->data[i_], (tol));    \
        }                                                                    \
    } while (0)

/* A scratch folder for one test (tscratch.c): made fresh into dir (size n),
** and removed with its files. */
void tscratch_make(char *dir, size_t n, const char *name);
void tscratch_remove(const char *dir);

#endif
