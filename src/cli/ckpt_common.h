/* Helpers shared by the engine's subcommands (run --no-mpi, checkpoint,
 * restart, status): the checkpoint directory and the engine's files. */
#ifndef MPCR_CLI_CKPT_COMMON_H
#define MPCR_CLI_CKPT_COMMON_H

#include <sys/types.h>

#include "coord.h"

#define MPCR_DEFAULT_CKPT_DIR "mpcr-ckpt"

/* Starts `argv` as a child with the engine's environment (LD_PRELOAD when
 * `preload`), descriptors above 2 closed; returns its pid or -errno. */
pid_t mpcr_spawn(char *const argv[], const struct mpcr_coord *c, int preload);

/* Runs the coordinator until `child` ends; returns the exit status for `mpcr`. */
int mpcr_supervise(struct mpcr_coord *c, pid_t child, const char *what);

/* Opens the coordinator on `dir`, printing an error and returning -1 on failure. */
int mpcr_open_coord(struct mpcr_coord *c, const char *dir);

/* Runs an MPI job: mpiexec -n N mpcr-proxy-MPI PROXY_ARGS (NULL-ended), with
 * `c` (if not NULL) as its coordinator; returns the exit status for `mpcr`. */
int mpcr_run_job(const char *mpi, int nranks, char *const proxy_args[], struct mpcr_coord *c);

/* For a job whose coordinator is `mpcr coordinator --listen ADDR` (several
 * hosts): sets the environment its proxies and engines need (address,
 * secret read from DIR/coord.secret, DIR). 0, or -1 after an error message. */
int mpcr_use_coordinator(const char *addr, const char *dir);

#endif
