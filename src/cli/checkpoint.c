/* `mpcr checkpoint [--exit] [DIR]`: asks the coordinator of DIR for a
 * checkpoint and waits until the image is complete (with --exit, the process
 * then ends). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ckpt_common.h"
#include "cli.h"
#include "image.h"

/* How rank 0's image of the generation in `where` was written: an increment
 * (and on which generations) or a full image, and why (docs/incremental.md). */
static void say_mode(const char *where)
{
    static const char *const why[MPCR_FULL_COUNT] = {
        "", "increments are off (--full-every 1, MPCR_INCR=0)",
        "this kernel offers no change tracking (userfaultfd with asynchronous write-protection and PAGEMAP_SCAN, "
        "Linux 6.7+)",
        "the first one tracked (of this run, or since a restart)", "the chain reached --full-every",
        "a generation of the chain is missing or incomplete",
        "the scan for changed pages failed (tracking starts over with this image)"};
    char path[4200];
    struct mpcr_img_header h;
    snprintf(path, sizeof path, "%s/rank-0.img", where);
    FILE *f = fopen(path, "rb");
    int ok = f && fread(&h, sizeof h, 1, f) == 1 && !memcmp(h.magic, MPCR_IMG_MAGIC, 8) &&
             h.version == MPCR_IMG_VERSION && h.why_full < MPCR_FULL_COUNT && h.chain_len <= MPCR_MAX_CHAIN;
    if (f) fclose(f);
    if (!ok) return;
    if (h.chain_len)
        fprintf(stderr, "mpcr: (an increment: pages not written since gen-%llu are in gen-%llu..gen-%llu; "
                        "changes found by userfaultfd write-protection)\n",
                (unsigned long long)h.chain[h.chain_len - 1], (unsigned long long)h.chain[0],
                (unsigned long long)h.chain[h.chain_len - 1]);
    else
        fprintf(stderr, "mpcr: (a full image: %s)\n", why[h.why_full]);
}

int cmd_checkpoint(int argc, char **argv)
{
    const char *dir = MPCR_DEFAULT_CKPT_DIR;
    int quit = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--exit"))
            quit = 1;
        else if (argv[i][0] == '-') {
            mpcr_err("usage: mpcr checkpoint [--exit] [DIR]");
            return 2;
        } else
            dir = argv[i];
    }
    int fd = mpcr_coord_request(dir, quit ? "checkpoint exit" : "checkpoint");
    if (fd < 0) {
        mpcr_err("nothing is running with checkpoint directory %s (%s); start a job with "
                 "mpcr run --ckpt-dir %s (or mpcr run --no-mpi --ckpt-dir %s)",
                 dir, strerror(-fd), dir, dir);
        return 1;
    }
    char reply[1024];
    /* An MPI job's coordinator reports progress lines before the answer. */
    while (mpcr_coord_read_line(fd, reply, sizeof reply) > 0 && !strncmp(reply, "progress ", 9))
        fprintf(stderr, "mpcr: checkpoint: %s\n", reply + 9);
    close(fd);
    if (strncmp(reply, "ok ", 3)) {
        mpcr_err("checkpoint failed: %s", !reply[0] ? "the coordinator ended without an answer (it died, or its job ended as the request came); no checkpoint was taken"
                                          : strncmp(reply, "error ", 6) ? reply
                                                                        : reply + 6);
        return 1;
    }
    char where[4096];
    unsigned long long bytes = 0;
    double ms = 0, stop, drain, images, resume;
    if (sscanf(reply + 3, "%4095s %llu %lf", where, &bytes, &ms) == 3)
        fprintf(stderr, "mpcr: checkpoint written to %s: %.1f MiB in %.0f ms\n", where,
                (double)bytes / 1048576.0, ms), say_mode(where);
    /* An MPI job's coordinator says how the time went. */
    int k = sscanf(reply + 3, "%*s %*u %*f stop %lf drain %lf images %lf resume %lf", &stop, &drain,
                   &images, &resume);
    double stopped;
    if (sscanf(reply + 3, "%*s %*u %*f forked %lf", &stopped) == 1)
        fprintf(stderr, "mpcr: (written by a forked copy; the process was stopped %.0f ms)\n", stopped);
    double snaps;
    if (sscanf(reply + 3, "%*s %*u %*f stop %lf drain %lf images %lf snapshots %lf resume %lf", &stop, &drain,
               &images, &snaps, &resume) == 5) {
        fprintf(stderr, "mpcr: (stop %.0f ms, drain %.0f ms, images %.0f ms, resume %.0f ms)\n", stop, drain,
                images, resume);
        fprintf(stderr, "mpcr: (forked copies wrote the images; the ranks went on after %.0f ms)\n", stop + drain + snaps);
    } else if (k == 4)
        fprintf(stderr, "mpcr: (stop %.0f ms, drain %.0f ms, images %.0f ms, resume %.0f ms)\n",
                stop, drain, images, resume);
    else if (k == 3)
        fprintf(stderr, "mpcr: (stop %.0f ms, drain %.0f ms, images %.0f ms)\n", stop, drain,
                images);
    if (quit)
        fprintf(stderr, "mpcr: the %s has ended\n", strstr(reply, " stop ") ? "job" : "process");
    return 0;
}
