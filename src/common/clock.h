/* The one clock of mpcr: CLOCK_MONOTONIC, for timeouts, pacing and durations.
 * Async-signal-safe (clock_gettime through the vDSO). */
#ifndef MPCR_COMMON_CLOCK_H
#define MPCR_COMMON_CLOCK_H

#include <stdint.h>

/* Nanoseconds on the monotonic clock. */
uint64_t mpcr_now_ns(void);

/* The same in seconds, for durations said to a person. */
double mpcr_now_s(void);

#endif
