/*
** font.c: finding DejaVu Sans and its fallbacks, opening font files safely,
** FreeType faces per pixel size, and vertical metrics. Shaping lives in
** font_shape.c, the glyph atlas in font_atlas.c; font.h has the whole story.
*/
#define _POSIX_C_SOURCE 200809L
#include "font_impl.h"
#include "core/io/fileio.h"
#include "core/util.h"

#include FT_SIZES_H
#include <hb.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where Debian puts the files, tried when fontconfig cannot help. */
#define DEJAVU_DIR "/usr/share/fonts/truetype/dejavu/"
#define CEIL26(x) ((int)(((x) + 63) >> 6))

/*
** The check every font file passes before FreeType opens it, through the
** program's one reader: a regular file of at most FONT_MAX_FILE bytes,
** opened without blocking (a FIFO cannot hang us) and not read (so
** /dev/zero cannot run forever). 0, or -1 with err filled ("font: PATH:
** why", about no file: the program says it, not a lesson).
*/
static int check_font_file(const char *path, Error *err)
{
    size_t size = 0;
    Error e;
    int fd = fileio_open(path, FONT_MAX_FILE, &size, &e);
    if (fd < 0) {
        error_set(err, e.kind, NULL, 0, 0, "font: %s: %s", path, e.kind == ERR_LIMIT ? "larger than 64 MiB" : e.msg);
        return -1;
    }
    close(fd);
    if (size == 0) {
        error_set(err, ERR_IO, NULL, 0, 0, "font: %s: cannot read: the file is empty", path);
        return -1;
    }
    return 0;
}

/* Whether a path names a regular file we may read. */
static int readable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, R_OK) == 0;
}

/* Add a face record (not opened yet); returns its index or -1 when full. */
static int add_face(FontSet *fs, const char *path, int index, const char *family, int embolden)
{
    if (fs->nfaces == FONT_MAX_FACES) return -1;
    Face *f = &fs->face[fs->nfaces];
    memset(f, 0, sizeof *f);
    f->path = xstrdup(path);
    f->index = index;
    f->family = xstrdup(family ? family : "");
    f->embolden = embolden;
    return fs->nfaces++;
}

/* What fontconfig is asked for: DejaVu Sans upright at a weight (and of
** normal width when normal_width), with fc's and the default
** substitutions made; NULL when there is no memory. */
static FcPattern *dejavu_pattern(FcConfig *fc, int bold, bool normal_width)
{
    FcPattern *pat = FcPatternBuild(NULL,
        FC_FAMILY, FcTypeString, (const FcChar8 *)"DejaVu Sans",
        FC_WEIGHT, FcTypeInteger, bold ? FC_WEIGHT_BOLD : FC_WEIGHT_REGULAR,
        FC_SLANT, FcTypeInteger, FC_SLANT_ROMAN,
        (char *)0);
    if (!pat) return NULL;
    if (normal_width && !FcPatternAddInteger(pat, FC_WIDTH, FC_WIDTH_NORMAL)) {
        FcPatternDestroy(pat);
        return NULL;
    }
    FcConfigSubstitute(fc, pat, FcMatchPattern);
    FcDefaultSubstitute(pat);
    return pat;
}

/*
** Ask fontconfig for DejaVu Sans at a weight. fontconfig always answers with
** *something*, so the family of the match is checked: a substitute font
** would lack the signs the lessons print (−∞, ᵀ, √). Returns a malloc'd path
** or NULL, with what fontconfig offered instead (if anything) in other.
*/
static char *fc_find(FcConfig *cfg, int bold, int *got_bold, char *other, size_t n)
{
    char *found = NULL;
    other[0] = '\0';
    FcPattern *pat = dejavu_pattern(cfg, bold, true);
    if (!pat) return NULL;
    FcResult res = FcResultNoMatch;
    FcPattern *m = FcFontMatch(cfg, pat, &res);
    if (m) {
        FcChar8 *fam = NULL, *file = NULL;
        int is_dejavu = 0, weight = FC_WEIGHT_REGULAR;
        for (int i = 0; FcPatternGetString(m, FC_FAMILY, i, &fam) == FcResultMatch; i++)
            if (!strcmp((const char *)fam, "DejaVu Sans")) is_dejavu = 1;
        FcPatternGetInteger(m, FC_WEIGHT, 0, &weight);
        if (FcPatternGetString(m, FC_FILE, 0, &file) == FcResultMatch) {
            if (is_dejavu && readable((const char *)file)) {
                found = xstrdup((const char *)file);
                *got_bold = weight >= FC_WEIGHT_DEMIBOLD;
            } else {
                snprintf(other, n, "%s", (const char *)file);
            }
        }
        FcPatternDestroy(m);
    }
    FcPatternDestroy(pat);
    return found;
}

