/* The one clock of mpcr: CLOCK_MONOTONIC, for timeouts, pacing and durations.
 * Async-signal-safe (clock_gettime through the vDSO). */
#ifndef MPCR_COMMON_CLOCK_H
#define MPCR_COMMON_CLOCK_H

#include <stdint.h>

/* Nanoseconds on the monotonic clock. */
uint64_t mpcr_now_ns(void);

/* The same in seconds, for durations said to a person. */
double mpcr_now_s(void);

/* Ticks of the processor's time-stamp counter, for timing every MPI call
 * (the profile, src/lib/runtime/profile.h): a read costs a few ns where a
 * clock_gettime through the vDSO cost 100-200 ns on the VMs mpcr is tested
 * on (bench/profile.sh). Counted in ticks, converted to ns by the ratio of
 * the two clocks over a whole run; where there is no such counter, ns. */
#if defined(__x86_64__)
#include <x86intrin.h>
static inline uint64_t mpcr_ticks(void)
{
    return __rdtsc();
}
#else
#define mpcr_ticks mpcr_now_ns
#endif

#endif
