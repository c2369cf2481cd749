/* host.c: the kit for bindings (monostamp_host.h), written once here so
 * that the Python extension, the Lua C module and the FFI module (and any
 * host) say the same: the codes by name, the rules at a binding's edge
 * (an option's names, a UTC offset's range, the instant of a wall time,
 * the arguments of a sleep, of isoformat and of uuid7_ns) and the
 * sentences of its faults (an unknown zone or option, a refused take or
 * manual move, a state file's failure, a clock's summary) and the line of
 * a state file's counts.  The sleep plan
 * is sleep_finish.c's. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calendar.h"
#include "os.h"
#include "suggest.h"

/* snprintf's result as the core's: the length, or MONOSTAMP_ERANGE when it
 * was cut short (or could not be written). */
static int written(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (buf == NULL || size == 0)
        return MONOSTAMP_EINVAL;
    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    return n < 0 || (size_t)n >= size ? MONOSTAMP_ERANGE : n;
}

/* MONOSTAMP_ERRNO_MAP's codes and names, in its order. */
#define CODE(name, value, message) MONOSTAMP_##name,
static const int codes[] = {MONOSTAMP_ERRNO_MAP(CODE)};
#undef CODE
#define NAME(name, value, message) #name,
static const char *const code_names[] = {MONOSTAMP_ERRNO_MAP(NAME)};
#undef NAME
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

const char *monostamp_error_name(int code)
{
    for (int i = 0; i < COUNT(codes); i++)
        if (codes[i] == code)
            return code_names[i];
    return NULL;
}

int monostamp_error_code(int i)
{
    return i >= 0 && i < COUNT(codes) ? codes[i] : 0;
}

int monostamp_clock_describe(const monostamp_clock *clock, char *buf, size_t size)
{
    const char *zone = monostamp_zone_name(monostamp_clock_zone(clock));
    int64_t lead = monostamp_clock_max_lead_ns(clock);
    char bound[64] = "";
    if (lead > 0)  /* the bound only when there is one */
        snprintf(bound, sizeof bound, ", max_lead_ns %lld %s", (long long)lead,
                 monostamp_on_lead_name(monostamp_clock_on_lead(clock)));
    return written(buf, size, "%s, %s, zone '%s'%s%s",
                   monostamp_source_name(monostamp_clock_source(clock)),
                   monostamp_policy_name(monostamp_clock_policy(clock)),
                   zone[0] != '\0' ? zone : "local", bound,
                   monostamp_clock_is_shared(clock) ? ", shared" : "");
}

int monostamp_rule_text(int rule, const char *name, const char *value, char *buf, size_t size)
{
    static const char *const rules[] = {
        [MONOSTAMP_RULE_NOT_NEGATIVE] = "%s must be >= 0, not %s",
        [MONOSTAMP_RULE_INT64] = "%s=%s is out of range -- give an integer within int64 "
                                 "(-9223372036854775808..9223372036854775807)",
        [MONOSTAMP_RULE_SECONDS] = "%s=%s is out of range -- give a finite number of seconds "
                                   "within int64 nanoseconds (under 292 years)",
        [MONOSTAMP_RULE_OFFSET] = "%s=%s is out of range -- give seconds east of UTC within "
                                  "+-86399",
        [MONOSTAMP_RULE_OFFSET_MINUTES] = "%s=%s s is not whole minutes, which RFC 3339 needs",
        [MONOSTAMP_RULE_DIGITS] = "%s=%s is out of range -- give 0..9, the digits of the "
                                  "fraction of a second",
        [MONOSTAMP_RULE_NUL] = "%s has a NUL character at byte %s -- give text without NUL "
                               "characters",
    };
    if (rule <= 0 || rule >= COUNT(rules) || name == NULL || value == NULL)
        return MONOSTAMP_EINVAL;
    return written(buf, size, rules[rule], name, value);
}

/* The manual moves monostamp_clock_fault words; any other call draws. */
static int is_move(const char *call)
{
    return strcmp(call, "set") == 0 || strcmp(call, "advance") == 0 ||
           strcmp(call, "step_back") == 0;
}

