-- monostamp/cdef.lua: the declarations of csrc/monostamp.h and
-- csrc/monostamp_host.h that the FFI bindings use, the one copy that
-- LuaJIT's monostamp.ffi (ffi.cdef) and PyPy's cffi build
-- (tools/cffi_build.py) both read.  Held to the headers by
-- tests/lua/ffi_cdef_spec.lua, and by cffi's API mode, which compiles them
-- against them.  Keep it to what a binding calls: a declaration here is a
-- promise both bindings keep.  First LuaJIT's, then what PyPy's adds.  A
-- clock is used by pointer only, so its storage is not declared.
return [[
typedef enum monostamp_policy {
    MONOSTAMP_ACCEPT_PLATFORM_TIME = 0,
    MONOSTAMP_MONOTONIC_ALLOW_DUPLICATES = 1,
    MONOSTAMP_MONOTONIC_FORCE_MICROSECOND_INCREMENT = 2,
    MONOSTAMP_MONOTONIC_FORCE_NANOSECOND_INCREMENT = 3
} monostamp_policy;
typedef enum monostamp_source {
    MONOSTAMP_SOURCE_REALTIME = 0,
    MONOSTAMP_SOURCE_REALTIME_COARSE = 1,
    MONOSTAMP_SOURCE_MANUAL = 2
} monostamp_source;
typedef enum monostamp_on_lead {
    MONOSTAMP_ON_LEAD_WAIT = 0,
    MONOSTAMP_ON_LEAD_ERROR = 1
} monostamp_on_lead;
typedef struct monostamp_clock_info {
    const char *name;
    const char *implementation;
    int64_t resolution_ns;
    int adjustable;
    int monotonic;
} monostamp_clock_info;
typedef struct monostamp_zone monostamp_zone;
typedef struct monostamp_options {
    int policy;
    int source;
    const char *zone;
    int64_t max_lead_ns;
    int on_lead;
    const char *shared_path;
    int has_start_ns;
    int64_t start_ns;
    int trust_group;
} monostamp_options;
typedef struct monostamp_stats {
    uint64_t readings;
    uint64_t backward_steps;
    int64_t largest_backward_ns;
    uint64_t duplicates;
    uint64_t forced_increments;
    int64_t lead_ns;
    int64_t max_lead_ns;
    uint64_t lead_waits;
    uint64_t lead_errors;
} monostamp_stats;
typedef struct monostamp_stamp {
    int64_t utc_ns;
    int32_t offset_s;
} monostamp_stamp;
typedef union monostamp_clock monostamp_clock;
typedef struct monostamp_parse_error {
    size_t position;
    const char *reason;
} monostamp_parse_error;

int monostamp_os_errno(int code);
int monostamp_errno_of(int code);
const char *monostamp_strerror(int code);
const char *monostamp_policy_name(int policy);
const char *monostamp_source_name(int source);
int monostamp_clock_info_get(int source, monostamp_clock_info *out);
void monostamp_zone_changed(void);
const char *monostamp_zone_name(const monostamp_zone *zone);
const char *monostamp_on_lead_name(int on_lead);
void monostamp_options_init(monostamp_options *options);
int monostamp_options_check(const monostamp_options *options, const char **bad_field);
const char *monostamp_options_rule(const char *field);
int monostamp_clock_new(const monostamp_options *options, monostamp_clock **out);
void monostamp_clock_free(monostamp_clock *clock);
int monostamp_now(monostamp_clock *clock, monostamp_stamp *out);
int monostamp_time_ns(monostamp_clock *clock, int64_t *out_ns);
int monostamp_now_us(monostamp_clock *clock, monostamp_stamp *out);
int monostamp_time_us(monostamp_clock *clock, int64_t *out_ns);
int monostamp_clock_take(monostamp_clock *clock, int64_t n, int64_t *first_ns, int64_t *step_ns);
monostamp_policy monostamp_clock_policy(const monostamp_clock *clock);
int monostamp_clock_set_policy(monostamp_clock *clock, int policy);
monostamp_source monostamp_clock_source(const monostamp_clock *clock);
monostamp_zone *monostamp_clock_zone(const monostamp_clock *clock);
int64_t monostamp_clock_max_lead_ns(const monostamp_clock *clock);
monostamp_on_lead monostamp_clock_on_lead(const monostamp_clock *clock);
int monostamp_clock_is_shared(const monostamp_clock *clock);
int monostamp_manual_set(monostamp_clock *clock, int64_t ns);
int monostamp_manual_advance(monostamp_clock *clock, int64_t delta_ns);
void monostamp_clock_stats(const monostamp_clock *clock, monostamp_stats *out);
int monostamp_default_clock(monostamp_clock **out);
int monostamp_default_time_ns(int64_t *out_ns);
int monostamp_uuid7(monostamp_clock *clock, uint8_t out[16]);
void monostamp_uuid_format(const uint8_t id[16], char *out);
int monostamp_format_iso8601(char *buf, size_t size, int64_t utc_ns, int32_t offset_s, int digits, int use_z);
int monostamp_parse_iso8601(const char *text, size_t len, int64_t *out_utc_ns, int32_t *out_offset_s, monostamp_parse_error *error);
int monostamp_sleep_until(int64_t deadline_ns, int64_t tolerance_ns);
int64_t monostamp_monotonic_ns(void);
typedef struct monostamp_sleep_plan {
  int64_t deadline_ns;
  int64_t until_ns;
  int64_t until_tolerance_ns;
  int last_nap;
  int64_t core_[4];
} monostamp_sleep_plan;
enum { MONOSTAMP_SLEEP_DONE = 0, MONOSTAMP_SLEEP_NAP = 1, MONOSTAMP_SLEEP_SPIN = 2, MONOSTAMP_SLEEP_WARM = 3 };
int monostamp_sleep_step(monostamp_sleep_plan *plan, int64_t now_ns);
const char *monostamp_error_name(int code);
int monostamp_error_code(int i);
int monostamp_state_file_fault(int code);
int monostamp_option_unknown(const char *name, char *buf, size_t size);
int monostamp_options_text(const monostamp_options *options, char *buf, size_t size);
int monostamp_state_file_text(int code, const char *what, const char *path, char *buf, size_t size);
int monostamp_clock_describe(const monostamp_clock *clock, char *buf, size_t size);
int monostamp_zone_unknown(const char *name, char *buf, size_t size);
int monostamp_clock_init_fault(int code, const monostamp_options *options, char *buf, size_t size);
int monostamp_default_context(int code, char *buf, size_t size);
int monostamp_uuid7_text_ns(const char *text, size_t len, int64_t *out_ns, char *why, size_t size);
int monostamp_isoformat(char *buf, size_t size, int64_t utc_ns, int64_t offset_s, int64_t digits, int use_z, int *bad_arg, char *why, size_t why_size);
int monostamp_clock_fault(const monostamp_clock *clock, const char *call, int code, int64_t value, char *buf, size_t size);
int monostamp_options_fault(const char *field, const char *value, int is_text, char *buf, size_t size);
int monostamp_parse_fault(const char *text, size_t len, int code, const monostamp_parse_error *error, char *buf, size_t size);
int monostamp_option_from_name(const char *field, const char *name, int *out);
int monostamp_sleep_deadline(int64_t now_ns, int64_t ns, int is_duration, int64_t tolerance_ns, int64_t *out_deadline_ns, int *bad_arg, char *why, size_t size);
int monostamp_sleep_start(monostamp_sleep_plan *plan, int64_t now_ns, int64_t ns, int is_duration, int64_t tolerance_ns, int finish, int *bad_arg, char *why, size_t size);
typedef struct monostamp_state_info {
    int64_t last_ns;
    int64_t max_lead_ns;
    int64_t joins;
} monostamp_state_info;
int monostamp_state_file_info(const char *path, monostamp_state_info *out);
int monostamp_state_file_create(const char *path, int trust_group);
typedef struct monostamp_counts {
    uint64_t stamps;
    uint64_t repeats;
    uint64_t backward_steps;
    int64_t largest_lead_ns;
} monostamp_counts;
int monostamp_state_file_counts(const char *path, monostamp_counts *out);
int monostamp_clock_publish(monostamp_clock *clock, const char *path);
int monostamp_default_share(const char *path);
const char *monostamp_policy_constant(int policy);
int monostamp_zone_open(const char *name, monostamp_zone **out);
void monostamp_zone_close(monostamp_zone *zone);
int monostamp_zone_offset(monostamp_zone *zone, int64_t utc_ns, int32_t *out_offset_s);
int monostamp_zone_fold(monostamp_zone *zone, int64_t utc_ns, int *out_fold);
int monostamp_offset_check(int64_t offset_s);
int monostamp_ns_from_double(double s, int round_up, int64_t *out_ns);
int monostamp_iso8601_timespec(const char *name, int64_t utc_ns, int *out_digits);
int monostamp_draw(monostamp_clock *clock, unsigned flags, int64_t max_lead_ns, monostamp_stamp *out);
const char *monostamp_state_file_hint(int code, const char *path);
int monostamp_run_dir_prefix(char *buf, size_t size);
int monostamp_run_dirs_sweep(const char *parent);
int monostamp_counts_text(const monostamp_counts *before, const monostamp_counts *after, char *buf, size_t size);
enum { MONOSTAMP_RULE_NOT_NEGATIVE = 1, MONOSTAMP_RULE_INT64 = 2, MONOSTAMP_RULE_SECONDS = 3, MONOSTAMP_RULE_OFFSET = 4, MONOSTAMP_RULE_OFFSET_MINUTES = 5, MONOSTAMP_RULE_DIGITS = 6, MONOSTAMP_RULE_NUL = 7 };
int monostamp_rule_text(int rule, const char *name, const char *value, char *buf, size_t size);
]]
