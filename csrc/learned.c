/*
 * learned.c: a lateness learned per band of lengths (learned.h).
 */
#include "learned.h"

static int64_t clamp(const monostamp__learned *l, int64_t ns)
{
    return ns < l->min_ns ? l->min_ns : ns > l->max_ns ? l->max_ns : ns;
}

int monostamp__learned_band(const monostamp__learned *l, int64_t length_ns)
{
    int b = 0;
    while (b < l->bands - 1 && length_ns >= l->limit_ns[b])
        b++;
    return b;
}

int64_t monostamp__learned_value(const monostamp__learned *l, int b)
{
    int64_t v = atomic_load_explicit(&l->value_ns[b], memory_order_relaxed);
    if (atomic_load_explicit(&l->seen[b], memory_order_relaxed))
        return v;
    for (int s = b - 1; s >= 0; s--)
        if (atomic_load_explicit(&l->seen[s], memory_order_relaxed)) {
            int64_t shorter = atomic_load_explicit(&l->value_ns[s], memory_order_relaxed);
            return shorter > v ? shorter : v;
        }
    return v;
}

void monostamp__learned_set(const monostamp__learned *l, int b, int64_t value_ns)
{
    atomic_store_explicit(&l->value_ns[b], clamp(l, value_ns), memory_order_relaxed);
    atomic_store_explicit(&l->seen[b], 1, memory_order_relaxed);
}

void monostamp__learned_observe(const monostamp__learned *l, int b, int64_t late_ns, int exact)
{
    if (late_ns < 0)
        late_ns = 0;
    if (late_ns > l->max_ns)
        late_ns = l->max_ns; /* also keeps the sum below from overflowing */
    int64_t want = clamp(l, late_ns + late_ns / 4 + l->headroom_ns);
    /* The first observation starts from the value the caller used, so one
     * seeded from a shorter band is kept rather than dropped. */
    int64_t v = monostamp__learned_value(l, b);
    if (want > v)
        v = want < v * l->jump_max ? want : v * l->jump_max;
    else if (exact)
        v -= (v - want + l->decay - 1) / l->decay; /* rounded up: it gets there */
    monostamp__learned_set(l, b, v);
}

void monostamp__learned_reset(const monostamp__learned *l)
{
    for (int b = 0; b < l->bands; b++) {
        atomic_store_explicit(&l->value_ns[b], l->start_ns[b], memory_order_relaxed);
        atomic_store_explicit(&l->seen[b], 0, memory_order_relaxed);
    }
}
