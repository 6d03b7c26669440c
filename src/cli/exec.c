/* `mpcr exec`: one rank of an MPI job whose launcher starts mpcr on every
 * rank (srun, mpiexec.mpich, mpirun.openmpi, with their own options):
 *
 *   LAUNCHER -n N mpcr exec [--ckpt-dir DIR] [--coordinator A:P] [--mpi M] PROGRAM ARGS
 *   LAUNCHER -n N mpcr exec --restart DIR | --restart-if-any DIR [PROGRAM ARGS]
 *
 * Each rank reads its rank and size from the launcher's environment and
 * becomes that rank's proxy (it execs mpcr-proxy-MPI, with the environment
 * `mpcr run` gives it). With a checkpoint directory and no --coordinator,
 * rank 0 starts the job's coordinator (`mpcr coordinator`, a process of its
 * own on rank 0's host, on 127.0.0.1 or, when the ranks run on several
 * hosts, on an address they reach: launch.h) and writes DIR/coord.launch:
 * the coordinator's address, the launch's identity and the generation
 * restarted; the other ranks wait for the file of their own launch. */
#include <errno.h>
#include <limits.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>

#include "abi_check.h"
#include "atomic_file.h"
#include "binding.h"
#include "ckpt_common.h"
#include "cli.h"
#include "clock.h"
#include "launch.h"
#include "path.h"
#include "signal_option.h"
#include "private.h"

#define LAUNCH_FILE "coord.launch"

static int usage(void)
{
    mpcr_err("usage: LAUNCHER -n N mpcr exec [--ckpt-dir DIR [--interval T] [--keep K]] "
             "[--coordinator A.B.C.D:PORT --ckpt-dir DIR] [--mpi mpich|openmpi]\n"
             "           [--checkpoint-signal SIG] [--exit-signal SIG] [--profile PDIR] PROGRAM ARGS...\n"
             "       LAUNCHER -n N mpcr exec [--mpi M] --restart DIR\n"
             "       LAUNCHER -n N mpcr exec [--mpi M] --restart-if-any DIR PROGRAM ARGS...");
    return 2;
}

/* A TCP port of address ip free at this moment (the coordinator binds it
 * next; if someone else took it meanwhile, it fails and another is tried). */
static int free_port(const char *ip)
{
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = -1;
    if (inet_pton(AF_INET, ip, &a.sin_addr) == 1 && fd >= 0 &&
        !bind(fd, (struct sockaddr *)&a, sizeof a) &&
        !getsockname(fd, (struct sockaddr *)&a, &len))
        port = ntohs(a.sin_port);
    if (fd >= 0) close(fd);
    return port;
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&t, NULL);
}

/* How long ranks wait for the coordinator (MPCR_EXEC_WAIT seconds, 120). */
static double wait_limit(void)
{
    const char *s = getenv("MPCR_EXEC_WAIT");
    double v = s ? atof(s) : 0;
    return v > 0 ? v : 120;
}

struct job_options {
    const char *dir, *interval, *keep;
    struct mpcr_signals sigs;
};

/* Rank 0: starts `mpcr coordinator` for the job (a session of its own: it
 * outlives this process, which becomes the proxy, and ends when every rank
 * has come and gone) and waits until it answers; its address in addr. */
