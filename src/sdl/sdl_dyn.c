/*
** sdl_dyn.c: SDL2's functions, looked up when first needed (sdl_dyn.h
** says why).
*/
#define _POSIX_C_SOURCE 200809L
#define SDL_DYN_LOADER
#include "sdl_dyn.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

SdlApi sdl_api;

/* Look every function up in lib; the name of the first missing, or NULL. */
static const char *look_up(void *lib)
{
    void *sym;
    /* memcpy: a data pointer becomes a function pointer, as POSIX allows */
#define SDL_DYN_GET(f) \
    if (!(sym = dlsym(lib, #f))) return #f; \
    memcpy(&sdl_api.f, &sym, sizeof sym);
    SDL_DYN_FUNCS(SDL_DYN_GET)
#undef SDL_DYN_GET
    return NULL;
}

/* Load once; remember the outcome and the reason. */
int sdl_load(char *why, size_t n)
{
    static int state;                   /* 0 not tried, 1 loaded, -1 failed */
    static char reason[300];
    if (state == 0) {
        state = -1;
        void *lib = dlopen(SDL_DYN_LIB, RTLD_NOW | RTLD_LOCAL);
        const char *missing = lib ? look_up(lib) : NULL;
        if (!lib) {
            const char *e = dlerror();
            snprintf(reason, sizeof reason, "cannot load SDL2 (%s): %s; install it with `apt-get install libsdl2-2.0-0`",
                     SDL_DYN_LIB, e ? e : "not found");
        } else if (missing) {
            snprintf(reason, sizeof reason, "%s has no %s: SDL 2.0.18 or later is needed", SDL_DYN_LIB, missing);
        } else {
            state = 1;
        }
    }
    if (state < 0 && why) snprintf(why, n, "%s", reason);
    return state > 0 ? 0 : -1;
}
