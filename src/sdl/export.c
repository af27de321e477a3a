/*
** export.c: PNG encoding into memory, then an atomic write.
**
** Both encoders share everything but the deflate stream: the same row
** conversion (ARGB8888 to RGB, filter byte NONE), the same text chunks in
** the same order (IHDR, Title, Description, Software, IDAT..., IEND). The
** fast one writes the chunks itself and compresses bands of rows with
** ISA-L's stateful igzip, as raw deflate between its own zlib header and
** Adler-32 trailer (the checksum taken as each row is converted); the
** portable one hands rows to libpng.
**
** Why ISA-L (measured on the tour's stages at 1280x800, docs/performance.md):
** level 1 compresses 2.9 MB of RGB in 0.65 ms against 3.6 ms for
** libdeflate's level 1 and 5.9 ms for zlib's, with files 3% smaller than
** zlib's. Three things need care:
**   - determinism: igzip keeps its hash table in the caller's level buffer;
**     the buffer is zeroed before every image, so nothing of an earlier image
**     (or of malloc's garbage) can steer the match finder;
**   - igzip's first byte: its level-1 body files the third byte of a stream
**     under a hash of the stream's address, so the bytes (never the pixels)
**     of about one picture in two thousand moved with address-space
**     randomisation; prime_stream keeps every stream out of that path;
**   - CPU state: igzip's AVX2/AVX-512 code returns with the upper halves of
**     the vector registers in use (XINUSE bits 2 and 6 set, read with XGETBV);
**     SSE code that runs next (zlib, libm, the layout) then pays for merging
**     them on many Intel cores. vzeroupper after each call clears that state.
*/
#include "export.h"
#include "core/io/fileio.h"

#include <png.h>
#ifdef EXPORT_ISAL
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#endif

#include <assert.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define EXPORT_X86 1
#include <immintrin.h>
#endif

/* ------------------------------------------------------------ rows */

/* Adler-32's modulus. */
#define ADLER_MOD 65521u

#ifdef EXPORT_X86
/* Four pixels a step with one byte shuffle (SSSE3); the tail in C. Each
** 16-byte store writes 4 bytes past its 12, which the next step overwrites:
** the loop stops while two pixels remain, so nothing lands past the row. */
__attribute__((target("ssse3")))
static int rgb_ssse3(const uint32_t *src, uint8_t *dst, int w)
{
    const __m128i m = _mm_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    int x = 0;
    for (; x + 6 <= w; x += 4)
        _mm_storeu_si128((__m128i *)(void *)(dst + 3 * x),
                         _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(src + x)), m));
    return x;
}

/* The sum of a vector's eight 32-bit lanes. */
__attribute__((target("avx2")))
static uint64_t lanes_sum(__m256i v)
{
    uint32_t l[8];
    _mm256_storeu_si256((__m256i *)(void *)l, v);
    return (uint64_t)l[0] + l[1] + l[2] + l[3] + l[4] + l[5] + l[6] + l[7];
}

