/* Time through the vDSO after a restart: glibc keeps pointers into the
 * vDSO, so clock_gettime, gettimeofday and time must still work (the
 * restorer moved the new kernel's [vvar], [vvar_vclock] and [vdso] to where
 * the image had them) and agree with the kernel's own clock. */
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

#include "zdtm.h"

static double vdso_now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double kernel_now(clockid_t c)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
    double before = vdso_now(CLOCK_REALTIME);
    zdtm_ready();
    zdtm_wait();
    for (int i = 0; i < 1000; i++) {
        double v = vdso_now(CLOCK_REALTIME), k = kernel_now(CLOCK_REALTIME);
        CHECK(v - k < 0.1 && k - v < 0.1, "CLOCK_REALTIME %f vs kernel %f", v, k);
        v = vdso_now(CLOCK_MONOTONIC), k = kernel_now(CLOCK_MONOTONIC);
        CHECK(v - k < 0.1 && k - v < 0.1, "CLOCK_MONOTONIC %f vs kernel %f", v, k);
    }
    CHECK(vdso_now(CLOCK_REALTIME) >= before, "time went backwards");
    struct timeval tv;
    gettimeofday(&tv, NULL);
    CHECK(tv.tv_sec - (time_t)kernel_now(CLOCK_REALTIME) <= 1, "gettimeofday");
    CHECK(time(NULL) - (time_t)kernel_now(CLOCK_REALTIME) <= 1, "time");
    zdtm_pass();
}
