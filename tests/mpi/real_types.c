/* Datatypes of every constructor (tests/mpi/real_types.h): their bounds and
 * packed bytes printed, compared with native MPICH (mpi.real_types); under
 * MPCR_CHECK_REAL_TYPES=1 every commit also has the proxy build the real
 * datatype and pack through it (real_types.mpich, real_types.openmpi:
 * tests/real_types.sh). The types are made, freed and made again (slots
 * reused with new generations: the proxy forgets the old ones), and the
 * parts MPI_Type_get_contents returns are committed too.
 *   real_types [ROUNDS]   (how many times the types are made; 2) */
#include "real_types.h"

#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, rounds = argc > 1 ? atoi(argv[1]) : 2;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    struct rt_type v[64];
    int n = 0;
    for (int round = 0; round < rounds; round++) {
        n = rt_make(v);
        for (int i = 0; i < n; i++)
            MPI_Type_commit(&v[i].t);
        /* again (MPI allows it): the proxy may have let the first go */
        for (int i = 0; i < n; i++)
            MPI_Type_commit(&v[i].t);
        if (round == 0 && rank == 0)
            for (int i = 0; i < n; i++)
                for (int count = 1; count <= 3; count += 2) {
                    char line[512];
                    rt_describe(&v[i], count, line, sizeof line);
                    printf("%d x %s\n", count, line);
                }
        /* a struct's parts, as get_contents gives them: new handles */
        for (int i = 0; i < n; i++) {
            if (v[i].flags & RT_C) continue;
            int ni, na, nt, combiner;
            MPI_Type_get_envelope(v[i].t, &ni, &na, &nt, &combiner);
            if (combiner != MPI_COMBINER_STRUCT || nt > 4) continue;
            int ints[8];
            MPI_Aint addrs[4];
            MPI_Datatype parts[4];
            MPI_Type_get_contents(v[i].t, 8, 4, 4, ints, addrs, parts);
            for (int k = 0; k < nt; k++) {
                MPI_Type_get_envelope(parts[k], &ni, &na, &nt, &combiner);
                if (combiner == MPI_COMBINER_NAMED) continue;
                MPI_Type_commit(&parts[k]);
                MPI_Type_free(&parts[k]);
            }
        }
        for (int i = 0; i < n; i++)
            MPI_Type_free(&v[i].t);
    }
    /* one derived type across the network, to be sure it is still usable */
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size > 1 && rank < 2) {
        n = rt_make(v);
        MPI_Datatype t = v[11].t; /* "vector of struct of vectors" */
        MPI_Type_commit(&t);
        static char buf[4096];
        for (int i = 0; i < (int)sizeof buf; i++)
            buf[i] = (char)(rank ? 0 : i * 5 + 1);
        if (rank == 0)
            MPI_Send(buf, 2, t, 1, 0, MPI_COMM_WORLD);
        else
            MPI_Recv(buf, 2, t, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        /* rank 0 prints what rank 1 received: one rank's output cannot be cut
         * into by another's (tests/mpi/out.h says how that happens) */
        unsigned long hash = rt_hash((unsigned char *)buf, sizeof buf);
        if (rank == 1)
            MPI_Send(&hash, 1, MPI_UNSIGNED_LONG, 0, 1, MPI_COMM_WORLD);
        else
            MPI_Recv(&hash, 1, MPI_UNSIGNED_LONG, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (rank == 0) printf("received: hash %lx\n", hash);
        for (int i = 0; i < n; i++)
            if (v[i].t != t) MPI_Type_free(&v[i].t);
        MPI_Type_free(&t);
    }
    if (rank == 0) printf("real_types: %d types, made %d times\n", n, rounds);
    MPI_Finalize();
    return 0;
}
