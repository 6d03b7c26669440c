/* A shared-memory window (issue 40; docs/one-sided.md, "Shared-memory
 * windows").
 *   ckpt_rma_shared [STEPS [UNITS]]
 * MPI_Win_allocate_shared over MPI_Comm_split_type(MPI_COMM_TYPE_SHARED),
 * each rank a part of another size (not whole pages: the parts must still
 * follow each other with no gap, MPI's default), MPI_Win_shared_query of
 * every rank and of MPI_PROC_NULL. Every step, in a lock_all epoch: a
 * store of this rank straight into the next rank's part (its pointer from
 * shared_query), MPI_Win_sync and a barrier, a load of what the previous
 * rank stored into its own part; a Put and an Accumulate to the next rank's
 * part and a Fetch_and_op on rank 0's counter through one-sided calls, seen
 * by the next rank's loads after the barrier; a mutex on rank 0's counter
 * (lock exclusive, get, put, unlock). Rank 0 prints every rank's checksums:
 * the same natively and under mpcr (tests/rma.cmake). */
#include "ckpt.h"

#define N 64 /* int64 stored and put per step */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long steps = arg_long(argc, argv, 1, 40), units = arg_long(argc, argv, 2, 1);
    int rank, size;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &rank);
    MPI_Comm_size(node, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    /* rank r: a counter, 3 N int64 (the stores, the puts, the accumulates), the mutex's count,
     * 5 r more */
    MPI_Aint mine = (MPI_Aint)((2 + 3 * N + 5 * rank) * sizeof(int64_t));
    int64_t *part;
    MPI_Win w;
    MPI_Win_allocate_shared(mine, sizeof(int64_t), MPI_INFO_NULL, node, &part, &w);
    int64_t **parts = malloc(size * sizeof *parts);
    for (int r = 0; r < size; r++) {
        MPI_Aint sz;
        int unit;
        MPI_Win_shared_query(w, r, &sz, &unit, &parts[r]);
        check(sz == (MPI_Aint)((2 + 3 * N + 5 * r) * sizeof(int64_t)) && unit == sizeof(int64_t),
              "rank %d's part: %ld bytes, unit %d", r, (long)sz, unit);
        check(r == 0 || (char *)parts[r] == (char *)parts[r - 1] + sz - 5 * sizeof(int64_t),
              "rank %d's part does not follow rank %d's", r, r - 1);
    }
    check(parts[rank] == part, "shared_query of this rank is not its base");
    int64_t *first;
    MPI_Aint sz;
    int unit, *flavor, *model, flag;
    MPI_Win_shared_query(w, MPI_PROC_NULL, &sz, &unit, &first);
    check(first == parts[0], "MPI_PROC_NULL's part is not rank 0's");
    MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    check(flag && *flavor == MPI_WIN_FLAVOR_SHARED, "the flavor is %d", *flavor);
    MPI_Win_get_attr(w, MPI_WIN_MODEL, &model, &flag);
    check(flag && *model == MPI_WIN_UNIFIED, "the model is %d", *model);
    memset(part, 0, (size_t)mine);
    MPI_Barrier(node);

    uint64_t seen = 0, tickets = 0;
    for (long s = 0; s < steps; s++) {
        int64_t out[N], one = 1, old;
        for (int i = 0; i < N; i++)
            out[i] = (int64_t)(mix2((uint64_t)s, (uint64_t)(rank * 1000 + i)) & 0xfffff);
        MPI_Win_lock_all(0, w);
        int64_t *to = parts[next] + 1;
        for (int i = 0; i < N; i++) /* stores straight into the next rank's part */
            to[i] = out[i] + s;
        MPI_Put(out, N, MPI_INT64_T, next, 1 + N, N, MPI_INT64_T, w);
        MPI_Accumulate(out, N, MPI_INT64_T, next, 1 + 2 * N, N, MPI_INT64_T, MPI_SUM, w);
        MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, 0, MPI_SUM, w);
        MPI_Win_sync(w);
        MPI_Barrier(node); /* every rank's stores and operations are complete */
        MPI_Win_sync(w);
        for (int i = 0; i < 3 * N; i++) /* what the previous rank stored and put here */
            seen = mix2(seen, (uint64_t)part[1 + i]);
        check(part[1] == (int64_t)(mix2((uint64_t)s, (uint64_t)(prev * 1000)) & 0xfffff) + s,
              "step %ld: the previous rank's store is not here", s);
        MPI_Win_unlock_all(w);
        tickets += (uint64_t)old < (uint64_t)(steps * size); /* old is there once the epoch ends */
        /* a mutex: exact only if the exclusive lock excludes */
        int64_t c;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w);
        MPI_Get(&c, 1, MPI_INT64_T, 0, 1 + 3 * N, 1, MPI_INT64_T, w);
        MPI_Win_flush(0, w);
        c++;
        MPI_Put(&c, 1, MPI_INT64_T, 0, 1 + 3 * N, 1, MPI_INT64_T, w);
        MPI_Win_unlock(0, w);
        seen = mix2(seen, compute((uint64_t)s, units));
        if (s == steps / 2) midway_for_harness(rank); /* the harness's checkpoint, if any */
        MPI_Barrier(node); /* no rank stores the next step while another still reads */
    }
    check(tickets == (uint64_t)steps, "a ticket out of range");
    hold_for_harness(rank);
    static const char *const names[] = {"part", "seen", "counter", "mutex"};
    uint64_t v[4] = {0, seen, (uint64_t)first[0], (uint64_t)parts[0][1 + 3 * N]};
    for (int i = 0; i < (int)(mine / sizeof(int64_t)); i++)
        v[0] = mix2(v[0], (uint64_t)part[i]);
    report("rma_shared", names, v, 4);
    MPI_Win_free(&w);
    free(parts);
    MPI_Comm_free(&node);
    MPI_Finalize();
    return 0;
}
