/* Output of test programs in which several ranks print. mpiexec merges the
 * ranks' output streams as the bytes come, so lines printed at the same
 * time by two ranks can be cut into each other (MPICH even makes stdout
 * unbuffered). Each rank therefore collects its lines with out() and
 * out_flush(), called before MPI_Finalize, writes them in rank order, one
 * rank at a time and one write each, so that the comparison of a native
 * and an mpcr run sees whole lines. */
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
    int rank, size, token = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (out_file) fclose(out_file);
    if (rank > 0) MPI_Recv(&token, 1, MPI_INT, rank - 1, 32000, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (out_len && write(1, out_buf, out_len) != (ssize_t)out_len) perror("write");
    if (rank < size - 1) MPI_Send(&token, 1, MPI_INT, rank + 1, 32000, MPI_COMM_WORLD);
    free(out_buf);
    out_file = NULL, out_buf = NULL, out_len = 0;
}

#endif
