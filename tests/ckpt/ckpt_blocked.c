/* Checkpoint scenario: ranks blocked in MPI for seconds. In each of REPS
 * repetitions one rank (1, 2, ... in turn) computes for about UNITS units with
 * no MPI call at all, then sends its result; meanwhile rank 0 is blocked
 * in MPI_Recv on it (even repetitions: specific source, MPI_Send) or in
 * MPI_Probe(MPI_ANY_SOURCE) (odd ones: MPI_Ssend; then MPI_Get_count and
 * MPI_Recv), and the other ranks are blocked in MPI_Recv on rank 0, which
 * passes the result on. A barrier ends each repetition.
 *   ckpt_blocked [REPS [UNITS]]   (default 4 1200) */
#include "ckpt.h"

#define LEN (20 * 1024) /* words: 160 KiB, sent by rendezvous */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long reps = arg_long(argc, argv, 1, 4), units = arg_long(argc, argv, 2, 1200);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    check(size >= 2, "needs 2 ranks or more");
    uint64_t *buf = malloc((LEN + 1) * sizeof *buf), sum = 0;
    /* First a truncated receive: the message is consumed all the same, and a
     * later checkpoint's drain must count it as received. */
    MPI_Comm errs;
    MPI_Comm_dup(MPI_COMM_WORLD, &errs);
    MPI_Comm_set_errhandler(errs, MPI_ERRORS_RETURN);
    if (rank == 1) {
        uint64_t four[4] = {1, 2, 3, 4};
        MPI_Send(four, 4, MPI_UINT64_T, 0, 7, errs);
    } else if (rank == 0) {
        uint64_t two[2];
        int cls, rc = MPI_Recv(two, 2, MPI_UINT64_T, 1, 7, errs, MPI_STATUS_IGNORE);
        MPI_Error_class(rc, &cls);
        check(cls == MPI_ERR_TRUNCATE, "a 4-word message into 2 words: error class %d", cls);
    }
    for (int rep = 0; rep < reps; rep++) {
        int sender = 1 + rep % (size - 1), tag = rep % 100;
        uint64_t x;
        if (rank == sender) {
            x = compute(mix2((uint64_t)rep, (uint64_t)rank), units);
            buf[0] = x;
            for (int j = 1; j < LEN; j++)
                buf[j] = mix2(x, j);
            if (rep % 2 == 0)
                MPI_Send(buf, LEN, MPI_UINT64_T, 0, tag, MPI_COMM_WORLD);
            else
                MPI_Ssend(buf, LEN, MPI_UINT64_T, 0, tag, MPI_COMM_WORLD);
        } else if (rank == 0) {
            MPI_Status st;
            int count;
            if (rep % 2 == 0) {
                MPI_Recv(buf, LEN + 1, MPI_UINT64_T, sender, tag, MPI_COMM_WORLD, &st);
            } else {
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                check(st.MPI_SOURCE == sender && st.MPI_TAG == tag,
                      "repetition %d: probed a message from %d, tag %d", rep, st.MPI_SOURCE,
                      st.MPI_TAG);
                MPI_Get_count(&st, MPI_UINT64_T, &count);
                check(count == LEN, "repetition %d: probed %d words", rep, count);
                MPI_Recv(buf, count, MPI_UINT64_T, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
            }
            MPI_Get_count(&st, MPI_UINT64_T, &count);
            check(count == LEN && st.MPI_SOURCE == sender, "repetition %d: %d words from %d", rep,
                  count, st.MPI_SOURCE);
            x = buf[0];
            for (int j = 1; j < LEN; j++)
                check(buf[j] == mix2(x, j), "repetition %d: word %d is wrong", rep, j);
            for (int r = 1; r < size; r++)
                if (r != sender) MPI_Send(&x, 1, MPI_UINT64_T, r, tag, MPI_COMM_WORLD);
        } else {
            MPI_Recv(&x, 1, MPI_UINT64_T, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        sum = mix2(sum, x);
        MPI_Barrier(MPI_COMM_WORLD);
        progress("blocked: repetition %d: rank %d sent %016" PRIx64 "\n", rep, sender, x);
    }
    const char *names[] = {"checksum"};
    report("blocked", names, &sum, 1);
    free(buf);
    MPI_Comm_free(&errs);
    MPI_Finalize();
    return 0;
}