/* DejaVu Sans's fallback list at a weight, as fontconfig sorts the fonts
** of fc for it (NULL when it cannot). */
static FcFontSet *fallback_list(FcConfig *fc, int bold)
{
    FcPattern *pat = dejavu_pattern(fc, bold, false);
    if (!pat) return NULL;
    FcResult res = FcResultNoMatch;
    FcFontSet *set = FcFontSort(fc, pat, FcTrue, NULL, &res);
    FcPatternDestroy(pat);
    return set;
}

/* The warming thread (font_warm): fontconfig started and both fallback
** lists sorted, into the FontWarm it is given and nothing else. */
static void *warm(void *arg)
{
    FontWarm *w = arg;
    w->fc = FcInitLoadConfigAndFonts();
    for (int b = 0; b < 2 && w->fc; b++) w->sorted[b] = fallback_list(w->fc, b);
    return NULL;
}

/* What the warming thread made, taken (after waiting for it to end) the
** first time fontconfig is needed; nothing when no thread was started. */
static void warm_join(FontSet *fs)
{
    if (!fs->warming) return;
    pthread_join(fs->warm_thread, NULL);
    fs->warming = 0;
    fs->fc_started = 1;
    fs->fc = fs->warm.fc;
    for (int b = 0; b < 2; b++) {
        fs->sorted[b] = fs->warm.sorted[b];
        fs->sorted_done[b] = fs->fc != NULL;
    }
}

/* Start fontconfig and sort the fallback lists on a thread of their own. */
void font_warm(FontSet *fs)
{
    if (!fs || fs->fc_started || fs->warming) return;
    memset(&fs->warm, 0, sizeof fs->warm);
    if (pthread_create(&fs->warm_thread, NULL, warm, &fs->warm) == 0) fs->warming = 1;
}

/* fontconfig, started the first time it is needed: finding DejaVu Sans
** where Debian does not put it, fallback fonts, installed packages. Its
** start reads every configuration file and font cache of the system, half
** of a one-stage export's time, which a lesson in Latin, Greek or Cyrillic
** never needs (the window starts it early on a thread: font_warm). NULL
** when it cannot start. */
static FcConfig *fc_config(FontSet *fs)
{
    warm_join(fs);
    if (!fs->fc_started) {
        fs->fc_started = 1;
        fs->fc = FcInitLoadConfigAndFonts();
    }
    return fs->fc;
}

/* Faces 0 and 1: DejaVu Sans regular and bold; -1 with err filled. Where
** Debian puts it, without fontconfig; elsewhere, as fontconfig finds it. */
static int find_dejavu(FontSet *fs, Error *err)
{
    char other[512] = "";
    int got_bold = 0;
    char *path[2] = { NULL, NULL };
    if (readable(DEJAVU_DIR "DejaVuSans.ttf") && readable(DEJAVU_DIR "DejaVuSans-Bold.ttf")) {
        path[0] = xstrdup(DEJAVU_DIR "DejaVuSans.ttf");
        path[1] = xstrdup(DEJAVU_DIR "DejaVuSans-Bold.ttf");
    } else if (fc_config(fs)) {
        path[0] = fc_find(fs->fc, 0, &got_bold, other, sizeof other);
        if (path[0]) {
            char dummy[8];
            path[1] = fc_find(fs->fc, 1, &got_bold, dummy, sizeof dummy);
            if (path[1] && (!got_bold || !strcmp(path[1], path[0]))) {
                free(path[1]);
                path[1] = NULL;
            }
        }
    }
    /* fontconfig may be unconfigured (a bare container): try Debian's path. */
    if (!path[0] && readable(DEJAVU_DIR "DejaVuSans.ttf")) path[0] = xstrdup(DEJAVU_DIR "DejaVuSans.ttf");
    if (path[0] && !path[1] && readable(DEJAVU_DIR "DejaVuSans-Bold.ttf"))
        path[1] = xstrdup(DEJAVU_DIR "DejaVuSans-Bold.ttf");
    if (!path[0]) {
        error_set(err, ERR_RUNTIME, NULL, 0, 0, "font: DejaVu Sans was not found by fontconfig%s%s%s; install it "
                  "with `apt-get install " FONT_PACKAGE "` or pass --font PATH to a TTF file",
                  other[0] ? " (it offered " : "", other, other[0] ? " instead)" : "");
        return -1;
    }
    add_face(fs, path[0], 0, "DejaVu Sans", 0);
    add_face(fs, path[1] ? path[1] : path[0], 0, "DejaVu Sans", path[1] == NULL);
    free(path[0]);
    free(path[1]);
    return 0;
}

