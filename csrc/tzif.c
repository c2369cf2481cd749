/* tzif.c: the TZif parser (RFC 8536).  Every count is checked against the
 * bytes actually present before anything is read or allocated. */
#include "config.h"

#include "tzif.h"

#include <stdlib.h>
#include <string.h>

#define HEADER_SIZE 44
/* RFC 8536 3.2 allows utoff in [-89999, 93599]; we take strictly less than
 * 24 h either way, as ISO 8601 text, Python's timezone and every zone in
 * the tz database do, so an offset the engine hands out can always be
 * written and converted. */
#define UTOFF_MIN (-86399)
#define UTOFF_MAX 86399

typedef struct header {
    uint32_t isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt;
} header;

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64s(const unsigned char *p)
{
    uint64_t v = (uint64_t)be32(p) << 32 | be32(p + 4);
    /* Two's complement without implementation-defined conversion. */
    return v <= (uint64_t)INT64_MAX ? (int64_t)v : -(int64_t)(~v) - 1;
}

static int32_t be32s(const unsigned char *p)
{
    uint32_t v = be32(p);
    return v <= (uint32_t)INT32_MAX ? (int32_t)v : -(int32_t)(~v) - 1;
}

static int read_header(const unsigned char *p, size_t len, header *h, int *version)
{
    if (len < HEADER_SIZE || memcmp(p, "TZif", 4) != 0) return -1;
    /* 0 for v1, else a digit; later digits are read as v4 (RFC 8536 says
     * readers should not reject them outright). */
    if (p[4] == 0) *version = 1;
    else if (p[4] >= '2' && p[4] <= '9') *version = p[4] - '0';
    else return -1;
    h->isutcnt = be32(p + 20);
    h->isstdcnt = be32(p + 24);
    h->leapcnt = be32(p + 28);
    h->timecnt = be32(p + 32);
    h->typecnt = be32(p + 36);
    h->charcnt = be32(p + 40);
    if (h->typecnt == 0 || h->typecnt > 256 || h->charcnt == 0) return -1;
    if (h->isutcnt != 0 && h->isutcnt != h->typecnt) return -1;
    if (h->isstdcnt != 0 && h->isstdcnt != h->typecnt) return -1;
    return 0;
}

/* Size of a data block with `tsize`-byte times; counts are 32-bit, so the
 * sum fits in 64 bits. */
static uint64_t block_size(const header *h, int tsize)
{
    return (uint64_t)h->timecnt * (uint64_t)(tsize + 1) + (uint64_t)h->typecnt * 6 +
           h->charcnt + (uint64_t)h->leapcnt * (uint64_t)(tsize + 4) + h->isstdcnt +
           h->isutcnt;
}

static int64_t read_time(const unsigned char *p, int tsize)
{
    return tsize == 8 ? be64s(p) : (int64_t)be32s(p);
}

/* The leap correction in force at `t` on the leap-inclusive scale. */
static int64_t leap_correction(const unsigned char *leaps, uint32_t leapcnt,
                               int tsize, int64_t t)
{
    int64_t corr = 0;
    for (uint32_t i = 0; i < leapcnt; i++) {
        const unsigned char *r = leaps + (size_t)i * (size_t)(tsize + 4);
        if (read_time(r, tsize) > t) break;
        corr = be32s(r + tsize);
    }
    return corr;
}

static int parse_block(const unsigned char *p, const header *h, int tsize,
                       monostamp__tzdata *d, int64_t *times, int32_t *offsets)
{
    const unsigned char *trans = p;
    const unsigned char *idx = trans + (size_t)h->timecnt * (size_t)tsize;
    const unsigned char *types = idx + h->timecnt;
    const unsigned char *leaps = types + (size_t)h->typecnt * 6 + h->charcnt;
    int64_t prev_time = 0, prev_leap = 0;
    int32_t prev_off;
    size_t n = 0;

    for (uint32_t i = 0; i < h->typecnt; i++) {
        const unsigned char *t = types + (size_t)i * 6;
        int32_t off = be32s(t);
        if (off < UTOFF_MIN || off > UTOFF_MAX || t[4] > 1 || t[5] >= h->charcnt)
            return -1;
    }
    for (uint32_t i = 0; i < h->leapcnt; i++) {
        int64_t at = read_time(leaps + (size_t)i * (size_t)(tsize + 4), tsize);
        if (i > 0 && at <= prev_leap) return -1;
        prev_leap = at;
    }
    d->initial_offset_s = be32s(types);
    prev_off = d->initial_offset_s;
    for (uint32_t i = 0; i < h->timecnt; i++) {
        int64_t at = read_time(trans + (size_t)i * (size_t)tsize, tsize);
        int32_t off;
        if (i > 0 && at <= prev_time) return -1;
        prev_time = at;
        if (idx[i] >= h->typecnt) return -1;
        off = be32s(types + (size_t)idx[i] * 6);
        if (h->leapcnt > 0) {
            /* |correction| is tiny in real files; refuse absurd ones rather
             * than overflow. */
            int64_t corr = leap_correction(leaps, h->leapcnt, tsize, at);
            if (corr < -100000 || corr > 100000 || at < INT64_MIN + 100000 ||
                at > INT64_MAX - 100000)
                return -1;
            at -= corr;
            if (n > 0 && at <= times[n - 1]) continue; /* folded by the shift */
        }
        if (off == prev_off) continue; /* only isdst or abbreviation changed */
        times[n] = at;
        offsets[n] = off;
        n++;
        prev_off = off;
    }
    d->count = n;
    if (h->timecnt > 0) {
        d->rule_from_s = read_time(trans + (size_t)(h->timecnt - 1) * (size_t)tsize, tsize);
        if (h->leapcnt > 0)
            d->rule_from_s -= leap_correction(leaps, h->leapcnt, tsize, d->rule_from_s);
    } else {
        d->rule_from_s = INT64_MIN;
    }
    return 0;
}

