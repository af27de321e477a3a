/*
** attnlab.h: libattnlab, the attnlab core as a library.
**
** The program (its command line and its window) is one user of this
** library; the Python module is another. A lesson is given as text, with
** any arrays its `load` lines read handed over in memory; the library
** parses it, computes every setup, and then answers: the stages, the
** pages each takes on the slide, any matrix of any stage, a stage's page
** drawn as PNG or SVG bytes, the whole lesson as --dump's JSON, and the
** arithmetic behind one cell. Nothing is written to a file or printed,
** and nothing exits: a call that fails returns NULL or -1 and fills an
** attnlab_error with the one line the program would print.
**
**     attnlab_error err;
**     attnlab *a = attnlab_open(text, strlen(text), "my.lesson", NULL, 0, &err);
**     if (!a) { fprintf(stderr, "%s\n", err.text); return 1; }
**     unsigned char *png; size_t n;
**     if (attnlab_render(a, 1, 1, NULL, &png, &n, &err) == 0) { fwrite(png, 1, n, f); attnlab_free(png); }
**     attnlab_close(a);
**
** Stages, pages, rows and columns count from 1, as the program's messages
** and the lesson format do. Strings are UTF-8. What the library returns
** that needs freeing is freed with attnlab_free. One handle is used by one
** thread at a time, and pictures are drawn one at a time in a process
** (the PNG encoder keeps its scratch between calls).
**
** Version: ATTNLAB_VERSION at build time, attnlab_version() at run time;
** the shared library's soname is libattnlab.so.ATTNLAB_ABI. Link with
** `pkg-config --cflags --libs attnlab`.
*/
#ifndef ATTNLAB_H
#define ATTNLAB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ATTNLAB_VERSION "0.1.0"
#define ATTNLAB_ABI 0

/* What went wrong: ATTNLAB_IO (a file could not be read), ATTNLAB_INVALID
** (the lesson, an array or an argument is not valid), ATTNLAB_LIMIT (over
** a documented limit), ATTNLAB_RUNTIME (no font, a renderer failed). The
** program's exit status is 1 for IO and RUNTIME, 2 for the others. */
enum { ATTNLAB_OK = 0, ATTNLAB_IO = 1, ATTNLAB_INVALID = 2, ATTNLAB_LIMIT = 3, ATTNLAB_RUNTIME = 4 };

/* An error as a value. */
typedef struct attnlab_error {
    int kind;                   /* ATTNLAB_OK when there is none */
    int line, col;              /* in file, from 1; 0 when not about a place */
    char file[1024];            /* the file it is about ("my.lesson", "<stdin>"), or "" */
    char message[800];          /* what went wrong, without the file and place */
    char text[2048];            /* the whole line: "my.lesson:4:7: error: MESSAGE" */
} attnlab_error;

/* An array in memory that the lesson's `load "FILE" KEY` (or `load
** "FILE.npy"`, key NULL) reads before any file: numpy's dtype ("<f4",
** "<f8", "<i8", "<U12" for strings, ...), its shape, and its data in C
** order, nbytes long. It is read while attnlab_open runs, not kept. */
typedef struct attnlab_array {
    const char *file;
    const char *key;
    const char *dtype;
    int ndim;                   /* 1 to 4 */
    const int64_t *shape;
    const void *data;
    size_t nbytes;
} attnlab_array;

/* How a page is drawn. attnlab_render_defaults fills the program's:
** 1280x720, scale 1, light, PNG, each panel's own colormap. */
typedef struct attnlab_render_opts {
    int width, height;          /* the canvas, before scale */
    int scale;                  /* 1, or 2 for print */
    int dark;                   /* the dark theme */
    int svg;                    /* SVG text instead of a PNG */
    const char *cmap;           /* "viridis", "magma", ... for every panel, or NULL */
} attnlab_render_opts;

/* An open lesson, computed. */
typedef struct attnlab attnlab;

/* The library's version ("0.1.0"). */
const char *attnlab_version(void);

/* Parse and compute a lesson: len bytes of text, named name in messages
** ("-" for "<stdin>"), reading the n arrays given (may be NULL) where its
** `load` lines name them. NULL with err filled when the lesson is not
** valid or cannot be computed. */
attnlab *attnlab_open(const char *text, size_t len, const char *name, const attnlab_array *arrays, int n,
                      attnlab_error *err);
/* As attnlab_open, but a float32 matrix (dtype "<f4", 2-D, C order, every
** number finite) is read where it lies for as long as the lesson is open,
** not copied into doubles: the caller keeps that memory, unchanged, until
** attnlab_close. (A model's weights from a notebook: no second copy, twice
** their size.) Other arrays are read while it runs, as attnlab_open reads
** them. The numbers computed are the same, bit for bit. */
attnlab *attnlab_open_lending(const char *text, size_t len, const char *name, const attnlab_array *arrays, int n,
                              attnlab_error *err);
/* Check a lesson as attnlab_open would, without computing it (what
** `attnlab --check` does: its syntax, its shapes and every limit and
** budget): 0, or -1 with err filled. */
int attnlab_check(const char *text, size_t len, const char *name, const attnlab_array *arrays, int n,
                  attnlab_error *err);
/* Close (NULL is fine). */
void attnlab_close(attnlab *a);

/* The lesson's title, and its number of stages. */
const char *attnlab_title(const attnlab *a);
int attnlab_stage_count(const attnlab *a);
/* Stage k's id ("softmax") and title, or NULL past the last. */
const char *attnlab_stage_id(const attnlab *a, int k);
const char *attnlab_stage_title(const attnlab *a, int k);
/* The setup stage k shows (from 1), or 0 past the last stage. */
int attnlab_stage_setup(const attnlab *a, int k);

/* The pages stage k takes on the projector slide (1280x720, as the window
** and --export cut it), or -1 with err filled. */
int attnlab_page_count(attnlab *a, int k, attnlab_error *err);
/* The name of page p of stage k as --export names its file ("heads",
** "h2-1", "t3"; "" for a stage of one page), or NULL with err filled;
** free it with attnlab_free. */
char *attnlab_page_name(attnlab *a, int k, int p, attnlab_error *err);

/* Draw page p of stage k with opts (NULL: the defaults) into a new buffer
** (*out, *len; free it with attnlab_free): PNG bytes, or SVG text. 0, or -1
** with err filled. */
int attnlab_render(attnlab *a, int k, int p, const attnlab_render_opts *opts, unsigned char **out, size_t *len,
                   attnlab_error *err);
/* The defaults of attnlab_render. */
void attnlab_render_defaults(attnlab_render_opts *opts);

/* What `attnlab --dump --stage STAGES` prints: the stages chosen by a list
** such as "2", "1,3" or "2-4" (NULL: every stage), as a new JSON string
** (*len bytes; free with attnlab_free). 0, or -1 with err filled. */
int attnlab_dump(attnlab *a, const char *stages, char **json, size_t *len, attnlab_error *err);

/* The matrix called name (as --dump names it: "X", "head2.weights",
** "logits") in the setup of stage k, as a new array of *rows × *cols
** doubles in C order (free with attnlab_free; a masked score is -inf).
** 0, or -1 with err filled. */
int attnlab_matrix(attnlab *a, int k, const char *name, int *rows, int *cols, double **data, attnlab_error *err);

/* The arithmetic behind cell (row, col) of the matrix called name in the
** setup of stage k, as lines of text (what hovering the cell in the window
** shows), or NULL with err filled; free it with attnlab_free. */
char *attnlab_explain(attnlab *a, int k, const char *name, int row, int col, attnlab_error *err);

/* Free what the library returned. */
void attnlab_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