/* Check and open a face; 0, or -1 with err filled (err may be NULL: a
** fallback face opened while drawing is simply not used). */
static int open_face(FontSet *fs, int i, Error *err)
{
    Face *f = &fs->face[i];
    if (f->state) return f->state > 0 ? 0 : -1;
    f->state = -1;
    if (check_font_file(f->path, err) != 0) return -1;
    if (FT_New_Face(fs->lib, f->path, f->index, &f->ft) != 0) {
        f->ft = NULL;
        return error_set(err, ERR_IO, NULL, 0, 0, "font: %s: not a usable TrueType/OpenType font", f->path), -1;
    }
    f->color = FT_HAS_COLOR(f->ft) ? 1 : 0;
    if (!FT_IS_SCALABLE(f->ft)) {
        /* A bitmap font (Noto Color Emoji): one strike, scaled when drawn. */
        if (f->ft->num_fixed_sizes < 1 || FT_Select_Size(f->ft, 0) != 0)
            return error_set(err, ERR_IO, NULL, 0, 0, "font: %s: no usable size", f->path), -1;
        f->strike = f->ft->size->metrics.y_ppem;
        if (f->strike <= 0) return -1;
    }
    if (!f->family[0] && f->ft->family_name) {
        free(f->family);
        f->family = xstrdup(f->ft->family_name);
    }
    f->state = 1;
    return 0;
}

/* Open and size a face. */
FT_Face font_face_at(FontSet *fs, int i, int px)
{
    if (i < 0 || i >= fs->nfaces || px < FONT_MIN_PX || px > FONT_MAX_PX) return NULL;
    Face *f = &fs->face[i];
    if (f->state == 0) open_face(fs, i, NULL);
    if (f->state < 0) return NULL;
    if (f->strike) return f->ft;
    if (f->cur_px == px) return f->ft;
    if (!f->size[px]) {
        FT_Size s;
        if (FT_New_Size(f->ft, &s) != 0) return NULL;
        if (FT_Activate_Size(s) != 0 || FT_Set_Pixel_Sizes(f->ft, 0, (FT_UInt)px) != 0) {
            FT_Done_Size(s);
            f->cur_px = 0;
            return NULL;
        }
        f->size[px] = s;
    } else if (FT_Activate_Size(f->size[px]) != 0) {
        return NULL;
    }
    f->cur_px = px;
    return f->ft;
}

/* A new FontSet with its main files read and checked. */
FontSet *font_create(const char *path, Error *err)
{
    FontSet *fs = xcalloc(1, sizeof *fs);
    error_clear(err);
    if (FT_Init_FreeType(&fs->lib) != 0) {
        error_set(err, ERR_RUNTIME, NULL, 0, 0, "font: FreeType cannot start");
        free(fs);
        return NULL;
    }
    if (path) {
        add_face(fs, path, 0, NULL, 0);
        add_face(fs, path, 0, NULL, 1);
    } else if (find_dejavu(fs, err) < 0) {
        font_free(fs);
        return NULL;
    }
    /* Open one size now, so a file that is not a font fails here, not mid-frame. */
    for (int i = 0; i < 2; i++) {
        Error why;
        error_clear(&why);
        if (open_face(fs, i, &why) < 0 || font_metrics(fs, 16, i).px == 0) {
            error_set(err, why.kind != ERR_NONE ? why.kind : ERR_IO, NULL, 0, 0, "%.560s; %s",
                      why.kind != ERR_NONE ? why.msg : "font: cannot open the font",
                      path ? "omit --font to use DejaVu Sans (package " FONT_PACKAGE ")"
                           : "install DejaVu Sans with `apt-get install " FONT_PACKAGE "`");
            font_free(fs);
            return NULL;
        }
    }
    return fs;
}

