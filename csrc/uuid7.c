/*
 * uuid7.c: RFC 9562 version 7 ids as a pure function of a stamp and 54
 * random bits (the layout is in monostamp.h), their inverse, and the
 * canonical text form of any UUID.
 *
 * There is no counter here: uniqueness and order on one machine are the
 * stamps' (distinct and increasing across threads, fork and processes on
 * a state file), and the fraction field is fine enough to carry them.
 * The random tail only has to tell machines apart.
 */
#include "config.h"

#include <stdatomic.h>

#include "os.h"

enum {
    FRACTION_BITS = 20,     /* of a millisecond: 12 in rand_a, 8 after the variant */
    RANDOM_BITS = 54,       /* the rest of rand_b */
    RANDOM_BYTES_PER_ID = 7 /* 56 bits drawn, 54 used */
};
#define NS_PER_MS UINT64_C(1000000)
#define RANDOM_MASK ((UINT64_C(1) << RANDOM_BITS) - 1)

static void store_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t)(v & 0xFF);
        v >>= 8;
    }
}

static uint64_t load_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = (v << 8) | p[i];
    return v;
}

int monostamp_uuid7_pack(int64_t utc_ns, uint64_t random_bits, uint8_t out[16])
{
    if (out == NULL)
        return MONOSTAMP_EINVAL;
    if (utc_ns < 0)
        return MONOSTAMP_ERANGE;
    uint64_t ms = (uint64_t)utc_ns / NS_PER_MS; /* < 2^44: int64 ns end in 2262 */
    uint64_t ns_in_ms = (uint64_t)utc_ns % NS_PER_MS;
    /* floor(ns_in_ms * 2^20 / 10^6): one unit is 0.954 ns, so distinct ns
     * give distinct fractions, in order. */
    uint64_t fraction = (ns_in_ms << FRACTION_BITS) / NS_PER_MS;
    uint64_t hi = ms << 16 | UINT64_C(0x7000) | fraction >> 8;
    uint64_t lo = UINT64_C(0x8000000000000000) | (fraction & 0xFF) << RANDOM_BITS |
                  (random_bits & RANDOM_MASK);
    store_be64(out, hi);
    store_be64(out + 8, lo);
    return MONOSTAMP_OK;
}

int monostamp_uuid7_ns(const uint8_t id[16], int64_t *out_ns)
{
    if (id == NULL || out_ns == NULL)
        return MONOSTAMP_EINVAL;
    uint64_t hi = load_be64(id), lo = load_be64(id + 8);
    if ((hi >> 12 & 0xF) != 7 || lo >> 62 != 2)
        return MONOSTAMP_ENOTV7;
    uint64_t fraction = (hi & 0xFFF) << 8 | (lo >> RANDOM_BITS & 0xFF);
    /* The one ns whose fraction this is, if any: the smallest ns at or above
     * fraction * 10^6 / 2^20; the window of ns mapping to one fraction is
     * shorter than 1 ns, so when that one does not map back, none does. */
    uint64_t ns_in_ms = (fraction * NS_PER_MS + (UINT64_C(1) << FRACTION_BITS) - 1) >>
                        FRACTION_BITS;
    if ((ns_in_ms << FRACTION_BITS) / NS_PER_MS != fraction)
        return MONOSTAMP_ENOTV7;
    uint64_t ms = hi >> 16;
    if (ms > ((uint64_t)INT64_MAX - ns_in_ms) / NS_PER_MS)
        return MONOSTAMP_ERANGE;
    *out_ns = (int64_t)(ms * NS_PER_MS + ns_in_ms);
    return MONOSTAMP_OK;
}

/* ------------------------------------------------------------ randomness */

/*
 * Random tails come from a per-thread buffer filled by the OS's generator:
 * one system call per RANDOM_IDS_PER_FILL ids instead of one per id, and no
 * lock.  A fork()ed child inherits its parent's buffer, whose unused bytes
 * the parent will also use: the child handler moves fork_generation on, and
 * a buffer filled in another generation is thrown away before use, so a
 * child never repeats its parent's tail.
 */
enum { RANDOM_IDS_PER_FILL = 144 };