/* ELEAD's sentence: what led, the bound, and the fix that fits the clock. */
static void lead_fault(const monostamp_clock *clock, int take, int64_t n, char *buf, size_t size)
{
    long long bound = (long long)monostamp_clock_max_lead_ns(clock);
    int manual = monostamp_clock_source(clock) == MONOSTAMP_SOURCE_MANUAL;
    if (take)
        written(buf, size, "n=%lld stamps would lead the source by more than max_lead_ns=%lld -- "
                "take fewer at once, or make the clock with a larger max_lead_ns",
                (long long)n, bound);
    else
        written(buf, size, "the next stamp would lead the %ssource by more than max_lead_ns=%lld "
                "-- %s", manual ? "manual " : "", bound,
                manual ? "advance it, or make the clock with a larger max_lead_ns"
                : monostamp_clock_on_lead(clock) == MONOSTAMP_ON_LEAD_ERROR
                    ? "make the clock with on_lead='wait' to wait instead, or a larger max_lead_ns"
                    : "the wait for the source ran past its limit: make the clock with a larger "
                      "max_lead_ns");
}

int monostamp_clock_fault(const monostamp_clock *clock, const char *call, int code,
                          int64_t value, char *buf, size_t size)
{
    int take = call != NULL && strcmp(call, "take") == 0, blamed = 0;
    if (clock == NULL || call == NULL || buf == NULL || size == 0)
        return MONOSTAMP_EINVAL;
    int move = is_move(call);
    buf[0] = '\0';
    if (code == MONOSTAMP_ELEAD)
        lead_fault(clock, take, value, buf, size);
    else if (take && code == MONOSTAMP_EINVAL)
        blamed = 2, written(buf, size, "n=%lld must be >= 1", (long long)value);
    else if (take && code == MONOSTAMP_ERANGE)
        blamed = 2, written(buf, size, "n=%lld stamps would pass the int64 range",
                            (long long)value);
    else if (take && code == MONOSTAMP_EPOLICY)
        written(buf, size, "the clock's policy %s allows equal stamps, so it has no blocks; "
                "take needs monotonicForceNanosecondIncrement or "
                "monotonicForceMicrosecondIncrement",
                monostamp_policy_name(monostamp_clock_policy(clock)));
    else if (move && code == MONOSTAMP_ENOTSUP)
        blamed = 1, written(buf, size, "%s needs a clock with source 'manual', this one's is "
                            "'%s' -- make the clock with source='manual'", call,
                            monostamp_source_name(monostamp_clock_source(clock)));
    else if (move && code == MONOSTAMP_ERANGE)
        blamed = 2, written(buf, size, "ns=%lld would move the reading past the int64 "
                            "nanosecond range (years 1677..2262) -- give a smaller step",
                            (long long)value);
    else if (move && code == MONOSTAMP_EINVAL)
        blamed = 2, written(buf, size, "ns=%lld is negative -- give ns >= 0", (long long)value);
    else if (!take && !move && code == MONOSTAMP_ERANGE)
        written(buf, size, "the next stamp would pass the largest int64 nanosecond "
                "(2262-04-11T23:47:16.854775807Z)%s", monostamp_clock_is_shared(clock)
                ? " -- the state file's sequence has reached it: share a new state file" : "");
    return blamed;
}

int monostamp_parse_fault(const char *text, size_t len, int code,
                          const monostamp_parse_error *error, char *buf, size_t size)
{
    enum { SHOWN = 40 };  /* long junk is shown cut short, at a character's start */
    size_t shown = len > SHOWN ? SHOWN : len, pos;
    long long at = 1;
    if (text == NULL || error == NULL)
        return MONOSTAMP_EINVAL;
    pos = error->position <= len ? error->position : len;
    for (size_t i = 0; i < pos; i++)  /* characters, not bytes: UTF-8's leading bytes */
        at += ((unsigned char)text[i] & 0xC0) != 0x80;
    while (shown > 0 && shown < len && ((unsigned char)text[shown] & 0xC0) == 0x80)
        shown--;
    return written(buf, size, "'%.*s%s' at character %lld: %s%s", (int)shown, text,
                   shown < len ? "..." : "", at,
                   error->reason != NULL ? error->reason : monostamp_strerror(code),
                   code == MONOSTAMP_ERANGE ? "" : " -- give RFC 3339 text as isoformat writes "
                   "it, such as '2026-12-02T15:11:20.123456789+01:00'");
}

