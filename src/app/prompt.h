/*
** prompt.h: what the window asks before it loses work, and the Save as field.
**
** Quitting (Q, Ctrl+Q, closing the window) or opening another lesson from
** the picker with unsaved edits asks first: Q again or Enter goes ahead,
** Esc stays. Ctrl+Shift+S asks for a file name in a one-line text field
** (the lesson's name plus "-edited" to start with); a file that exists is
** replaced only after a second question. The questions are plain state
** (AppState.ask); the window feeds keys and typed text in, and the frame
** draws them with app_prompt_draw, together with the "edited, not saved"
** mark. This module stands above the state: accepting a question opens or
** saves through the state's actions, and the state never calls here.
**
** Usage (the event loop):
**   if (a->ask) { Esc: app_ask_cancel(a); Enter: app_ask_accept(a); ... }
**   app_request_quit(a);            // Q: asks, or sets a->quit
**   app_escape(a);                  // Esc: the question, else an overlay
*/
#ifndef ATTNLAB_PROMPT_H
#define ATTNLAB_PROMPT_H

#include "state.h"
#include "view/draw.h"
#include "view/layout.h"

/* Q, Ctrl+Q, closing the window: quit, or ask if edits are not saved (a
** second request while asking quits). */
void app_request_quit(AppState *a);
/* Open another lesson, or ask first if edits are not saved. */
void app_request_open(AppState *a, const char *path);
/* Ctrl+Shift+S: ask for a file name. */
void app_save_as_start(AppState *a);
/* O without a dialog program: ask for a lesson's path in a field that
** starts in dir; Tab completes it (app_ask_complete), Enter opens it (a
** folder: shows what it holds). */
void app_open_file_start(AppState *a, const char *dir);
/* I: ask for the sentence a model's lesson reads (lesson_model.h), the one
** it reads now to start with; Enter reads it (doc_read_sentence), staying
** on the stage and page shown. A lesson without a model says so. */
void app_sentence_start(AppState *a);
/* The sentence the open lesson's model reads (caller frees), or NULL with a
** toast that says the lesson reads none. */
char *app_sentence_now(AppState *a);
/* Read sentence (the page's field, Enter in the window's): every layer
** again, on the same stage and head; false with the message on screen and
** the lesson as it was. */
bool app_read_sentence(AppState *a, const char *sentence);
/* Tab in the path field: complete the path (library.h). */
void app_ask_complete(AppState *a);
/* Typed text (UTF-8) into the file name field. */
void app_ask_type(AppState *a, const char *text);
/* Backspace in the file name field: remove the last character. */
void app_ask_backspace(AppState *a);
/* Ctrl+U in a field: empty it. */
void app_ask_clear(AppState *a);
/* Enter: do what is asked (quit, open, save as, replace). */
void app_ask_accept(AppState *a);
/* Esc: do not (from replacing a file, back to the name field). */
void app_ask_cancel(AppState *a);
/* Escape: cancel the question if one is asked, else close the innermost
** thing open (app_close_overlay). */
void app_escape(AppState *a);
/* Enter in the lesson picker: open the selected lesson (asking first if
** edits are not saved). */
void app_picker_open(AppState *a);
/* What is asked, in the interface's language: the question into title
** (size n), the keys' hint, and the words of the two answers for a dialog
** with buttons (the browser edition's: NULL for questions it never asks). */
void app_ask_words(const AppState *a, char *title, size_t n, const char **hint, const char **yes, const char **no);
/* Draw the unsaved-edits mark and the question, if any, over the frame
** (the browser edition draws only the mark: it asks with a dialog). */
void app_prompt_draw(const AppState *a, const Theme *th, int w, int h, float size,
                     MeasureFn measure, void *ctx, DrawList *out);

#endif
