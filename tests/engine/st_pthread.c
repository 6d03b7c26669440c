/* pthread mutex, condition variable, barrier and join across a restart: a
 * mutex held by one thread at the checkpoint, a thread waiting on a
 * condition, threads parked in a barrier, and all of them joined after. */
#include <pthread.h>

#include "zdtm.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t cond_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static pthread_barrier_t barrier;
static volatile int holder_ready, waiter_ready, flag, counter;

static void *holder(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&lock);
    holder_ready = 1;
    zdtm_wait(); /* holds the mutex across the checkpoint */
    counter += 100;
    pthread_mutex_unlock(&lock);
    return (void *)1;
}

static void *waiter(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&cond_lock);
    waiter_ready = 1;
    while (!flag) pthread_cond_wait(&cond, &cond_lock);
    pthread_mutex_unlock(&cond_lock);
    return (void *)2;
}

static void *barrier_thread(void *arg)
{
    pthread_barrier_wait(&barrier);
    pthread_mutex_lock(&lock);
    counter++;
    pthread_mutex_unlock(&lock);
    return arg;
}

int main(void)
{
    pthread_t h, w, b[4];
    pthread_barrier_init(&barrier, NULL, 5);
    pthread_create(&h, NULL, holder, NULL);
    pthread_create(&w, NULL, waiter, NULL);
    for (long i = 0; i < 4; i++) pthread_create(&b[i], NULL, barrier_thread, (void *)(i + 10));
    while (!holder_ready || !waiter_ready) usleep(1000);
    usleep(20000); /* the waiter is inside pthread_cond_wait, the others in the barrier */
    zdtm_ready();
    zdtm_wait();
    pthread_mutex_lock(&cond_lock);
    flag = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&cond_lock);
    pthread_barrier_wait(&barrier);
    void *ret;
    CHECK(pthread_join(w, &ret) == 0 && ret == (void *)2, "waiter");
    CHECK(pthread_join(h, &ret) == 0 && ret == (void *)1, "holder");
    for (long i = 0; i < 4; i++) CHECK(pthread_join(b[i], &ret) == 0 && ret == (void *)(i + 10), "barrier thread %ld", i);
    CHECK(counter == 104, "counter %d", counter);
    CHECK(pthread_mutex_trylock(&lock) == 0, "the mutex is still held");
    zdtm_pass();
}