int monostamp_options_fault(const char *field, const char *value, int is_text, char *buf,
                            size_t size)
{
    enum { SHOWN = 40 };  /* long text is shown cut short, at a character's start */
    const char *rule = monostamp_options_rule(field);
    size_t len = value != NULL ? strlen(value) : 0, shown = len > SHOWN ? SHOWN : len;
    char tail[48] = "'";
    if (field == NULL || value == NULL)
        return MONOSTAMP_EINVAL;
    while (is_text && shown > 0 && shown < len && ((unsigned char)value[shown] & 0xC0) == 0x80)
        shown--;
    if (is_text && shown < len)
        snprintf(tail, sizeof tail, "...' (%llu bytes)", (unsigned long long)len);
    return written(buf, size, "%s=%s%.*s%s %s", strcmp(field, "shared_path") == 0 ? "shared"
                   : field, is_text ? "'" : "", is_text ? (int)shown : (int)len, value,
                   is_text ? tail : "", rule != NULL ? rule : "is not accepted");
}

int monostamp_option_names(const char *field, char *buf, size_t size)
{
    int used = written(buf, size, "%s", "");
    if (used < 0 || monostamp_option_name(field, 0) == NULL)
        return used < 0 ? used : MONOSTAMP_EINVAL;
    for (int v = 0; monostamp_option_name(field, v) != NULL; v++) {
        int n = written(buf + used, size - (size_t)used, "%s'%s'", v > 0 ? ", " : "",
                        monostamp_option_name(field, v));
        if (n < 0)
            return n;
        used += n;
    }
    return used;
}

int monostamp_zone_unknown(const char *name, char *buf, size_t size)
{
    char near[MONOSTAMP_ZONE_NAME_MAX + 1];
    if (name == NULL)
        return MONOSTAMP_EINVAL;
    if (monostamp_zone_suggest(name, near, sizeof near) == MONOSTAMP_OK)
        return written(buf, size, "zone='%s' is not a zone this machine knows -- did you mean "
                       "'%s'?", name, near);
    return written(buf, size, "zone='%s' is not a zone this machine knows -- give 'UTC', an "
                   "IANA name such as 'Europe/Berlin' (from TZDIR, else the system's database) "
                   "or a POSIX TZ string such as 'CET-1CEST,M3.5.0,M10.5.0/3'", name);
}

int monostamp_default_context(int code, char *buf, size_t size)
{
    /* The variable as the environment holds it now: what the core read at
     * load, unless the host has changed its environment since. */
    const char *path = getenv("MONOSTAMP_SHARED");
    if (buf == NULL || size == 0)
        return MONOSTAMP_EINVAL;
    buf[0] = '\0';
    if (path == NULL || path[0] == '\0' || !monostamp_state_file_fault(code))
        return 0;
    return monostamp_state_file_text(code, "MONOSTAMP_SHARED", path, buf, size);
}

const char *monostamp_option_name(const char *field, int value)
{
    if (field == NULL)
        return NULL;
    if (strcmp(field, "policy") == 0)
        return monostamp_policy_name(value);
    if (strcmp(field, "source") == 0)
        return monostamp_source_name(value);
    if (strcmp(field, "on_lead") == 0)
        return monostamp_on_lead_name(value);
    return NULL;
}

int monostamp_option_from_name(const char *field, const char *name, int *out)
{
    if (name == NULL || out == NULL)
        return MONOSTAMP_EINVAL;
    int policy = field != NULL && strcmp(field, "policy") == 0;
    for (int v = 0; monostamp_option_name(field, v) != NULL; v++) {
        if (strcmp(monostamp_option_name(field, v), name) == 0 ||
            (policy && strcmp(monostamp_policy_constant(v), name) == 0)) {
            *out = v;
            return MONOSTAMP_OK;
        }
    }
    return MONOSTAMP_EINVAL;
}

