/* What the standard ABI's front end adds to the Open MPI front end's shared
 * parts (src/lib/ompi/ompi_front.h), in terms of neither ABI's mpi.h. */
#ifndef MPCR_ABI_FRONT_H
#define MPCR_ABI_FRONT_H

/* Predefined handles of the standard ABI are the values below this
 * (MPI_COMM_WORLD is 0x101); no MPICH handle is. */
#define MPCR_ABI_PREDEFINED_LIMIT 0x400

/* abi_objects.c (generated): the MPICH handle of each predefined handle, by
 * its value (0 where the value is none: refused by MPICH as invalid). */
extern const int mpcr_abi_mpich[MPCR_ABI_PREDEFINED_LIMIT];

#endif
