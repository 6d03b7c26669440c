/* See clock.h. */
#include <time.h>

#include "clock.h"

uint64_t mpcr_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double mpcr_now_s(void)
{
    return (double)mpcr_now_ns() / 1e9;
}
