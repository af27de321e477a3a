/*
** args.c: the command line's options, their parsing and their help (args.h).
*/
#define _DEFAULT_SOURCE
#include "args.h"
#include "shot.h"
#include "core/colormaps.h"
#include "core/error.h"
#include "core/io/fileio.h"
#include "core/lesson/lesson_model.h"
#include "core/text/i18n.h"
#include "core/text/utf8.h"
#include "core/util.h"
#include "view/cmap.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifndef ATTNLAB_DOCDIR
#define ATTNLAB_DOCDIR "/usr/local/share/doc/attnlab"
#endif

typedef enum OptId {
    OPT_CHECK, OPT_DUMP, OPT_LIST, OPT_EXPORT, OPT_FORMAT, OPT_SIZE, OPT_SCALE, OPT_THEME, OPT_CMAP,
    OPT_STAGE, OPT_FONT, OPT_SHOTS, OPT_MODEL, OPT_HELP, OPT_VERSION
} OptId;

/*
** The options: name, whether it takes a value, and its help line (what to
** type, what it does; an indented line belongs to --export). The help
** lists them in this order.
*/
static const struct Opt {
    OptId id;
    const char *name;
    bool value;
    const char *usage;
    const char *help;
} opts[] = {
    { OPT_CHECK, "check", false, "--check LESSON...",
      N_("validate lessons; exit 0 if all are valid, 2 if not (1 if one cannot be read)") },
    { OPT_DUMP, "dump", false, "--dump LESSON", N_("print every matrix of every stage as JSON (17 digits, -inf as null)") },
    { OPT_LIST, "list", false, "--list [DIR]", N_("list lessons (default: the bundled ones) with their stages") },
    { OPT_EXPORT, "export", true, "--export DIR",
      N_("write every stage as DIR/<lesson>-<NN>-<stage>.png (no display needed); DIR - writes the one picture "
         "--stage chooses to standard output") },
    { OPT_STAGE, "stage", true, "  --stage N", N_("only stage N, or a list such as 2,4-6 (also for --dump)") },
    { OPT_FORMAT, "format", true, "  --format png|svg|pdf",
      N_("image format (png); pdf: one DIR/<lesson>.pdf per lesson, a page per picture") },
    { OPT_SIZE, "size", true, "  --size WxH", N_("canvas size (1280x720, a 16:9 slide; also the window's size)") },
    { OPT_SCALE, "scale", true, "  --scale N", N_("multiply every dimension, e.g. 2 for print (1)") },
    { OPT_THEME, "theme", true, "  --theme light|dark", N_("light or dark (light)") },
    { OPT_CMAP, "cmap", true, "  --cmap NAME", N_("%s for every panel") },
    { OPT_FONT, "font", true, "--font PATH", N_("a TTF font instead of DejaVu Sans") },
    { OPT_SHOTS, "shots", true, "--shots DIR", N_("where S saves a stage and Ctrl+P the lesson's PDF (.)") },
    { OPT_MODEL, "model", true, "--model DIR [SENTENCE]",
      N_("open a downloaded GPT-2 or BERT folder (config.json, model.safetensors and its tokenizer's files) as a "
         "lesson reading SENTENCE; also with --check, --dump and --export") },
    { OPT_HELP, "help", false, "--help, -h", N_("this help") },
    { OPT_VERSION, "version", false, "--version", N_("the version") },
};
#define NOPTS ((int)(sizeof opts / sizeof opts[0]))

/* A usage error: an invalid input, said as every error is (error.h). */
int app_usage_error(const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    Error e;
    error_set(&e, ERR_INVALID, NULL, 0, 0, "%s %s", msg, _("(see attnlab --help)"));
    error_print(&e, stderr);
    return error_exit_code(&e);
}

