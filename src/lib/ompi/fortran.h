/* What mpcr's Open MPI Fortran library (libmpi_mpifh.so.40: fortran.c,
 * fortran_custom.c and the generated fortran_gen.c) shares: Open MPI's
 * Fortran sentinels, the conversions of arguments, the names of an entry
 * point. Compiled against Open MPI's mpi.h. docs/abi-openmpi.md, "Fortran". */
#ifndef MPCR_OMPI_FORTRAN_H
#define MPCR_OMPI_FORTRAN_H

#include <mpi.h>
#include <stddef.h>

/* fortran_objects.c (in libmpi.so.40, as Open MPI has them): the common
 * blocks whose addresses are MPI_BOTTOM, MPI_IN_PLACE... in Fortran */
extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_errcodes_ignore_,
    mpi_fortran_unweighted_, mpi_fortran_weights_empty_;
extern char mpi_fortran_argv_null_, mpi_fortran_argvs_null_;
extern MPI_Fint mpi_fortran_status_ignore_[2], mpi_fortran_statuses_ignore_[2];

/* fortran_objects.c: Open MPI's predefined attribute callbacks of Fortran
 * (MPI_COMM_NULL_COPY_FN...: ompi_comm_null_copy_fn_f...; MPI-1's without
 * a kind), with MPI_Aint values (MPI-1's MPI_Fint) */
#define MPCR_F_CALLBACKS(X)                                                                        \
    X(comm_, COMM_, MPI_Aint) X(type_, TYPE_, MPI_Aint) X(win_, WIN_, MPI_Aint) X(, , MPI_Fint)
#define MPCR_F_CALLBACK_DECLS(kind, KIND, value)                                                   \
    void ompi_##kind##null_copy_fn_f(MPI_Fint *, MPI_Fint *, value *, value *, value *,            \
                                     MPI_Fint *, MPI_Fint *);                                      \
    void ompi_##kind##dup_fn_f(MPI_Fint *, MPI_Fint *, value *, value *, value *, MPI_Fint *,      \
                               MPI_Fint *);                                                        \
    void ompi_##kind##null_delete_fn_f(MPI_Fint *, MPI_Fint *, value *, value *, MPI_Fint *);
MPCR_F_CALLBACKS(MPCR_F_CALLBACK_DECLS)

/* fortran_objects.c: MPI_AINT_ADD, MPI_AINT_DIFF */
MPI_Aint ompi_aint_add_f90(MPI_Aint *base, MPI_Aint *disp);
MPI_Aint ompi_aint_diff_f90(MPI_Aint *addr1, MPI_Aint *addr2);

/* The names a Fortran compiler may give an entry point (gfortran's
 * mpi_send_, with one or two underscores or none, all capitals), and the
 * same for PMPI; impl is Open MPI's own name (ompi_send_f), which its
 * mpi_f08 library (libmpi_usempif08) calls. */
#define MPCR_F_ALIAS(impl, name) extern __typeof__(impl) name __attribute__((weak, alias(#impl)));
#define MPCR_F_LOWER(impl, low)                                                                    \
    MPCR_F_ALIAS(impl, low) MPCR_F_ALIAS(impl, low##_) MPCR_F_ALIAS(impl, low##__)
#define MPCR_F_NAMES(impl, low, UP, plow, PUP)                                                     \
    MPCR_F_LOWER(impl, low) MPCR_F_ALIAS(impl, UP) MPCR_F_LOWER(impl, plow) MPCR_F_ALIAS(impl, PUP)
/* a hand-written entry point's names (fortran_*.c); its error into ierr */
#define ENTRY(NAME, name) MPCR_F_NAMES(ompi_##name##_f, mpi_##name, MPI_##NAME, pmpi_##name, PMPI_##NAME)
#define RETURN(e) (*ierr = (e))
/* an entry point taking TYPE(C_PTR) where the plain one takes
 * INTEGER(KIND=MPI_ADDRESS_KIND): both are an address by reference */
#define MPCR_F_CPTR(impl, plain, low, UP, plow, PUP)                                               \
    extern __typeof__(plain) impl __attribute__((alias(#plain)));                                  \
    MPCR_F_NAMES(impl, low, UP, plow, PUP)

/* fortran.c */
/* MPI_BOTTOM and MPI_IN_PLACE in Fortran to C's */
void *mpcr_f_buf(const void *b);
/* MPI_UNWEIGHTED and MPI_WEIGHTS_EMPTY in Fortran to C's */
int *mpcr_f_weights(MPI_Fint *w);
/* A status in (MPI_STATUS_IGNORE: C's), copied back out by _out. */
MPI_Status *mpcr_f_status_in(MPI_Fint *f, MPI_Status *c);
void mpcr_f_status_out(MPI_Status *c, MPI_Fint *f);
/* Arrays of statuses and handles up to this long are converted in the
 * caller's stack (the generated entry points: MPI_WAITALL's requests...),
 * longer ones on the heap. */
#define MPCR_F_ARRAY 16
/* n statuses (MPI_STATUSES_IGNORE: C's) in stack (MPCR_F_ARRAY of them) when
 * they fit, copied out and freed if on the heap by _out. */
MPI_Status *mpcr_f_statuses_in(MPI_Fint *f, int n, MPI_Status *stack);
void mpcr_f_statuses_out(MPI_Status *c, MPI_Fint *f, int n, MPI_Status *stack);
/* An array of n C handles of size each for a Fortran array (NULL for
 * none): stack (MPCR_F_ARRAY of them) when it fits, else zeroed on the
 * heap; mpcr_f_free frees it unless it is stack. */
void *mpcr_f_array(const MPI_Fint *f, int n, size_t size, void *stack);
void mpcr_f_free(void *c, void *stack);
/* A Fortran string (blank-padded, len characters) as a C string on the heap. */
char *mpcr_f_string_in(const char *f, size_t len);
/* A C buffer for a string the call writes into the Fortran one f of len
 * characters, holding f's characters (what a call that writes nothing, as
 * MPI_INFO_GET of a missing key, leaves); _out copies it back, padded with
 * blanks, and frees it. */
char *mpcr_f_string_buffer(const char *f, size_t len);
void mpcr_f_string_out(char *c, char *f, size_t len);
/* Ends the job: "mpcr: NAME is not supported yet for Open MPI-built[ Fortran] programs". */
_Noreturn void mpcr_f_unsupported(const char *name, const char *what);

/* libmpi.so.40 (custom.c): how many datatypes an array of a collective holds */
int mpcr_ompi_peers(const void *comm, int which);

#endif
