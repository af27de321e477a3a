/*
** fuzz_tokenizer.c: a libFuzzer harness for the model tokenizers
** (src/core/text/tokenizer.c) and the files they read.
**
** The first byte of an input says what the rest is:
**   0: a text, cut by a small GPT-2 tokenizer (every byte's symbol, a few
**      merges) and a small BERT one (a few words and pieces);
**   1: a merges.txt beside the small vocab.json, then "hello world" cut;
**   2: a vocab.txt, then the same text cut.
** Invariants besides "no crash, no sanitizer report, no hang":
**   - GPT-2's tokens, their symbols turned back into bytes, are the text's
**     bytes exactly (byte-level BPE loses nothing);
**   - every id is one of the vocabulary's;
**   - BERT's ids start with [CLS] and end with [SEP];
**   - an error is one non-empty line about a file.
** Build and run: `make fuzz-tokenizer` (tests/fuzz/rules.mk).
*/
#define _POSIX_C_SOURCE 200809L
#include "core/text/tokenizer.h"
#include "core/text/utf8.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Stop with a message: libFuzzer keeps the input as a crash. */
static void die(const char *what, const char *detail)
{
    fprintf(stderr, "fuzz_tokenizer: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    abort();
}

/* GPT-2's symbol of each byte, as code points. */
static uint32_t symbol[256];

/* The byte a symbol stands for, or -1. */
static int byte_of(uint32_t cp)
{
    for (int b = 0; b < 256; b++)
        if (symbol[b] == cp) return b;
    return -1;
}

/* Write n bytes of s to dir/name. */
static void put(const char *dir, const char *name, const void *s, size_t n)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) die("cannot write", path);
    if (n) fwrite(s, 1, n, f);
    fclose(f);
}

/* The folders: dir/gpt2 (vocab.json of the 256 symbols and a few merged
** words, merges.txt) and dir/bert (vocab.txt). */
static void make_folders(const char *dir)
{
    char sub[256];
    int extra = 0;
    for (int b = 0; b < 256; b++) {
        int printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
        symbol[b] = printable ? (uint32_t)b : 256u + (uint32_t)extra++;
    }
    static const char *const merges[][2] = { { "\xc4\xa0", "t" }, { "h", "e" }, { "\xc4\xa0t", "he" }, { "a", "t" },
                                             { "\xc4\xa0", "c" }, { "\xc4\xa0" "c", "at" }, { "o", "n" } };
    size_t cap = 1 << 14, n = 0;
    char *json = malloc(cap);
    n += (size_t)snprintf(json + n, cap - n, "{");
    for (int b = 0; b < 256; b++) {
        char u[4];
        int k = utf8_encode(symbol[b], u);
        n += (size_t)snprintf(json + n, cap - n, "%s\"", b ? "," : "");
        if (b == '"' || b == '\\') json[n++] = '\\';
        memcpy(json + n, u, (size_t)k);
        n += (size_t)k;
        n += (size_t)snprintf(json + n, cap - n, "\": %d", b);
    }
    char text[1024] = "#version: 0.2\n";
    for (size_t i = 0; i < sizeof merges / sizeof *merges; i++) {
        n += (size_t)snprintf(json + n, cap - n, ", \"%s%s\": %zu", merges[i][0], merges[i][1], 256 + i);
        strcat(text, merges[i][0]);
        strcat(text, " ");
        strcat(text, merges[i][1]);
        strcat(text, "\n");
    }
    n += (size_t)snprintf(json + n, cap - n, "}");
    snprintf(sub, sizeof sub, "%s/gpt2", dir);
    mkdir(sub, 0700);
    put(sub, "vocab.json", json, n);
    put(sub, "merges.txt", text, strlen(text));
    free(json);
    static const char vocab[] = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\ncat\n##s\nplay\n##ing\na\n##b\n##c\n,\n.\n\xe4\xb8\xad\n";
    snprintf(sub, sizeof sub, "%s/bert", dir);
    mkdir(sub, 0700);
    put(sub, "vocab.txt", vocab, sizeof vocab - 1);
}

