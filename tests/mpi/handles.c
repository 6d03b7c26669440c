/* mpcr's handle system seen from a program (run under mpcr only: MPICH
 * does not promise these for handles the program has freed):
 *  - a copy of a freed communicator's handle is refused with MPI_ERR_COMM,
 *    while a new communicator reuses the freed slot under another handle;
 *  - creating and freeing communicators over and over leaves no trace;
 *  - MPI_Comm_free with a receive still pending on the communicator: the
 *    receive completes all the same (MPI 4.0 section 6.4.3);
 *  - MPI_Sendrecv_c whose send fails leaves no receive behind to steal a
 *    later message.
 * Prints "handles: ok" on rank 0, or names the first failure and exits 1. */
#include "out.h"
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "handles: rank %d: ", rank);                                           \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, x = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(size == 2, "needs 2 ranks");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int peer = 1 - rank;

    MPI_Comm a, copy, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    copy = a;
    MPI_Comm_free(&a);
    CHECK(a == MPI_COMM_NULL, "MPI_Comm_free did not null the handle");
    int s;
    CHECK(error_class_of(MPI_Comm_size(copy, &s)) == MPI_ERR_COMM, "a freed communicator's handle was accepted");
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    CHECK(b != copy, "a new communicator got the freed one's handle");
    CHECK(((uint32_t)b & 0xfffff) == ((uint32_t)copy & 0xfffff), "the freed slot was not reused");
    CHECK(error_class_of(MPI_Send(&x, 1, MPI_INT, peer, 0, copy)) == MPI_ERR_COMM, "sent on a freed handle");
    MPI_Comm_free(&b);

    for (int i = 0; i < 2000; i++) {
        MPI_Comm c;
        MPI_Comm_split(MPI_COMM_WORLD, i % 2, rank, &c);
        MPI_Comm_free(&c);
    }
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    CHECK(((uint32_t)b & 0xfffff) < 4, "2000 freed communicators left the table at slot %u",
          (unsigned)((uint32_t)b & 0xfffff));

    /* A receive pending on a freed communicator completes all the same. */
    if (rank == 0) {
        int got = -1;
        MPI_Request rq;
        MPI_Irecv(&got, 1, MPI_INT, peer, 3, b, &rq);
        MPI_Comm_free(&b);
        MPI_Comm c; /* may reuse b's handle slot, not its proxy id while rq is pending */
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(error_class_of(MPI_Wait(&rq, MPI_STATUS_IGNORE)) == MPI_SUCCESS && got == 42,
              "the receive pending on a freed communicator got %d", got);
        MPI_Comm_free(&c);
    } else {
        int v = 42;
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&v, 1, MPI_INT, peer, 3, b);
        MPI_Comm_free(&b);
        MPI_Comm_free(&c);
    }

    /* A Sendrecv whose send fails (2^61 16-byte elements: the byte count
     * overflows) must not leave its receive posted. */
    if (rank == 0) {
        int got = -1, rc = MPI_Sendrecv_c(&x, (MPI_Count)1 << 61, MPI_DOUBLE_COMPLEX, peer, 9, &got,
                                          1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(error_class_of(rc) == MPI_ERR_COUNT, "Sendrecv_c with an overflowing count: class %d", error_class_of(rc));
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Recv(&got, 1, MPI_INT, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK(got == 77, "the message after a failed Sendrecv: %d", got);
        printf("handles: ok\n");
    } else {
        int v = 77;
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_Send(&v, 1, MPI_INT, peer, 9, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