/*
** Eight pixels a step (AVX2): the same shuffle in each half, then the two
** halves' 12 bytes side by side (a permutation of 32-bit words); each
** 32-byte store writes 8 bytes past its 24, so the loop stops while four
** pixels remain. And the Adler-32 of the bytes written (RFC 1950, the
** zlib stream's checksum), after checksum *a, into *a; returns the pixels
** done. Each step's 24 bytes (and 8 zeros after them) add to three
** vector sums: the bytes (vs1), vs1 before the step (vps) and the bytes
** weighted 24..1 (vs2). For k steps after sums s1, s2 that is
** s1 + vs1 and s2 + 24 k s1 + 24 vps + vs2, the order of bytes kept. At
** most 256 steps between reductions keep every lane within 32 bits.
*/
__attribute__((target("avx2")))
static int rgb_avx2_adler(const uint32_t *src, uint8_t *dst, int w, uint32_t *a)
{
    const __m256i m = _mm256_setr_epi8(2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1,
                                       2, 1, 0, 6, 5, 4, 10, 9, 8, 14, 13, 12, -1, -1, -1, -1);
    const __m256i pack = _mm256_setr_epi32(0, 1, 2, 4, 5, 6, 3, 7);
    const __m256i weight = _mm256_setr_epi8(24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9,
                                            8, 7, 6, 5, 4, 3, 2, 1, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i ones = _mm256_set1_epi16(1), zero = _mm256_setzero_si256();
    uint64_t s1 = *a & 0xffff, s2 = *a >> 16;
    int x = 0;
    while (x + 12 <= w) {
        __m256i vs1 = zero, vps = zero, vs2 = zero;
        uint64_t steps = 0;
        for (; x + 12 <= w && steps < 256; x += 8, steps++) {
            __m256i v = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(src + x)), m);
            v = _mm256_permutevar8x32_epi32(v, pack);
            _mm256_storeu_si256((__m256i *)(void *)(dst + 3 * x), v);
            vps = _mm256_add_epi32(vps, vs1);
            vs1 = _mm256_add_epi32(vs1, _mm256_sad_epu8(v, zero));
            vs2 = _mm256_add_epi32(vs2, _mm256_madd_epi16(_mm256_maddubs_epi16(v, weight), ones));
        }
        s2 = (s2 + 24 * steps * s1 + 24 * lanes_sum(vps) + lanes_sum(vs2)) % ADLER_MOD;
        s1 = (s1 + lanes_sum(vs1)) % ADLER_MOD;
    }
    *a = (uint32_t)(s2 << 16 | s1);
    return x;
}

/* What the row conversion may use: 2 AVX2, 1 SSSE3, 0 neither. */
static int rgb_level(void)
{
    static int level = -1;
    if (level < 0) level = __builtin_cpu_supports("avx2") ? 2 : __builtin_cpu_supports("ssse3") ? 1 : 0;
    return level;
}
#endif

/* One row of ARGB8888 pixels as RGB bytes (alpha dropped): eight or four
** pixels a step where the CPU can, the rest one by one. */
static void argb_to_rgb(const uint32_t *src, uint8_t *dst, int w)
{
    int x = 0;
#ifdef EXPORT_X86
    uint32_t unused = 1;
    if (rgb_level() == 2) x = rgb_avx2_adler(src, dst, w, &unused);
    x += rgb_level() >= 1 ? rgb_ssse3(src + x, dst + 3 * x, w - x) : 0;
#endif
    for (; x < w; x++) {
        dst[3 * x + 0] = (uint8_t)(src[x] >> 16);
        dst[3 * x + 1] = (uint8_t)(src[x] >> 8);
        dst[3 * x + 2] = (uint8_t)src[x];
    }
}

/* Whether s is plain 7-bit ASCII (and so fits a Latin-1 tEXt chunk as is). */
static int is_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80) return 0;
    return 1;
}

/* The text chunks of an image, in file order; returns how many (at most 3). */
static int text_fields(const ExportMeta *meta, const char *key[3], const char *value[3])
{
    int n = 0;
    if (meta && meta->title) { key[n] = "Title"; value[n++] = meta->title; }
    if (meta && meta->description) { key[n] = "Description"; value[n++] = meta->description; }
    key[n] = "Software";
    value[n++] = "attnlab " ATTNLAB_VERSION;
    return n;
}

/* ------------------------------------------------- libpng + zlib */

/* libpng hands over encoded bytes here: they go to the Buf. */
static void write_cb(png_structp png, png_bytep data, png_size_t len)
{
    buf_append(png_get_io_ptr(png), (const char *)data, len);
}

/* Nothing to flush: the bytes are in memory. */
static void flush_cb(png_structp png)
{
    (void)png;
}

/* libpng's fatal errors: keep the message in the Error given to
** png_create_write_struct, then unwind to the setjmp. */
static void error_cb(png_structp png, png_const_charp msg)
{
    error_set(png_get_error_ptr(png), ERR_RUNTIME, NULL, 0, 0, "export: png: %s", msg);
    png_longjmp(png, 1);
}

/* libpng's warnings are not worth a line on stderr. */
static void warning_cb(png_structp png, png_const_charp msg)
{
    (void)png;
    (void)msg;
}

