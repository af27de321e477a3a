/*
** unidata.c: lookups in the generated Unicode tables (see unidata.h).
*/
#include "unidata.h"

#include <assert.h>

/* Hangul syllables decompose by formula (Unicode's chapter 3.12). */
enum { HANGUL_S = 0xAC00, HANGUL_L = 0x1100, HANGUL_V = 0x1161, HANGUL_T = 0x11A7, HANGUL_VN = 21, HANGUL_TN = 28,
       HANGUL_COUNT = 11172 };

/* The index of cp among n rows of width w whose first column is sorted, or -1. */
static int find_row(const uint32_t *rows, int n, int w, uint32_t cp)
{
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        uint32_t at = rows[(long)mid * w];
        if (at == cp) return mid;
        if (at < cp) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

/* The class of cp: the last run starting at or before it. */
UniClass unidata_class(uint32_t cp)
{
    if (cp > 0x10FFFF) return UC_CONTROL;
    int lo = 0, hi = unidata_nruns - 1;
    assert(unidata_runs[0] >> 3 == 0);
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        if (unidata_runs[mid] >> 3 <= cp) lo = mid;
        else hi = mid - 1;
    }
    return (UniClass)(unidata_runs[lo] & 7);
}

/* Unicode's White_Space. */
bool unidata_is_space(uint32_t cp)
{
    return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
           (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F || cp == 0x205F ||
           cp == 0x3000;
}

/* Python's lower case of cp. */
int unidata_lower(uint32_t cp, uint32_t out[2])
{
    if (cp == 0x130) {
        out[0] = 'i';
        out[1] = 0x307;
        return 2;
    }
    int at = cp < 'A' ? -1 : find_row(&unidata_lower_table[0][0], unidata_nlower, 2, cp);
    out[0] = at >= 0 ? unidata_lower_table[at][1] : cp;
    return 1;
}

/* cp decomposed, its marks removed. */
int unidata_strip(uint32_t cp, uint32_t out[3])
{
    if (cp >= HANGUL_S && cp < HANGUL_S + HANGUL_COUNT) {
        uint32_t s = cp - HANGUL_S, t = s % HANGUL_TN;
        out[0] = HANGUL_L + s / (HANGUL_VN * HANGUL_TN);
        out[1] = HANGUL_V + s % (HANGUL_VN * HANGUL_TN) / HANGUL_TN;
        if (t == 0) return 2;
        out[2] = HANGUL_T + t;
        return 3;
    }
    if (unidata_class(cp) == UC_MARK) return 0;
    if (cp < 0xC0) {
        out[0] = cp;
        return 1;
    }
    int at = find_row(&unidata_strip_table[0][0], unidata_nstrip, 4, cp);
    if (at < 0) {
        out[0] = cp;
        return 1;
    }
    int n = 0;
    while (n < 3 && unidata_strip_table[at][n + 1]) {
        out[n] = unidata_strip_table[at][n + 1];
        n++;
    }
    return n;
}