static int start_coordinator(const struct mpcr_launch *l, const struct job_options *o, char *addr,
                             size_t cap)
{
    char mpcr[PATH_MAX], nranks[16], ip[INET_ADDRSTRLEN];
    if (mpcr_launch_listen_ip(l, ip, sizeof ip)) return -1;
    if (mpcr_sibling(mpcr, sizeof mpcr, "mpcr")) return -1;
    snprintf(nranks, sizeof nranks, "%d", l->size);
    double deadline = mpcr_now_s() + wait_limit();
    char reply[64];
    /* the coordinator of the job before may still be ending (a restart right
     * after a checkpoint --exit): its pong must not be taken for ours */
    while (!mpcr_coord_ask(o->dir, "ping", reply, sizeof reply) && mpcr_now_s() < deadline)
        sleep_ms(100);
    for (int attempt = 0; mpcr_now_s() < deadline; attempt++) {
        int port = free_port(ip);
        if (port < 0) {
            mpcr_err("exec: no free TCP port on %s for the coordinator: %s", ip, strerror(errno));
            return -1;
        }
        snprintf(addr, cap, "%s:%d", ip, port);
        char *argv[20] = {mpcr,   "coordinator", "--quiet",      "--listen", addr,          "-n",
                          nranks, "--ckpt-dir",  (char *)o->dir, "--mpi",    (char *)l->mpi};
        int k = 11;
        char num[2][16];
        mpcr_signals_argv(&o->sigs, argv, &k, num);
        if (o->interval) argv[k++] = "--interval", argv[k++] = (char *)o->interval;
        if (o->keep) argv[k++] = "--keep", argv[k++] = (char *)o->keep;
        pid_t pid = fork();
        if (pid < 0) return -1;
        if (pid == 0) {
            setsid(); /* the launcher's signals to the ranks' group are the job's to pass */
            int null = open("/dev/null", O_RDWR);
            dup2(null, 0), dup2(null, 1);
            syscall(SYS_close_range, 3, ~0u, 0);
            execv(mpcr, argv);
            fprintf(stderr, "mpcr: exec: cannot start %s: %s\n", mpcr, strerror(errno));
            _exit(127);
        }
        int status;
        while (mpcr_now_s() < deadline) {
            if (!mpcr_coord_ask(o->dir, "ping", reply, sizeof reply) && !strncmp(reply, "pong", 4))
                return 0;
            if (waitpid(pid, &status, WNOHANG) == pid) break; /* it said why on stderr */
            sleep_ms(50);
        }
        if (attempt == 4) break;
    }
    mpcr_err("exec: the coordinator for %s did not start (its messages are above); is another "
             "job using this checkpoint directory?",
             o->dir);
    return -1;
}

/* Rank 0: DIR/coord.launch, written whole (others never see half of it). */
static int write_launch(const char *dir, const char *addr, const char *key, unsigned long gen)
{
    char path[PATH_MAX], text[512];
    int n = snprintf(text, sizeof text, "addr %s\ngen %lu\nkey %s\n", addr, gen, key);
    int rc = mpcr_path_join(path, sizeof path, dir, LAUNCH_FILE);
    if (!rc) rc = mpcr_atomic_write_file(path, text, (size_t)n, 0600);
    if (rc) {
        mpcr_err("exec: cannot write %s/%s: %s", dir, LAUNCH_FILE, strerror(-rc));
        return -1;
    }
    return 0;
}

/* The other ranks: waits for DIR/coord.launch of this launch (a file of an
 * earlier launch names another key) and reads it. */
static int read_launch(const char *dir, const char *key, char *addr, size_t cap, unsigned long *gen)
{
    char path[PATH_MAX], why[MPCR_WHY_MAX] = "";
    if (mpcr_path_join(path, sizeof path, dir, LAUNCH_FILE)) {
        mpcr_err("exec: the checkpoint directory's name is too long: %s", dir);
        return -1;
    }
    double deadline = mpcr_now_s() + wait_limit();
    while (mpcr_now_s() < deadline) {
        FILE *f = mpcr_check_private(path, S_IFREG, why, sizeof why) ? NULL : fopen(path, "r");
        char a[128] = "", k[160] = "";
        int ok = f && fscanf(f, "addr %127s gen %lu key %159[^\n]", a, gen, k) == 3;
        if (f) fclose(f);
        if (ok && !strcmp(k, key)) {
            snprintf(addr, cap, "%s", a);
            return 0;
        }
        sleep_ms(100);
    }
    mpcr_err("exec: no coordinator for this launch (%s) in %s after %.0f s%s%s: did rank 0 start "
             "(its messages say why not)? All ranks need the same --ckpt-dir, shared by their "
             "hosts; MPCR_EXEC_WAIT sets the wait",
             key, path, wait_limit(), why[0] ? "; " : "", why);
    return -1;
}