int monostamp__tzif_parse(const unsigned char *data, size_t len,
                          monostamp__tzdata **out)
{
    header h1, h;
    int version, v2;
    uint64_t size1, size;
    const unsigned char *block;
    size_t rest;
    monostamp__tzdata *d;
    int64_t *times;
    int32_t *offsets;
    int tsize;

    if (data == NULL || out == NULL) return MONOSTAMP_EINVAL;
    *out = NULL;
    if (read_header(data, len, &h1, &version) != 0) return MONOSTAMP_ENOZONE;
    size1 = block_size(&h1, 4);
    if (size1 > len - HEADER_SIZE) return MONOSTAMP_ENOZONE;
    h = h1;
    block = data + HEADER_SIZE;
    tsize = 4;
    rest = 0;
    if (version >= 2) {
        /* The 64-bit header and block follow the v1 block. */
        const unsigned char *p2 = block + size1;
        size_t left = len - HEADER_SIZE - (size_t)size1;
        if (read_header(p2, left, &h, &v2) != 0 || v2 < 2) return MONOSTAMP_ENOZONE;
        size = block_size(&h, 8);
        if (size > left - HEADER_SIZE) return MONOSTAMP_ENOZONE;
        block = p2 + HEADER_SIZE;
        tsize = 8;
        rest = left - HEADER_SIZE - (size_t)size;
    }
    /* One allocation: the struct, then the times, then the offsets. */
    {
        size_t n = h.timecnt;
        size_t bytes = sizeof(*d) + n * sizeof(int64_t) + n * sizeof(int32_t);
        d = malloc(bytes);
        if (d == NULL) return MONOSTAMP_ENOMEM;
        memset(d, 0, sizeof(*d));
        times = (int64_t *)(void *)(d + 1);
        offsets = (int32_t *)(void *)(times + n);
    }
    if (parse_block(block, &h, tsize, d, times, offsets) != 0) {
        free(d);
        return MONOSTAMP_ENOZONE;
    }
    d->times_s = times;
    d->offsets_s = offsets;
    if (version >= 2) {
        /* Footer: "\n" TZ-string "\n".  An empty or unusable string leaves
         * the last type in force, as glibc does. */
        const unsigned char *f = block + (size_t)block_size(&h, 8);
        const unsigned char *nl;
        if (rest < 2 || f[0] != '\n') {
            free(d);
            return MONOSTAMP_ENOZONE;
        }
        nl = memchr(f + 1, '\n', rest - 1);
        if (nl == NULL) {
            free(d);
            return MONOSTAMP_ENOZONE;
        }
        if (nl > f + 1 &&
            monostamp__tzrule_parse((const char *)f + 1, (size_t)(nl - f - 1), &d->rule) == 0)
            d->has_rule = 1;
    }
    *out = d;
    return 0;
}

int monostamp__tzdata_from_rule(const monostamp__tzrule *rule,
                                monostamp__tzdata **out)
{
    monostamp__tzdata *d = calloc(1, sizeof(*d));
    if (d == NULL) return MONOSTAMP_ENOMEM;
    d->initial_offset_s = rule->std_offset_s;
    d->has_rule = 1;
    d->rule_from_s = INT64_MIN;
    d->rule = *rule;
    *out = d;
    return 0;
}

void monostamp__tzdata_free(monostamp__tzdata *data)
{
    free(data);
}