/* The help text. */
void app_args_help(FILE *out)
{
    char maps[COLORMAPS_LIST_MAX];
    colormaps_list(maps, sizeof maps);
    fprintf(out, "%s attnlab [--size WxH] [--font PATH] [--shots DIR] [LESSON] [FOLDER...]\n", _("usage:"));
    fprintf(out, "       attnlab --check LESSON... | --dump [--stage N] LESSON | --list [DIR]\n");
    fprintf(out, "       attnlab --export DIR|- [--stage N] [--format png|svg|pdf] [--size WxH] [--scale N] "
                 "[--theme light|dark] [--cmap NAME] LESSON...\n\n");
    fprintf(out, "%s\n\n", _("attnlab teaches how attention in transformers works, one stage at a time."));
    fprintf(out, "  %-21s %s\n", "LESSON", _("open a lesson in the window (none: the lesson picker)"));
    fprintf(out, "  %-21s %s\n", "FOLDER", _("list the lessons of a folder in the picker (L), beside your own and the bundled ones"));
    for (int i = 0; i < NOPTS; i++) {
        int pad = 21 - (int)utf8_columns(opts[i].usage);
        fprintf(out, "  %s%*s ", opts[i].usage, pad > 0 ? pad : 0, "");
        if (opts[i].id == OPT_CMAP) fprintf(out, _(opts[i].help), maps);
        else fputs(_(opts[i].help), out);
        fputc('\n', out);
    }
    fprintf(out, "\n%s\n", _("An option's value follows it (--format pdf) or an equals sign (--format=pdf); an option may be "
                             "shortened while no other starts the same way (--exp). -- ends the options; - reads a lesson "
                             "from standard input."));
    fprintf(out, "%s\n", _("Exit status: 0 success, 1 a runtime failure (I/O, no display, font), 2 usage or invalid input. "
                           "Without a display the window cannot open: attnlab says so and exits with 1 (--export needs "
                           "none)."));
    fprintf(out, "\n");
    fprintf(out, _("In the window, press ? for the keys. Lessons are plain text: see man attnlab, and lesson-format.md "
                   "in %s."), ATTNLAB_DOCDIR);
    fputc('\n', out);
}

/* The optimal string alignment distance of a and b (insertions, deletions,
** substitutions and swaps of neighbours each count 1), up to 32 bytes each. */
static int distance(const char *a, size_t na, const char *b, size_t nb)
{
    int d[33][33];
    if (na > 32 || nb > 32) return 99;
    for (size_t i = 0; i <= na; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= nb; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= na; i++)
        for (size_t j = 1; j <= nb; j++) {
            int cost = a[i - 1] != b[j - 1], v = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < v) v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v) v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1;
            d[i][j] = v;
        }
    return d[na][nb];
}

/* The nearest option: within two edits, and fewer than half the name. */
const char *app_args_nearest(const char *name, size_t len)
{
    const char *best = NULL;
    int least = 3;
    for (int i = 0; i < NOPTS; i++) {
        int d = distance(name, len, opts[i].name, strlen(opts[i].name));
        if (d < least && 2 * d < (int)len) {
            least = d;
            best = opts[i].name;
        }
    }
    return best;
}

/* An unknown option: said, with the nearest one when there is one. */
static int unknown(const char *arg, const char *name, size_t len)
{
    const char *near = app_args_nearest(name, len);
    if (near) return app_usage_error(_("unknown option '%s'; did you mean --%s?"), arg, near);
    return app_usage_error(_("unknown option '%s'"), arg);
}

/* The option a long argument names (its name len bytes at s): exactly, or
** as the one option that starts so; NULL after saying why not. */
static const struct Opt *find_long(const char *arg, const char *s, size_t len)
{
    const struct Opt *found = NULL;
    int starts = 0;
    for (int i = 0; i < NOPTS; i++) {
        if (strlen(opts[i].name) == len && !strncmp(opts[i].name, s, len)) return &opts[i];
        if (len > 0 && !strncmp(opts[i].name, s, len)) {
            found = &opts[i];
            starts++;
        }
    }
    if (starts == 1) return found;
    if (starts > 1) {
        Buf b = { 0 };
        for (int i = 0; i < NOPTS; i++)
            if (!strncmp(opts[i].name, s, len)) buf_printf(&b, "%s--%s", b.len ? ", " : "", opts[i].name);
        app_usage_error(_("option '%s' is ambiguous: %s"), arg, b.s);
        buf_free(&b);
        return NULL;
    }
    unknown(arg, s, len);
    return NULL;
}

/* Parse WxH. */
static bool parse_size(const char *s, int *w, int *h)
{
    char *end;
    long a = strtol(s, &end, 10);
    if (end == s || (*end != 'x' && *end != 'X')) return false;
    long b = strtol(end + 1, &end, 10);
    if (*end || a < 200 || b < 150 || a > 8192 || b > 8192) return false;
    *w = (int)a;
    *h = (int)b;
    return true;
}