static int exec_proxy(const struct mpcr_launch *l, char *const tail[])
{
    char proxy[PATH_MAX], rel[64];
    snprintf(rel, sizeof rel, "../libexec/mpcr/mpcr-proxy-%s", l->mpi);
    if (mpcr_sibling(proxy, sizeof proxy, rel)) return 1;
    int n = 0;
    while (tail[n])
        n++;
    char **argv = calloc((size_t)n + 2, sizeof *argv);
    if (!argv) return 1;
    argv[0] = proxy;
    memcpy(argv + 1, tail, (size_t)n * sizeof *argv);
    execv(proxy, argv);
    mpcr_err("exec: cannot start the proxy %s: %s; is mpcr installed completely (Open MPI's "
             "needs libopenmpi-dev at build time)?",
             proxy, strerror(errno));
    return 1;
}

/* Rank 0 of a restart: the generation's files checked as `mpcr restart`
 * checks them, and its rank count against the launch's. */
static int check_generation(const char *dir, unsigned long gen, int size)
{
    char abs[PATH_MAX], why[MPCR_WHY_MAX];
    struct mpcr_manifest m;
    if (!realpath(dir, abs) || mpcr_generation_verify(abs, gen, &m, why, sizeof why)) {
        mpcr_err("exec: refusing %s/gen-%lu: %s", dir, gen, why);
        return -1;
    }
    int nranks = m.nranks, mpi = m.mpi[0] != 0;
    mpcr_manifest_free(&m);
    if (!mpi || nranks != size) {
        mpcr_err("exec: the job in %s/gen-%lu has %d ranks (%s); the launcher started %d", dir, gen,
                 nranks, mpi ? "MPI" : "one process without MPI", size);
        return -1;
    }
    return 0;
}

