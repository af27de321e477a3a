/*
** predict.h: predict mode, the class guessing before it sees the weights.
**
** P on a stage that shows weights hides the answer (the panels the stage
** table's `hides` names: the weights, what they make) and turns a click on
** a weights cell into a guess: which key a query will weigh most, a row at
** a time, in every head's panel. P again reveals: the panels come back,
** each guess is marked right or wrong (frame.c) and a toast counts the rows
** guessed right, a head at a time when there are several: every head
** guessed, on whichever page of the stage. P a third time ends it.
**
** The guesses belong to the stage and to a head: turning the pages of a
** stage keeps them (guess on head 1's page, then on head 2's, then
** reveal), and head h's panel on the comparison page shares head h's
** guesses with its own page. Stepping to another stage clears them and
** asks again; the zoom ends when the class starts guessing (the guesses
** are about the whole stage) and stays off until P ends it (zoom.h).
**
** The phase and the guesses live in the state (AppState.predict,
** predict_panel, guesses, guess_kind, predict_right); these functions are all that
** reads or changes them. state.c calls the last three when the stage, the
** view or a click changes what predict mode is about.
**
**     app_predict(a);                    // guessing: the answers hide
**     app_click(a, panel, row, col);     // a guess (app_predict_click)
**     app_predict(a);                    // revealed: a->predict_right rows right
*/
#ifndef ATTNLAB_PREDICT_H
#define ATTNLAB_PREDICT_H

#include <stdbool.h>
#include "core/compute/mat.h"

typedef struct AppState AppState;   /* state.h */

typedef enum PredictPhase { PREDICT_OFF, PREDICT_GUESSING, PREDICT_REVEALED } PredictPhase;

/* Predict mode: off -> guessing -> revealed -> off. */
void app_predict(AppState *a);
/* Whether panel k of the view takes guesses in predict mode (a panel of
** weights, any head's). */
bool app_guess_panel(const AppState *a, int k);
/* The column of the largest weight of row r of m (the first of equals):
** the answer a guess is right for when its weight equals that one's. */
int app_row_best(const Mat *m, int r);
/* The guess for row r of panel k (a guess panel), or -1. */
int app_guess(const AppState *a, int k, int r);
/* Panels hidden while the class guesses (bit k = panel k), worked out from
** the view (a->hidden keeps it for the frame): none on a view without
** weights, where predict mode is off. */
unsigned long long app_hidden_panels(const AppState *a);

/* A new stage (not a page of the same one): no guesses, and a revealed
** round asks again. */
void app_predict_new_stage(AppState *a);
/* A new view of the stage (a->view just built): the weights panel it asks about. */
void app_predict_new_view(AppState *a);
/* A click on cell (row, col) of panel: a guess while the class guesses and
** the panel takes them (true), else nothing (false: the click pins). */
bool app_predict_click(AppState *a, int panel, int row, int col);

#endif
