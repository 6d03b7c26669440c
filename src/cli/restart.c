/* `mpcr restart DIR`: resumes the process from the newest complete image in
 * DIR, with this command's stdin, stdout and stderr, and coordinates it
 * further checkpoints go on numbering after the last one). */
#include <stdio.h>
#include <string.h>

#include "ckpt_common.h"
#include "cli.h"

int cmd_restart(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[argc - 1] : MPCR_DEFAULT_CKPT_DIR;
    for (int i = 1; i < argc - 1; i++)
        if (strcmp(argv[i], "--no-mpi")) {
            mpcr_err("usage: mpcr restart [--no-mpi] DIR");
            return 2;
        }
    unsigned long newest, highest;
    int rc = mpcr_gen_scan(dir, &newest, &highest);
    if (rc || !newest) {
        mpcr_err("no complete checkpoint in %s%s", dir, rc ? " (cannot read the directory)" : "");
        return 1;
    }
    struct mpcr_coord c;
    if (mpcr_open_coord(&c, dir)) return 1;
    char restorer[4200], image[4200];
    snprintf(restorer, sizeof restorer, "%s/../libexec/mpcr/mpcr-restore", mpcr_self_dir());
    snprintf(image, sizeof image, "%s/gen-%lu/rank-0.img", c.dir, newest);
    char *args[] = {restorer, image, NULL};
    pid_t child = mpcr_spawn(args, &c, 0);
    if (child < 0) {
        mpcr_err("cannot start the restorer %s", restorer);
        mpcr_coord_close(&c);
        return 1;
    }
    return mpcr_supervise(&c, child, "the restarted process");
}