/* Close every font, free the caches, and release FreeType. */
void font_free(FontSet *fs)
{
    if (!fs) return;
    warm_join(fs);
    font_runs_free(fs);
    font_atlas_free(fs);
    for (int i = 0; i < fs->nfaces; i++) {
        Face *f = &fs->face[i];
        if (f->ft) FT_Done_Face(f->ft);        /* frees its sizes too */
    }
    for (int i = 0; i < fs->nfaces; i++) {
        free(fs->face[i].path);
        free(fs->face[i].family);
    }
    for (int b = 0; b < 2; b++)
        if (fs->sorted[b]) FcFontSetDestroy(fs->sorted[b]);
    if (fs->fc) FcConfigDestroy(fs->fc);
    free(fs->fb_keys);
    free(fs->fb_face);
    FT_Done_FreeType(fs->lib);
    free(fs);
}

/* The file behind a weight. */
const char *font_path(const FontSet *fs, int bold)
{
    return fs->face[bold ? 1 : 0].path;
}

/* The family of a face. */
const char *font_face_family(const FontSet *fs, int face)
{
    return face >= 0 && face < fs->nfaces ? fs->face[face].family : "";
}

/* The file of a face. */
const char *font_face_path(const FontSet *fs, int face, int *index)
{
    if (face < 0 || face >= fs->nfaces) return NULL;
    if (index) *index = fs->face[face].index;
    return fs->face[face].path;
}

/* Whether a face is emboldened. */
int font_face_emboldened(const FontSet *fs, int face)
{
    return face >= 0 && face < fs->nfaces && fs->face[face].embolden;
}

/* Whether a face is a colour font (opened: a run's faces are). */
int font_face_color(const FontSet *fs, int face)
{
    return face >= 0 && face < fs->nfaces && fs->face[face].state > 0 && fs->face[face].color;
}

/* Whole pixels for a DrawList size. */
int font_px(float size)
{
    if (!(size >= 0.5f)) return 0;      /* also NaN */
    if (size >= FONT_MAX_PX) return FONT_MAX_PX;
    return (int)(size + 0.5f);
}

/*
** Vertical metrics, computed once per (px, bold), the way the program has
** always measured DejaVu Sans: the font's ascender, descender and line gap
** scaled and rounded up to whole pixels, and the top of the hinted '0'.
*/
FontMetrics font_metrics(FontSet *fs, float size, int bold)
{
    FontMetrics none = { 0, 0, 0, 0, 0 };
    int px = font_px(size);
    bold = bold ? 1 : 0;
    if (!fs || px == 0) return none;
    FontMetrics *m = &fs->met[bold][px];
    if (m->px) return *m;
    FT_Face f = font_face_at(fs, bold, px);
    if (!f) return none;
    if (fs->face[bold].strike) {
        m->ascent = px * 4 / 5;
        m->descent = px - m->ascent;
        m->line_height = px * 6 / 5;
    } else {
        FT_Fixed scale = f->size->metrics.y_scale;
        m->ascent = CEIL26(FT_MulFix(f->ascender, scale));
        m->descent = -CEIL26(FT_MulFix(f->descender, scale));
        m->line_height = CEIL26(FT_MulFix(f->height, scale));
    }
    if (m->descent < 0) m->descent = 0;
    if (m->ascent <= 0) m->ascent = 1;
    FT_UInt zero = FT_Get_Char_Index(f, '0');
    if (zero && FT_Load_Glyph(f, zero, FT_LOAD_DEFAULT | FT_LOAD_RENDER) == 0 && f->glyph->bitmap_top > 0
        && f->glyph->bitmap.rows > 0)
        m->digit_top = f->glyph->bitmap_top;
    else
        m->digit_top = (m->ascent * 3 + 2) / 4;
    m->px = px;
    return *m;
}

/* Whether the main font maps cp. */
int font_has_glyph(FontSet *fs, uint32_t cp, int bold)
{
    FT_Face f = fs ? font_face_at(fs, bold ? 1 : 0, 16) : NULL;
    return f && FT_Get_Char_Index(f, cp) != 0;
}

/* Controls and default-ignorable format characters draw nothing. */
int font_invisible(uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || cp == 0xAD || (cp >= 0x200B && cp <= 0x200F)
        || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2060 && cp <= 0x206F) || cp == 0xFEFF
        || (cp >= 0xFE00 && cp <= 0xFE0F) || (cp >= 0xE0000 && cp <= 0xE0FFF) || cp == 0x034F
        || (cp >= 0x180B && cp <= 0x180F);
}

