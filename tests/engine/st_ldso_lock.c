/* ld.so's own recursive lock held across a restart: a thread is inside
 * dl_iterate_phdr's callback (ld.so holds its recursive load lock around
 * it, recording the thread's id as owner) when the checkpoint is taken.
 * After the restart that thread has another id; it returns from the
 * callback and ld.so unlocks. Then another thread must be able to take the
 * lock again (dl_iterate_phdr, pthread_create). Without the engine's fix-up
 * (src/engine/locks.c) the unlock is refused (old owner id) and the second
 * thread blocks for ever: the test sees it through a timed join. */
#include <link.h>
#include <pthread.h>
#include <time.h>

#include "zdtm.h"

static volatile int holder_ready, objects;

static int hold_inside(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)info, (void)size, (void)arg;
    holder_ready = 1;
    zdtm_wait(); /* ld.so's lock is held across the checkpoint */
    return 1;    /* stops the iteration */
}

static void *holder(void *arg)
{
    dl_iterate_phdr(hold_inside, NULL);
    return arg;
}

static int count(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)info, (void)size, (void)arg;
    objects++;
    return 0;
}

static void *nothing(void *arg) { return arg; }

/* Takes ld.so's locks again from a thread that did not hold them. */
static void *prober(void *arg)
{
    dl_iterate_phdr(count, NULL);
    pthread_t t;
    if (pthread_create(&t, NULL, nothing, arg)) return NULL;
    void *ret = NULL;
    pthread_join(t, &ret);
    return ret;
}

int main(void)
{
    pthread_t h, p;
    pthread_create(&h, NULL, holder, (void *)1);
    while (!holder_ready) usleep(1000);
    usleep(20000);
    zdtm_ready();
    zdtm_wait();
    void *ret;
    CHECK(pthread_join(h, &ret) == 0 && ret == (void *)1, "holder");
    CHECK(pthread_create(&p, NULL, prober, (void *)2) == 0, "prober");
    struct timespec limit;
    clock_gettime(CLOCK_REALTIME, &limit);
    limit.tv_sec += 20;
    int rc = pthread_timedjoin_np(p, &ret, &limit);
    CHECK(rc == 0, "a thread could not take ld.so's lock within 20 s after the restart (still owned by the "
                   "holder's thread id from before it)");
    CHECK(ret == (void *)2 && objects > 0, "prober returned %p after %d objects", ret, objects);
    zdtm_pass();
}
