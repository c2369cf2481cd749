/* fuzz_tzif.c: libFuzzer target for the TZif parser and the POSIX TZ rule
 * parser.  Input starting with "TZif" is a zone file, anything else a TZ
 * string.  Whatever parses must answer every instant with a window that
 * contains it and an offset the window's ends agree on. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "monostamp.h"
#include "tzif.h"
#include "tzrule.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_window(const monostamp__tzdata *d, int64_t t)
{
    int32_t off, off2;
    int64_t from, until, f2, u2;
    monostamp__tzdata_window(d, t, &off, &from, &until);
    if (!(from <= t && t < until)) abort();
    /* Every offset the parsers let through is under 24 h either way. */
    if (off <= -86400 || off >= 86400) abort();
    if (from > INT64_MIN && from > -(INT64_C(1) << 39)) {
        monostamp__tzdata_window(d, from, &off2, &f2, &u2);
        if (off2 != off) abort();
    }
    if (until < INT64_MAX && until < (INT64_C(1) << 39)) {
        monostamp__tzdata_window(d, until - 1, &off2, &f2, &u2);
        if (off2 != off) abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    monostamp__tzdata *d = NULL;
    static const int64_t probes[] = {
        -INT64_C(9223372037), -INT64_C(2208988800), -1, 0, 1, INT64_C(1000000000),
        INT64_C(1772953200), INT64_C(2147483647), INT64_C(4102444800), INT64_C(9223372036)};
    if (size >= 4 && memcmp(data, "TZif", 4) == 0) {
        if (monostamp__tzif_parse(data, size, &d) != 0) return 0;
    } else {
        monostamp__tzrule rule;
        if (monostamp__tzrule_parse((const char *)data, size, &rule) != 0) return 0;
        if (monostamp__tzdata_from_rule(&rule, &d) != 0) return 0;
    }
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; i++) check_window(d, probes[i]);
    /* Transition instants and their neighbours. */
    for (size_t i = 0; i < d->count && i < 64; i++) {
        int64_t t = d->times_s[i];
        if (t > -(INT64_C(1) << 39) && t < (INT64_C(1) << 39)) {
            check_window(d, t - 1);
            check_window(d, t);
        }
    }
    monostamp__tzdata_free(d);
    return 0;
}
