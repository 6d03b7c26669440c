/* `mpcr checkpoint [--exit] [DIR]`: asks the coordinator of DIR for a
 * checkpoint and waits until the image is complete (with --exit, the process
 * then ends). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ckpt_common.h"
#include "cli.h"

int cmd_checkpoint(int argc, char **argv)
{
    const char *dir = MPCR_DEFAULT_CKPT_DIR;
    int quit = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--exit")) quit = 1;
        else if (argv[i][0] == '-') {
            mpcr_err("usage: mpcr checkpoint [--exit] [DIR]");
            return 2;
        } else dir = argv[i];
    }
    char reply[1024];
    int rc = mpcr_coord_ask(dir, quit ? "checkpoint exit" : "checkpoint", reply, sizeof reply);
    if (rc) {
        mpcr_err("no process is running with checkpoint directory %s (%s); start one with mpcr run --no-mpi --ckpt-dir %s",
                 dir, strerror(-rc), dir);
        return 1;
    }
    if (strncmp(reply, "ok ", 3)) {
        mpcr_err("checkpoint failed: %s", strncmp(reply, "error ", 6) ? reply : reply + 6);
        return 1;
    }
    char where[4096];
    unsigned long long bytes = 0;
    double ms = 0;
    if (sscanf(reply + 3, "%4095s %llu %lf", where, &bytes, &ms) == 3)
        fprintf(stderr, "mpcr: checkpoint written to %s: %.1f MiB in %.0f ms%s\n", where, (double)bytes / 1048576.0, ms,
                quit ? "; the process has ended" : "");
    return 0;
}
