/* What the parts of mpcr's Open MPI front end (libmpi.so.40) share, in terms
 * of neither ABI's mpi.h: the files that include Open MPI's mpi.h (the
 * generated entry points, handles.c, status.c, callbacks.c, custom.c) and
 * the one that includes MPICH's (the generated ompi_objects.c) both include
 * it. Handles of MPICH's ABI are ints; Open MPI's are pointers, passed here
 * as void *. docs/abi-openmpi.md. */
#ifndef MPCR_OMPI_FRONT_H
#define MPCR_OMPI_FRONT_H

#include <stdint.h>

#include "ompi_groups.h" /* generated: the value groups of values.txt */

/* MPICH's MPI_Status (mpi.h of MPICH 4.0), its MPI_STATUS(ES)_IGNORE and
 * MPI_IN_PLACE: checked against MPICH's own in ompi_abi_check.c. */
struct mpich_status {
    int count_lo;
    int count_hi_and_cancelled;
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
};
#define MPICH_STATUS_IGNORE ((struct mpich_status *)1)
#define MPICH_IN_PLACE ((void *)-1)

/* Arrays of handles and statuses up to this long are translated on the
 * stack, longer ones on the heap. */
#define MPCR_OMPI_ARRAY 16

/* ompi_objects.c: each predefined object of Open MPI's ABI and the MPICH
 * handle it stands for (exists: MPICH has that object too). */
struct mpcr_ompi_predefined {
    int mpich, exists;
    void *object;
    enum mpcr_ompi_kind kind;
};
extern const struct mpcr_ompi_predefined mpcr_ompi_predefined[];
extern const int mpcr_ompi_npredefined;

/* A value group's table on one side; the other side's table of the same
 * group has the same length and order. */
struct mpcr_ompi_group {
    const int *values;
    int n;
};
extern const struct mpcr_ompi_group mpcr_ompi_mpich_groups[], mpcr_ompi_ompi_groups[];

/* ompi_objects.c: Fortran's predefined handles of one kind (enum
 * mpcr_ompi_kind): objects[v] is the object of value v, if any. */
struct mpcr_ompi_fortran {
    void *const *objects;
    int n;
};
extern const struct mpcr_ompi_fortran mpcr_ompi_fortran[];

/* handles.c (abi/abi_handles.c for the standard ABI): a handle of the
 * front end's ABI to MPICH's, and the front end's handle of an MPICH handle
 * that is not predefined. */
int mpcr_ompi_handle(const void *h);
void *mpcr_ompi_user_pointer(int h);
/* translate.c: an MPICH handle to the front end's. */
void *mpcr_ompi_pointer(int h);
/* The same for a handle of a known kind: MPICH's MPI_MESSAGE_NULL is its
 * MPI_REQUEST_NULL, Open MPI's are two objects. */
void *mpcr_ompi_pointer_of(enum mpcr_ompi_kind kind, int h);
/* handles.c: an Open MPI handle to its MPI_Fint and back: a predefined one is its
 * value in Open MPI's mpif.h, any other the MPICH handle. */
int mpcr_ompi_c2f(const void *h);
void *mpcr_ompi_f2c(enum mpcr_ompi_kind kind, int f);
/* translate.c: an array of n handles to MPICH's (read: the program's values are read),
 * in stack when it fits; written back and freed by _out, freed by _free. */
int *mpcr_ompi_handles_in(int *stack, void *const *h, int n, int read);
void mpcr_ompi_handles_out(int *stack, void **h, int *m, int n);
void mpcr_ompi_array_free(int *stack, int *m);
/* A value of a group of values.txt, Open MPI's to MPICH's (_in) and back. */
int mpcr_ompi_value_in(enum mpcr_ompi_group_id g, int v);
int mpcr_ompi_value_out(enum mpcr_ompi_group_id g, int v);
/* Bits, each a value of group g, Open MPI's to MPICH's (_in) and back;
 * other bits pass. */
int mpcr_ompi_flags_in(enum mpcr_ompi_group_id g, int bits);
int mpcr_ompi_flags_out(enum mpcr_ompi_group_id g, int bits);
/* MPI_IN_PLACE, Open MPI's to MPICH's. */
void *mpcr_ompi_buf(const void *b);
/* mpich_layout.c: MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY, Open MPI's to MPICH's. */
int *mpcr_ompi_weights(const int *w);
/* custom.c: how many datatypes an array of a collective on comm holds
 * (which: 0 sources, 1 destinations of a topology, 2 the (remote) group). */
int mpcr_ompi_peers(const void *comm, int which);

/* status.c: Open MPI's MPI_Status (ompi) to MPICH's and back. */
void mpcr_ompi_status_in(const void *ompi, struct mpich_status *m);
void mpcr_ompi_status_out(const struct mpich_status *m, void *ompi);
struct mpich_status *mpcr_ompi_statuses_in(struct mpich_status *stack, void *ompi, int n);
void mpcr_ompi_statuses_out(struct mpich_status *stack, struct mpich_status *m, void *ompi, int n);

/* Ends the job: "mpcr: NAME is not supported yet for Open MPI-built programs". */
_Noreturn void mpcr_ompi_unsupported(const char *name);

#endif
