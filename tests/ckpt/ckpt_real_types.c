/* Real datatypes across checkpoints and restarts: the types of
 * tests/mpi/real_types.h are made once, before any checkpoint, and every
 * round commits them again, packs them (their checksums go into the sum)
 * and sends a derived one around the ring. Under MPCR_CHECK_REAL_TYPES=1
 * (ckpt.real_types, tests/real_types.sh) every commit has the proxy pack
 * through its real datatype: after a restart the new proxy, which has none
 * of them, is sent each definition again on first use, and the packs are
 * compared there.
 *   ckpt_real_types ROUNDS UNITS   (UNITS units of computation per round) */
#include "ckpt.h"
#include "../mpi/real_types.h"

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long rounds = arg_long(argc, argv, 1, 40), units = arg_long(argc, argv, 2, 50);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    struct rt_type v[64];
    int n = rt_make(v), ring = -1;
    for (int i = 0; i < n; i++) {
        MPI_Type_commit(&v[i].t);
        if (!strcmp(v[i].name, "vector of struct of vectors")) ring = i;
    }
    check(ring >= 0, "no ring type");
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    static unsigned char out[4096], in[4096];
    uint64_t sum = 0;
    for (long r = 0; r < rounds; r++) {
        sum = mix2(sum, compute((uint64_t)(rank * 1000 + r), units));
        for (int i = 0; i < n; i++) {
            MPI_Type_commit(&v[i].t); /* checked again, in whichever proxy serves now */
            char line[512];
            rt_describe(&v[i], 1 + (int)(r % 3), line, sizeof line);
            sum = mix2(sum, rt_hash((unsigned char *)line, strlen(line)));
        }
        for (int i = 0; i < (int)sizeof out; i++)
            out[i] = (unsigned char)(sum >> (i % 56)) + (unsigned char)i;
        memset(in, 0, sizeof in);
        MPI_Sendrecv(out, 2, v[ring].t, right, 1, in, 2, v[ring].t, left, 1, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        sum = mix2(sum, rt_hash(in, sizeof in));
        if (r % 10 == 9) progress("round %ld\n", r + 1);
    }
    for (int i = 0; i < n; i++)
        MPI_Type_free(&v[i].t);
    const char *names[] = {"sum", "types"};
    uint64_t res[] = {sum, (uint64_t)n};
    report("real_types", names, res, 2);
    MPI_Finalize();
    return 0;
}
