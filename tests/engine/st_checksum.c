/* A multi-threaded computation whose result does not depend on scheduling:
 * 4 threads hash their own slices of a shared array through many rounds,
 * meeting at a barrier each round and folding their results into a global
 * under a mutex; the heap churns (malloc/free) as they go, and a fifth
 * thread keeps creating and joining short-lived threads, so checkpoints
 * also land while threads come and go. Prints the final
 * checksum. The drivers (anyinstant.sh, generations.sh) compare it against
 * an uninterrupted run.   st_checksum [ROUNDS] */
#include <pthread.h>
#include <stdint.h>

#include "zdtm.h"

#define THREADS 4
#define SLICE 65536

static uint64_t *data;
static uint64_t total;
static int rounds;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t barrier;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 31;
    x *= 0x7fb5d329728ea185ull;
    x ^= x >> 27;
    x *= 0x81dadef4bc2dd44dull;
    return x ^ (x >> 33);
}

static void *worker(void *arg)
{
    long id = (long)arg;
    uint64_t *mine = data + id * SLICE;
    for (int r = 0; r < rounds; r++) {
        uint64_t acc = 0;
        uint64_t *tmp = malloc(sizeof(uint64_t) * (size_t)(1 + r % 97) * 64);
        for (int i = 0; i < SLICE; i++) {
            mine[i] = mix(mine[i] + (uint64_t)r);
            acc += mine[i];
        }
        tmp[0] = acc;
        pthread_mutex_lock(&lock);
        total += mix(tmp[0] ^ (uint64_t)id); /* commutative: the order threads come in does not matter */
        pthread_mutex_unlock(&lock);
        free(tmp);
        pthread_barrier_wait(&barrier);
        if (id == 0) total = mix(total);
        pthread_barrier_wait(&barrier);
    }
    return NULL;
}

static volatile int done;

static void *short_lived(void *arg) { return arg; }

static void *churn(void *arg)
{
    (void)arg;
    while (!done) {
        pthread_t t;
        if (pthread_create(&t, NULL, short_lived, NULL) == 0) pthread_join(t, NULL);
        usleep(200);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atoi(argv[1]) : 400;
    data = malloc(sizeof(uint64_t) * THREADS * SLICE);
    for (long i = 0; i < THREADS * SLICE; i++) data[i] = (uint64_t)i * 2654435761u;
    pthread_barrier_init(&barrier, NULL, THREADS);
    pthread_t t[THREADS], c;
    pthread_create(&c, NULL, churn, NULL);
    for (long i = 0; i < THREADS; i++) pthread_create(&t[i], NULL, worker, (void *)i);
    for (long i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    done = 1;
    pthread_join(c, NULL);
    uint64_t sum = total;
    for (long i = 0; i < THREADS * SLICE; i++) sum = sum * 31 + data[i];
    printf("checksum %016llx\n", (unsigned long long)sum);
    return 0;
}
