/* The Fortran entry points written by hand (the `custom` lines of
 * fortran_exports.txt) whose Fortran binding is not C's by reference:
 * MPI_INIT without argc/argv, the MPI-1 functions taking addresses as
 * INTEGER, MPI_SIZEOF's specific procedures and a few more (attributes:
 * fortran_attr.c; the program's functions MPI calls: fortran_callbacks.c).
 * docs/abi-openmpi.md, "Fortran". */
#include "ompi/fortran.h"
#include "ompi/ompi_front.h"

#include <stdint.h>
#include <stdlib.h>

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"


void ompi_init_f(MPI_Fint *ierr) { RETURN(PMPI_Init(NULL, NULL)); }
ENTRY(INIT, init)

void ompi_init_thread_f(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    RETURN(PMPI_Init_thread(NULL, NULL, *required, provided));
}
ENTRY(INIT_THREAD, init_thread)

/* Fortran's buffer argument is the buffer itself, not where to write its address */
void ompi_buffer_detach_f(void *buffer, MPI_Fint *size, MPI_Fint *ierr)
{
    (void)buffer;
    void *address;
    RETURN(PMPI_Buffer_detach(&address, size));
}
ENTRY(BUFFER_DETACH, buffer_detach)

void ompi_pcontrol_f(MPI_Fint *level) { PMPI_Pcontrol(*level); }
ENTRY(PCONTROL, pcontrol)

void ompi_f_sync_reg_f(void *buf) { (void)buf; } /* a barrier for the compiler only */
ENTRY(F_SYNC_REG, f_sync_reg)

/* libmpi.so.40's, which `use mpi` calls by other names (fortran_objects.c) */
MPI_Aint ompi_aint_add_f(MPI_Aint *base, MPI_Aint *disp) { return ompi_aint_add_f90(base, disp); }
ENTRY(AINT_ADD, aint_add)
MPI_Aint ompi_aint_diff_f(MPI_Aint *addr1, MPI_Aint *addr2) { return ompi_aint_diff_f90(addr1, addr2); }
ENTRY(AINT_DIFF, aint_diff)

/* ---- MPI-1's addresses as INTEGER ---- */

/* An address or extent cut to an INTEGER, as Open MPI's Fortran library
 * does (MPI-2 made the MPI_Aint versions because they do not fit): only
 * differences of addresses mean something then. */
static int cut(MPI_Aint a, MPI_Fint *out)
{
    *out = (MPI_Fint)a;
    return MPI_SUCCESS;
}

void ompi_address_f(void *location, MPI_Fint *address, MPI_Fint *ierr)
{
    MPI_Aint a;
    RETURN(PMPI_Get_address(mpcr_f_buf(location), &a));
    if (*ierr == MPI_SUCCESS) RETURN(cut(a, address));
}
ENTRY(ADDRESS, address)

#define EXTENT(KIND, kind, call)                                                             \
    void ompi_##kind##_f(MPI_Fint *type, MPI_Fint *out, MPI_Fint *ierr)                            \
    {                                                                                              \
        MPI_Aint a;                                                                                \
        RETURN(call);                                                                              \
        if (*ierr == MPI_SUCCESS) RETURN(cut(a, out));                                            \
    }                                                                                              \
    ENTRY(KIND, kind)
EXTENT(TYPE_EXTENT, type_extent, PMPI_Type_extent(PMPI_Type_f2c(*type), &a))
EXTENT(TYPE_LB, type_lb, PMPI_Type_lb(PMPI_Type_f2c(*type), &a))
EXTENT(TYPE_UB, type_ub, PMPI_Type_ub(PMPI_Type_f2c(*type), &a))

void ompi_type_hvector_f(MPI_Fint *count, MPI_Fint *blocklength, MPI_Fint *stride,
                         MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Datatype t;
    RETURN(PMPI_Type_create_hvector(*count, *blocklength, *stride, PMPI_Type_f2c(*oldtype), &t));
    if (*ierr == MPI_SUCCESS) *newtype = PMPI_Type_c2f(t);
}
ENTRY(TYPE_HVECTOR, type_hvector)

static MPI_Aint *addresses(const MPI_Fint *f, int n)
{
    MPI_Aint *a = mpcr_f_array(f, n, sizeof *a, NULL);
    for (int i = 0; i < n; i++) a[i] = f[i];
    return a;
}

void ompi_type_hindexed_f(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements,
                          MPI_Fint *oldtype, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Aint *d = addresses(displacements, *count);
    MPI_Datatype t;
    RETURN(PMPI_Type_create_hindexed(*count, blocklengths, d, PMPI_Type_f2c(*oldtype), &t));
    if (*ierr == MPI_SUCCESS) *newtype = PMPI_Type_c2f(t);
    free(d);
}
ENTRY(TYPE_HINDEXED, type_hindexed)

