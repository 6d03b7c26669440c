/* What an MPI launcher (srun, mpiexec.mpich, mpirun.openmpi) tells each
 * rank it starts under `mpcr exec`, read from the environment it gives:
 * the rank and the job's size, the MPI its proxy needs, an identity shared
 * by the ranks of one launch, whether the job spans hosts, and where the
 * launcher runs. docs/batch-systems.md, "How a rank finds its place". */
#ifndef MPCR_CLI_LAUNCH_H
#define MPCR_CLI_LAUNCH_H

#include <stddef.h>

struct mpcr_launch {
    int rank, size;
    int one_host;      /* the launcher says every rank runs on this host */
    const char *mpi;   /* the proxy its launcher's MPI needs */
    char key[160];     /* the same on every rank of one launch, another on the next one */
    char launcher[80]; /* the launcher's host (address or name) as its ranks reach it; "" */
};

/* Fills l from the environment; mpi_opt (may be NULL) overrides the MPI.
 * Returns 0, or -1 after saying why. */
int mpcr_find_launch(struct mpcr_launch *l, const char *mpi_opt);

/* The IPv4 address (dotted, in ip) on which rank 0's coordinator listens:
 * MPCR_EXEC_LISTEN if set; 127.0.0.1 when every rank runs on this host;
 * else this host's address on its way to the launcher's host (which the
 * launcher's daemons on every host of the job reached), or failing that
 * its first non-loopback address. Returns 0, or -1 after saying why. */
int mpcr_launch_listen_ip(const struct mpcr_launch *l, char *ip, size_t cap);

#endif
