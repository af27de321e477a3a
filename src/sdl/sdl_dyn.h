/*
** sdl_dyn.h: SDL2, loaded the first time something needs it.
**
** Linked the ordinary way, SDL2 brings about fifty libraries (X11,
** Wayland, PulseAudio, ALSA, D-Bus, sound file codecs ...) that the
** dynamic loader maps and relocates before main runs: a third of the
** start of `attnlab --export`, which uses none of them (it draws on a
** canvas, canvas.h). So the program does not link SDL2: the files that
** call SDL include this header, which turns every SDL function they use
** into a pointer that sdl_load fills from the library with dlopen.
**
**     char why[300];
**     if (sdl_load(why, sizeof why) != 0) { fprintf(stderr, "%s\n", why); ... }
**     SDL_Init(SDL_INIT_VIDEO);       // through sdl_api from here on
**
** Every function is listed twice below, in SDL_DYN_FUNCS (the pointers and
** the names looked up) and as a #define (the calls); a name missing from
** the first does not compile, one missing from the second does not link
** (the program has no SDL symbols of its own). Programs that link SDL2
** anyway (the tests, the benchmark) load the very same library.
**
** Include it instead of <SDL.h>, after every other header.
*/
#ifndef ATTNLAB_SDL_DYN_H
#define ATTNLAB_SDL_DYN_H

#include <stddef.h>
#include <SDL.h>

/* The library's file name (SONAME). */
#ifndef SDL_DYN_LIB
#define SDL_DYN_LIB "libSDL2-2.0.so.0"
#endif

/* Every SDL function the program calls. */
#define SDL_DYN_FUNCS(X) \
    X(SDL_CreateRGBSurfaceWithFormat) \
    X(SDL_CreateRGBSurfaceWithFormatFrom) \
    X(SDL_CreateRenderer) \
    X(SDL_CreateSoftwareRenderer) \
    X(SDL_CreateTexture) \
    X(SDL_CreateWindow) \
    X(SDL_Delay) \
    X(SDL_DestroyRenderer) \
    X(SDL_DestroyTexture) \
    X(SDL_DestroyWindow) \
    X(SDL_FillRect) \
    X(SDL_FreeSurface) \
    X(SDL_GetCurrentVideoDriver) \
    X(SDL_GetDisplayBounds) \
    X(SDL_GetDisplayUsableBounds) \
    X(SDL_GetError) \
    X(SDL_GetKeyName) \
    X(SDL_GetModState) \
    X(SDL_GetMouseFocus) \
    X(SDL_GetMouseState) \
    X(SDL_GetRendererInfo) \
    X(SDL_GetRendererOutputSize) \
    X(SDL_GetTicks) \
    X(SDL_GetWindowBordersSize) \
    X(SDL_GetWindowDisplayIndex) \
    X(SDL_GetWindowFlags) \
    X(SDL_GetWindowPosition) \
    X(SDL_GetWindowSize) \
    X(SDL_HasEvents) \
    X(SDL_Init) \
    X(SDL_MapRGBA) \
    X(SDL_PollEvent) \
    X(SDL_PumpEvents) \
    X(SDL_Quit) \
    X(SDL_RenderClear) \
    X(SDL_RenderCopy) \
    X(SDL_RenderDrawLineF) \
    X(SDL_RenderFillRect) \
    X(SDL_RenderFlush) \
    X(SDL_RenderGeometry) \
    X(SDL_RenderPresent) \
    X(SDL_RenderReadPixels) \
    X(SDL_RenderSetClipRect) \
    X(SDL_SetError) \
    X(SDL_SetHint) \
    X(SDL_SetRenderDrawBlendMode) \
    X(SDL_SetRenderDrawColor) \
    X(SDL_SetTextureAlphaMod) \
    X(SDL_SetTextureBlendMode) \
    X(SDL_SetTextureColorMod) \
    X(SDL_SetTextureScaleMode) \
    X(SDL_SetWindowFullscreen) \
    X(SDL_SetWindowIcon) \
    X(SDL_SetWindowMinimumSize) \
    X(SDL_SetWindowPosition) \
    X(SDL_SetWindowSize) \
    X(SDL_SetWindowTitle) \
    X(SDL_ShowWindow) \
    X(SDL_UpdateTexture) \
    X(SDL_WaitEvent) \
    X(SDL_WaitEventTimeout) \
    X(SDL_free) \
    X(SDL_getenv)

/* A pointer per function, typed as SDL declares it. */
typedef struct SdlApi {
#define SDL_DYN_FIELD(f) __typeof__(f) *f;
    SDL_DYN_FUNCS(SDL_DYN_FIELD)
#undef SDL_DYN_FIELD
} SdlApi;

extern SdlApi sdl_api;

/* Load the library and every function (once; later calls answer at once).
** 0, or -1 with a one-line reason in why (size n): what to install. */
int sdl_load(char *why, size_t n);

