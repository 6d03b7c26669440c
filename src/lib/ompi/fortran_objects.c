/* What Open MPI's libmpi.so.40 defines for Fortran, so this one defines it
 * too (a program built with mpif90.openmpi may find any of it here): the
 * sentinels mpif.h and the modules declare as common blocks (MPI_BOTTOM is
 * the address of mpi_fortran_bottom_...), the C names of two of them, and
 * the predefined attribute callbacks of Fortran (MPI_COMM_DUP_FN...), which
 * the Fortran library's MPI_COMM_CREATE_KEYVAL recognises (fortran_custom.c).
 * Sizes as Open MPI's (copy relocations). docs/abi-openmpi.md, "Fortran". */
#include <mpi.h>

#include "ompi/fortran.h"

/* mpi.h's macros for C's predefined callbacks: here the names are the
 * Fortran symbols of compilers that spell names in capitals */
#undef MPI_COMM_NULL_COPY_FN
#undef MPI_COMM_DUP_FN
#undef MPI_COMM_NULL_DELETE_FN
#undef MPI_TYPE_NULL_COPY_FN
#undef MPI_TYPE_DUP_FN
#undef MPI_TYPE_NULL_DELETE_FN
#undef MPI_WIN_NULL_COPY_FN
#undef MPI_WIN_DUP_FN
#undef MPI_WIN_NULL_DELETE_FN
#undef MPI_NULL_COPY_FN
#undef MPI_DUP_FN
#undef MPI_NULL_DELETE_FN
#undef MPI_CONVERSION_FN_NULL

MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_errcodes_ignore_,
    mpi_fortran_unweighted_, mpi_fortran_weights_empty_;
char mpi_fortran_argv_null_, mpi_fortran_argvs_null_;
MPI_Fint mpi_fortran_status_ignore_[2], mpi_fortran_statuses_ignore_[2];

MPI_Fint *MPI_F_STATUS_IGNORE = mpi_fortran_status_ignore_;
MPI_Fint *MPI_F_STATUSES_IGNORE = mpi_fortran_statuses_ignore_;

/* SUBROUTINE COPY_FN(OLDOBJ, KEYVAL, EXTRA_STATE, ATTRIBUTE_VAL_IN,
 *                    ATTRIBUTE_VAL_OUT, FLAG, IERROR), all by reference;
 * the attribute values are INTEGER(KIND=MPI_ADDRESS_KIND), or INTEGER in
 * MPI-1's MPI_NULL_COPY_FN and MPI_DUP_FN. */
#define NULL_COPY(name, value)                                                                     \
    void name(MPI_Fint *obj, MPI_Fint *keyval, value *extra, value *in, value *out,                \
              MPI_Fint *flag, MPI_Fint *ierr)                                                      \
    {                                                                                              \
        (void)obj, (void)keyval, (void)extra, (void)in, (void)out;                                 \
        *flag = 0;                                                                                 \
        *ierr = MPI_SUCCESS;                                                                       \
    }
#define DUP(name, value)                                                                           \
    void name(MPI_Fint *obj, MPI_Fint *keyval, value *extra, value *in, value *out,                \
              MPI_Fint *flag, MPI_Fint *ierr)                                                      \
    {                                                                                              \
        (void)obj, (void)keyval, (void)extra;                                                      \
        *out = *in;                                                                                \
        *flag = 1;                                                                                 \
        *ierr = MPI_SUCCESS;                                                                       \
    }
#define NULL_DELETE(name, value)                                                                   \
    void name(MPI_Fint *obj, MPI_Fint *keyval, value *attr, value *extra, MPI_Fint *ierr)          \
    {                                                                                              \
        (void)obj, (void)keyval, (void)attr, (void)extra;                                          \
        *ierr = MPI_SUCCESS;                                                                       \
    }
#define FORTRAN_CALLBACKS(kind, KIND, value)                                                       \
    NULL_COPY(ompi_##kind##null_copy_fn_f, value)                                                  \
    DUP(ompi_##kind##dup_fn_f, value)                                                              \
    NULL_DELETE(ompi_##kind##null_delete_fn_f, value)                                              \
    MPCR_F_LOWER(ompi_##kind##null_copy_fn_f, mpi_##kind##null_copy_fn)                            \
    MPCR_F_LOWER(ompi_##kind##dup_fn_f, mpi_##kind##dup_fn)                                        \
    MPCR_F_LOWER(ompi_##kind##null_delete_fn_f, mpi_##kind##null_delete_fn)                        \
    MPCR_F_ALIAS(ompi_##kind##null_copy_fn_f, MPI_##KIND##NULL_COPY_FN)                            \
    MPCR_F_ALIAS(ompi_##kind##dup_fn_f, MPI_##KIND##DUP_FN)                                        \
    MPCR_F_ALIAS(ompi_##kind##null_delete_fn_f, MPI_##KIND##NULL_DELETE_FN)
MPCR_F_CALLBACKS(FORTRAN_CALLBACKS)

/* SUBROUTINE MPI_CONVERSION_FN_NULL: MPI_REGISTER_DATAREP's "no conversion" */
void ompi_conversion_fn_null_f(void) {}
MPCR_F_LOWER(ompi_conversion_fn_null_f, mpi_conversion_fn_null)
MPCR_F_ALIAS(ompi_conversion_fn_null_f, MPI_CONVERSION_FN_NULL)

/* The functions of Open MPI's `use mpi` module for compilers that call them
 * by these names (gfortran's module calls the Fortran library's mpi_wtime_...) */
MPI_Aint ompi_aint_add_f90(MPI_Aint *base, MPI_Aint *disp) { return *base + *disp; }
MPI_Aint ompi_aint_diff_f90(MPI_Aint *addr1, MPI_Aint *addr2) { return *addr1 - *addr2; }
double ompi_wtime_f90(void) { return PMPI_Wtime(); }
double ompi_wtick_f90(void) { return PMPI_Wtick(); }
#define F90(name, NAME) MPCR_F_LOWER(ompi_##name##_f90, mpi_##name##_f90) MPCR_F_ALIAS(ompi_##name##_f90, MPI_##NAME##_F90)
F90(aint_add, AINT_ADD)
F90(aint_diff, AINT_DIFF)
F90(wtime, WTIME)
F90(wtick, WTICK)
