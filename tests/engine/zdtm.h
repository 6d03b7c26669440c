/* The shape shared by the engine's state tests, after CRIU's zdtm: a test
 * sets up one kind of state, says it is ready, waits (as the checkpoint,
 * kill and restart happen around it) until the driver says go, then checks
 * the state and prints PASS, or FAIL with the reason. Driver: zdtm.sh. */
#ifndef MPCR_ZDTM_H
#define MPCR_ZDTM_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static inline void zdtm_touch(const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", getenv("ZDTM_DIR") ? getenv("ZDTM_DIR") : ".", name);
    FILE *f = fopen(path, "w");
    if (f) fclose(f);
}

/* The state is set up: the driver may checkpoint now. */
static inline void zdtm_ready(void) { zdtm_touch("ready"); }

/* Non-zero once the driver has touched NAME (or the test runs without a driver). */
static inline int zdtm_has(const char *name)
{
    char path[4096];
    if (!getenv("ZDTM_DIR")) return 1;
    snprintf(path, sizeof path, "%s/%s", getenv("ZDTM_DIR"), name);
    return access(path, F_OK) == 0;
}

static inline void zdtm_wait_for(const char *name)
{
    while (!zdtm_has(name)) usleep(5000);
}

/* Non-zero once the driver has restarted the test. */
static inline int zdtm_go(void) { return zdtm_has("go"); }
static inline void zdtm_wait(void) { zdtm_wait_for("go"); }

#define CHECK(cond, ...)                                                 \
    do {                                                                 \
        if (!(cond)) {                                                   \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);       \
            printf(__VA_ARGS__);                                         \
            printf("\n");                                                \
            fflush(stdout);                                              \
            exit(1);                                                     \
        }                                                                \
    } while (0)

static inline void zdtm_pass(void)
{
    printf("PASS\n");
    fflush(stdout);
    exit(0);
}

#endif
