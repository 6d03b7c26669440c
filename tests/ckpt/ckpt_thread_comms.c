/* Communicator creations under MPI_THREAD_MULTIPLE (issue 16, point 2),
 * for checkpoints at random instants. Every iteration, on every rank:
 *   - the creator thread makes a communicator from MPI_COMM_WORLD (in
 *     turn MPI_Comm_dup, MPI_Comm_split by parity, MPI_Comm_create_group
 *     of all but the last rank, MPI_Comm_split_type), while on rank 0 a
 *     messenger thread sends the token that every other rank's creator
 *     must receive before it enters the creation: a creation that held
 *     up the other threads of its process while it waited for the other
 *     members would never end. The messenger waits to send until the
 *     creator is about to enter, and a little more, so that the creator
 *     is usually inside when it sends;
 *   - THREADS workers each make a communicator from their own one at the
 *     same time (different parents, different kinds of creation, in
 *     whatever order the threads run on each rank), reduce over it and
 *     free it; every fourth iteration, each also makes one with
 *     MPI_Comm_create_group from one parent they share, with a tag of its
 *     own: the workers of a rank meet first, then enter in opposite orders
 *     on even and odd ranks, 30 ms apart (a proxy once took one such
 *     creation's "entered" message for another's, began its real call
 *     without that member, and a checkpoint in those 30 ms then waited for
 *     ever).
 * Ranks, sizes and reductions go into running hashes that rank 0 prints at
 * the end (report()).
 *   t_ckpt_thread_comms ITERATIONS [THREADS]     (2 ranks or more, THREADS <= 4) */
#include "ckpt.h"

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#define MAX_WORKERS 4
#define TOKEN_TAG 7

static int rank, size;
static long iters;
static _Atomic long creator_at; /* iteration the creator is about to enter (rank 0) */

static MPI_Comm create(long it, MPI_Comm parent)
{
    MPI_Comm c = MPI_COMM_NULL;
    switch (it % 4) {
    case 0:
        MPI_Comm_dup(parent, &c);
        break;
    case 1:
        MPI_Comm_split(parent, rank % 2, size - rank, &c);
        break;
    case 2: {
        MPI_Group world, most;
        MPI_Comm_group(parent, &world);
        int last[1] = {size - 1};
        MPI_Group_excl(world, 1, last, &most);
        if (rank != size - 1) MPI_Comm_create_group(parent, most, (int)(it % 100), &c);
        MPI_Group_free(&most);
        MPI_Group_free(&world);
        break;
    }
    default:
        MPI_Comm_split_type(parent, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &c);
        break;
    }
    return c;
}

/* What a new communicator is: its rank, size and a sum over it. */
static uint64_t probe(uint64_t h, MPI_Comm c)
{
    if (c == MPI_COMM_NULL) return mix2(h, 0xdead);
    int r, n;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &n);
    uint64_t mine = mix2(h, (uint64_t)rank), sum;
    MPI_Allreduce(&mine, &sum, 1, MPI_UINT64_T, MPI_BXOR, c);
    MPI_Comm_free(&c);
    return mix2(mix2(h, (uint64_t)(r * 64 + n)), sum);
}

static void *messenger(void *arg)
{
    uint64_t *h = arg;
    for (long it = 1; it <= iters; it++) {
        while (atomic_load(&creator_at) < it)
            sched_yield();
        nanosleep(&(struct timespec){0, 200000}, NULL); /* let the creator get inside */
        uint64_t token = mix2(*h, (uint64_t)it);
        for (int r = 1; r < size; r++)
            MPI_Send(&token, 1, MPI_UINT64_T, r, TOKEN_TAG, MPI_COMM_WORLD);
        *h = mix2(*h, token);
    }
    return NULL;
}

struct worker {
    int t, workers;
    MPI_Comm comm, shared;
    uint64_t hash;
};

static pthread_barrier_t workers_meet;

/* The creation from the parent every worker shares: all its ranks, the
 * worker's own tag; once this rank's workers have met, worker t enters t
 * (even ranks) or workers-1-t (odd) times 30 ms late. */
static MPI_Comm create_shared(const struct worker *w)
{
    int late = rank % 2 ? w->workers - 1 - w->t : w->t;
    pthread_barrier_wait(&workers_meet);
    nanosleep(&(struct timespec){0, 30000000L * late}, NULL);
    MPI_Group g;
    MPI_Comm c;
    MPI_Comm_group(w->shared, &g);
    MPI_Comm_create_group(w->shared, g, 50 + w->t, &c);
    MPI_Group_free(&g);
    return c;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    uint64_t h = mix2((uint64_t)rank, (uint64_t)w->t);
    for (long it = 1; it <= iters; it++) {
        h = probe(mix2(h, (uint64_t)it), create(it + w->t, w->comm));
        if (it % 4 == 0) h = probe(h, create_shared(w));
    }
    w->hash = h;
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    check(provided == MPI_THREAD_MULTIPLE, "MPI_Init_thread gave level %d, not MULTIPLE", provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    iters = arg_long(argc, argv, 1, 100);
    int workers = (int)arg_long(argc, argv, 2, 2);
    check(workers <= MAX_WORKERS, "at most %d worker threads", MAX_WORKERS);

    struct worker w[MAX_WORKERS];
    pthread_t id[MAX_WORKERS], msg;
    MPI_Comm shared;
    MPI_Comm_dup(MPI_COMM_WORLD, &shared);
    if (workers) pthread_barrier_init(&workers_meet, NULL, (unsigned)workers);
    for (int t = 0; t < workers; t++) {
        w[t] = (struct worker){.t = t, .workers = workers, .shared = shared};
        MPI_Comm_dup(MPI_COMM_WORLD, &w[t].comm);
    }
    for (int t = 0; t < workers; t++)
        check(!pthread_create(&id[t], NULL, work, &w[t]), "pthread_create failed");
    uint64_t sent = 1, h = mix2((uint64_t)rank, 99);
    if (rank == 0) check(!pthread_create(&msg, NULL, messenger, &sent), "pthread_create failed");

    for (long it = 1; it <= iters; it++) {
        if (rank == 0) {
            atomic_store(&creator_at, it);
        } else {
            uint64_t token;
            MPI_Recv(&token, 1, MPI_UINT64_T, 0, TOKEN_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            h = mix2(h, token);
        }
        h = probe(mix2(h, (uint64_t)it), create(it, MPI_COMM_WORLD));
        if (it % 10 == 0) progress("iteration %ld: %016" PRIx64 "\n", it, h);
    }

    if (rank == 0) pthread_join(msg, NULL);
    for (int t = 0; t < workers; t++)
        pthread_join(id[t], NULL);
    const char *names[2 + MAX_WORKERS] = {"creator", "messenger", "w0", "w1", "w2", "w3"};
    uint64_t v[2 + MAX_WORKERS] = {h, sent};
    for (int t = 0; t < workers; t++) {
        v[2 + t] = w[t].hash;
        MPI_Comm_free(&w[t].comm);
    }
    MPI_Comm_free(&shared);
    report("thread_comms", names, v, 2 + workers);
    MPI_Finalize();
    return 0;
}
