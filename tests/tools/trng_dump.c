/*
** trng_dump.c: print draws of attnlab's PyTorch generator, for
** tests/check_torch_rng.py to compare with the installed torch.
**
** Reads commands from standard input, one per line, and answers every draw
** with one line of float32 bit patterns in hex (8 digits, space-separated):
**   seed S           torch.manual_seed(S), S from 0 to 2^64-1
**   portable 0|1     1: torch's portable kernels (ATEN_CPU_CAPABILITY=default)
**   rand N           torch.rand(N)
**   randn N          torch.randn(N)
**   uniform N LO HI  torch.empty(N).uniform_(LO, HI)
**   xavier R C G     nn.init.xavier_uniform_(torch.empty(R, C), gain=G)
**   linear R C       nn.Linear(C, R).weight   (kaiming_uniform_, a=sqrt(5))
**   bias N FANIN     nn.Linear's bias draw that follows its weight
** A value that is not exactly a float32 is printed as "notfloat".
*/
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/compute/trng.h"

/* One line of hex bit patterns. */
static void put_values(const double *v, long n)
{
    for (long i = 0; i < n; i++) {
        float f = (float)v[i];
        uint32_t u;
        memcpy(&u, &f, 4);
        if ((double)f != v[i]) printf("%snotfloat", i ? " " : "");
        else printf("%s%08" PRIx32, i ? " " : "", u);
    }
    printf("\n");
}

/* Run one command; false on a line it does not understand. */
static bool run(Trng *t, const char *line)
{
    char cmd[16];
    unsigned long long s;
    long n, r, c;
    double lo, hi;
    if (sscanf(line, "%15s", cmd) != 1) return true;
    double *buf = NULL;
    bool ok = true;
    if (!strcmp(cmd, "seed") && sscanf(line, "%*s %llu", &s) == 1) {
        trng_seed(t, (uint64_t)s);
    } else if (!strcmp(cmd, "portable") && sscanf(line, "%*s %ld", &n) == 1) {
        t->portable = n != 0;
    } else if ((!strcmp(cmd, "rand") || !strcmp(cmd, "randn")) && sscanf(line, "%*s %ld", &n) == 1 && n > 0) {
        buf = calloc((size_t)n, sizeof *buf);
        if (cmd[4] == 'n') trng_randn(t, buf, n); else trng_rand(t, buf, n);
        put_values(buf, n);
    } else if (!strcmp(cmd, "uniform") && sscanf(line, "%*s %ld %lf %lf", &n, &lo, &hi) == 3 && n > 0) {
        buf = calloc((size_t)n, sizeof *buf);
        trng_uniform(t, buf, n, lo, hi);
        put_values(buf, n);
    } else if (!strcmp(cmd, "xavier") && sscanf(line, "%*s %ld %ld %lf", &r, &c, &lo) == 3 && r > 0 && c > 0) {
        Mat *m = mat_create((int)r, (int)c);
        trng_xavier_uniform(t, m, lo);
        put_values(m->data, r * c);
        mat_free(m);
    } else if (!strcmp(cmd, "linear") && sscanf(line, "%*s %ld %ld", &r, &c) == 2 && r > 0 && c > 0) {
        Mat *m = mat_create((int)r, (int)c);
        trng_linear(t, m);
        put_values(m->data, r * c);
        mat_free(m);
    } else if (!strcmp(cmd, "bias") && sscanf(line, "%*s %ld %ld", &n, &c) == 2 && n > 0 && c > 0) {
        buf = calloc((size_t)n, sizeof *buf);
        trng_linear_bias(t, buf, n, c);
        put_values(buf, n);
    } else {
        ok = false;
    }
    free(buf);
    return ok;
}

/* Commands from stdin until its end. */
int main(void)
{
    Trng t;
    memset(&t, 0, sizeof t);
    trng_seed(&t, 67280421310721ULL);      /* torch's default seed */
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        if (!run(&t, line)) {
            fprintf(stderr, "trng_dump: cannot read: %s", line);
            return 2;
        }
    }
    return 0;
}