/* Fill one text chunk: tEXt for ASCII, iTXt for anything else. */
static void set_text(png_text *t, const char *key, const char *value)
{
    memset(t, 0, sizeof *t);
    t->compression = is_ascii(value) ? PNG_TEXT_COMPRESSION_NONE : PNG_ITXT_COMPRESSION_NONE;
    t->key = (png_charp)key;
    t->text = (png_charp)value;
    t->text_length = strlen(value);
    t->lang = (png_charp)"";
    t->lang_key = (png_charp)"";
}

/*
** The portable encoder. Attention heatmaps are large flat cells, and for
** them no row filter beats every filter: deflate already finds the 3-byte
** period of a flat run, while SUB/UP/PAETH turn anti-aliased text edges into
** noise. Measured on every stage of the bundled lessons at 1280x800, filter
** NONE beat SUB, UP and PAETH in both size and time at every level, and
** adaptive filtering was four times slower. Nothing set before setjmp changes
** after it, as libpng's longjmp requires.
*/
static int encode_libpng(const Canvas *s, const ExportMeta *meta, Buf *out, Error *err)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, err, error_cb, warning_cb);
    png_infop info = png ? png_create_info_struct(png) : NULL;
    png_bytep row = xmalloc((size_t)s->w * 3);
    volatile int ok = 0;
    if (!png || !info) {
        error_set(err, ERR_RUNTIME, NULL, 0, 0, "export: png: out of memory");
    } else if (setjmp(png_jmpbuf(png)) == 0) {
        png_set_write_fn(png, out, write_cb, flush_cb);
        png_set_IHDR(png, info, (png_uint_32)s->w, (png_uint_32)s->h, 8, PNG_COLOR_TYPE_RGB,
                     PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
        png_set_compression_level(png, EXPORT_PNG_LEVEL);
        png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
        png_text text[3];
        const char *key[3], *value[3];
        int ntext = text_fields(meta, key, value);
        for (int i = 0; i < ntext; i++) set_text(&text[i], key[i], value[i]);
        png_set_text(png, info, text, ntext);
        png_write_info(png, info);
        for (int y = 0; y < s->h; y++) {
            argb_to_rgb(canvas_row(s, y), row, s->w);
            png_write_row(png, row);
        }
        png_write_end(png, NULL);
        ok = 1;
    }
    png_destroy_write_struct(png ? &png : NULL, info ? &info : NULL);
    free(row);
    return ok ? 0 : -1;
}

/* ------------------------------------------------------------ ISA-L */

#ifdef EXPORT_ISAL

/* The zlib stream's checksum (RFC 1950) is computed here, on each row while
** it is in the cache from its conversion, instead of by igzip, which reads
** the whole band once more for it (an eighth of an export's time). */

/* Bytes the scalar sums may take before a reduction keeps them in 32 bits. */
#define ADLER_NMAX 5552

/* Adler-32 of n more bytes after the checksum a, one byte at a time. */
static uint32_t adler_bytes(uint32_t a, const uint8_t *p, size_t n)
{
    uint32_t s1 = a & 0xffff, s2 = a >> 16;
    while (n > 0) {
        size_t k = n < ADLER_NMAX ? n : ADLER_NMAX;
        n -= k;
        while (k--) {
            s1 += *p++;
            s2 += s1;
        }
        s1 %= ADLER_MOD;
        s2 %= ADLER_MOD;
    }
    return s2 << 16 | s1;
}

/* A PNG row (filter byte NONE, then the RGB of src) into dst, and the
** Adler-32 after checksum a of its bytes. */
static uint32_t png_row_adler(const uint32_t *src, uint8_t *dst, int w, uint32_t a)
{
    dst[0] = 0;
    a = adler_bytes(a, dst, 1);
    dst++;
    int x = 0;
#ifdef EXPORT_X86
    if (rgb_level() == 2) x = rgb_avx2_adler(src, dst, w, &a);
#endif
    argb_to_rgb(src + x, dst + 3 * x, w - x);
    return adler_bytes(a, dst + 3 * x, 3 * (size_t)(w - x));
}

/* Rows converted per band: about 256 KB of RGB, so a band stays in L2. */
#define BAND_BYTES (256 * 1024)
/* Zero bytes kept after the band buffer (see encode_isal). */
#define BAND_SLACK 256