int monostamp_offset_check(int64_t offset_s)
{
    return offset_s > -MONOSTAMP__S_PER_DAY && offset_s < MONOSTAMP__S_PER_DAY ? MONOSTAMP_OK
                                                                             : MONOSTAMP_ERANGE;
}

int monostamp_wall_offset(const monostamp_wall *local, const monostamp_wall *utc,
                          int32_t *out_offset_s)
{
    if (local == NULL || utc == NULL || out_offset_s == NULL)
        return MONOSTAMP_EINVAL;
    int64_t offset = monostamp_wall_seconds(local) - monostamp_wall_seconds(utc);
    if (local->nanosecond != utc->nanosecond || monostamp_offset_check(offset) != MONOSTAMP_OK)
        return MONOSTAMP_EINVAL;
    *out_offset_s = (int32_t)offset;
    return MONOSTAMP_OK;
}

int monostamp_wall_instant(const monostamp_wall *w, int32_t offset_s, int64_t *out_ns)
{
    if (w == NULL)
        return MONOSTAMP_EINVAL;
    return monostamp_ns_from_seconds(monostamp_wall_seconds(w) - offset_s, w->nanosecond, out_ns);
}

int monostamp_sleep_deadline(int64_t now_ns, int64_t ns, int is_duration, int64_t tolerance_ns,
                             int64_t *out_deadline_ns, int *bad_arg, char *why, size_t size)
{
    /* The argument at fault, the duration's sign first (0: none). */
    int rc = MONOSTAMP_EINVAL, arg = is_duration && ns < 0 ? 1 : tolerance_ns < 0 ? 2 : 0;
    char value[24];
    if (arg == 2)
        ns = tolerance_ns;
    else if (arg == 0 && is_duration && now_ns > 0 && ns > INT64_MAX - now_ns)
        rc = MONOSTAMP_ERANGE, arg = 1;
    else if (arg == 0) {  /* any deadline is valid */
        if (out_deadline_ns != NULL)
            *out_deadline_ns = is_duration ? now_ns + ns : ns;
        return MONOSTAMP_OK;
    }
    if (bad_arg != NULL)
        *bad_arg = arg;
    snprintf(value, sizeof value, "%lld", (long long)ns);
    if (why != NULL && size > 0 && rc == MONOSTAMP_ERANGE)
        snprintf(why, size, "a sleep of %s ns ends past the monotonic clock's range", value);
    else if (why != NULL && size > 0)
        monostamp_rule_text(MONOSTAMP_RULE_NOT_NEGATIVE, arg == 1 ? "ns" : "tolerance_ns", value,
                            why, size);
    return rc;
}

int monostamp_sleep_start(monostamp_sleep_plan *plan, int64_t now_ns, int64_t ns, int is_duration,
                          int64_t tolerance_ns, int finish, int *bad_arg, char *why, size_t size)
{
    int64_t deadline_ns = 0;
    int rc = monostamp_sleep_deadline(now_ns, ns, is_duration, tolerance_ns, &deadline_ns, bad_arg,
                                      why, size);
    if (rc != MONOSTAMP_OK || plan == NULL)
        return rc != MONOSTAMP_OK ? rc : MONOSTAMP_EINVAL;
    /* A deadline is planned from a fresh reading: the checks came after the
     * first, which only a duration counts from. */
    return monostamp_sleep_begin(plan, deadline_ns, tolerance_ns,
                                 is_duration ? now_ns : monostamp_monotonic_ns(), finish);
}

