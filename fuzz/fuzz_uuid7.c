/* fuzz_uuid7.c: libFuzzer target for UUID text and the id -> stamp
 * inverse.  Parsing accepts exactly the canonical form; an accepted id
 * formats back to the same text in lowercase; an id that gives a stamp is
 * rebuilt exactly from that stamp and its own random tail. */
#include <ctype.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "monostamp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t id[16], again[16];
    char text[MONOSTAMP_UUID_TEXT_SIZE];
    int64_t ns = 0;
    int rc = monostamp_uuid_parse((const char *)data, size, id);
    if (rc != MONOSTAMP_OK) {
        if (rc != MONOSTAMP_EINVAL) abort();
        /* Raw 16 bytes still exercise the inverse. */
        if (size != 16) return 0;
        memcpy(id, data, 16);
    } else {
        monostamp_uuid_format(id, text);
        if (strlen(text) != MONOSTAMP_UUID_TEXT_SIZE - 1 || size != strlen(text)) abort();
        for (size_t i = 0; i < size; i++)
            if (tolower(data[i]) != text[i]) abort();
    }
    rc = monostamp_uuid7_ns(id, &ns);
    if (rc != MONOSTAMP_OK) {
        if (rc != MONOSTAMP_ENOTV7 && rc != MONOSTAMP_ERANGE) abort();
        return 0;
    }
    if (ns < 0) abort();
    uint64_t tail = 0;
    for (int i = 9; i < 16; i++)
        tail = tail << 8 | id[i];
    if (monostamp_uuid7_pack(ns, tail, again) != MONOSTAMP_OK) abort();
    if (memcmp(id, again, 16) != 0) abort();
    return 0;
}