/* From here on each name is the loaded function (sdl_dyn.c, which fills
** the pointers, keeps the names as they are). */
#ifndef SDL_DYN_LOADER
#define SDL_CreateRGBSurfaceWithFormat sdl_api.SDL_CreateRGBSurfaceWithFormat
#define SDL_CreateRGBSurfaceWithFormatFrom sdl_api.SDL_CreateRGBSurfaceWithFormatFrom
#define SDL_CreateRenderer sdl_api.SDL_CreateRenderer
#define SDL_CreateSoftwareRenderer sdl_api.SDL_CreateSoftwareRenderer
#define SDL_CreateTexture sdl_api.SDL_CreateTexture
#define SDL_CreateWindow sdl_api.SDL_CreateWindow
#define SDL_Delay sdl_api.SDL_Delay
#define SDL_DestroyRenderer sdl_api.SDL_DestroyRenderer
#define SDL_DestroyTexture sdl_api.SDL_DestroyTexture
#define SDL_DestroyWindow sdl_api.SDL_DestroyWindow
#define SDL_FillRect sdl_api.SDL_FillRect
#define SDL_FreeSurface sdl_api.SDL_FreeSurface
#define SDL_GetCurrentVideoDriver sdl_api.SDL_GetCurrentVideoDriver
#define SDL_GetDisplayBounds sdl_api.SDL_GetDisplayBounds
#define SDL_GetDisplayUsableBounds sdl_api.SDL_GetDisplayUsableBounds
#define SDL_GetError sdl_api.SDL_GetError
#define SDL_GetKeyName sdl_api.SDL_GetKeyName
#define SDL_GetModState sdl_api.SDL_GetModState
#define SDL_GetMouseFocus sdl_api.SDL_GetMouseFocus
#define SDL_GetMouseState sdl_api.SDL_GetMouseState
#define SDL_GetRendererInfo sdl_api.SDL_GetRendererInfo
#define SDL_GetRendererOutputSize sdl_api.SDL_GetRendererOutputSize
#define SDL_GetTicks sdl_api.SDL_GetTicks
#define SDL_GetWindowBordersSize sdl_api.SDL_GetWindowBordersSize
#define SDL_GetWindowDisplayIndex sdl_api.SDL_GetWindowDisplayIndex
#define SDL_GetWindowFlags sdl_api.SDL_GetWindowFlags
#define SDL_GetWindowPosition sdl_api.SDL_GetWindowPosition
#define SDL_GetWindowSize sdl_api.SDL_GetWindowSize
#define SDL_HasEvents sdl_api.SDL_HasEvents
#define SDL_Init sdl_api.SDL_Init
#define SDL_MapRGBA sdl_api.SDL_MapRGBA
#define SDL_PollEvent sdl_api.SDL_PollEvent
#define SDL_PumpEvents sdl_api.SDL_PumpEvents
#define SDL_Quit sdl_api.SDL_Quit
#define SDL_RenderClear sdl_api.SDL_RenderClear
#define SDL_RenderCopy sdl_api.SDL_RenderCopy
#define SDL_RenderDrawLineF sdl_api.SDL_RenderDrawLineF
#define SDL_RenderFillRect sdl_api.SDL_RenderFillRect
#define SDL_RenderFlush sdl_api.SDL_RenderFlush
#define SDL_RenderGeometry sdl_api.SDL_RenderGeometry
#define SDL_RenderPresent sdl_api.SDL_RenderPresent
#define SDL_RenderReadPixels sdl_api.SDL_RenderReadPixels
#define SDL_RenderSetClipRect sdl_api.SDL_RenderSetClipRect
#define SDL_SetError sdl_api.SDL_SetError
#define SDL_SetHint sdl_api.SDL_SetHint
#define SDL_SetRenderDrawBlendMode sdl_api.SDL_SetRenderDrawBlendMode
#define SDL_SetRenderDrawColor sdl_api.SDL_SetRenderDrawColor
#define SDL_SetTextureAlphaMod sdl_api.SDL_SetTextureAlphaMod
#define SDL_SetTextureBlendMode sdl_api.SDL_SetTextureBlendMode
#define SDL_SetTextureColorMod sdl_api.SDL_SetTextureColorMod
#define SDL_SetTextureScaleMode sdl_api.SDL_SetTextureScaleMode
#define SDL_SetWindowFullscreen sdl_api.SDL_SetWindowFullscreen
#define SDL_SetWindowIcon sdl_api.SDL_SetWindowIcon
#define SDL_SetWindowMinimumSize sdl_api.SDL_SetWindowMinimumSize
#define SDL_SetWindowPosition sdl_api.SDL_SetWindowPosition
#define SDL_SetWindowSize sdl_api.SDL_SetWindowSize
#define SDL_SetWindowTitle sdl_api.SDL_SetWindowTitle
#define SDL_ShowWindow sdl_api.SDL_ShowWindow
#define SDL_UpdateTexture sdl_api.SDL_UpdateTexture
#define SDL_WaitEvent sdl_api.SDL_WaitEvent
#define SDL_WaitEventTimeout sdl_api.SDL_WaitEventTimeout
#define SDL_free sdl_api.SDL_free
#define SDL_getenv sdl_api.SDL_getenv
#endif

#endif