int monostamp_isoformat(char *buf, size_t size, int64_t utc_ns, int64_t offset_s, int64_t digits,
                        int use_z, int *bad_arg, char *why, size_t why_size)
{
    int n, arg = 2, rule = MONOSTAMP_RULE_OFFSET;
    char value[24];
    if (why == NULL)
        why_size = 0;  /* snprintf then writes nothing */
    if (monostamp_offset_check(offset_s) != MONOSTAMP_OK) {  /* int32 too */
        n = MONOSTAMP_ERANGE;
    } else if (digits < 0 || digits > 9) {
        n = MONOSTAMP_EINVAL, arg = 3, rule = MONOSTAMP_RULE_DIGITS;
    } else {
        n = monostamp_format_iso8601(buf, size, utc_ns, (int32_t)offset_s, (int)digits, use_z);
        rule = MONOSTAMP_RULE_OFFSET_MINUTES;  /* EINVAL: the offset's seconds */
        if (n == MONOSTAMP_ERANGE && size > MONOSTAMP_ISO8601_MAX)
            arg = 1, rule = 0, snprintf(why, why_size, "%lld ns truncated to %d digits falls "
                                        "before the int64 nanosecond range, which no parse takes "
                                        "back -- give more digits", (long long)utc_ns,
                                        (int)digits);
        else if (n != MONOSTAMP_EINVAL)
            arg = 0, rule = 0;  /* done, or no room in `buf`: the code says it */
    }
    if (rule != 0 && why_size > 0) {
        snprintf(value, sizeof value, "%lld", (long long)(arg == 3 ? digits : offset_s));
        monostamp_rule_text(rule, arg == 3 ? "digits" : "offset", value, why, why_size);
    }
    if (bad_arg != NULL)
        *bad_arg = arg;
    return n;
}

int monostamp_uuid7_text_ns(const char *text, size_t len, int64_t *out_ns, char *why,
                             size_t size)
{
    enum { SHOWN = 40 };  /* long junk is shown cut short */
    uint8_t id[16];
    int rc = text != NULL ? monostamp_uuid_parse(text, len, id) : MONOSTAMP_EINVAL;
    if (rc == MONOSTAMP_OK && (rc = monostamp_uuid7_ns(id, out_ns)) == MONOSTAMP_OK)
        return rc;
    int unparsed = rc == MONOSTAMP_EINVAL;
    if (why != NULL && size > 0 && text != NULL)
        snprintf(why, size, "'%.*s%s'%s%s", (int)(len > SHOWN ? SHOWN : len), text,
                 len > SHOWN ? "..." : "", unparsed ? " " : ": ",
                 unparsed ? "is not a UUID in canonical 8-4-4-4-12 form" : monostamp_strerror(rc));
    return rc;
}

const char *monostamp_state_file_hint(int code, const char *path)
{
    /* The state file is created if absent; its directory is not. */
    return monostamp_errno_of(code) == ENOENT && monostamp__os_dir_missing(path)
               ? "its directory does not exist -- create the directory first; the state "
                 "file itself is created if absent"
               : NULL;
}

int monostamp_state_file_text(int code, const char *what, const char *path, char *buf,
                              size_t size)
{
    const char *hint = monostamp_state_file_hint(code, path);
    if (what == NULL || path == NULL)
        return MONOSTAMP_EINVAL;
    return written(buf, size, "%s='%s': %s", what, path,
                   hint != NULL ? hint : monostamp_strerror(code));
}

/* The options of a clock, as every binding names them. */
static const char *const clock_options[] = {
    "policy", "source", "zone", "max_lead_ns", "on_lead", "shared", "start_ns", "trust_group",
};

int monostamp_option_unknown(const char *name, char *buf, size_t size)
{
    monostamp__near near;
    char list[160] = "";
    if (name == NULL)
        return MONOSTAMP_EINVAL;
    for (int i = 0; i < COUNT(clock_options); i++)
        if (strcmp(name, clock_options[i]) == 0)
            return written(buf, size, "%s", "");
    monostamp__near_init(&near, name);
    for (int i = 0; i < COUNT(clock_options); i++) {
        if (near.name_len <= MONOSTAMP_ZONE_NAME_MAX)
            monostamp__near_consider(&near, clock_options[i]);
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i > 0 ? ", " : "",
                 clock_options[i]);
    }
    if (near.best[0] != '\0')
        return written(buf, size, "unknown option '%.*s' -- did you mean '%s'?", 64, name,
                       near.best);
    return written(buf, size, "unknown option '%.*s' -- the options are %s", 64, name, list);
}

