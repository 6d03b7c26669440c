/* Checkpoint scenario: MPI_Comm_create_group over and over while one rank
 * is late to each. Rank 1 computes UNITS ms before every creation, so a
 * checkpoint finds the others inside it, waiting, quiesced and draining,
 * while rank 1 may begin its real call the moment it arrives. Under Open
 * MPI 4.1 that call's agreement travels as point-to-point messages on the
 * parent under the program's tag, which the drain of a quiesced member took
 * (the creation then waited for ever: src/proxy/creation.c, unprobed_world).
 * Each new communicator's sum of ranks is checked and folded in.
 *   ckpt_create_group [ITERATIONS [UNITS]]   (default 300 5) */
#include "ckpt.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long iters = arg_long(argc, argv, 1, 300), units = arg_long(argc, argv, 2, 5);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    uint64_t sum = 0, work = 0;
    long every = iters / 5 > 0 ? iters / 5 : 1;
    for (long it = 0; it < iters; it++) {
        if (rank == 1) work = mix2(work, compute((uint64_t)it, units));
        MPI_Comm c;
        MPI_Comm_create_group(MPI_COMM_WORLD, world, 7, &c);
        int mine = rank, total = -1, crank = -1;
        MPI_Comm_rank(c, &crank);
        MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, c);
        check(crank == rank && total == size * (size - 1) / 2,
              "iteration %ld: rank %d of the new communicator, sum %d", it, crank, total);
        sum = mix2(sum, (uint64_t)total + (uint64_t)it);
        MPI_Comm_free(&c);
        if (it % every == every - 1) progress("create_group: %ld done\n", it + 1);
    }
    MPI_Group_free(&world);
    const char *names[] = {"checksum", "work"};
    uint64_t v[] = {sum, work};
    report("create_group", names, v, 2);
    MPI_Finalize();
    return 0;
}
