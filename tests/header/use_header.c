/*
 * use_header.c: monostamp.h as a C99, C11 or C++ program sees it.  Built
 * by `make test-header` as C99 and C11 with -pedantic, and as C++11 and
 * C++17, each with -Wall -Wextra -Werror, then run: a private clock made
 * both ways (embedded storage, and new/free as an FFI host would) must
 * hand out increasing stamps and report errors with their causes.
 */
#include "monostamp.h"
#include "monostamp_host.h"  /* the kit for bindings: as includable */

#include <stdio.h>
#include <string.h>

static int failures = 0;

#define EXPECT(cond)                                                       \
    do {                                                                   \
        if (!(cond)) {                                                     \
            printf("use_header: %s:%d: %s\n", __FILE__, __LINE__, #cond);  \
            failures++;                                                    \
        }                                                                  \
    } while (0)

static void two_increasing_stamps(monostamp_clock *clock)
{
    monostamp_stamp a, b;
    EXPECT(monostamp_now(clock, &a) == MONOSTAMP_OK);
    EXPECT(monostamp_now(clock, &b) == MONOSTAMP_OK);
    EXPECT(b.utc_ns > a.utc_ns);
}

int main(void)
{
    monostamp_options options;
    monostamp_clock embedded;
    monostamp_clock *allocated = NULL;
    const char *bad_field = NULL;

    monostamp_options_init(&options);
    options.zone = "UTC";
    EXPECT(monostamp_clock_init(&embedded, &options) == MONOSTAMP_OK);
    two_increasing_stamps(&embedded);
    EXPECT(monostamp_clock_on_lead(&embedded) == MONOSTAMP_ON_LEAD_WAIT);
    monostamp_clock_destroy(&embedded);

    EXPECT(monostamp_clock_new(&options, &allocated) == MONOSTAMP_OK);
    EXPECT(allocated != NULL);
    if (allocated != NULL) {
        two_increasing_stamps(allocated);
        EXPECT(monostamp_clock_max_lead_ns(allocated) == MONOSTAMP_DEFAULT_MAX_LEAD_NS);
    }
    monostamp_clock_free(allocated);

    options.max_lead_ns = -1;
    EXPECT(monostamp_options_check(&options, &bad_field) == MONOSTAMP_EINVAL);
    EXPECT(bad_field != NULL && strcmp(bad_field, "max_lead_ns") == 0);
    EXPECT(monostamp_clock_new(&options, &allocated) == MONOSTAMP_EINVAL);
    EXPECT(allocated == NULL);

    EXPECT(monostamp_os_errno(MONOSTAMP_EOS(2)) == 2);
    EXPECT(monostamp_os_errno(MONOSTAMP_EINVAL) == 0);
    EXPECT(strlen(monostamp_strerror(MONOSTAMP_EOS(2))) > 0);
    EXPECT(sizeof(monostamp_clock) == MONOSTAMP_CLOCK_SIZE);
    EXPECT(sizeof(monostamp_sleep_plan) == MONOSTAMP_SLEEP_PLAN_SIZE);
    /* The codes, listed from the one table, as a host lists them. */
    {
        int i = 0;
        while (monostamp_error_code(i) != 0)
            EXPECT(monostamp_error_name(monostamp_error_code(i++)) != NULL);
        EXPECT(i == 14 && monostamp_error_code(i - 1) == MONOSTAMP_EEXIST);
    }

    printf("%d passed, %d failed\n", failures == 0 ? 1 : 0, failures == 0 ? 0 : 1);
    return failures == 0 ? 0 : 1;
}
