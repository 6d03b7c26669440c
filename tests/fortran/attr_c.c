/* C helpers of attr.f90: attributes crossing between C and Fortran (MPI 4.0
 * section 19.3.7). Called from Fortran by reference (gfortran's names). */
#include <mpi.h>
#include <stdint.h>

void c_set_attr_(const MPI_Fint *comm, const MPI_Fint *keyval, const MPI_Fint *value);
void c_get_int_attr_(const MPI_Fint *comm, const MPI_Fint *keyval, MPI_Fint *out);
void c_get_aint_attr_(const MPI_Fint *comm, const MPI_Fint *keyval, MPI_Fint *out);

/* A C attribute: the value is the pointer itself. */
void c_set_attr_(const MPI_Fint *comm, const MPI_Fint *keyval, const MPI_Fint *value)
{
    MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *keyval, (void *)(intptr_t)*value);
}

/* A Fortran INTEGER attribute (MPI_ATTR_PUT) reads in C as a pointer to int. */
void c_get_int_attr_(const MPI_Fint *comm, const MPI_Fint *keyval, MPI_Fint *out)
{
    int *p, flag;
    MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *keyval, &p, &flag);
    *out = flag ? *p : -1;
}

/* An address-sized one (MPI_COMM_SET_ATTR) as a pointer to MPI_Aint. */
void c_get_aint_attr_(const MPI_Fint *comm, const MPI_Fint *keyval, MPI_Fint *out)
{
    MPI_Aint *p;
    int flag;
    MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *keyval, &p, &flag);
    *out = flag ? (MPI_Fint)*p : -1;
}
