/* `mpcr restart [-n N] [--mpi MPI] DIR`: resumes from the newest complete
 * generation in DIR, with this command's stdin, stdout and stderr, as the
 * coordinator of further checkpoints (numbered on after the last one).
 * An MPI job's images are all checked before anything starts. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binding.h"
#include "ckpt_common.h"
#include "cli.h"
#include "file_trust.h"
#include "option_value.h"
#include "path.h"
#include "signal_option.h"

static int usage(void)
{
    mpcr_err(
        "usage: mpcr restart [-n N] [--mpi mpich|openmpi] [--coordinator A.B.C.D:PORT]\n"
        "                    [--checkpoint-signal SIG] [--exit-signal SIG]\n"
        "                    [" MPCR_TRUST_OPTION "] DIR\n"
        "       mpcr restart --no-mpi DIR  (one process)");
    return 2;
}

/* Runs `mpcr-restore --check-layout` on every rank's image at once; 0 when
 * all pass (each failure prints the restorer's reason). That checks all but
 * the data's checksums, cheaply; each rank's restorer checks those in the one
 * pass that reads the data, before it changes anything (a damaged image then
 * ends the new job with the restorer's reason). */
static int check_images(const char *restorer, const char *gdir, int nranks)
{
    pid_t *pids = calloc((size_t)nranks, sizeof *pids);
    int *said = calloc((size_t)nranks, sizeof *said); /* the restorer's words, shown on failure */
    if (!pids || !said) return -1;
    int bad = 0;
    for (int r = 0; r < nranks; r++) {
        char image[PATH_MAX], state[PATH_MAX];
        if (mpcr_path_printf(image, sizeof image, "%s/rank-%d.img", gdir, r) ||
            mpcr_path_printf(state, sizeof state, "%s/rank-%d.state", gdir, r)) {
            mpcr_err("restart: rank %d's files have paths too long in %s", r, gdir);
            bad = 1;
            pids[r] = -1;
            continue;
        }
        if (access(image, R_OK) || access(state, R_OK)) {
            mpcr_err("restart: rank %d's %s is missing (%s): this generation cannot be restarted",
                     r, access(image, R_OK) ? image : state, strerror(errno));
            bad = 1;
            pids[r] = -1;
            continue;
        }
        int p[2];
        if (pipe(p)) return -1;
        pids[r] = fork();
        if (pids[r] == 0) {
            dup2(p[1], 2);
            execl(restorer, restorer, "--check-layout", image, (char *)NULL);
            _exit(127);
        }
        close(p[1]);
        said[r] = p[0];
    }
    for (int r = 0; r < nranks; r++) {
        int st;
        if (pids[r] <= 0) continue;
        char words[1024] = "";
        ssize_t len = read(said[r], words, sizeof words - 1);
        close(said[r]);
        if (waitpid(pids[r], &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
            if (len > 0) fprintf(stderr, "%.*s", (int)len, words);
            mpcr_err("restart: rank %d's image in %s cannot be restored", r, gdir);
            bad = 1;
        }
    }
    free(pids), free(said);
    return bad ? -1 : 0;
}

/* mpcr-restore beside this mpcr; 0, or -1 said. */
static int restorer_path(char *buf, size_t cap)
{
    return mpcr_sibling(buf, cap, "../libexec/mpcr/mpcr-restore");
}

static int restart_job(const char *dir, unsigned long gen, int nranks, const char *mpi,
                       const char *coord_addr, uint64_t job, const struct mpcr_signals *sigs)
{
    struct mpcr_coord c;
    if (coord_addr ? mpcr_use_coordinator(coord_addr, dir) : mpcr_open_coord(&c, dir)) return 1;
    if (!coord_addr) c.job_id = job; /* the restarted job is the same job */
    if (!coord_addr) c.checkpoint_signal = sigs->checkpoint, c.exit_signal = sigs->exit;
    mpcr_signals_export(sigs);
    char job_hex[32]; /* what the new proxies check their state files against */
    snprintf(job_hex, sizeof job_hex, "%016" PRIx64, job);
    setenv("MPCR_JOB_ID", job_hex, 1);
    char restorer[PATH_MAX], gdir[PATH_MAX];
    const char *base = coord_addr ? getenv("MPCR_CKPT_DIR") : c.dir;
    int bad = restorer_path(restorer, sizeof restorer);
    if (!bad && mpcr_path_printf(gdir, sizeof gdir, "%s/gen-%lu", base ? base : ".", gen)) {
        mpcr_err("restart: the path of gen-%lu in %s is too long", gen, base ? base : ".");
        bad = 1;
    }
    if (bad) {
        if (!coord_addr) mpcr_coord_close(&c);
        return 1;
    }
    if (check_images(restorer, gdir, nranks)) {
        if (!coord_addr) mpcr_coord_close(&c);
        return 1;
    }
    char *args[] = {"--restore", gdir, NULL};
    return mpcr_run_job(mpi, nranks, args, coord_addr ? NULL : &c);
}

static int restart_process(const char *dir, unsigned long gen, uint64_t job)
{
    struct mpcr_coord c;
    if (mpcr_open_coord(&c, dir)) return 1;
    c.job_id = job; /* the restarted process is the same job */
    char restorer[PATH_MAX], image[PATH_MAX];
    int bad = restorer_path(restorer, sizeof restorer);
    if (!bad && mpcr_path_printf(image, sizeof image, "%s/gen-%lu/rank-0.img", c.dir, gen)) {
        mpcr_err("restart: the path of gen-%lu/rank-0.img in %s is too long", gen, c.dir);
        bad = 1;
    }
    if (bad) {
        mpcr_coord_close(&c);
        return 1;
    }
    char *args[] = {restorer, image, NULL};
    pid_t child = mpcr_spawn(args, &c, 0);
    if (child < 0) {
        mpcr_err("cannot start the restorer %s", restorer);
        mpcr_coord_close(&c);
        return 1;
    }
    return mpcr_supervise(&c, child, "the restarted process");
}

int cmd_restart(int argc, char **argv)
{
    const char *dir = NULL, *mpi_opt = NULL, *coord_addr = NULL;
    int n = 0;
    struct mpcr_signals sigs;
    mpcr_signals_init(&sigs);
    for (int i = 1; i < argc; i++) {
        int taken = mpcr_signal_option(&sigs, argv[i], i + 1 < argc ? argv[i + 1] : NULL);
        if (taken < 0) return usage();
        if (taken) {
            i++;
            continue;
        }
        if (!strcmp(argv[i], "--no-mpi")) continue; /* decided by the manifest */
        if (!strcmp(argv[i], MPCR_TRUST_OPTION)) { /* for every restorer and restarted engine (file_trust.h) */
            setenv(MPCR_ENV_TRUST_OTHERS_FILES, "1", 1);
            continue;
        }
        if ((!strcmp(argv[i], "-n") || !strcmp(argv[i], "-np")) && i + 1 < argc) {
            long v;
            if (mpcr_opt_count("restart", "-n", argv[++i], INT_MAX, &v)) return usage();
            n = (int)v;
        } else if (!strcmp(argv[i], "--mpi") && i + 1 < argc) {
            mpi_opt = argv[++i];
        } else if (!strcmp(argv[i], "--coordinator") && i + 1 < argc) {
            coord_addr = argv[++i];
        } else if (argv[i][0] == '-' || dir) {
            return usage();
        } else {
            dir = argv[i];
        }
    }
    if (!dir) dir = MPCR_DEFAULT_CKPT_DIR;
    if (mpcr_signals_check(&sigs)) return usage();
    unsigned long newest, highest;
    int rc = mpcr_gen_scan(dir, &newest, &highest);
    if (rc == -ENOTDIR) {
        mpcr_err("restart: %s is a file, not a checkpoint directory; give the directory that holds "
                 "gen-K (mpcr-restore restores one image)", dir);
        return 1;
    }
    if (rc || !newest) {
        mpcr_err("no complete checkpoint in %s%s%s", dir, rc ? ": " : "", rc ? strerror(-rc) : "");
        return 1;
    }
    /* Owners, modes, the manifest, and every file's job, generation, rank,
     * size and checksum, before anything of it is used (binding.h). */
    char abs[PATH_MAX], why[MPCR_WHY_MAX];
    struct mpcr_manifest m;
    if (!realpath(dir, abs) || mpcr_generation_verify(abs, newest, &m, why, sizeof why)) {
        mpcr_err("restart: refusing gen-%lu: %s", newest, why);
        return 1;
    }
    int nranks = m.nranks;
    char mpi[32];
    snprintf(mpi, sizeof mpi, "%s", m.mpi);
    mpcr_manifest_free(&m);
    if (!mpi[0]) {
        if (n > 1) {
            mpcr_err("restart: %s holds one process, not an MPI job of %d ranks", dir, n);
            return 1;
        }
        return restart_process(dir, newest, m.job);
    }
    if (n && n != nranks) {
        mpcr_err("restart: the job in %s/gen-%lu has %d ranks; it cannot restart with -n %d", dir,
                 newest, nranks, n);
        return 1;
    }
    return restart_job(dir, newest, nranks, mpi_opt ? mpi_opt : mpi, coord_addr, m.job, &sigs);
}
