/* Checkpoint scenario: MPI_Comm_idup pending at every instant. Each of
 * STEPS steps, one rank in turn computes for UNITS units first, so that a
 * checkpoint finds the others with duplicates not yet entered by all, or
 * entered and under way in the real MPI. A step:
 *   - duplicates MPI_COMM_WORLD twice (two outstanding on one communicator),
 *     a half of the ranks' split and an inter-communicator between the
 *     halves; the even ranks begin the split's before the world's, the odd
 *     ones after (MPI lets duplicates of different communicators come in any
 *     order);
 *   - meanwhile a ring exchange on MPI_COMM_WORLD: rank 0 waits for its
 *     duplicates before it sends, so the others' duplicates must advance
 *     while they wait in MPI_Recv;
 *   - completes them by Waitall, or by a Test loop, in turn;
 *   - uses each: an Allreduce (over the inter-communicator's groups too),
 *     the copy callback's attribute on the duplicate of the world, then
 *     frees them, but one world duplicate, begun at the end of the step
 *     and completed at the start of the next (so a checkpoint between
 *     steps finds it pending).
 *   ckpt_idup [STEPS [UNITS]]   (default 40 40; an even number of ranks) */
#include "ckpt.h"

static uint64_t sum;
static int copies; /* copy callbacks run on this rank */

static void fold(uint64_t v)
{
    sum = mix2(sum, v);
}

static int count_copy(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    copies++;
    *(void **)out = (void *)((uintptr_t)in + 1); /* the value grows by one per generation */
    *flag = 1;
    return MPI_SUCCESS;
}

/* An Allreduce over c (of both groups' values for an inter-communicator). */
static void use(MPI_Comm c, long step, uint64_t salt)
{
    uint64_t x = mix2(sum, salt + (uint64_t)step), y = 0;
    MPI_Allreduce(&x, &y, 1, MPI_UINT64_T, MPI_BXOR, c);
    fold(y);
}

/* Completes n requests: Waitall on even steps, a Test loop on odd ones. */
static void complete(MPI_Request *q, int n, long step)
{
    if (step % 2 == 0) {
        MPI_Status st[4];
        MPI_Waitall(n, q, st);
        return;
    }
    for (int i = 0; i < n; i++) {
        int flag = 0;
        while (!flag)
            MPI_Test(&q[i], &flag, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long steps = arg_long(argc, argv, 1, 40), units = arg_long(argc, argv, 2, 40);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    check(np % 2 == 0, "an even number of ranks, not %d", np);
    int even = me % 2 == 0;
    MPI_Comm half, ic;
    MPI_Comm_split(MPI_COMM_WORLD, !even, me, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, even ? 1 : 0, 7, &ic);
    int key;
    MPI_Comm_create_keyval(count_copy, MPI_COMM_NULL_DELETE_FN, &key, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(uintptr_t)100);
    MPI_Comm carried;
    MPI_Request carried_q;
    MPI_Comm_idup(MPI_COMM_WORLD, &carried, &carried_q);
    for (long step = 0; step < steps; step++) {
        if (step % np == me) fold(compute(mix2(sum, (uint64_t)step), units));
        MPI_Wait(&carried_q, MPI_STATUS_IGNORE);
        use(carried, step, 1);
        MPI_Comm_free(&carried);

        MPI_Comm w1, w2, h, i;
        MPI_Request q[4];
        if (even) MPI_Comm_idup(half, &h, &q[2]);
        MPI_Comm_idup(MPI_COMM_WORLD, &w1, &q[0]);
        MPI_Comm_idup(MPI_COMM_WORLD, &w2, &q[1]);
        if (!even) MPI_Comm_idup(half, &h, &q[2]);
        MPI_Comm_idup(ic, &i, &q[3]);
        /* The ring: rank 0 first completes its duplicates, then sends. */
        uint64_t token = mix2(sum, (uint64_t)step), got = 0;
        int right = (me + 1) % np, left = (me + np - 1) % np;
        if (me == 0) {
            complete(q, 4, step);
            MPI_Send(&token, 1, MPI_UINT64_T, right, 3, MPI_COMM_WORLD);
            MPI_Recv(&got, 1, MPI_UINT64_T, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&got, 1, MPI_UINT64_T, left, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            got = mix2(got, (uint64_t)me);
            MPI_Send(&got, 1, MPI_UINT64_T, right, 3, MPI_COMM_WORLD);
            complete(q, 4, step);
        }
        MPI_Bcast(&got, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
        fold(got);
        use(w1, step, 2);
        use(w2, step, 3);
        use(h, step, 4);
        use(i, step, 5);
        void *value = NULL;
        int flag = 0;
        MPI_Comm_get_attr(w1, key, &value, &flag);
        check(flag && (uintptr_t)value == 101, "step %ld: the duplicate's attribute is %p (%d)",
              step, value, flag);
        MPI_Comm_free(&w1);
        MPI_Comm_free(&w2);
        MPI_Comm_free(&h);
        MPI_Comm_free(&i);
        MPI_Comm_idup(MPI_COMM_WORLD, &carried, &carried_q);
        progress("idup: step %ld done\n", step);
    }
    MPI_Wait(&carried_q, MPI_STATUS_IGNORE);
    use(carried, steps, 1);
    MPI_Comm_free(&carried);
    check(copies == 3 * (int)steps + 1, "%d copy callbacks, not %ld", copies, 3 * steps + 1);
    MPI_Comm_free_keyval(&key);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
    const char *names[] = {"checksum"};
    report("idup", names, &sum, 1);
    MPI_Finalize();
    return 0;
}
