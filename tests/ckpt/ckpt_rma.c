/* One-sided communication at any checkpoint (issue 40; docs/one-sided.md).
 *   ckpt_rma [STEPS [UNITS]]
 * Two windows: A made by MPI_Win_allocate (N int64 per rank), B by
 * MPI_Win_create over the program's heap (M int64). Every step:
 *   - a fence epoch on A: a Put to the next rank (the lower half of A), an
 *     Accumulate (MPI_SUM) from every rank to the next with a predefined
 *     target type and one with a derived one (a vector; the upper half),
 *     a computation inside the epoch (where a checkpoint lands), a fence;
 *     then a fence epoch of a Get of what was put;
 *   - a fence epoch on B: a Put through a derived target type, MPI_MAX and
 *     MPI_REPLACE accumulates; the program's own stores to its B between
 *     epochs (a separate window's private copy);
 *   - a lock epoch: each rank takes rank 0's lock on A exclusively, reads
 *     the counter, adds one, puts it back (a mutex: the count is exact only
 *     if the lock excludes); then lock_all, an Accumulate to every rank,
 *     Fetch_and_op (tickets), Compare_and_swap, Get_accumulate, Rget,
 *     flush_all, unlock_all; rank 0 checks the counter under a shared lock;
 *   - a post/start/complete/wait (or test) epoch on B.
 * Rank 0 prints every rank's checksums of A, B, its gets and the counter:
 * the same natively, under either proxy, and across checkpoints and
 * restarts at any instant (tests/rma.cmake). */
#include "ckpt.h"

#define N 1024 /* int64 elements of A per rank: puts below N/2, accumulates above, counter last */
#define M 512  /* of B */
#define COUNTER (N - 1)

