/*
** platform.h: what the browser edition's platform layer (platform.c)
** exports to web/attnlab.js. Every function here is kept alive in the
** WebAssembly module and called from the script as Module._web_NAME; the
** comments in platform.c say what each does.
*/
#ifndef ATTNLAB_WEB_PLATFORM_H
#define ATTNLAB_WEB_PLATFORM_H

#include "view/draw.h"

int web_init(void);
int web_open(const char *path);
const char *web_error(void);
char *web_model_text(const char *dir);
char *web_sentence(void);
int web_read_sentence(const char *sentence);
void web_set_error(const char *file, const char *msg);
void web_toast(const char *msg, const char *arg, double now);
const char *web_toast_text(double now);
const char *web_tr(const char *msgid);
const char *web_language(void);
DrawList *web_frame(int w, int h, double now);
const char *web_layout_names(void);
int web_layout(int *out, int n);
int web_hover(float x, float y);
void web_leave(void);
void web_click(float x, float y);
int web_wheel(float x, float y, int steps, int fine);
const char *web_key_action(const char *key, int ctrl, int shift);
int web_key(const char *key, int ctrl, int shift, double now);
int web_action(const char *name, double now);
const char *web_action_words(const char *name);
const char *web_help_rows(void);
int web_flags(void);
void web_set_page_shape(float aspect, float base);
void web_set_fullscreen(int on);
void web_set_dark(int on);
double web_toast_until(void);
const char *web_path(void);
int web_picker_count(void);
const char *web_picker_title(int i);
const char *web_picker_file(int i);
int web_picker_selected(void);
void web_picker_select(int i);
const char *web_ask_words(int which);
char *web_shot_name(int svg);
DrawList *web_shot(int w, int h);
char *web_shot_svg(void);
char *web_save(double now);
char *web_explain(void);
int web_pinned_rect(float *out);
char *web_link(void);
void web_apply_link(const char *fields);
char *web_describe(int numbers);
char *web_describe_rows(int k, int r0, int r1);
double web_view_serial(void);
int web_text_rtl(const char *s);
void web_free(void *p);

#endif