int monostamp_options_text(const monostamp_options *options, char *buf, size_t size)
{
    const char *field = NULL, *text = NULL;
    char number[24];
    long long value = 0;
    int rc = monostamp_options_check(options, &field);
    if (written(buf, size, "%s", "") < 0)
        return MONOSTAMP_EINVAL;
    if (rc == MONOSTAMP_OK)
        return rc;
    if (options == NULL || field == NULL) {
        written(buf, size, "options %s", monostamp_options_rule(field));
        return rc;
    }
    if (strcmp(field, "zone") == 0 || strcmp(field, "shared_path") == 0)
        text = field[0] == 'z' ? options->zone : options->shared_path;
    else if (strcmp(field, "max_lead_ns") == 0 || strcmp(field, "start_ns") == 0)
        value = field[0] == 'm' ? options->max_lead_ns : options->start_ns;
    else  /* an int field: policy, source, on_lead, trust_group */
        value = field[0] == 'p' ? options->policy : field[0] == 's' ? options->source
              : field[0] == 'o' ? options->on_lead : options->trust_group;
    snprintf(number, sizeof number, "%lld", value);
    /* One wording: the same sentence as for a value a host hands over itself. */
    monostamp_options_fault(field, text != NULL ? text : number, text != NULL, buf, size);
    return rc;
}

int monostamp_clock_init_fault(int code, const monostamp_options *options, char *buf, size_t size)
{
    if (options == NULL || written(buf, size, "%s", "") < 0)
        return MONOSTAMP_EINVAL;
    if (code == MONOSTAMP_ENOZONE && options->zone != NULL)
        return monostamp_zone_unknown(options->zone, buf, size);
    if (options->shared_path != NULL && monostamp_state_file_fault(code))
        return monostamp_state_file_text(code, "shared", options->shared_path, buf, size);
    return 0;
}

/* `n` with a ',' between each group of three digits (27 bytes and the NUL
 * hold any uint64_t). */
static void grouped(uint64_t n, char out[32])
{
    char digits[24];
    int len = snprintf(digits, sizeof digits, "%" PRIu64, n), o = 0;
    for (int i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
}

int monostamp_counts_text(const monostamp_counts *before, const monostamp_counts *after,
                          char *buf, size_t size)
{
    static const monostamp_counts none = {0, 0, 0, 0};
    static const struct {
        const char *unit;
        int64_t ns;
        int digits;
    } units[] = {{"s", 1000000000, 9}, {"ms", 1000000, 6}, {"us", 1000, 3}};
    char stamps[32], repeats[32], backward[32], lead[48];
    if (after == NULL)
        return MONOSTAMP_EINVAL;
    if (before == NULL)
        before = &none;
    /* Unsigned: a sum that went down is one that wrapped. */
    uint64_t n_stamps = after->stamps - before->stamps;
    uint64_t n_backward = after->backward_steps - before->backward_steps;
    int64_t ns = n_stamps != 0 || after->largest_lead_ns != before->largest_lead_ns
                     ? after->largest_lead_ns : 0;
    if (ns < 0)
        ns = 0; /* any process may write the file: never a negative lead */
    snprintf(lead, sizeof lead, "%" PRId64 " ns", ns);
    for (int i = 0; i < COUNT(units); i++) {
        if (ns >= units[i].ns) {
            snprintf(lead, sizeof lead, "%" PRId64 ".%0*" PRId64 " %s", ns / units[i].ns,
                     units[i].digits, ns % units[i].ns, units[i].unit);
            break;
        }
    }
    grouped(n_stamps, stamps);
    grouped(after->repeats - before->repeats, repeats);
    grouped(n_backward, backward);
    return written(buf, size, "monostamp: %s stamp%s handed out, %s would have repeated without "
                   "monostamp, %s backward step%s met, largest lead %s", stamps,
                   n_stamps == 1 ? "" : "s", repeats, backward, n_backward == 1 ? "" : "s", lead);
}
