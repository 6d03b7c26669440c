/* A dynamic window at any checkpoint (issue 40; docs/one-sided.md,
 * "Dynamic windows").
 *   ckpt_rma_dynamic [STEPS [UNITS [EVERY]]]
 * One window made by MPI_Win_create_dynamic; each rank attaches three
 * regions of its own memory: a static array, a heap block (on pages the
 * heap shares with other blocks) and a block it replaces every EVERY steps
 * (8; 1 with no computation: most checkpoints land in an attach or detach)
 * (detached, freed, another allocated and attached: new addresses, told to
 * the others by an allgather of MPI_Get_address). Every step, in a
 * lock_all epoch: a Put to the next rank's moving block and an Accumulate
 * to its static array, both at the addresses it told; a Fetch_and_op on
 * rank 0's counter (in its heap block) and a Get_accumulate with
 * MPI_NO_OP reading it (origin count 0, MPI_DATATYPE_NULL); Get of the previous rank's static
 * array; unlock_all, a barrier, a computation (where a checkpoint lands
 * mostly). Rank 0 prints every rank's checksums: the same natively, under
 * mpcr, and across checkpoints and restarts at any instant (the attached
 * pages handed to the new proxies at the same addresses; tests/rma.cmake). */
#include "ckpt.h"

#define S 256 /* int64 in the static array */
#define H 64  /* in the heap block; the counter is its first */
#define B 128 /* in the moving block */

static int64_t table[S];

/* Every rank's address of its region at p. */
static void addresses(void *p, MPI_Aint *all)
{
    MPI_Aint mine;
    MPI_Get_address(p, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, all, 1, MPI_AINT, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long steps = arg_long(argc, argv, 1, 40), units = arg_long(argc, argv, 2, 1),
         every = arg_long(argc, argv, 3, 8);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Aint *at_table = malloc(size * sizeof *at_table), *at_heap = malloc(size * sizeof *at_heap),
             *at_moving = malloc(size * sizeof *at_moving);

    MPI_Win w;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w);
    int *flavor, flag;
    void *base;
    MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &flavor, &flag);
    check(flag && *flavor == MPI_WIN_FLAVOR_DYNAMIC, "the flavor is %d", *flavor);
    MPI_Win_get_attr(w, MPI_WIN_BASE, &base, &flag);
    check(flag && base == MPI_BOTTOM, "a dynamic window's base is %p", base);

    int64_t *heap = calloc(H, sizeof *heap), *moving = calloc(B, sizeof *moving);
    MPI_Win_attach(w, table, sizeof table);
    MPI_Win_attach(w, heap, H * sizeof *heap);
    MPI_Win_attach(w, moving, B * sizeof *moving);
    addresses(table, at_table), addresses(heap, at_heap), addresses(moving, at_moving);
    MPI_Barrier(MPI_COMM_WORLD);

    uint64_t gets = 0, tickets = 0;
    for (long s = 0; s < steps; s++) {
        if (s == steps / 2) midway_for_harness(rank); /* (ckpt.h) a cut mid-job on a slow native run */
        if (s && s % every == 0) { /* a new block, at a new address */
            int64_t *fresh = malloc(B * sizeof *fresh);
            memcpy(fresh, moving, B * sizeof *fresh);
            MPI_Win_detach(w, moving);
            free(moving);
            moving = fresh;
            MPI_Win_attach(w, moving, B * sizeof *moving);
            addresses(moving, at_moving);
        }
        int64_t out[B], one = 1, old, in[S];
        for (int i = 0; i < B; i++)
            out[i] = (int64_t)(mix2((uint64_t)s, (uint64_t)(rank * 1000 + i)) & 0xfffff);
        MPI_Win_lock_all(0, w);
        MPI_Put(out, B, MPI_INT64_T, next, at_moving[next], B, MPI_INT64_T, w);
        MPI_Accumulate(out, S / 2, MPI_INT64_T, next, at_table[next] + (s % 2) * (S / 2) * 8,
                       S / 2, MPI_INT64_T, MPI_SUM, w);
        MPI_Fetch_and_op(&one, &old, MPI_INT64_T, 0, at_heap[0], MPI_SUM, w);
        /* an atomic read of the counter: MPI_NO_OP ignores the origin (count 0, no datatype) */
        int64_t seen = -1;
        MPI_Get_accumulate(NULL, 0, MPI_DATATYPE_NULL, &seen, 1, MPI_INT64_T, 0, at_heap[0], 1,
                           MPI_INT64_T, MPI_NO_OP, w);
        MPI_Win_flush_all(w);
        check(seen > old && seen <= steps * size, "the counter read %lld after ticket %lld",
              (long long)seen, (long long)old);
        tickets += (uint64_t)old < (uint64_t)(steps * size); /* every ticket below the total */
        MPI_Win_unlock_all(w);
        MPI_Barrier(MPI_COMM_WORLD); /* every rank's operations are complete everywhere */
        MPI_Win_lock(MPI_LOCK_SHARED, prev, 0, w);
        MPI_Get(in, S, MPI_INT64_T, prev, at_table[prev], S, MPI_INT64_T, w);
        MPI_Win_unlock(prev, w);
        gets = mix2(fold64(gets, in, S), compute((uint64_t)s, units));
        MPI_Barrier(MPI_COMM_WORLD); /* no rank reads while another still accumulates */
    }
    check(tickets == (uint64_t)steps, "a ticket out of range");
    hold_for_harness(rank);
    static const char *const names[] = {"table", "heap", "moving", "gets", "counter"};
    uint64_t mine[5] = {fold64(0, table, S), fold64(0, heap, H), fold64(0, moving, B), gets,
                        (uint64_t)heap[0]}; /* rank 0's counter: steps * size */
    report("rma_dynamic", names, mine, 5);
    MPI_Win_detach(w, table);
    MPI_Win_detach(w, heap);
    MPI_Win_detach(w, moving);
    MPI_Win_free(&w);
    free(heap), free(moving), free(at_table), free(at_heap), free(at_moving);
    MPI_Finalize();
    return 0;
}
