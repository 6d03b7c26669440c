/* `mpcr status [--json] [DIR]`: whether a process runs with DIR (and its
 * pid), and DIR's newest complete checkpoint; --json: status_json.c. */
#include <stdio.h>
#include <string.h>

#include "ckpt_common.h"
#include "cli.h"

int cmd_status(int argc, char **argv)
{
    const char *dir = MPCR_DEFAULT_CKPT_DIR;
    int json = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) json = 1;
        else if (argv[i][0] == '-') {
            mpcr_err("usage: mpcr status [--json] [DIR]");
            return 2;
        } else dir = argv[i];
    }
    if (json) return mpcr_status_json(dir);
    char reply[1024];
    int running = mpcr_coord_ask(dir, "status", reply, sizeof reply) == 0;
    unsigned long newest = 0, highest = 0;
    if (mpcr_gen_scan(dir, &newest, &highest) && !running) {
        mpcr_err("%s is not a checkpoint directory", dir);
        return 1;
    }
    if (running) {
        printf("%s: %s\n", dir, reply);
    } else if (newest) {
        printf("%s: no process running; newest complete checkpoint gen-%lu (mpcr restart %s)\n", dir, newest, dir);
    } else {
        printf("%s: no process running; no complete checkpoint\n", dir);
    }
    return 0;
}
