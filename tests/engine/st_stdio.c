/* Numbered lines through stdio (fully buffered into a file) while the
 * driver (stdio.sh) checkpoints and lets it go on several times, then
 * checkpoints with --exit and restarts it: the concatenated output must be
 * exactly the uninterrupted run's, no line lost or written twice. */
#include <time.h>

#include "zdtm.h"

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 6000;
    unsigned long h = 1469598103934665603ul;
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 2000; k++) h = (h ^ (unsigned long)k) * 1099511628211ul; /* a little work */
        printf("line %d %016lx\n", i, h);
        struct timespec ts = {0, 500000};
        nanosleep(&ts, NULL);
    }
    /* Under the driver, stay until it says so: a slow checkpoint (a forked
     * copy writes while this process goes on) must not find it gone. */
    if (getenv("ZDTM_DIR")) zdtm_wait();
    return 0;
}