/* DejaVu Sans's fallback list at a weight, asked of fontconfig once. */
static FcFontSet *sorted_list(FontSet *fs, int bold)
{
    warm_join(fs);
    if (fs->sorted_done[bold]) return fs->sorted[bold];
    fs->sorted_done[bold] = 1;
    if (!fc_config(fs)) return NULL;
    fs->sorted[bold] = fallback_list(fs->fc, bold);
    return fs->sorted[bold];
}

/* The face for a fontconfig pattern, added on first sight; -1 if full. */
static int face_of_pattern(FontSet *fs, FcPattern *p, int bold)
{
    FcChar8 *file = NULL, *fam = NULL;
    int index = 0, weight = FC_WEIGHT_REGULAR;
    if (FcPatternGetString(p, FC_FILE, 0, &file) != FcResultMatch) return -1;
    FcPatternGetInteger(p, FC_INDEX, 0, &index);
    FcPatternGetInteger(p, FC_WEIGHT, 0, &weight);
    FcPatternGetString(p, FC_FAMILY, 0, &fam);
    int embolden = bold && weight < FC_WEIGHT_DEMIBOLD;
    for (int i = 2; i < fs->nfaces; i++)
        if (fs->face[i].index == index && fs->face[i].embolden == embolden && !strcmp(fs->face[i].path, (const char *)file))
            return i;
    return add_face(fs, (const char *)file, index, fam ? (const char *)fam : NULL, embolden);
}

/* Search the fallback list for cp (colour fonts only, when color is set). */
static int search_fallback(FontSet *fs, uint32_t cp, int bold, int color)
{
    FcFontSet *set = sorted_list(fs, bold);
    if (!set) return -1;
    for (int i = 0; i < set->nfont; i++) {
        FcPattern *p = set->fonts[i];
        FcCharSet *cs = NULL;
        FcBool col = FcFalse;
        if (FcPatternGetCharSet(p, FC_CHARSET, 0, &cs) != FcResultMatch || !FcCharSetHasChar(cs, cp)) continue;
        if (color && (FcPatternGetBool(p, FC_COLOR, 0, &col) != FcResultMatch || !col)) continue;
        /* fontconfig's coverage is trusted: no file is opened to ask. */
        int f = face_of_pattern(fs, p, bold);
        if (f >= 0) return f;
    }
    return -1;
}

/* Spread the bits of a key (a 32-bit finaliser from MurmurHash3). */
static uint32_t mix32(uint32_t k)
{
    k ^= k >> 16; k *= 0x85ebca6bu;
    k ^= k >> 13; k *= 0xc2b2ae35u;
    k ^= k >> 16;
    return k;
}

/* Remember the face for a key in the fallback table. */
static void fb_put(FontSet *fs, uint32_t key, int face)
{
    if ((fs->fb_n + 1) * 2 >= fs->fb_cap) {
        uint32_t ncap = fs->fb_cap ? fs->fb_cap * 2 : 256;
        uint32_t *k = xcalloc(ncap, sizeof *k);
        int16_t *v = xcalloc(ncap, sizeof *v);
        for (uint32_t i = 0; i < fs->fb_cap; i++) {
            if (!fs->fb_keys[i]) continue;
            uint32_t h = mix32(fs->fb_keys[i]) & (ncap - 1);
            while (k[h]) h = (h + 1) & (ncap - 1);
            k[h] = fs->fb_keys[i];
            v[h] = fs->fb_face[i];
        }
        free(fs->fb_keys);
        free(fs->fb_face);
        fs->fb_keys = k;
        fs->fb_face = v;
        fs->fb_cap = ncap;
    }
    uint32_t h = mix32(key) & (fs->fb_cap - 1);
    while (fs->fb_keys[h] && fs->fb_keys[h] != key) h = (h + 1) & (fs->fb_cap - 1);
    if (!fs->fb_keys[h]) fs->fb_n++;
    fs->fb_keys[h] = key;
    fs->fb_face[h] = (int16_t)face;
}

