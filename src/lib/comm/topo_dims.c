/* MPI_Dims_create: a balanced grid, as close to a cube as the number of
 * processes allows. */
#include "api_gen.h"

#include <stdlib.h>

/* The divisors of m, ascending, in out (room for 2 * 46341); their number. */
static int divisors(int m, int *out)
{
    int n = 0, high = 0, *big = out + 46341;
    for (long d = 1; d * d <= m; d++)
        if (m % d == 0) {
            out[n++] = (int)d;
            if (d * d != m) big[high++] = (int)(m / d);
        }
    while (high)
        out[n++] = big[--high];
    return n;
}

/* Splits rem into k - depth factors, non-increasing, each at most cap,
 * trying the smallest first factor first: the first split found is the
 * least in lexicographic order (the smallest largest factor, then the
 * smallest second...), which is MPICH's choice too (test mpi.topo_all). */
static int split(int rem, int k, int depth, int cap, const int *divs, int ndivs, int *out)
{
    if (depth == k - 1) {
        out[depth] = rem;
        return rem <= cap;
    }
    for (int i = 0; i < ndivs && divs[i] <= cap; i++) {
        int f = divs[i];
        if (rem % f) continue;
        long p = 1; /* too small: the others, at most f each, cannot make rem */
        for (int j = depth; j < k && p < rem; j++)
            p *= f;
        if (p < rem) continue;
        out[depth] = f;
        if (split(rem / f, k, depth + 1, f, divs, ndivs, out)) return 1;
    }
    return 0;
}

int mpcr_impl_Dims_create(int nnodes, int ndims, int dims[])
{
    if (ndims < 0) return MPI_ERR_DIMS;
    if (nnodes <= 0) return MPI_ERR_ARG;
    if (ndims > 0 && !dims) return MPI_ERR_ARG;
    int fixed = 1, k = 0;
    for (int d = 0; d < ndims; d++) {
        if (dims[d] < 0) return MPI_ERR_DIMS;
        if (dims[d] > 0)
            fixed *= dims[d];
        else
            k++;
    }
    if (nnodes % fixed) return MPI_ERR_DIMS;
    int m = nnodes / fixed;
    if (k == 0) return m == 1 ? MPI_SUCCESS : MPI_ERR_DIMS;
    int *divs = malloc(2 * 46341 * sizeof *divs), *best = malloc((size_t)k * sizeof *best);
    if (!divs || !best) {
        free(divs), free(best);
        return MPI_ERR_NO_MEM;
    }
    split(m, k, 0, m, divs, divisors(m, divs), best); /* always succeeds: m, 1, 1... */
    for (int d = 0, i = 0; d < ndims; d++)
        if (dims[d] == 0) dims[d] = best[i++];
    free(divs), free(best);
    return MPI_SUCCESS;
}
