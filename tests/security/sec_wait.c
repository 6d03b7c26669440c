/* A process to checkpoint: waits SECONDS in steps of 10 ms, then prints
 * "TAG done after N steps" (TAG tells which job's image was restored).
 *   sec_wait TAG SECONDS */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    long steps = (long)(atof(argv[2]) * 100);
    struct timespec ten_ms = {0, 10000000};
    long done = 0;
    while (done < steps) {
        nanosleep(&ten_ms, NULL);
        done++;
    }
    printf("%s done after %ld steps\n", argv[1], done);
    return 0;
}
