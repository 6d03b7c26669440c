/* `mpcr run --no-mpi [--ckpt-dir DIR] [--interval T] [--keep K] [--full-every N] [--] PROGRAM ARGS`:
 * runs any dynamically linked program with the checkpoint engine preloaded,
 * and serves as its coordinator until it ends. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_common.h"
#include "cli.h"
#include "option_value.h"

static int usage(void)
{
    mpcr_err("usage: mpcr run --no-mpi [--ckpt-dir DIR] [--interval SECONDS] [--keep K] [--full-every N] [--] PROGRAM ARGS...");
    return 2;
}

int cmd_run_no_mpi(int argc, char **argv)
{
    const char *dir = MPCR_DEFAULT_CKPT_DIR;
    double interval = 0;
    int keep = 2, i;
    for (i = 1; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        if (!strcmp(argv[i], "--no-mpi")) continue;
        if (i + 1 >= argc) return usage();
        if (!strcmp(argv[i], "--ckpt-dir")) dir = argv[++i];
        else if (!strcmp(argv[i], "--interval")) {
            if (mpcr_opt_seconds("run", "--interval", argv[++i], &interval)) return usage();
        } else if (!strcmp(argv[i], "--keep")) {
            long k;
            if (mpcr_opt_count("run", "--keep", argv[++i], MPCR_MAX_KEEP, &k)) return usage();
            keep = (int)k;
        } else if (!strcmp(argv[i], "--full-every")) {
            if (mpcr_opt_full_every("run", argv[++i])) return usage();
        } else return usage();
    }
    if (i >= argc) return usage();
    int runnable = mpcr_program_runnable("run", argv[i]);
    if (runnable) return runnable;
    struct mpcr_coord c;
    if (mpcr_open_coord(&c, dir)) return 1;
    c.interval = interval;
    c.keep = keep;
    pid_t child = mpcr_spawn(argv + i, &c, 1);
    if (child < 0) {
        mpcr_err("cannot start %s: the engine library is missing next to mpcr (%s/../lib/mpcr)", argv[i], mpcr_self_dir());
        mpcr_coord_close(&c);
        return 1;
    }
    return mpcr_supervise(&c, child, argv[i]);
}