/* The window's properties, as MPI defines them. */
static void check_window(MPI_Win w, void *base, MPI_Aint size, int unit, int flavor)
{
    void *b;
    MPI_Aint *sz;
    int *du, *fl, flag;
    MPI_Win_get_attr(w, MPI_WIN_BASE, &b, &flag);
    check(flag && b == base, "MPI_WIN_BASE %p, not %p", b, base);
    MPI_Win_get_attr(w, MPI_WIN_SIZE, &sz, &flag);
    check(flag && *sz == size, "MPI_WIN_SIZE %ld, not %ld", (long)*sz, (long)size);
    MPI_Win_get_attr(w, MPI_WIN_DISP_UNIT, &du, &flag);
    check(flag && *du == unit, "MPI_WIN_DISP_UNIT %d, not %d", *du, unit);
    MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &fl, &flag);
    check(flag && *fl == flavor, "MPI_WIN_CREATE_FLAVOR %d, not %d", *fl, flavor);
    MPI_Group g, wg;
    int cmp;
    MPI_Win_get_group(w, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    check(cmp == MPI_IDENT, "the window's group is not the world's");
    MPI_Group_free(&g), MPI_Group_free(&wg);
    MPI_Errhandler eh;
    MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN);
    MPI_Win_get_errhandler(w, &eh);
    check(eh == MPI_ERRORS_RETURN, "the window's error handler was not kept");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long steps = arg_long(argc, argv, 1, 40), units = arg_long(argc, argv, 2, 1);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;

    int64_t *a;
    MPI_Win wa, wb;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "false");
    MPI_Win_allocate(N * sizeof(int64_t), sizeof(int64_t), info, MPI_COMM_WORLD, &a, &wa);
    MPI_Info_free(&info);
    int64_t *b = calloc(M, sizeof *b);
    MPI_Win_create(b, M * sizeof *b, sizeof *b, MPI_INFO_NULL, MPI_COMM_WORLD, &wb);
    check_window(wa, a, N * sizeof(int64_t), sizeof(int64_t), MPI_WIN_FLAVOR_ALLOCATE);
    check_window(wb, b, M * sizeof *b, sizeof *b, MPI_WIN_FLAVOR_CREATE);
    MPI_Win_set_name(wa, "allocated");
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Win_get_name(wa, name, &len);
    check(!strcmp(name, "allocated"), "the window's name is '%s'", name);

    MPI_Win_fence(MPI_MODE_NOPRECEDE, wa);
    for (int i = 0; i < N; i++)
        a[i] = 0;
    MPI_Win_fence(MPI_MODE_NOSUCCEED, wa);
    /* every other int64 of 8 pairs: a derived target type */
    MPI_Datatype vec;
    MPI_Type_vector(8, 2, 4, MPI_INT64_T, &vec);
    MPI_Type_commit(&vec);

    uint64_t gets = 0;
    for (long s = 0; s < steps; s++) {
        if (s == steps / 2) midway_for_harness(rank); /* between epochs; the others wait in a fence */
        int64_t out[16], in[8];
        for (int i = 0; i < 16; i++)
            out[i] = step_value(s, rank, i);
        /* fence epoch: put, accumulates, a computation inside it */
        MPI_Aint at = (MPI_Aint)((s * 8) % (N / 2 - 8));
        MPI_Win_fence(MPI_MODE_NOPRECEDE, wa); /* (lock epochs come between: MPI 4.0 12.5.1) */
        MPI_Put(out, 8, MPI_INT64_T, next, at, 8, MPI_INT64_T, wa);
        MPI_Accumulate(out, 4, MPI_INT64_T, next, N / 2 + s % 64, 4, MPI_INT64_T, MPI_SUM, wa);
        MPI_Accumulate(out, 16, MPI_INT64_T, next, N / 2 + 100 + (s % 32) * 2, 1, vec, MPI_SUM,
                       wa);
        gets = mix2(gets, compute((uint64_t)s, units));
        MPI_Win_fence(0, wa);
        MPI_Get(in, 8, MPI_INT64_T, next, at, 8, MPI_INT64_T, wa);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, wa);
        /* our own put, read back from the next rank; the previous rank's, here */
        check(!memcmp(in, out, sizeof in), "step %ld: get from rank %d is not what was put", s,
              next);
        gets = fold64(gets, a + at, 8);

        /* the created window: derived target, MAX and REPLACE accumulates, local stores */
        b[M - 1 - rank] = s; /* between epochs: the program's own store */
        MPI_Win_fence(MPI_MODE_NOPRECEDE, wb);
        MPI_Put(out, 16, MPI_INT64_T, next, (s % 16) * 16, 1, vec, wb);
        MPI_Accumulate(out, 4, MPI_INT64_T, next, 300 + s % 8, 4, MPI_INT64_T, MPI_MAX, wb);
        MPI_Accumulate(out + 4, 2, MPI_INT64_T, prev, 400 + (s % 4) * 2, 2, MPI_INT64_T,
                       MPI_REPLACE, wb);
        MPI_Win_fence(MPI_MODE_NOSUCCEED, wb);
        check(b[M - 1 - rank] == s, "step %ld: the program's own store to its window was lost", s);

        /* a mutex on rank 0's counter */
        int64_t c, one = 1;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, wa);
        MPI_Get(&c, 1, MPI_INT64_T, 0, COUNTER, 1, MPI_INT64_T, wa);
        MPI_Win_flush(0, wa);
        c++;
        MPI_Put(&c, 1, MPI_INT64_T, 0, COUNTER, 1, MPI_INT64_T, wa);
        MPI_Win_unlock(0, wa);
        MPI_Win_lock_all(0, wa);
        for (int t = 0; t < size; t++)
            MPI_Accumulate(&one, 1, MPI_INT64_T, t, COUNTER - 1, 1, MPI_INT64_T, MPI_SUM, wa);
        /* atomics: a ticket from rank 0 (their sum is exact), a swap at the next rank (only
           this rank swaps there), a fetching accumulate, request-based get */
        int64_t ticket, swapped, before, expect = s, next_value = s + 1, got[8];
        MPI_Fetch_and_op(&one, &ticket, MPI_INT64_T, 0, COUNTER - 2, MPI_SUM, wa);
        MPI_Compare_and_swap(&next_value, &expect, &swapped, MPI_INT64_T, next, COUNTER - 3, wa);
        MPI_Get_accumulate(out, 1, MPI_INT64_T, &before, 1, MPI_INT64_T, next, COUNTER - 4, 1,
                           MPI_INT64_T, MPI_SUM, wa);
        MPI_Request rq;
        MPI_Rget(got, 8, MPI_INT64_T, next, at, 8, MPI_INT64_T, wa, &rq);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        MPI_Win_flush_all(wa);
        MPI_Win_unlock_all(wa);
        check(swapped == s, "step %ld: compare-and-swap found %lld, not %ld", s, (long long)swapped,
              s);
        check(!memcmp(got, out, sizeof got), "step %ld: MPI_Rget is not what was put", s);
        gets = mix2(gets, (uint64_t)before);
        int64_t tickets = 0;
        MPI_Allreduce(&ticket, &tickets, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
        check(tickets == (int64_t)size * size * s + (int64_t)size * (size - 1) / 2,
              "step %ld: the tickets add up to %lld", s, (long long)tickets);
        /* generalised active target on B: exposed to the previous rank, access to the next */
        MPI_Group world, from, to;
        MPI_Comm_group(MPI_COMM_WORLD, &world);
        MPI_Group_incl(world, 1, &prev, &from);
        MPI_Group_incl(world, 1, &next, &to);
        MPI_Win_post(from, 0, wb);
        MPI_Win_start(to, 0, wb);
        MPI_Put(out + 8, 4, MPI_INT64_T, next, 450 + (s % 8) * 4, 4, MPI_INT64_T, wb);
        MPI_Win_complete(wb);
        if (s % 2) {
            int done = 0;
            while (!done)
                MPI_Win_test(wb, &done);
        } else {
            MPI_Win_wait(wb);
        }
        check(!memcmp(b + 450 + (s % 8) * 4, (int64_t[4]){step_value(s, prev, 8), step_value(s, prev, 9),
                                                            step_value(s, prev, 10), step_value(s, prev, 11)},
                      4 * sizeof *b),
              "step %ld: the previous rank's put in a post/wait epoch is not here", s);
        MPI_Group_free(&world), MPI_Group_free(&from), MPI_Group_free(&to);
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, wa);
            int64_t seen = a[COUNTER];
            MPI_Win_unlock(0, wa);
            check(seen == (int64_t)size * (s + 1), "step %ld: the counter is %lld, not %lld", s,
                  (long long)seen, (long long)size * (s + 1));
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (s % 10 == 9) progress("step %ld\n", s + 1);
    }
    uint64_t v[4] = {fold64(0, a, N), fold64(0, b, M), gets, (uint64_t)a[COUNTER - 1]};
    const char *names[4] = {"a", "b", "gets", "acc"};
    report("rma", names, v, 4);
    MPI_Type_free(&vec);
    MPI_Win_free(&wa);
    MPI_Win_free(&wb);
    free(b);
    MPI_Finalize();
    return 0;
}
