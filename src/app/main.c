/*
** main.c: the attnlab command line.
*/
#include <stdio.h>
#include <string.h>

/* Print the usage summary. */
static void usage(FILE *f)
{
    fprintf(f, "usage: attnlab [--help] [--version]\n");
}

/* Parse arguments and dispatch. */
int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--version")) {
        printf("attnlab %s\n", ATTNLAB_VERSION);
        return 0;
    }
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        usage(stdout);
        printf("\nThe attention engine (matrices, numpy-compatible random numbers,\n"
               "scores, masks, softmax, heads, entropy) is built and tested; lessons,\n"
               "rendering and the interactive window are not there yet.\n");
        return 0;
    }
    usage(stderr);
    return 2;
}