/* Take option o with its value v (NULL for none); 0 or 2. */
static int take(Args *a, const struct Opt *o, const char *v)
{
    switch (o->id) {
    case OPT_CHECK: case OPT_DUMP: case OPT_LIST: case OPT_EXPORT:
        if (a->mode) return app_usage_error(_("--%s cannot be combined with another command"), o->name);
        a->mode = o->name;
        if (o->id == OPT_EXPORT) a->dir = v;
        return 0;
    case OPT_FORMAT:
        if (strcmp(v, "png") && strcmp(v, "svg") && strcmp(v, "pdf"))
            return app_usage_error(_("--format takes png, svg or pdf, found '%s'"), v);
        a->shot.svg = !strcmp(v, "svg");
        a->shot.pdf = !strcmp(v, "pdf");
        return 0;
    case OPT_SIZE:
        if (!parse_size(v, &a->shot.width, &a->shot.height))
            return app_usage_error(_("--size takes WxH between 200x150 and 8192x8192, found '%s'"), v);
        a->size_given = true;
        return 0;
    case OPT_SCALE:
        if (strcmp(v, "1") && strcmp(v, "2") && strcmp(v, "3") && strcmp(v, "4"))
            return app_usage_error(_("--scale takes 1, 2, 3 or 4, found '%s'"), v);
        a->shot.scale = atoi(v);
        return 0;
    case OPT_THEME:
        if (strcmp(v, "light") && strcmp(v, "dark")) return app_usage_error(_("--theme takes light or dark, found '%s'"), v);
        a->shot.dark = !strcmp(v, "dark");
        return 0;
    case OPT_CMAP:
        if (!cmap_get(v)) {
            char maps[COLORMAPS_LIST_MAX];
            colormaps_list(maps, sizeof maps);
            return app_usage_error(_("--cmap takes %s, found '%s'"), maps, v);
        }
        a->shot.cmap = v;
        return 0;
    case OPT_STAGE: {
        Error why;
        if (a->staged) return app_usage_error("%s", _("--stage is given twice"));
        if (cli_stage_parse(v, &a->stages, &why) != 0) return app_usage_error("%s", why.msg);
        a->staged = true;
        return 0;
    }
    case OPT_FONT: a->font = v; return 0;
    case OPT_SHOTS: a->shots = v; return 0;
    case OPT_MODEL:
        if (a->model) return app_usage_error("%s", _("--model is given twice"));
        a->model = v;
        return 0;
    case OPT_HELP: a->help = true; return 0;
    case OPT_VERSION: a->version = true; return 0;
    }
    return 0;
}

/* One argument that starts with "--" (and is not "--" itself) at argv[*i]:
** the option and its value, which may be the next argument. 0 or 2. */
static int long_option(Args *a, int argc, char **argv, int *i)
{
    const char *arg = argv[*i], *s = arg + 2, *eq = strchr(s, '=');
    size_t len = eq ? (size_t)(eq - s) : strlen(s);
    const struct Opt *o = find_long(arg, s, len);
    if (!o) return 2;
    const char *v = eq ? eq + 1 : NULL;
    if (!o->value && v) return app_usage_error(_("--%s takes no value, found '%s'"), o->name, arg);
    if (o->value && !v) {
        if (*i + 1 >= argc) return app_usage_error(_("--%s needs a value"), o->name);
        v = argv[++*i];
    }
    if (o->value && !*v) return app_usage_error(_("--%s needs a value, found an empty one"), o->name);
    return take(a, o, v);
}

/* An argument that starts with one "-" (not "-" itself): -h, or a long
** option with a dash missing, which is named. 0 or 2. */
static int short_option(Args *a, const char *arg)
{
    if (!strcmp(arg, "-h")) {
        a->help = true;
        return 0;
    }
    const char *s = arg + 1, *eq = strchr(s, '=');
    size_t len = eq ? (size_t)(eq - s) : strlen(s);
    for (int i = 0; i < NOPTS; i++)
        if (strlen(opts[i].name) == len && !strncmp(opts[i].name, s, len))
            return app_usage_error(_("unknown option '%s'; did you mean --%s?"), arg, opts[i].name);
    return unknown(arg, s, len);
}

