/*
** tscratch.c: a scratch folder for a test (suites.h): made fresh under
** /tmp, removed with what the test wrote in it.
*/
#define _POSIX_C_SOURCE 200809L
#include "suites.h"

#include <stdio.h>
#include <stdlib.h>

/* A fresh folder /tmp/attnlab-NAME-XXXXXX into dir (size n). */
void tscratch_make(char *dir, size_t n, const char *name)
{
    snprintf(dir, n, "/tmp/attnlab-%s-XXXXXX", name);
    ck_assert_ptr_nonnull(mkdtemp(dir));
}

/* Remove the folder and its files. */
void tscratch_remove(const char *dir)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}
