/*
** cli.c: the WebAssembly command line, run under node:
**
**   node --no-experimental-fetch build/web/attnlab-cli.js --check LESSON...
**   node --no-experimental-fetch build/web/attnlab-cli.js --dump LESSON
**
** It reads the real file system (NODERAWFS) and does exactly what the
** native --check and --dump do, through the same functions (cli_core.c),
** so tests can compare the two builds byte for byte. Only those two
** commands exist here; the window and the exports need SDL.
*/
#include "app/cli_core.h"

#include <stdio.h>
#include <string.h>

#define USAGE "usage: attnlab-cli --check LESSON... | --dump LESSON\n"

/* Dispatch --check and --dump; 2 for anything else. */
int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "--version")) {
        printf("attnlab %s (WebAssembly)\n", ATTNLAB_VERSION);
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "--check")) return cli_check(argv + 2, argc - 2, NULL);
    if (argc == 3 && !strcmp(argv[1], "--dump")) return cli_dump(argv[2], NULL);
    Error err;
    error_set(&err, ERR_INVALID, NULL, 0, 0, "the WebAssembly build runs only --check and --dump");
    error_print(&err, stderr);
    fputs(USAGE, stderr);
    return error_exit_code(&err);
}
