/* Checkpoint scenario: at the cut, one member has freed a communicator that
 * the other still holds (MPI_Comm_free is local). Both dup MPI_COMM_WORLD;
 * rank 0 frees its handle at once, rank 1 keeps its own until the end;
 * rank 0 says "ready" once both have, and both compute for UNITS units meanwhile
 * (the checkpoint lands there: tests/ckpt/freed_by_one.sh). A restart must
 * re-create the communicator with both members although only rank 1's
 * record lists it: re-created by rank 1 alone, it waited in
 * MPI_Comm_create_group for rank 0, before its proxy reached the
 * coordinator ("only 1 of 2 ranks have started"), and the job hung.
 *   ckpt_freed_by_one [UNITS]   (default 3000) */
#include "ckpt.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long units = arg_long(argc, argv, 1, 3000);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    if (rank == 0) MPI_Comm_free(&d);
    MPI_Barrier(MPI_COMM_WORLD);
    progress("ready\n");
    uint64_t sum = 0;
    for (long i = 0; i < units / 10; i++) /* in steps: a cut may land between */
        sum ^= compute((uint64_t)i, 10);
    int held = 0;
    if (rank != 0) {
        MPI_Comm_size(d, &held);
        MPI_Comm_free(&d);
    }
    static const char *const names[] = {"held", "sum"};
    uint64_t v[2] = {(uint64_t)held, sum};
    report("freed_by_one", names, v, 2);
    MPI_Finalize();
    return 0;
}