/* Whether the window's argument path names a folder of lessons: a
** directory, unless its name says it is a lesson (then reading it says
** that a directory is not a lesson). */
static bool is_folder(const char *path)
{
    struct stat st;
    size_t n = strlen(path);
    if (n > 7 && !strcmp(path + n - 7, ".lesson")) return false;
    return strcmp(path, FILEIO_STDIN) && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* --model DIR [SENTENCE...]: the words left over are the sentence, and the
** lesson reading it is standard input's (fileio_set_stdin); 0 or 2. */
static int model_lesson(Args *a)
{
    if (a->mode && !strcmp(a->mode, "list")) return app_usage_error("%s", _("--model cannot be combined with --list"));
    Buf sentence = { 0 };
    for (int i = 0; i < a->nfiles; i++) {
        if (!strcmp(a->files[i], FILEIO_STDIN))
            return app_usage_error("%s", _("--model reads its sentence from the arguments, not from standard input"));
        buf_printf(&sentence, "%s%s", i ? " " : "", a->files[i]);
    }
    char real[PATH_MAX];
    const char *dir = realpath(a->model, real) ? real : a->model;
    char *text = lml_default_text(dir, a->nfiles ? buf_str(&sentence) : NULL);
    buf_free(&sentence);
    fileio_set_stdin(text, strlen(text));
    free(text);
    a->files[0] = (char *)FILEIO_STDIN;
    a->nfiles = 1;
    return 0;
}

/* What the arguments left over mean for each command; 0 or 2. */
static int check_files(Args *a)
{
    if (a->model) {
        int code = model_lesson(a);
        if (code) return code;
    }
    if (a->mode && !strcmp(a->mode, "list")) {
        if (a->nfiles > 1) return app_usage_error("%s", _("--list takes at most one directory"));
        a->dir = a->nfiles ? a->files[0] : NULL;
    } else if (a->mode && !strcmp(a->mode, "dump") && a->nfiles != 1) {
        return app_usage_error("%s", _("--dump takes exactly one lesson"));
    } else if (a->mode && a->nfiles == 0) {
        return app_usage_error(_("--%s needs at least one lesson"), a->mode);
    } else if (!a->mode) {
        /* the window: folders go to the picker, one lesson opens */
        int n = 0;
        for (int i = 0; i < a->nfiles; i++) {
            if (is_folder(a->files[i])) a->folders[a->nfolders++] = a->files[i];
            else a->files[n++] = a->files[i];
        }
        a->nfiles = n;
        if (n > 1) return app_usage_error("%s", _("the window opens one lesson at a time"));
    }
    int stdin_uses = 0;
    for (int i = 0; i < a->nfiles; i++) stdin_uses += !strcmp(a->files[i], FILEIO_STDIN);
    if (stdin_uses > 1) return app_usage_error("%s", _("standard input (-) can be read only once"));
    bool dump_or_export = a->mode && (!strcmp(a->mode, "dump") || !strcmp(a->mode, "export"));
    if (a->staged && !dump_or_export) return app_usage_error("%s", _("--stage chooses the stages of --dump and --export"));
    if (a->dir && a->mode && !strcmp(a->mode, "export") && !strcmp(a->dir, FILEIO_STDIN)) {
        if (a->nfiles != 1) return app_usage_error("%s", _("--export - writes one picture of one lesson to standard output"));
        if (a->shot.pdf) return app_usage_error("%s", _("--export - writes one PNG or SVG picture, not a PDF"));
    }
    if (a->staged && a->shot.pdf) return app_usage_error("%s", _("a PDF handout has every stage: leave out --stage"));
    return 0;
}

/* Parse. */
int app_args_parse(int argc, char **argv, Args *a)
{
    memset(a, 0, sizeof *a);
    a->shot = app_shot_defaults();
    a->files = xcalloc((size_t)argc + 1, sizeof *a->files);
    a->folders = xcalloc((size_t)argc + 1, sizeof *a->folders);
    bool options = true;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        int code = 0;
        if (options && !strcmp(s, "--")) options = false;
        else if (options && s[0] == '-' && s[1] == '-') code = long_option(a, argc, argv, &i);
        else if (options && s[0] == '-' && s[1]) code = short_option(a, s);
        else a->files[a->nfiles++] = argv[i];
        if (code) return code;
    }
    if ((a->help || a->version) && a->nfiles)
        return app_usage_error(_("--%s takes nothing else, found '%s'"), a->help ? "help" : "version", a->files[0]);
    if (a->help || a->version) return 0;
    int code = check_files(a);
    if (code) return code;
    Error why;
    if (app_shot_check(&a->shot, &why) != 0) return app_usage_error("%s", why.msg);
    return 0;
}

/* Release. */
void app_args_free(Args *a)
{
    free(a->files);
    free(a->folders);
    a->files = a->folders = NULL;
}
