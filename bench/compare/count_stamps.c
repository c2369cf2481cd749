/*
 * count_stamps.c: a loop of stamps to count instructions in, for
 * bench/compare/count-instructions.sh (callgrind runs it at two lengths; the
 * difference over the extra stamps is one stamp's cost, start-up cancelled).
 *
 *   count_stamps old|new private|file|coarse|default N
 *
 * "coarse" is a private clock on the tick-grained source: nearly every
 * stamp is then a forced increment (the policy's rule, not the reading).
 *
 * "old" is the revision bench/compare/against.sh built with old_* names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monostamp.h"

int old_monostamp_clock_init(monostamp_clock *clock, const monostamp_options *options);
void old_monostamp_options_init(monostamp_options *options);
int old_monostamp_now(monostamp_clock *clock, monostamp_stamp *out);
int old_monostamp_default_now(monostamp_stamp *out);

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    int old = strcmp(argv[1], "old") == 0, on_default = strcmp(argv[2], "default") == 0;
    long n = atol(argv[3]);
    static monostamp_clock clock;
    monostamp_options o;
    monostamp_stamp s;
    char dir[] = "/tmp/count-stamps-XXXXXX", path[64];
    if (mkdtemp(dir) == NULL)
        return 2;
    snprintf(path, sizeof path, "%s/state", dir);
    if (old)
        old_monostamp_options_init(&o);
    else
        monostamp_options_init(&o);
    o.zone = "UTC";
    o.max_lead_ns = 1000000; /* a file it makes is caught up with at once */
    if (strcmp(argv[2], "file") == 0)
        o.shared_path = path;
    if (strcmp(argv[2], "coarse") == 0)
        o.source = MONOSTAMP_SOURCE_REALTIME_COARSE;
    if (!on_default && (old ? old_monostamp_clock_init(&clock, &o) : monostamp_clock_init(&clock, &o)) != 0)
        return 2;
    usleep(5000);
    /* One loop for both revisions, through a pointer chosen here: a loop
     * per revision would be laid out differently by the compiler, and its
     * own instructions (2 a stamp, once) would count as the library's. */
    int (*volatile now)(monostamp_clock *, monostamp_stamp *) = old ? old_monostamp_now
                                                                   : monostamp_now;
    int (*volatile default_now)(monostamp_stamp *) = old ? old_monostamp_default_now
                                                         : monostamp_default_now;
    int (*stamp_now)(monostamp_clock *, monostamp_stamp *) = now;
    int (*stamp_default)(monostamp_stamp *) = default_now;
    if (on_default)
        for (long i = 0; i < n; i++)
            (void)stamp_default(&s);
    else
        for (long i = 0; i < n; i++)
            (void)stamp_now(&clock, &s);
    unlink(path);
    rmdir(dir);
    return 0;
}