int cmd_exec(int argc, char **argv)
{
    const char *mpi_opt = NULL, *coord_addr = NULL, *restart = NULL, *profile = NULL;
    struct job_options o = {0};
    mpcr_signals_init(&o.sigs);
    int if_any = 0, i = 1, taken;
    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (i + 1 >= argc) return usage();
        if ((taken = mpcr_signal_option(&o.sigs, a, argv[i + 1])))
            i++;
        if (taken < 0) return usage();
        if (taken) continue;
        if (!strcmp(a, "--ckpt-dir"))
            o.dir = argv[++i];
        else if (!strcmp(a, "--coordinator"))
            coord_addr = argv[++i];
        else if (!strcmp(a, "--mpi"))
            mpi_opt = argv[++i];
        else if (!strcmp(a, "--profile"))
            profile = argv[++i];
        else if (!strcmp(a, "--interval"))
            o.interval = argv[++i];
        else if (!strcmp(a, "--keep"))
            o.keep = argv[++i];
        else if (!strcmp(a, "--restart") || !strcmp(a, "--restart-if-any")) {
            if_any = a[9] != 0;
            restart = o.dir = argv[++i];
        } else {
            mpcr_err("exec: unknown option '%s'", a);
            return usage();
        }
    }
    if (o.interval && !o.dir) o.dir = MPCR_DEFAULT_CKPT_DIR;
    if (coord_addr && (!o.dir || o.interval || o.keep)) {
        mpcr_err("exec: --coordinator needs --ckpt-dir (the coordinator's); --interval and --keep "
                 "belong to `mpcr coordinator`");
        return usage();
    }
    if (!restart && i >= argc) {
        mpcr_err("exec: no program given");
        return usage();
    }
    if (mpi_opt && strcmp(mpi_opt, "mpich") && strcmp(mpi_opt, "openmpi")) {
        mpcr_err("exec: --mpi %s is not supported (mpich or openmpi)", mpi_opt);
        return usage();
    }
    if (mpcr_signals_check(&o.sigs)) return usage();
    if (!o.dir && o.sigs.given) {
        mpcr_err("exec: --checkpoint-signal and --exit-signal need --ckpt-dir (or --restart)");
        return usage();
    }
    if (o.dir) { /* a scheduler may signal every process of the job, this one too, at once */
        mpcr_signals_ignore(&o.sigs);
        mpcr_signals_export(&o.sigs);
    }
    /* every rank makes the directory (the first wins) and its own file in it */
    if (!profile) profile = getenv("MPCR_PROFILE"); /* a batch script's */
    if (profile && *profile && mpcr_profile_prepare_rank("exec", profile)) return 1;
    struct mpcr_launch l;
    if (mpcr_find_launch(&l, mpi_opt)) return 1;
    unsigned long gen = 0, highest;
    if (restart && (l.rank == 0 || coord_addr)) {
        int rc = mpcr_gen_scan(restart, &gen, &highest);
        if ((rc || !gen) && !if_any) {
            mpcr_err("exec: no complete checkpoint in %s%s%s", restart, rc ? ": " : "",
                     rc ? strerror(-rc) : "");
            return 1;
        }
        if (rc && rc != -ENOENT) {
            if (if_any) mpcr_err("exec: cannot read %s: %s", restart, strerror(-rc));
            return 1;
        }
        if (l.rank == 0 && gen && check_generation(restart, gen, l.size)) return 1;
    }
    if ((!restart || (!gen && (l.rank == 0 || coord_addr))) && i >= argc) {
        mpcr_err("exec: no program given%s%s", restart ? ", and no complete generation in " : "",
                 restart ? restart : "");
        return usage();
    }
    /* Before the coordinator starts: a program built for another MPI is
     * refused by every rank; the first says why for all on one host. */
    char lib_dir[PATH_MAX];
    if (mpcr_sibling(lib_dir, sizeof lib_dir, "../lib/mpcr")) return 1;
    if (i < argc && !(restart && gen) && mpcr_abi_check(argv[i], lib_dir, l.rank && l.one_host))
        return MPCR_EXIT_FAILURE;
    char addr[128];
    if (o.dir) {
        if (coord_addr) {
            snprintf(addr, sizeof addr, "%s", coord_addr);
        } else if (l.rank == 0) {
            if (start_coordinator(&l, &o, addr, sizeof addr)) return 1;
            char abs[PATH_MAX];
            if (!realpath(o.dir, abs) || write_launch(abs, addr, l.key, gen)) return 1;
        } else if (read_launch(o.dir, l.key, addr, sizeof addr, &gen)) {
            return 1;
        }
        if (mpcr_use_coordinator(addr, o.dir)) return 1;
    }
    if (restart && gen) {
        char gdir[PATH_MAX];
        const char *dir = getenv("MPCR_CKPT_DIR");
        if (mpcr_path_printf(gdir, sizeof gdir, "%s/gen-%lu", dir ? dir : ".", gen)) {
            mpcr_err("exec: the path of gen-%lu in %s is too long", gen, dir ? dir : ".");
            return 1;
        }
        char *tail[] = {"--restore", gdir, NULL};
        return exec_proxy(&l, tail);
    }
    if (i >= argc) {
        mpcr_err("exec: %s has no complete generation and no program was given", o.dir);
        return usage();
    }
    char **tail = calloc((size_t)(argc - i) + 4, sizeof *tail);
    if (!tail) return 1;
    int k = 0;
    tail[k++] = "--lib-dir", tail[k++] = lib_dir, tail[k++] = "--";
    for (int j = i; j < argc; j++)
        tail[k++] = argv[j];
    return exec_proxy(&l, tail);
}