/* Compressed bytes gathered before they become one IDAT chunk. */
#define ZOUT_BYTES (256 * 1024)

/* The encoder's buffers, kept from one image to the next: allocating them
** afresh cost up to 3 ms of page faults an export. */
static struct {
    uint8_t *band;              /* filter byte + RGB, rows of one band */
    size_t band_cap;
    uint8_t *zout;              /* ZOUT_BYTES of compressed output */
    uint8_t *level;             /* igzip's level-1 buffer (hash table inside) */
} enc;

/* Clear the upper halves of the vector registers igzip leaves in use (see
** the top of the file). Only on CPUs with AVX, where vzeroupper exists. */
static void clear_upper_state(void)
{
#ifdef EXPORT_X86
    static int avx = -1;
    if (avx < 0) avx = __builtin_cpu_supports("avx") != 0;
    if (avx) __asm__ volatile("vzeroupper");
#endif
}

/* Append a 32-bit big-endian number. */
static void put_u32(Buf *out, uint32_t v)
{
    char b[4] = { (char)(v >> 24), (char)(v >> 16), (char)(v >> 8), (char)v };
    buf_append(out, b, 4);
}

/* Append one chunk: length, type, data (two pieces, either may be empty), CRC. */
static void put_chunk(Buf *out, const char type[4], const void *a, size_t na, const void *b, size_t nb)
{
    put_u32(out, (uint32_t)(na + nb));
    size_t from = out->len;
    buf_append(out, type, 4);
    if (na) buf_append(out, a, na);
    if (nb) buf_append(out, b, nb);
    uint32_t crc = crc32_gzip_refl(0, (const unsigned char *)out->s + from, out->len - from);
    clear_upper_state();
    put_u32(out, crc);
}

/* One text chunk, as libpng writes it: tEXt "key\0text", or uncompressed
** iTXt "key\0" flag 0, method 0, empty language and translated key, text. */
static void put_text(Buf *out, const char *key, const char *value)
{
    size_t nk = strlen(key);
    char head[96];
    assert(nk + 5 <= sizeof head);          /* the keys are text_fields' three words */
    memcpy(head, key, nk + 1);
    if (is_ascii(value)) {
        put_chunk(out, "tEXt", head, nk + 1, value, strlen(value));
    } else {
        memcpy(head + nk + 1, "\0\0\0", 4);     /* flag, method, "" lang, "" key */
        put_chunk(out, "iTXt", head, nk + 5, value, strlen(value));
    }
}

/* The compressed bytes gathered so far become one IDAT chunk. */
static void flush_idat(struct isal_zstream *z, Buf *out)
{
    size_t n = ZOUT_BYTES - z->avail_out;
    if (n) put_chunk(out, "IDAT", enc.zout, n, NULL, 0);
    z->next_out = enc.zout;
    z->avail_out = ZOUT_BYTES;
}

/* Run igzip on what is in z, turning every full output buffer into an IDAT
** chunk. igzip writes a raw deflate stream; with a trailer (the last band),
** until that stream is complete, then the 4 trailer bytes after it, where
** igzip's own zlib mode would have put them. */
static int deflate_band(struct isal_zstream *z, const uint8_t *trailer, Buf *out, Error *err)
{
    for (;;) {
        int rc = isal_deflate(z);
        clear_upper_state();
        if (rc != COMP_OK) {
            return error_set(err, ERR_RUNTIME, NULL, 0, 0, "export: igzip failed (%d)", rc), -1;
        }
        int done = trailer ? z->internal_state.state == ZSTATE_END : z->avail_in == 0;
        for (int i = 0; done && trailer && i < 4; i++) {
            if (z->avail_out == 0) flush_idat(z, out);
            *z->next_out++ = trailer[i];
            z->avail_out--;
        }
        if (z->avail_out == 0 || (done && trailer)) flush_idat(z, out);
        if (done) return 0;
    }
}

/* Bytes of a stream's start that igzip takes on their own (see prime_stream):
** at most its 16 bytes of input padding, so that its body loop stays out. */
#define PRIME_BYTES 16

