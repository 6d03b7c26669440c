/* Created windows in the unified model at any checkpoint (issue 40 point 2;
 * docs/one-sided.md, "Where a window's memory lives").
 *   ckpt_rma_unified [STEPS [UNITS]]
 * MPI_Win_create over the program's own memory of four kinds: a heap block
 * (freed and replaced by another, with its window, every 10 steps), a
 * static array (initialised data: the executable's pages), an array on
 * main's stack, and a shared anonymous mapping (not the program's private
 * memory: mpcr keeps a public copy beside it, the separate model, merged at
 * each synchronisation). The first three must report
 * MPI_WIN_UNIFIED, and behave so: every step each rank puts a value into
 * the next rank's three windows in passive-target epochs, then tells it by
 * a message, and the next rank reads its own memory directly, with no
 * one-sided call in between (MPI 4.0 12.7: in the unified model the update
 * is the memory); each rank stores into its own static window, and after a
 * barrier the previous rank gets it in a lock epoch. A fence epoch on the
 * fourth window. Rank 0 prints every rank's checksums: the same natively,
 * under either proxy, and across checkpoints at any instant (the shared
 * pages handed to the new proxies at the same addresses; tests/rma.cmake). */
#include "ckpt.h"

#include <errno.h>
#include <sys/mman.h>

#define K 64 /* int64 per window */

static int64_t data_arr[K] = {1}; /* initialised: in the executable's data pages */

static void check_unified(MPI_Win w, const char *what)
{
    int *model, flag;
    MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &flag);
    check(flag && *model == MPI_WIN_UNIFIED, "the window on %s is not MPI_WIN_UNIFIED", what);
}

static MPI_Win create(int64_t *mem, const char *what)
{
    MPI_Win w;
    MPI_Win_create(mem, K * sizeof *mem, sizeof *mem, MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    check_unified(w, what);
    return w;
}

/* A value into slot i of rank t's window w in a passive-target epoch. */
static void put_one(MPI_Win w, int t, int i, int64_t v)
{
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, t, 0, w);
    MPI_Put(&v, 1, MPI_INT64_T, t, i, 1, MPI_INT64_T, w);
    MPI_Win_unlock(t, w);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long steps = arg_long(argc, argv, 1, 40), units = arg_long(argc, argv, 2, 1);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    int64_t on_stack[K] = {0}, *heap = calloc(K, sizeof *heap);
    int64_t *mapped = mmap(NULL, K * sizeof *mapped, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    check(mapped != MAP_FAILED, "mmap: %s", strerror(errno));
    MPI_Win wheap = create(heap, "the heap"), wdata = create(data_arr, "static data"),
            wstack = create(on_stack, "the stack"), wmapped;
    MPI_Win_create(mapped, K * sizeof *mapped, sizeof *mapped, MPI_INFO_NULL, MPI_COMM_WORLD,
                   &wmapped);
    MPI_Barrier(MPI_COMM_WORLD);

    uint64_t gets = 0;
    for (long s = 0; s < steps; s++) {
        if (s == steps / 2) midway_for_harness(rank);
        int i = (int)(s % (K - 1));
        if (s % 10 == 9) { /* a new heap block and window, the old one's contents carried */
            int64_t *fresh = malloc(K * sizeof *fresh);
            MPI_Win_free(&wheap);
            memcpy(fresh, heap, K * sizeof *fresh);
            free(heap);
            heap = fresh;
            wheap = create(heap, "a new heap block");
        }
        put_one(wheap, next, i, step_value(s, rank, 0));
        put_one(wdata, next, i, step_value(s, rank, 1));
        put_one(wstack, next, i, step_value(s, rank, 2));
        MPI_Sendrecv(NULL, 0, MPI_BYTE, next, 0, NULL, 0, MPI_BYTE, prev, 0, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        check(heap[i] == step_value(s, prev, 0), "step %ld: the put to the heap window is not there", s);
        check(data_arr[i] == step_value(s, prev, 1), "step %ld: the put to the static window is not there",
              s);
        check(on_stack[i] == step_value(s, prev, 2), "step %ld: the put to the stack window is not there",
              s);

        /* the program's own store, read by the previous rank */
        data_arr[K - 1] = step_value(s, rank, 3);
        gets = mix2(gets, compute((uint64_t)s, units));
        MPI_Barrier(MPI_COMM_WORLD);
        int64_t got;
        MPI_Win_lock(MPI_LOCK_SHARED, next, 0, wdata);
        MPI_Get(&got, 1, MPI_INT64_T, next, K - 1, 1, MPI_INT64_T, wdata);
        MPI_Win_unlock(next, wdata);
        check(got == step_value(s, next, 3), "step %ld: the next rank's own store is not in its window",
              s);
        gets = mix2(gets, (uint64_t)got);
        MPI_Barrier(MPI_COMM_WORLD); /* before the next step's store */

        /* the window over shared memory, in fence epochs, and the program's own stores */
        int64_t v = step_value(s, rank, 4);
        mapped[K - 1] = s;
        MPI_Win_fence(MPI_MODE_NOPRECEDE, wmapped);
        MPI_Accumulate(&v, 1, MPI_INT64_T, next, i, 1, MPI_INT64_T, MPI_SUM, wmapped);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, wmapped);
        check(mapped[K - 1] == s, "step %ld: the program's own store to its window was lost", s);
        gets = mix2(gets, (uint64_t)mapped[i]);
        if (s % 10 == 9) progress("step %ld\n", s + 1);
    }
    MPI_Win_free(&wmapped);
    MPI_Win_free(&wheap), MPI_Win_free(&wdata), MPI_Win_free(&wstack);
    uint64_t v[5] = {fold64(0, heap, K), fold64(0, data_arr, K), fold64(0, on_stack, K),
                     fold64(0, mapped, K), gets};
    const char *names[5] = {"heap", "data", "stack", "mapped", "gets"};
    report("rma_unified", names, v, 5);
    free(heap);
    MPI_Finalize();
    return 0;
}