/* The face that draws cp. */
int font_face_for(FontSet *fs, uint32_t cp, int bold, int color)
{
    bold = bold ? 1 : 0;
    if (!color) {
        FT_Face f = font_face_at(fs, bold, 16);
        if (f && FT_Get_Char_Index(f, cp) != 0) return bold;
    }
    uint32_t key = ((cp << 2) | (uint32_t)bold << 1 | (uint32_t)(color != 0)) + 1;
    if (fs->fb_cap) {
        uint32_t h = mix32(key) & (fs->fb_cap - 1);
        while (fs->fb_keys[h]) {
            if (fs->fb_keys[h] == key) return fs->fb_face[h];
            h = (h + 1) & (fs->fb_cap - 1);
        }
    }
    int face = search_fallback(fs, cp, bold, color);
    if (face < 0 && color) face = font_face_for(fs, cp, bold, 0);
    fb_put(fs, key, face);
    return face;
}

/* Drawable by some installed font. */
int font_can_draw(FontSet *fs, uint32_t cp)
{
    if (font_invisible(cp)) return 1;
    hb_unicode_general_category_t gc = hb_unicode_general_category(hb_unicode_funcs_get_default(), cp);
    if (gc == HB_UNICODE_GENERAL_CATEGORY_SPACE_SEPARATOR || gc == HB_UNICODE_GENERAL_CATEGORY_LINE_SEPARATOR
        || gc == HB_UNICODE_GENERAL_CATEGORY_PARAGRAPH_SEPARATOR || gc == HB_UNICODE_GENERAL_CATEGORY_FORMAT)
        return 1;                       /* spaces and format characters need no glyph */
    return font_face_for(fs, cp, 0, 0) >= 0;
}

/*
** The Debian packages a missing character could come from: each with the
** ranges it covers (a guess by script; the first match wins) and the family
** fontconfig lists once it is installed. A package already installed
** evidently lacks the character, so it is never suggested again.
*/
static const struct {
    uint32_t lo, hi;
    int pkg;
} pkg_ranges[] = {
    { 0x1100, 0x11FF, 1 }, { 0x2E80, 0x9FFF, 1 }, { 0xAC00, 0xD7AF, 1 }, { 0xF900, 0xFAFF, 1 },
    { 0xFF00, 0xFFEF, 1 }, { 0x20000, 0x3FFFF, 1 }, { 0x1F000, 0x1FAFF, 2 }, { 0, 0x10FFFF, 0 },
};
static const char *const pkg_names[FONT_PACKAGES] = { "fonts-noto-core", "fonts-noto-cjk", "fonts-noto-color-emoji" };
static const char *const pkg_families[FONT_PACKAGES] = { "Noto Sans", "Noto Sans CJK SC", "Noto Color Emoji" };

/* Whether fontconfig lists a font of the family, asked once per package. */
static int package_installed(FontSet *fs, int pkg)
{
    if (fs->pkg_state[pkg]) return fs->pkg_state[pkg] > 0;
    fs->pkg_state[pkg] = -1;
    if (!fc_config(fs)) return 0;
    FcPattern *pat = FcPatternBuild(NULL, FC_FAMILY, FcTypeString, (const FcChar8 *)pkg_families[pkg], (char *)0);
    FcObjectSet *os = FcObjectSetBuild(FC_FAMILY, (char *)0);
    FcFontSet *set = pat && os ? FcFontList(fs->fc, pat, os) : NULL;
    if (set && set->nfont > 0) fs->pkg_state[pkg] = 1;
    if (set) FcFontSetDestroy(set);
    if (os) FcObjectSetDestroy(os);
    if (pat) FcPatternDestroy(pat);
    return fs->pkg_state[pkg] > 0;
}

/* The package that would bring a glyph for cp, or NULL: none for a code
** point that is not a character (unassigned, a noncharacter, private use)
** and none when the package for its script is installed already. */
const char *font_package_for(FontSet *fs, uint32_t cp)
{
    hb_unicode_general_category_t gc = hb_unicode_general_category(hb_unicode_funcs_get_default(), cp);
    if (gc == HB_UNICODE_GENERAL_CATEGORY_UNASSIGNED || gc == HB_UNICODE_GENERAL_CATEGORY_PRIVATE_USE
        || gc == HB_UNICODE_GENERAL_CATEGORY_SURROGATE || cp > 0x10FFFF)
        return NULL;
    int pkg = 0;
    for (size_t i = 0; i < sizeof pkg_ranges / sizeof pkg_ranges[0]; i++)
        if (cp >= pkg_ranges[i].lo && cp <= pkg_ranges[i].hi) { pkg = pkg_ranges[i].pkg; break; }
    return fs && package_installed(fs, pkg) ? NULL : pkg_names[pkg];
}
