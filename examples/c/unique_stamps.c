/* unique_stamps.c: ten stamps in a tight loop, each unique, each with the
 * local UTC offset, and what the clock saw while making them.
 *
 *   cc unique_stamps.c $(pkg-config --cflags --libs monostamp) -o unique_stamps
 */
#include <stdio.h>

#include <monostamp.h>

int main(void)
{
    monostamp_clock clock;
    monostamp_options options;
    monostamp_stats stats;
    char text[MONOSTAMP_ISO8601_MAX + 1];

    monostamp_options_init(&options); /* realtime, nanosecond increment, local zone */
    int rc = monostamp_clock_init(&clock, &options);
    if (rc != MONOSTAMP_OK) {
        fprintf(stderr, "unique_stamps: %s\n", monostamp_strerror(rc));
        return 1;
    }
    for (int i = 0; i < 10; i++) {
        monostamp_stamp stamp;
        if ((rc = monostamp_now(&clock, &stamp)) != MONOSTAMP_OK ||
            (rc = monostamp_format_iso8601(text, sizeof text, stamp.utc_ns, stamp.offset_s,
                                           9, 0)) < 0) {
            fprintf(stderr, "unique_stamps: %s\n", monostamp_strerror(rc));
            return 1;
        }
        printf("%lld %+d %s\n", (long long)stamp.utc_ns, (int)stamp.offset_s, text);
    }
    monostamp_clock_stats(&clock, &stats);
    printf("policy %s: %llu readings, %llu forced increments\n",
           monostamp_policy_name(monostamp_clock_policy(&clock)),
           (unsigned long long)stats.readings, (unsigned long long)stats.forced_increments);
    monostamp_clock_destroy(&clock);
    return 0;
}
