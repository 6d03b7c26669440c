/* The environmental and bookkeeping calls, and the non-blocking ones:
 * Initialized/Finalized, thread levels, Wtime/Wtick, versions, processor
 * name, MPI_TAG_UB, MPI_COMM_SELF, Isend/Irecv/Test/Wait, Ssend, Barrier,
 * an Iprobe with nothing pending. With "stdin" as argument rank 0 also
 * echoes its standard input. */
#include "out.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child")) {
        const char *lp = getenv("LD_LIBRARY_PATH");
        printf("child: channel variable unset %d, library path without mpcr %d\n",
               getenv("MPCR_CHANNEL_FD") == NULL, !lp || !strstr(lp, "lib/mpcr"));
        return 0;
    }
    int flag, provided, rank, size, v, sv;
    MPI_Initialized(&flag);
    out("initialized before: %d\n", flag);
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Initialized(&flag);
    if (rank == 0) {
        int q, main_thread;
        MPI_Query_thread(&q);
        MPI_Is_thread_main(&main_thread);
        out("initialized after: %d, provided funneled: %d, query agrees: %d, main: %d\n", flag,
            provided == MPI_THREAD_FUNNELED, q == provided, main_thread);
        MPI_Get_version(&v, &sv);
        out("MPI %d.%d\n", v, sv);
        double t0 = MPI_Wtime(), tick = MPI_Wtick();
        usleep(20000);
        double dt = MPI_Wtime() - t0;
        out("wtime advances: %d, tick sane: %d\n", dt > 0.015 && dt<5, tick> 0 && tick < 0.01);
        char name[MPI_MAX_PROCESSOR_NAME], host[256];
        int len;
        MPI_Get_processor_name(name, &len);
        gethostname(host, sizeof host);
        out("processor name is host name: %d (length ok %d)\n", !strcmp(name, host),
            len == (int)strlen(name));
        char lib[MPI_MAX_LIBRARY_VERSION_STRING];
        MPI_Get_library_version(lib, &len);
        out("library version non-empty: %d\n", len > 0 && len == (int)strlen(lib));
        int *tag_ub;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag);
        out("tag_ub >= 32767: %d\n", flag && *tag_ub >= 32767);
        int self_size, self_rank;
        MPI_Comm_size(MPI_COMM_SELF, &self_size);
        MPI_Comm_rank(MPI_COMM_SELF, &self_rank);
        out("self: size %d rank %d\n", self_size, self_rank);
        MPI_Iprobe(MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        out("iprobe with nothing pending: %d\n", flag);
        /* A message to oneself over MPI_COMM_SELF. */
        int x = 42, y = 0;
        MPI_Request rq;
        MPI_Irecv(&y, 1, MPI_INT, 0, 3, MPI_COMM_SELF, &rq);
        MPI_Send(&x, 1, MPI_INT, 0, 3, MPI_COMM_SELF);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        out("self message: %d, request null after wait: %d\n", y, rq == MPI_REQUEST_NULL);
        MPI_Status empty;
        MPI_Wait(&rq, &empty); /* on MPI_REQUEST_NULL: returns at once, empty status */
        int n;
        MPI_Get_count(&empty, MPI_INT, &n);
        out("wait on null: source ANY %d, tag ANY %d, count %d\n",
            empty.MPI_SOURCE == MPI_ANY_SOURCE, empty.MPI_TAG == MPI_ANY_TAG, n);
        char odd[5] = "abcd", odd_in[5];
        MPI_Irecv(odd_in, 5, MPI_CHAR, 0, 4, MPI_COMM_SELF, &rq); /* a blocking send to oneself */
        MPI_Send(odd, 5, MPI_CHAR, 0, 4, MPI_COMM_SELF);          /* may wait for the receive */
        MPI_Wait(&rq, &empty);
        MPI_Get_count(&empty, MPI_INT, &n);
        out("5 bytes as MPI_INT: count is MPI_UNDEFINED %d\n", n == MPI_UNDEFINED);
        /* A program started from a rank is not a rank of the job. */
        char cmd[4200];
        snprintf(cmd, sizeof cmd, "%s child", argv[0]);
        fflush(stdout);
        if (system(cmd) != 0) out("child failed\n");
    }
    /* Non-blocking exchange between neighbours, completed with Test loops and Wait. */
    int next = (rank + 1) % size, prev = (rank + size - 1) % size, out[64], in[64];
    for (int i = 0; i < 64; i++)
        out[i] = rank * 1000 + i;
    MPI_Request rr, rs;
    MPI_Irecv(in, 64, MPI_INT, prev, 9, MPI_COMM_WORLD, &rr);
    MPI_Isend(out, 64, MPI_INT, next, 9, MPI_COMM_WORLD, &rs);
    int done = 0;
    MPI_Status st;
    while (!done)
        MPI_Test(&rr, &done, &st);
    MPI_Wait(&rs, MPI_STATUS_IGNORE);
    int ok = st.MPI_SOURCE == prev && st.MPI_TAG == 9;
    for (int i = 0; i < 64; i++)
        ok &= in[i] == prev * 1000 + i;
    out("rank %d: non-blocking exchange %s\n", rank, ok ? "ok" : "WRONG");
    /* Synchronous send: completes only once the receive has started. */
    if (size > 1 && rank == 0) MPI_Ssend(out, 4, MPI_INT, 1, 10, MPI_COMM_WORLD);
    if (rank == 1) MPI_Recv(in, 4, MPI_INT, 0, 10, MPI_COMM_WORLD, &st);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && argc > 1 && !strcmp(argv[1], "stdin")) {
        char line[256];
        while (fgets(line, sizeof line, stdin))
            out("stdin: %s", line);
    }
    out_flush();
    MPI_Finalize();
    MPI_Finalized(&flag);
    if (rank == 0) { /* one write: the other ranks' lines may be on their way */
        char line[32];
        int n = snprintf(line, sizeof line, "finalized: %d\n", flag);
        if (write(1, line, (size_t)n) != n) perror("write");
    }
    return 0;
}
