/* `mpcr coordinator --listen ADDR:PORT -n N [--ckpt-dir DIR] [--interval T]
 * [--keep K]`: the coordinator of an MPI job whose ranks run on several
 * hosts. It listens on TCP for the proxies and the programs' engines (they
 * open every connection with the job's secret, which it writes to
 * DIR/coord.secret: DIR must be shared by the hosts, as the images are
 * written there), and on DIR/coord.sock for `mpcr checkpoint` and `mpcr
 * status` on this host. The job is started with `mpcr run --coordinator
 * ADDR:PORT --ckpt-dir DIR` (or restarted with `mpcr restart --coordinator
 * ADDR:PORT DIR`); the coordinator ends when every rank has come and gone. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_common.h"
#include "cli.h"
#include "option_value.h"
#include "signal_option.h"

static int usage(void)
{
    mpcr_err("usage: mpcr coordinator --listen A.B.C.D:PORT -n N [--ckpt-dir DIR] [--interval T] "
             "[--keep K] [--mpi MPI]\n"
             "                        [--checkpoint-signal SIG] [--exit-signal SIG]");
    return 2;
}

int cmd_coordinator(int argc, char **argv)
{
    const char *listen = NULL, *dir = MPCR_DEFAULT_CKPT_DIR, *mpi = "mpich";
    int n = 0, keep = 2, quiet = 0;
    double interval = 0;
    struct mpcr_signals sigs;
    mpcr_signals_init(&sigs);
    for (int i = 1; i < argc; i++) {
        int taken = mpcr_signal_option(&sigs, argv[i], i + 1 < argc ? argv[i + 1] : NULL);
        if (taken < 0) return usage();
        if (taken)
            i++;
        else if (!strcmp(argv[i], "--listen") && i + 1 < argc)
            listen = argv[++i];
        else if (!strcmp(argv[i], "-n") && i + 1 < argc) {
            long v;
            if (mpcr_opt_count("coordinator", "-n", argv[++i], INT_MAX, &v)) return usage();
            n = (int)v;
        }
        else if (!strcmp(argv[i], "--ckpt-dir") && i + 1 < argc)
            dir = argv[++i];
        else if (!strcmp(argv[i], "--interval") && i + 1 < argc) {
            if (mpcr_opt_seconds("coordinator", "--interval", argv[++i], &interval)) return usage();
        } else if (!strcmp(argv[i], "--keep") && i + 1 < argc) {
            long v;
            if (mpcr_opt_count("coordinator", "--keep", argv[++i], MPCR_MAX_KEEP, &v)) return usage();
            keep = (int)v;
        }
        else if (!strcmp(argv[i], "--quiet")) /* started by `mpcr exec`: no how-to */
            quiet = 1;
        else if (!strcmp(argv[i], "--mpi") && i + 1 < argc)
            mpi = argv[++i]; /* the manifest's default for restarts */
        else
            return usage();
    }
    if (!listen || n <= 0 || keep <= 0 || interval < 0 || mpcr_signals_check(&sigs)) return usage();
    struct mpcr_coord c;
    if (mpcr_open_coord(&c, dir)) return 1;
    c.interval = interval, c.keep = keep, c.mpi = mpi;
    c.checkpoint_signal = sigs.checkpoint, c.exit_signal = sigs.exit;
    int rc = mpcr_coord_listen_tcp(&c, listen);
    if (rc) {
        mpcr_err(
            "coordinator: cannot listen on %s: %s (give a numeric IPv4 address and a free port)",
            listen, strerror(-rc));
        mpcr_coord_close(&c);
        return 1;
    }
    if (!quiet)
        fprintf(stderr,
                "mpcr: coordinator of %d ranks on tcp:%s, directory %s; start the job with\n"
                "mpcr:   mpcr run -n %d --coordinator %s --ckpt-dir %s PROGRAM ARGS...\n",
                n, listen, c.dir, n, listen, c.dir);
    mpcr_job_serve(&c, n, 0, -1, NULL);
    return 0;
}
