/*
 * clock_stamp.h: a clock's stamp given back in registers, for callers
 * inside the library that answer a call of their own with it (the
 * preload's clock_gettime, preload/).
 *
 * monostamp_time_ns() and monostamp_time_us() write the stamp through a
 * pointer: the caller then loads it back, and that load cannot start until
 * the stamp's compare-and-swap, a locked instruction, has finished.  A call
 * made alone (a reader that asks once every few µs) pays that wait in
 * full.  Given back in two registers, the stamp can be turned into the
 * caller's answer while the compare-and-swap completes.  The same stamp,
 * drawn by the same code (clock.c's next_stamp), under the clock's own
 * bound; no argument checks (the caller's clock is its own).
 */
#ifndef MONOSTAMP_CLOCK_STAMP_H
#define MONOSTAMP_CLOCK_STAMP_H

#include "config.h"

#include <stdint.h>

#include "clock_layout.h"

MONOSTAMP__HIDDEN_BEGIN

/* A stamp in ns since the epoch, and MONOSTAMP_OK or the error that
 * failed it (then `ns` is meaningless). */
typedef struct monostamp__stamped {
    int64_t ns;
    int rc;
} monostamp__stamped;

/* monostamp_time_ns(clock, ...) and monostamp_time_us(clock, ...). */
monostamp__stamped monostamp__clock_time_ns(monostamp__clock *clock);
monostamp__stamped monostamp__clock_time_us(monostamp__clock *clock);

MONOSTAMP__HIDDEN_END

#endif
