/* fuzz_iso8601.c: libFuzzer target for the RFC 3339 parser.  Refusals must
 * point inside the text with a reason; acceptances must format back to a
 * text that parses to the same instant and offset. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "monostamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    monostamp_parse_error e = {0, NULL};
    int64_t ns = 0, ns2 = 0;
    int32_t off = 0, off2 = 0;
    char buf[MONOSTAMP_ISO8601_MAX + 1];
    int rc = monostamp_parse_iso8601((const char *)data, size, &ns, &off, &e);
    if (rc != 0) {
        if (rc != MONOSTAMP_ESYNTAX && rc != MONOSTAMP_ERANGE) abort();
        if (e.reason == NULL || e.position > size) abort();
        return 0;
    }
    int len = monostamp_format_iso8601(buf, sizeof buf, ns, off, 9, 0);
    if (len <= 0) abort();
    if (monostamp_parse_iso8601(buf, (size_t)len, &ns2, &off2, NULL) != 0) abort();
    if (ns2 != ns || off2 != off) abort();
    /* The format never writes more than MONOSTAMP_ISO8601_MAX. */
    if (len > MONOSTAMP_ISO8601_MAX) abort();
    (void)memchr(buf, 0, sizeof buf);
    return 0;
}
