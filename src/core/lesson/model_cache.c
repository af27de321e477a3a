/*
** model_cache.c: open model folders, shared (see model_cache.h). A short
** list: a program has one or two folders open at a time.
*/
#define _POSIX_C_SOURCE 200809L                 /* stat's st_mtim */
#include "model_cache.h"
#include "core/util.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#if !defined(__EMSCRIPTEN__) && !defined(ATTNLAB_NO_THREADS)
#include <pthread.h>
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#define LOCK() pthread_mutex_lock(&lock)
#define UNLOCK() pthread_mutex_unlock(&lock)
#else
#define LOCK() ((void)0)
#define UNLOCK() ((void)0)
#endif

/* The files a folder is read from; one that is missing counts as such. */
static const char *const files[] = { "config.json", "model.safetensors", "vocab.json", "merges.txt", "vocab.txt",
                                     "tokenizer_config.json" };
#define NFILES (int)(sizeof files / sizeof files[0])

/* What tells one state of a file from another. */
typedef struct Sig {
    long long size, sec, nsec, ino, dev;
    bool there;
} Sig;

struct ModelFolder {
    char *dir;
    Sig sig[NFILES];
    Checkpoint *ck;
    Tokenizer *tok;
    bool checked;
    int refs;
    ModelFolder *next;
};

static ModelFolder *open_list;

/* The signatures of dir's files into sig. */
static void sign(const char *dir, Sig *sig)
{
    for (int i = 0; i < NFILES; i++) {
        Buf path = { 0 };
        buf_printf(&path, "%s/%s", dir, files[i]);
        struct stat st;
        sig[i] = (Sig){ 0 };
        if (stat(buf_str(&path), &st) == 0)
            sig[i] = (Sig){ (long long)st.st_size, (long long)st.st_mtim.tv_sec, (long long)st.st_mtim.tv_nsec,
                            (long long)st.st_ino, (long long)st.st_dev, true };
        buf_free(&path);
    }
}

/* Whether two signatures are of the same state of a file. */
static bool same_sig(const Sig *a, const Sig *b)
{
    return a->there == b->there && a->size == b->size && a->sec == b->sec && a->nsec == b->nsec && a->ino == b->ino &&
           a->dev == b->dev;
}

/* Whether every file of one folder's signatures is as in the other's. */
static bool same_files(const Sig *a, const Sig *b)
{
    for (int i = 0; i < NFILES; i++)
        if (!same_sig(&a[i], &b[i])) return false;
    return true;
}

/* The folder, open or opened. */
ModelFolder *mf_open(const char *dir, Error *err)
{
    Sig sig[NFILES];
    sign(dir, sig);
    LOCK();
    for (ModelFolder *f = open_list; f; f = f->next)
        if (!strcmp(f->dir, dir) && same_files(f->sig, sig)) {
            f->refs++;
            UNLOCK();
            return f;
        }
    UNLOCK();
    Checkpoint *ck = ckpt_open(dir, err);
    if (!ck) return NULL;
    Tokenizer *tok = tok_open(dir, ckpt_config(ck)->arch == ARCH_GPT2 ? TOK_BPE : TOK_WORDPIECE, err);
    if (!tok) {
        ckpt_free(ck);
        return NULL;
    }
    ModelFolder *f = xcalloc(1, sizeof *f);
    f->dir = xstrdup(dir);
    memcpy(f->sig, sig, sizeof sig);
    f->ck = ck;
    f->tok = tok;
    f->refs = 1;
    LOCK();
    f->next = open_list;
    open_list = f;
    UNLOCK();
    return f;
}

/* Its checkpoint. */
const Checkpoint *mf_checkpoint(const ModelFolder *f)
{
    return f->ck;
}

/* Its tokenizer. */
const Tokenizer *mf_tokenizer(const ModelFolder *f)
{
    return f->tok;
}

/* Whether its weights were all found finite. */
bool mf_checked(const ModelFolder *f)
{
    LOCK();
    bool c = f->checked;
    UNLOCK();
    return c;
}

/* Its weights are all finite. */
void mf_set_checked(ModelFolder *f)
{
    LOCK();
    f->checked = true;
    UNLOCK();
}

/* One lesson fewer reads it; the last closes it. */
void mf_free(ModelFolder *f)
{
    if (!f) return;
    LOCK();
    assert(f->refs > 0);
    bool last = --f->refs == 0;
    if (last)
        for (ModelFolder **p = &open_list; *p; p = &(*p)->next)
            if (*p == f) {
                *p = f->next;
                break;
            }
    UNLOCK();
    if (!last) return;
    ckpt_free(f->ck);
    tok_free(f->tok);
    free(f->dir);
    free(f);
}