/* An error must be one non-empty line about a file. */
static void check_error(const Error *err)
{
    if (!err->msg[0] || strchr(err->msg, '\n') || err->kind == ERR_NONE) die("a bad error", err->msg);
}

/* GPT-2's tokens of text give back its bytes. Only a tokenizer whose merges
** make words its vocabulary lacks (strict false) may refuse, saying so. */
static void check_gpt2(const Tokenizer *t, const char *text, size_t len, bool strict)
{
    int *ids;
    Error err;
    int n = tok_encode(t, text, &ids, &err);
    if (n < 0 && strict) die("the byte-level tokenizer refused a text", err.msg);
    if (n < 0) {
        check_error(&err);
        return;
    }
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        const char *w = tok_word(t, ids[i]);
        if (!w) die("an id past the vocabulary", NULL);
        uint32_t cp;
        while ((cp = utf8_next(&w)) != 0) {
            int b = byte_of(cp);
            if (b < 0 || at >= len || (unsigned char)text[at] != b) die("the tokens do not give back the text", text);
            at++;
        }
    }
    if (at != len) die("the tokens give back less than the text", text);
    free(ids);
}

/* BERT's ids of text: [CLS] ... [SEP], each one of the vocabulary's. */
static void check_bert(const Tokenizer *t, const char *text)
{
    int *ids;
    Error err;
    int n = tok_encode(t, text, &ids, &err);
    if (n < 2) die("WordPiece without [CLS] and [SEP]", text);
    if (strcmp(tok_word(t, ids[0]), "[CLS]") || strcmp(tok_word(t, ids[n - 1]), "[SEP]")) die("not [CLS] ... [SEP]", text);
    for (int i = 0; i < n; i++)
        if (!tok_word(t, ids[i])) die("an id past the vocabulary", NULL);
    free(ids);
}

/* One input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char dir[64];
    static Tokenizer *gpt2, *bert;
    Error err;
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/fuzz_tokenizer.%ld", (long)getpid());
        mkdir(dir, 0700);
        make_folders(dir);
        char sub[128];
        snprintf(sub, sizeof sub, "%s/gpt2", dir);
        if (!(gpt2 = tok_open(sub, TOK_BPE, &err))) die("the small GPT-2 tokenizer does not open", err.msg);
        snprintf(sub, sizeof sub, "%s/bert", dir);
        if (!(bert = tok_open(sub, TOK_WORDPIECE, &err))) die("the small BERT tokenizer does not open", err.msg);
    }
    if (size == 0) return 0;
    char *rest = malloc(size);
    memcpy(rest, data + 1, size - 1);
    rest[size - 1] = '\0';
    size_t len = strlen(rest);                 /* texts are NUL-terminated: a NUL ends one */
    if (data[0] % 3 == 0) {
        check_gpt2(gpt2, rest, len, true);
        check_bert(bert, rest);
    } else {
        char sub[128];
        snprintf(sub, sizeof sub, "%s/own", dir);
        mkdir(sub, 0700);
        char json[128];
        snprintf(json, sizeof json, "%s/gpt2/vocab.json", dir);
        FILE *f = fopen(json, "rb");
        char *v = malloc(1 << 14);
        size_t vn = f ? fread(v, 1, 1 << 14, f) : 0;
        if (f) fclose(f);
        put(sub, "vocab.json", v, vn);
        free(v);
        put(sub, data[0] % 3 == 1 ? "merges.txt" : "vocab.txt", data + 1, size - 1);
        Tokenizer *t = tok_open(sub, data[0] % 3 == 1 ? TOK_BPE : TOK_WORDPIECE, &err);
        if (!t) check_error(&err);
        else if (data[0] % 3 == 1) check_gpt2(t, "hello world, the cat", 20, false);
        else check_bert(t, "hello world, the cat");
        tok_free(t);
    }
    free(rest);
    return 0;
}