/*
** ISA-L 2.30's level-1 body (igzip_icf_body_h1_gr_bt.asm, `.write_first_byte`)
** writes the first byte of a stream as a literal and then computes the hash of
** the third byte from rcx, where the main loop keeps input bytes; on this
** path rcx still holds the stream's address (the function's first
** instruction copies its argument there), which moves with address-space
** randomisation. The third byte's position is then filed in a slot chosen by
** that address, and a later byte whose hash falls in that slot may find a
** match 2 bytes past a multiple of 32 KB that other runs do not find. The
** stream stays valid (igzip compares the bytes before it emits a match); only
** its bytes differ, in about one picture in two thousand.
**
** The finish path handles a stream's first byte from the data itself. So the
** first PRIME_BYTES bytes go in alone with a SYNC_FLUSH: with no more than its
** input padding to look at, the body writes nothing, the finish path codes
** them and sets the history flag, and the body never takes its first-byte
** path in this stream. The cost is a block of its own for those bytes and
** an empty stored block: about 30 bytes a file, and no measurable time.
*/
static int prime_stream(struct isal_zstream *z, Buf *out, Error *err)
{
    if (z->avail_in <= PRIME_BYTES) return 0;      /* the finish path takes all of it */
    uint32_t rest = z->avail_in - PRIME_BYTES;
    uint16_t eos = z->end_of_stream;
    z->avail_in = PRIME_BYTES;
    z->end_of_stream = 0;
    z->flush = SYNC_FLUSH;
    int rc = deflate_band(z, NULL, out, err);
    /* the flush is complete (the output buffer had room for it): the next
    ** call starts a new block with the history in place */
    assert(rc < 0 || (z->avail_in == 0 && z->internal_state.state == ZSTATE_NEW_HDR
                      && z->internal_state.has_hist != IGZIP_NO_HIST));
    z->flush = NO_FLUSH;
    z->end_of_stream = eos;
    z->avail_in = rest;
    return rc;
}

/* The fast encoder: chunks written here, rows deflated band by band. */
static int encode_isal(const Canvas *s, const ExportMeta *meta, Buf *out, Error *err)
{
    size_t stride = 1 + 3 * (size_t)s->w;
    int band_rows = (int)(BAND_BYTES / stride);
    if (band_rows < 1) band_rows = 1;
    if (enc.band_cap < stride * (size_t)band_rows) {
        free(enc.band);
        enc.band_cap = stride * (size_t)band_rows;
        /* igzip's vector loads may also run past the end of a full band:
        ** BAND_SLACK zero bytes there, never written, keep them from
        ** reading whatever the heap held */
        enc.band = xcalloc(1, enc.band_cap + BAND_SLACK);
    }
    if (!enc.zout) enc.zout = xmalloc(ZOUT_BYTES);
    if (!enc.level) enc.level = xmalloc(ISAL_DEF_LVL1_DEFAULT);
    memset(enc.level, 0, ISAL_DEF_LVL1_DEFAULT);

    buf_append(out, "\x89PNG\r\n\x1a\n", 8);
    uint8_t ihdr[13] = { (uint8_t)(s->w >> 24), (uint8_t)(s->w >> 16), (uint8_t)(s->w >> 8), (uint8_t)s->w,
                         (uint8_t)(s->h >> 24), (uint8_t)(s->h >> 16), (uint8_t)(s->h >> 8), (uint8_t)s->h,
                         8, 2, 0, 0, 0 };          /* 8 bits, RGB, deflate, no filter, no interlace */
    put_chunk(out, "IHDR", ihdr, sizeof ihdr, NULL, 0);
    const char *key[3], *value[3];
    int ntext = text_fields(meta, key, value);
    for (int i = 0; i < ntext; i++) put_text(out, key[i], value[i]);

    /* every byte of the stream state zeroed, history window included: what
    ** isal_deflate_init leaves alone must not depend on the heap's past */
    static struct isal_zstream z;
    memset(&z, 0, sizeof z);
    isal_deflate_init(&z);
    z.level = EXPORT_PNG_LEVEL;
    z.level_buf = enc.level;
    z.level_buf_size = ISAL_DEF_LVL1_DEFAULT;
    z.gzip_flag = IGZIP_DEFLATE;        /* the zlib header and trailer are written here */
    enc.zout[0] = 0x78;                 /* deflate, 32 KB window, as igzip's zlib mode writes it */
    enc.zout[1] = 0x01;
    z.next_out = enc.zout + 2;
    z.avail_out = ZOUT_BYTES - 2;
    uint32_t adler = 1;
    for (int y0 = 0; y0 < s->h; y0 += band_rows) {
        int rows = s->h - y0 < band_rows ? s->h - y0 : band_rows;
        assert(stride * (size_t)rows <= enc.band_cap);
        for (int r = 0; r < rows; r++)
            adler = png_row_adler(canvas_row(s, y0 + r), enc.band + (size_t)r * stride, s->w, adler);
        /* igzip's vector code may look a few bytes past avail_in: what lies
        ** there must not depend on earlier pictures, or the bytes (not the
        ** pixels) of a PNG would depend on what was exported before it */
        memset(enc.band + stride * (size_t)rows, 0, enc.band_cap - stride * (size_t)rows);
        z.next_in = enc.band;
        z.avail_in = (uint32_t)(stride * (size_t)rows);
        z.end_of_stream = y0 + rows == s->h;
        if (y0 == 0 && prime_stream(&z, out, err) < 0) return -1;
        const uint8_t trailer[4] = { (uint8_t)(adler >> 24), (uint8_t)(adler >> 16), (uint8_t)(adler >> 8), (uint8_t)adler };
        if (deflate_band(&z, z.end_of_stream ? trailer : NULL, out, err) < 0) return -1;
    }
    put_chunk(out, "IEND", NULL, 0, NULL, 0);
    return 0;
}

