/* Fuzz target: the manifest parser (mpcr_manifest_read) and the image and
 * state-file identity readers (mpcr_file_identity), on bytes written to a
 * scratch generation directory. The first byte picks the reader. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding.h"

static char dir[64], gen_dir[96];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/dev/shm/mpcr-fuzz-%d", (int)getpid());
        snprintf(gen_dir, sizeof gen_dir, "%s/gen-1", dir);
        mkdir(dir, 0700);
        mkdir(gen_dir, 0700);
    }
    if (!size) return 0;
    static const char *const names[] = {"manifest", "rank-0.img", "rank-0.state"};
    int which = data[0] % 3;
    char path[160], why[4600];
    snprintf(path, sizeof path, "%s/%s", gen_dir, names[which]);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    if (which == 0) {
        struct mpcr_manifest m;
        if (!mpcr_manifest_read(dir, 1, &m, why, sizeof why)) {
            /* what was accepted is consistent */
            if (m.nranks <= 0 || m.nranks > MPCR_MANIFEST_MAX_RANKS || m.gen != 1) abort();
            mpcr_manifest_free(&m);
        }
    } else {
        struct mpcr_file_id id;
        mpcr_file_identity(path, which == 2, &id, why, sizeof why);
    }
    unlink(path);
    return 0;
}