typedef struct random_buffer {
    uint8_t bytes[RANDOM_IDS_PER_FILL * RANDOM_BYTES_PER_ID];
    unsigned left;          /* ids' worth of bytes not yet used */
    unsigned generation;    /* fork_generation when filled */
} random_buffer;

static MONOSTAMP__THREAD_LOCAL random_buffer thread_random;
static _Atomic unsigned fork_generation;
static monostamp__os_once_flag fork_handler_once = MONOSTAMP__OS_ONCE_INIT;

static void after_fork_in_child(void)
{
    atomic_fetch_add_explicit(&fork_generation, 1, memory_order_relaxed);
}

static void register_fork_handler(void)
{
    monostamp__os_atfork(NULL, NULL, after_fork_in_child);
}

static MONOSTAMP__NOINLINE int refill(random_buffer *buffer, unsigned generation)
{
    monostamp__os_once(&fork_handler_once, register_fork_handler);
    int rc = monostamp__os_random(buffer->bytes, sizeof buffer->bytes);
    if (rc != MONOSTAMP_OK)
        return rc;
    buffer->left = RANDOM_IDS_PER_FILL;
    buffer->generation = generation;
    return MONOSTAMP_OK;
}

static int random_tail(uint64_t *out)
{
    random_buffer *buffer = &thread_random;
    unsigned generation = atomic_load_explicit(&fork_generation, memory_order_relaxed);
    if (MONOSTAMP__UNLIKELY(buffer->left == 0 || buffer->generation != generation)) {
        int rc = refill(buffer, generation);
        if (rc != MONOSTAMP_OK)
            return rc;
    }
    buffer->left--;
    const uint8_t *p = buffer->bytes + (size_t)buffer->left * RANDOM_BYTES_PER_ID;
    uint64_t v = 0;
    for (int i = 0; i < RANDOM_BYTES_PER_ID; i++)
        v = (v << 8) | p[i];
    *out = v;
    return MONOSTAMP_OK;
}

int monostamp_uuid7_from_ns(int64_t utc_ns, uint8_t out[16])
{
    uint64_t tail;
    if (out == NULL)
        return MONOSTAMP_EINVAL;
    if (utc_ns < 0)
        return MONOSTAMP_ERANGE;
    int rc = random_tail(&tail);
    return rc != MONOSTAMP_OK ? rc : monostamp_uuid7_pack(utc_ns, tail, out);
}

int monostamp_uuid7(monostamp_clock *clock, uint8_t out[16])
{
    int64_t ns = 0;
    if (out == NULL)
        return MONOSTAMP_EINVAL;
    int rc = monostamp_time_ns(clock, &ns);
    return rc != MONOSTAMP_OK ? rc : monostamp_uuid7_from_ns(ns, out);
}

/* ------------------------------------------------------------------ text */

static const char hex_digits[] = "0123456789abcdef";

/* Where the canonical form's hyphens sit. */
static int is_hyphen_position(size_t i)
{
    return i == 8 || i == 13 || i == 18 || i == 23;
}

void monostamp_uuid_format(const uint8_t id[16], char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < 16; i++) {
        if (is_hyphen_position(o))
            out[o++] = '-';
        out[o++] = hex_digits[id[i] >> 4];
        out[o++] = hex_digits[id[i] & 0xF];
    }
    out[o] = '\0';
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int monostamp_uuid_parse(const char *text, size_t len, uint8_t out[16])
{
    uint8_t id[16];
    if (text == NULL || out == NULL)
        return MONOSTAMP_EINVAL;
    if (len != MONOSTAMP_UUID_TEXT_SIZE - 1)
        return MONOSTAMP_EINVAL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (is_hyphen_position(i)) {
            if (text[i] != '-')
                return MONOSTAMP_EINVAL;
            continue;
        }
        int high = hex_value(text[i]), low = hex_value(text[i + 1]);
        if (high < 0 || low < 0)
            return MONOSTAMP_EINVAL;
        id[n++] = (uint8_t)(high << 4 | low);
        i++;
    }
    /* Written only when the whole text was good. */
    for (size_t i = 0; i < 16; i++)
        out[i] = id[i];
    return MONOSTAMP_OK;
}
