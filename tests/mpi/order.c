/* MPI_ANY_SOURCE / MPI_ANY_TAG with MPI's non-overtaking rule: every rank
 * but 0 sends 400 numbered messages with varying tags; rank 0 receives them
 * all with wildcards (and some with a specific tag) and checks that each
 * sender's messages of one tag arrive in the order sent. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define PER_SENDER 400
#define NTAGS      4

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank > 0) {
        for (int i = 0; i < PER_SENDER; i++) {
            int msg[2] = {rank, i};
            MPI_Send(msg, 2, MPI_INT, 0, i % NTAGS, MPI_COMM_WORLD);
        }
    } else {
        int *last = calloc((size_t)size * NTAGS, sizeof *last), violations = 0;
        for (int i = 0; i < size * NTAGS; i++)
            last[i] = -1;
        long sum = 0;
        for (int n = 0; n < (size - 1) * PER_SENDER; n++) {
            int msg[2];
            MPI_Status st;
            int tag = n % 5 == 0 ? 2 : MPI_ANY_TAG; /* sometimes only tag 2 */
            MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st);
            if (st.MPI_SOURCE != msg[0] || st.MPI_TAG != msg[1] % NTAGS) violations++;
            int *l = &last[st.MPI_SOURCE * NTAGS + st.MPI_TAG];
            if (msg[1] <= *l) violations++; /* overtaken */
            *l = msg[1];
            sum += msg[0] * 1000 + msg[1];
        }
        printf("received %d messages, sum %ld, order violations %d\n", (size - 1) * PER_SENDER, sum,
               violations);
        free(last);
    }
    MPI_Finalize();
    return 0;
}
