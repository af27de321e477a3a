/*
** filedlg.h: the desktop's own dialog for choosing a lesson file.
**
** O asks with the dialog of the desktop when one is at hand: kdialog on a
** KDE desktop, else zenity, else kdialog, found on PATH. It runs as a child
** process whose output (the chosen path) comes through a pipe, so the
** window keeps drawing while it is open. ATTNLAB_FILE_DIALOG chooses
** instead: "zenity" or "kdialog", or "prompt" for none (the program's own
** path field, prompt.h). With no dialog, filedlg_start returns NULL and the
** window asks with its own field.
**
**   FileDialog *d = filedlg_start("/home/t/course", "Open a lesson");
**   ... each turn of the event loop:
**   char *path;
**   if (filedlg_poll(d, &path)) { if (path) open(path); free(path); filedlg_free(d); }
*/
#ifndef ATTNLAB_FILEDLG_H
#define ATTNLAB_FILEDLG_H

typedef struct FileDialog FileDialog;

/* Start the dialog in folder dir with a title; NULL when there is no
** dialog program (or it cannot be started). */
FileDialog *filedlg_start(const char *dir, const char *title);
/* Whether the dialog is done: 0 while it is open; 1 when it has closed,
** with *path the chosen file (caller frees) or NULL (cancelled, or it
** failed). Never blocks. */
int filedlg_poll(FileDialog *d, char **path);
/* The program it runs ("zenity"). */
const char *filedlg_program(const FileDialog *d);
/* End it (a dialog still open is closed) and free it. NULL is fine. */
void filedlg_free(FileDialog *d);

#endif