void ompi_type_struct_f(MPI_Fint *count, MPI_Fint *blocklengths, MPI_Fint *displacements,
                        MPI_Fint *types, MPI_Fint *newtype, MPI_Fint *ierr)
{
    MPI_Aint *d = addresses(displacements, *count);
    MPI_Datatype *c = mpcr_f_array(types, *count, sizeof *c, NULL), t;
    for (int i = 0; i < *count; i++) c[i] = PMPI_Type_f2c(types[i]);
    RETURN(PMPI_Type_create_struct(*count, blocklengths, d, c, &t));
    if (*ierr == MPI_SUCCESS) *newtype = PMPI_Type_c2f(t);
    free(d);
    free(c);
}
ENTRY(TYPE_STRUCT, type_struct)

void ompi_type_get_contents_f(MPI_Fint *type, MPI_Fint *max_integers, MPI_Fint *max_addresses,
                              MPI_Fint *max_datatypes, MPI_Fint *integers, MPI_Aint *addresses,
                              MPI_Fint *datatypes, MPI_Fint *ierr)
{
    MPI_Datatype *c = mpcr_f_array(datatypes, *max_datatypes, sizeof *c, NULL);
    RETURN(PMPI_Type_get_contents(PMPI_Type_f2c(*type), *max_integers, *max_addresses,
                                  *max_datatypes, integers, addresses, c));
    for (int i = 0; *ierr == MPI_SUCCESS && i < *max_datatypes; i++)
        datatypes[i] = PMPI_Type_c2f(c[i]);
    free(c);
}
ENTRY(TYPE_GET_CONTENTS, type_get_contents)

/* ---- MPI_SIZEOF: the `use mpi` module's specific procedures, one per
 * type and rank (mpi_sizeof_int32_r2_...): the size of one element ---- */

static void sizeof_element(MPI_Fint bytes, MPI_Fint *size, MPI_Fint *ierr)
{
    *size = bytes;
    *ierr = MPI_SUCCESS;
}
#define SIZEOF(type, bytes)                                                                        \
    static void sizeof_##type(void *x, MPI_Fint *size, MPI_Fint *ierr)                             \
    {                                                                                              \
        (void)x;                                                                                   \
        sizeof_element(bytes, size, ierr);                                                         \
    }                                                                                              \
    SIZEOF_NAMES(sizeof_##type, mpi_sizeof_##type) SIZEOF_NAMES(sizeof_##type, pmpi_sizeof_##type)
#define SIZEOF_NAMES(impl, name)                                                                   \
    MPCR_F_ALIAS(impl, name##_scalar_) MPCR_F_ALIAS(impl, name##_r1_) MPCR_F_ALIAS(impl, name##_r2_) \
    MPCR_F_ALIAS(impl, name##_r3_) MPCR_F_ALIAS(impl, name##_r4_) MPCR_F_ALIAS(impl, name##_r5_)  \
    MPCR_F_ALIAS(impl, name##_r6_) MPCR_F_ALIAS(impl, name##_r7_) MPCR_F_ALIAS(impl, name##_r8_)  \
    MPCR_F_ALIAS(impl, name##_r9_) MPCR_F_ALIAS(impl, name##_r10_) MPCR_F_ALIAS(impl, name##_r11_) \
    MPCR_F_ALIAS(impl, name##_r12_) MPCR_F_ALIAS(impl, name##_r13_) MPCR_F_ALIAS(impl, name##_r14_) \
    MPCR_F_ALIAS(impl, name##_r15_)
SIZEOF(int8, 1)
SIZEOF(int16, 2)
SIZEOF(int32, 4)
SIZEOF(int64, 8)
SIZEOF(real32, 4)
SIZEOF(real64, 8)
SIZEOF(real128, 16)
SIZEOF(complex32, 8) /* COMPLEX of REAL32 */
SIZEOF(complex64, 16)
SIZEOF(complex128, 32)
SIZEOF(logical, 4) /* default LOGICAL */
/* CHARACTER: the length, which gfortran passes after the arguments */
static void sizeof_character(void *x, MPI_Fint *size, MPI_Fint *ierr, size_t len)
{
    (void)x;
    sizeof_element((MPI_Fint)len, size, ierr);
}
SIZEOF_NAMES(sizeof_character, mpi_sizeof_character)
SIZEOF_NAMES(sizeof_character, pmpi_sizeof_character)
