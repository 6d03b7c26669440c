/* `mpcr status [DIR]`: whether a process runs with DIR, and DIR's newest
 * complete checkpoint. */
#include <stdio.h>

#include "ckpt_common.h"
#include "cli.h"

int cmd_status(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[argc - 1] : MPCR_DEFAULT_CKPT_DIR;
    char reply[1024];
    if (mpcr_coord_ask(dir, "status", reply, sizeof reply) == 0) {
        printf("%s: %s\n", dir, reply);
        return 0;
    }
    unsigned long newest, highest;
    if (mpcr_gen_scan(dir, &newest, &highest)) {
        mpcr_err("%s is not a checkpoint directory", dir);
        return 1;
    }
    if (newest) printf("%s: no process running; newest complete checkpoint gen-%lu (mpcr restart %s)\n", dir, newest, dir);
    else printf("%s: no process running; no complete checkpoint\n", dir);
    return 0;
}
