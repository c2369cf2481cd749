/* zone_window.c: the window of constant offset around an instant, from a
 * zone's merged table and its footer rule.  Pure; the slow path of the
 * offset engine calls it and publishes the result. */
#include "config.h"

#include "tzif.h"

/* Rules are evaluated only within this range (see tzrule_window). */
#define RULE_LIMIT_S (INT64_C(1) << 40)

static void table_window(const monostamp__tzdata *d, int64_t t_s, int32_t *off,
                         int64_t *from_s, int64_t *until_s)
{
    /* idx = the number of entries at or before t_s. */
    size_t lo = 0, hi = d->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->times_s[mid] <= t_s) lo = mid + 1;
        else hi = mid;
    }
    *off = lo > 0 ? d->offsets_s[lo - 1] : d->initial_offset_s;
    *from_s = lo > 0 ? d->times_s[lo - 1] : INT64_MIN;
    *until_s = lo < d->count ? d->times_s[lo] : INT64_MAX;
}

void monostamp__tzdata_window(const monostamp__tzdata *d, int64_t t_s,
                              int32_t *offset_s, int64_t *from_s,
                              int64_t *until_s)
{
    int32_t off, o2;
    int64_t from, until, f2, u2;
    int rule_near = d->has_rule && d->rule_from_s > -RULE_LIMIT_S &&
                    d->rule_from_s < RULE_LIMIT_S;

    if (!d->has_rule || t_s < d->rule_from_s) {
        table_window(d, t_s, &off, &from, &until);
        if (d->has_rule && until > d->rule_from_s) {
            until = d->rule_from_s;
            /* Where the rule takes over with the same offset, carry on
             * rather than split the window needlessly. */
            if (rule_near) {
                monostamp__tzrule_window(&d->rule, d->rule_from_s, &o2, &f2, &u2);
                if (o2 == off) until = u2;
            }
        }
    } else {
        monostamp__tzrule_window(&d->rule, t_s, &off, &from, &until);
        if (from < d->rule_from_s) from = d->rule_from_s;
        if (from == d->rule_from_s && d->rule_from_s != INT64_MIN) {
            table_window(d, d->rule_from_s - 1, &o2, &f2, &u2);
            if (o2 == off) from = f2;
        }
    }
    *offset_s = off;
    *from_s = from;
    *until_s = until;
}

/* A window is narrower than its offset's period only at a year's end a
 * rule's window did not merge across, or where the table hands over to
 * the rule with the same offset: a few steps back find the change. */
#define FOLD_STEPS_MAX 8

int64_t monostamp__tzdata_fold_until(const monostamp__tzdata *d, int64_t from_s,
                                     int32_t offset_s)
{
    int32_t before;
    int64_t f, u;
    for (int i = 0; i < FOLD_STEPS_MAX && from_s != INT64_MIN; i++) {
        monostamp__tzdata_window(d, from_s - 1, &before, &f, &u);
        if (before != offset_s)
            return before > offset_s ? from_s + (before - offset_s) : INT64_MIN;
        from_s = f;
    }
    return INT64_MIN; /* no change found: nothing repeats */
}