#endif

/* ------------------------------------------------------------ API */

/* Which encoder export_png_encode uses. */
const char *export_png_encoder(void)
{
#ifdef EXPORT_ISAL
    return "isa-l";
#else
    return "libpng";
#endif
}

/* Whether there is a picture to encode; if not, err says so. */
static bool encodable(const Canvas *s, Error *err)
{
    if (s && s->w > 0 && s->h > 0 && s->pixels) return true;
    error_set(err, ERR_RUNTIME, NULL, 0, 0, "export: nothing to encode");
    return false;
}

/* The rows PNG compresses: a filter byte (none) and the RGB bytes each. */
int export_png_rows(const Canvas *s, Buf *out, Error *err)
{
    error_clear(err);
    if (!encodable(s, err)) return -1;
    size_t stride = 1 + 3 * (size_t)s->w;
    uint8_t *row = xmalloc(stride);
    row[0] = 0;
    for (int y = 0; y < s->h; y++) {
        argb_to_rgb(canvas_row(s, y), row + 1, s->w);
        buf_append(out, (const char *)row, stride);
    }
    free(row);
    return 0;
}

/* Encode with the chosen encoder. */
int export_png_encode_with(const Canvas *s, const ExportMeta *meta, ExportEncoder e, Buf *out, Error *err)
{
    error_clear(err);
    if (!encodable(s, err)) return -1;
    size_t start = out->len;
#ifdef EXPORT_ISAL
    int rc = e == EXPORT_ENC_LIBPNG ? encode_libpng(s, meta, out, err) : encode_isal(s, meta, out, err);
#else
    (void)e;
    int rc = encode_libpng(s, meta, out, err);
#endif
    if (rc < 0) {
        /* Take back whatever half an image was appended. */
        out->len = start;
        if (out->s) out->s[start] = '\0';
    }
    return rc;
}

/* The default encoder. */
int export_png_encode(const Canvas *s, const ExportMeta *meta, Buf *out, Error *err)
{
    return export_png_encode_with(s, meta, EXPORT_ENC_DEFAULT, out, err);
}

/* Encode to memory, then write the file in one atomic step. The Buf is kept
** for the next export (cleared, not freed). */
int export_png(const Canvas *s, const char *path, const ExportMeta *meta, Error *err)
{
    static Buf b;
    if (!path || !*path) return error_set(err, ERR_IO, NULL, 0, 0, "export: no file name"), -1;
    buf_clear(&b);
    if (export_png_encode(s, meta, &b, err) < 0) return -1;
    return fileio_write_atomic(path, b.s, b.len, false, err);
}
