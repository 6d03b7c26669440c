/* The C half of tests/fortran/handles.f90: gets Fortran handles and a
 * Fortran status (by reference, as a Fortran call passes them), converts
 * them with MPI_*_f2c and MPI_Status_f2c, uses each object from C, and
 * hands C-made objects and a C status back through MPI_*_c2f and
 * MPI_Status_c2f. Prints what it saw; a failed check ends the job. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "handles_c.c:%d: %s\n", __LINE__, #cond);                              \
            MPI_Abort(MPI_COMM_WORLD, 3);                                                          \
        }                                                                                          \
    } while (0)

/* Fortran: call handles_c(comm, type, group, op, info, errh, req, msg,
 *                          status, newcomm, newtype, cstatus) */
void handles_c_(MPI_Fint *fcomm, MPI_Fint *ftype, MPI_Fint *fgroup, MPI_Fint *fop,
                MPI_Fint *finfo, MPI_Fint *ferrh, MPI_Fint *freq, MPI_Fint *fmsg,
                MPI_Fint *fstatus, MPI_Fint *fnewcomm, MPI_Fint *fnewtype, MPI_Fint *fcstatus)
{
    MPI_Comm comm = MPI_Comm_f2c(*fcomm);
    MPI_Datatype type = MPI_Type_f2c(*ftype);
    MPI_Group group = MPI_Group_f2c(*fgroup);
    MPI_Op op = MPI_Op_f2c(*fop);
    MPI_Info info = MPI_Info_f2c(*finfo);
    MPI_Errhandler errh = MPI_Errhandler_f2c(*ferrh);
    MPI_Request req = MPI_Request_f2c(*freq);
    MPI_Message msg = MPI_Message_f2c(*fmsg);
    int rank, size, tsize, gsize, commute, flag, cmp;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    CHECK(MPI_Comm_c2f(comm) == *fcomm && MPI_Type_c2f(type) == *ftype &&
          MPI_Group_c2f(group) == *fgroup && MPI_Op_c2f(op) == *fop &&
          MPI_Info_c2f(info) == *finfo && MPI_Errhandler_c2f(errh) == *ferrh &&
          MPI_Request_c2f(req) == *freq && MPI_Message_c2f(msg) == *fmsg);

    /* the status the Fortran receive filled */
    MPI_Status st;
    int count;
    CHECK(MPI_Status_f2c(fstatus, &st) == MPI_SUCCESS);
    MPI_Get_count(&st, MPI_INT, &count);
    printf("rank %d: C status source %d tag %d count %d\n", rank, st.MPI_SOURCE, st.MPI_TAG, count);

    /* each object used from C */
    MPI_Type_size(type, &tsize);
    MPI_Group_size(group, &gsize);
    MPI_Op_commutative(op, &commute);
    char value[64] = "";
    MPI_Info_get(info, "fortran_key", sizeof value - 1, value, &flag);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_compare(group, world, &cmp);
    MPI_Group_free(&world);
    printf("rank %d: C type size %d group size %d ident %d op commutative %d info [%s] %d\n", rank,
           tsize, gsize, cmp == MPI_IDENT, commute, value, flag);
    int in[2] = {rank + 1, 2}, out[2];
    MPI_Allreduce(in, out, 2, MPI_INT, op, comm);
    printf("rank %d: C reduce with the Fortran op %d %d\n", rank, out[0], out[1]);
    MPI_Errhandler now;
    MPI_Comm_set_errhandler(comm, errh);
    MPI_Comm_get_errhandler(comm, &now);
    printf("rank %d: C errhandler is errors_return %d\n", rank, now == MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&now);

    /* the Fortran Irecv completed here, the Fortran Mprobe's message received */
    int got = -1, got2 = -1;
    MPI_Wait(&req, &st);
    CHECK(req == MPI_REQUEST_NULL);
    MPI_Mrecv(&got2, 1, MPI_INT, &msg, MPI_STATUS_IGNORE);
    CHECK(msg == MPI_MESSAGE_NULL);
    (void)got;
    printf("rank %d: C wait source %d tag %d, mrecv %d\n", rank, st.MPI_SOURCE, st.MPI_TAG, got2);
    *freq = MPI_Request_c2f(req);
    *fmsg = MPI_Message_c2f(msg);

    /* a status made in C, read in Fortran */
    MPI_Status mine = {0};
    mine.MPI_SOURCE = 1000 + rank;
    mine.MPI_TAG = 77;
    mine.MPI_ERROR = MPI_ERR_PENDING;
    MPI_Status_set_elements(&mine, MPI_INT, 5);
    CHECK(MPI_Status_c2f(&mine, fcstatus) == MPI_SUCCESS);

    /* the f08 status conversions (libmpichfort's) round trip; MPI 3.1 (an
     * Open MPI 4.1 build, tests/ompiabi_fortran.cmake) has none: the line
     * reports the status itself */
#if MPI_VERSION >= 4
    MPI_F08_status f08;
    MPI_Status back;
    CHECK(MPI_Status_c2f08(&mine, &f08) == MPI_SUCCESS);
    CHECK(MPI_Status_f082c(&f08, &back) == MPI_SUCCESS);
#else
    MPI_Status f08 = mine, back = mine;
#endif
    MPI_Get_count(&back, MPI_INT, &count);
    printf("rank %d: C f08 status source %d tag %d count %d\n", rank, f08.MPI_SOURCE, f08.MPI_TAG,
           count);

    /* objects made in C, used in Fortran */
    MPI_Comm split;
    MPI_Comm_split(comm, rank % 2, -rank, &split);
    *fnewcomm = MPI_Comm_c2f(split);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    *fnewtype = MPI_Type_c2f(pair);
    /* the null handles are the same in both languages */
    CHECK(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_NULL)) == MPI_COMM_NULL &&
          MPI_Win_f2c(MPI_Win_c2f(MPI_WIN_NULL)) == MPI_WIN_NULL &&
          MPI_Type_f2c(MPI_Type_c2f(MPI_DATATYPE_NULL)) == MPI_DATATYPE_NULL &&
          MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL);
}
