/* The conversions every generated Fortran entry point uses (fortran_gen.c):
 * Fortran's sentinels to C's, statuses, arrays of handles, strings. Open
 * MPI's Fortran status is its C status int by int (MPI_STATUS_SIZE 6), and a
 * Fortran handle converts with the C library's MPI_Xxx_f2c (handles.c).
 * docs/abi-openmpi.md, "Fortran". */
#include "ompi/fortran.h"

#include <stdlib.h>
#include <string.h>

_Noreturn void mpcr_mpich_unsupported_in(const char *name, const char *where);

_Noreturn void mpcr_f_unsupported(const char *name, const char *what)
{
    mpcr_mpich_unsupported_in(name, *what ? " for Open MPI-built Fortran programs"
                                          : " for Open MPI-built programs");
}

static void *checked(void *p)
{
    if (!p) mpcr_f_unsupported("memory for a Fortran call's arguments", "");
    return p;
}

void *mpcr_f_buf(const void *b)
{
    if (b == &mpi_fortran_bottom_) return MPI_BOTTOM;
    if (b == &mpi_fortran_in_place_) return MPI_IN_PLACE;
    return (void *)b;
}

int *mpcr_f_weights(MPI_Fint *w)
{
    if (w == &mpi_fortran_unweighted_) return MPI_UNWEIGHTED;
    if (w == &mpi_fortran_weights_empty_) return MPI_WEIGHTS_EMPTY;
    return w;
}

MPI_Status *mpcr_f_status_in(MPI_Fint *f, MPI_Status *c)
{
    if (f == mpi_fortran_status_ignore_) return MPI_STATUS_IGNORE;
    memcpy(c, f, sizeof *c); /* what the call leaves alone is kept */
    return c;
}

void mpcr_f_status_out(MPI_Status *c, MPI_Fint *f)
{
    if (c != MPI_STATUS_IGNORE) memcpy(f, c, sizeof *c);
}

MPI_Status *mpcr_f_statuses_in(MPI_Fint *f, int n, MPI_Status *stack)
{
    if (f == mpi_fortran_statuses_ignore_) return MPI_STATUSES_IGNORE;
    MPI_Status *c = n <= MPCR_F_ARRAY ? stack : checked(malloc(sizeof *c * (size_t)n));
    if (n > 0) memcpy(c, f, sizeof *c * (size_t)n);
    return c;
}

void mpcr_f_statuses_out(MPI_Status *c, MPI_Fint *f, int n, MPI_Status *stack)
{
    if (c == MPI_STATUSES_IGNORE) return;
    if (n > 0) memcpy(f, c, sizeof *c * (size_t)n);
    mpcr_f_free(c, stack);
}

void *mpcr_f_array(const MPI_Fint *f, int n, size_t size, void *stack)
{
    if (!f) return NULL;
    if (stack && n <= MPCR_F_ARRAY) return stack;
    return checked(calloc((size_t)(n > 0 ? n : 1), size));
}

void mpcr_f_free(void *c, void *stack)
{
    if (c != stack) free(c);
}

char *mpcr_f_string_in(const char *f, size_t len)
{
    while (len && f[len - 1] == ' ') len--; /* Fortran pads with blanks */
    size_t lead = 0;
    while (lead < len && f[lead] == ' ') lead++; /* and MPI ignores leading ones in keys and names */
    char *c = checked(malloc(len - lead + 1));
    memcpy(c, f + lead, len - lead);
    c[len - lead] = 0;
    return c;
}

/* the C library writes at most its MPI_MAX_... (1024 at the most, a port
 * name) or what the call's own length argument allows (at most len) */
#define LONGEST_C_STRING 1024

char *mpcr_f_string_buffer(const char *f, size_t len)
{
    char *c = checked(calloc(len + LONGEST_C_STRING + 1, 1));
    memcpy(c, f, len);
    return c;
}

void mpcr_f_string_out(char *c, char *f, size_t len)
{
    size_t n = strnlen(c, len);
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
    free(c);
}
