/* Output of test programs in which several ranks print. mpiexec merges the
 * ranks' output streams as the bytes come, so lines printed at the same
 * time by two ranks can be cut into each other (MPICH even makes stdout
 * unbuffered). Even writes made one rank after the other are not safe:
 * Open MPI's mpirun forwards each rank's stream in pieces of a few KiB, and
 * may pass the next rank's output before the rest of the previous one's (a
 * CI run saw a line cut in two that way). Each rank therefore collects its
 * lines with out(), and out_flush(), called before MPI_Finalize, sends them
 * to rank 0, which writes them all, in rank order, so that the comparison
 * of a native and an mpcr run sees whole lines. */
#ifndef TEST_OUT_H
#define TEST_OUT_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char *out_buf;
static size_t out_len;
static FILE *out_file;

#define out(...)                                                                                   \
    do {                                                                                           \
        if (!out_file) out_file = open_memstream(&out_buf, &out_len);                              \
        fprintf(out_file, __VA_ARGS__);                                                            \
    } while (0)

/* The error class of an MPI error code. */
static inline int error_class_of(int rc)
{
    int c;
    MPI_Error_class(rc, &c);
    return c;
}

static inline void out_flush(void)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (out_file) fclose(out_file);
    if (rank > 0) {
        int len = (int)out_len;
        MPI_Send(&len, 1, MPI_INT, 0, 32000, MPI_COMM_WORLD);
        MPI_Send(out_buf, len, MPI_CHAR, 0, 32001, MPI_COMM_WORLD);
    } else {
        for (int r = 0; r < size; r++) {
            int len = (int)out_len;
            char *text = out_buf;
            if (r > 0) {
                MPI_Recv(&len, 1, MPI_INT, r, 32000, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                text = malloc(len ? (size_t)len : 1);
                MPI_Recv(text, len, MPI_CHAR, r, 32001, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
            if (len && write(1, text, (size_t)len) != (ssize_t)len) perror("write");
            if (r > 0) free(text);
        }
    }
    free(out_buf);
    out_file = NULL, out_buf = NULL, out_len = 0;
}

#endif
