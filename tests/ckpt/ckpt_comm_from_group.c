/* Checkpoint scenario: communicators made by MPI_Comm_create_from_group
 * (the sessions chapter, here in the world model) before any checkpoint,
 * over the world group and over the even or the odd ranks (two stringtags
 * at once), used on every step, so that a restart (under either MPI) must
 * give them back; every 4th step one more is made from the half's group
 * with the same stringtag, used and freed. Each step one rank in turn
 * computes UNITS units first, so checkpoints land while the others wait in
 * an Allreduce over one of them.
 *   ckpt_comm_from_group [STEPS [UNITS]]   (default 48 50; any ranks) */
#include "ckpt.h"

static uint64_t sum;

static void fold(uint64_t v)
{
    sum = mix2(sum, v);
}

static void reduce(MPI_Comm c, uint64_t v)
{
    fold_xor_over(c, &sum, v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long steps = arg_long(argc, argv, 1, 48), units = arg_long(argc, argv, 2, 50);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    MPI_Group world, half;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranks[256], n = 0;
    for (int r = me % 2; r < np && n < 256; r += 2) ranks[n++] = r;
    MPI_Group_incl(world, n, ranks, &half);
    const char *tag = me % 2 ? "ckpt.odd" : "ckpt.even";
    MPI_Comm all, h;
    MPI_Comm_create_from_group(world, "ckpt.all", MPI_INFO_NULL, MPI_ERRORS_RETURN, &all);
    MPI_Comm_create_from_group(half, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &h);
    int hr, hs;
    MPI_Comm_rank(h, &hr);
    MPI_Comm_size(h, &hs);
    check(hr == me / 2 && hs == n, "half: rank %d size %d", hr, hs);
    for (long step = 0; step < steps; step++) {
        if (step % np == me) fold(compute(mix2(sum, (uint64_t)step), units));
        reduce(all, mix2(sum, (uint64_t)me));
        reduce(h, mix2(sum, (uint64_t)hr));
        if (step % 4 == 0) {
            MPI_Comm t;
            MPI_Comm_create_from_group(half, tag, MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &t);
            int cmp;
            MPI_Comm_compare(h, t, &cmp);
            check(cmp == MPI_CONGRUENT, "step %ld: compare with the half's: %d", step, cmp);
            reduce(t, sum);
            MPI_Comm_free(&t);
        }
        MPI_Errhandler eh;
        MPI_Comm_get_errhandler(all, &eh);
        check(eh == MPI_ERRORS_RETURN, "step %ld: the handler changed", step);
        progress("comm_from_group: step %ld done\n", step);
    }
    MPI_Comm_free(&h);
    MPI_Comm_free(&all);
    MPI_Group_free(&half);
    MPI_Group_free(&world);
    const char *names[] = {"checksum"};
    report("comm_from_group", names, &sum, 1);
    MPI_Finalize();
    return 0;
}
