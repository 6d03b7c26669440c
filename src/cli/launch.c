/* A rank's place in a job started by an MPI launcher, read from the
 * environment the launcher gives it (launch.h), and the address on which
 * rank 0 offers the job's coordinator to the other ranks. */
#include "launch.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <limits.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli.h"
#include "proc_stat.h"

static int env_int(const char *name, int *v)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s) return 0;
    long x = strtol(s, &end, 10);
    if (*end || x < 0 || x > INT_MAX) return 0;
    *v = (int)x;
    return 1;
}

/* The start time (clock ticks since boot) of process pid, 0 if unknown. */
static unsigned long long start_time(pid_t pid)
{
    char buf[1024];
    const char *p = mpcr_proc_stat(pid, buf, sizeof buf); /* field 3, the state */
    unsigned long long t = 0;
    /* the space before field 4, ..., before field 22 (starttime) */
    for (int field = 4; field <= 22 && p; field++)
        p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL;
    if (p) sscanf(p, "%llu", &t);
    return t;
}

/* The argument after `option` on the command line of process pid, in
 * value; 0 if found. */
static int arg_of(pid_t pid, const char *option, char *value, size_t cap)
{
    char path[64], buf[8192];
    snprintf(path, sizeof path, "/proc/%d/cmdline", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = 0;
    for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
        size_t next = i + strlen(buf + i) + 1;
        if (!strcmp(buf + i, option) && next < n) {
            snprintf(value, cap, "%s", buf + next);
            return 0;
        }
    }
    return -1;
}

/* hydra: the ranks of a host are children of its hydra_pmi_proxy, started
 * with `--control-port HOST:PORT`, mpiexec's own port: the same on every
 * host, another for the next mpiexec. */
static void hydra(struct mpcr_launch *l)
{
    int local = 0;
    char port[80];
    pid_t proxy = getppid();
    l->mpi = "mpich";
    l->one_host = env_int("MPI_LOCALNRANKS", &local) && local == l->size;
    if (!arg_of(proxy, "--control-port", port, sizeof port)) {
        snprintf(l->key, sizeof l->key, "hydra %s", port);
        char *colon = strrchr(port, ':');
        if (colon) *colon = 0;
        snprintf(l->launcher, sizeof l->launcher, "%s", port);
    } else { /* not hydra's proxy above us: this host's launch only */
        snprintf(l->key, sizeof l->key, "hydra %d %llu", (int)proxy, start_time(proxy));
    }
}

/* mpirun.openmpi: OMPI_MCA_orte_hnp_uri "JOBFAMILY.0;tcp://A.B.C.D,...:PORT"
 * names mpirun's job family and its addresses. */
static void open_mpi(struct mpcr_launch *l)
{
    const char *s = getenv("OMPI_MCA_orte_hnp_uri");
    int local = 0;
    l->mpi = "openmpi";
    l->one_host = env_int("OMPI_COMM_WORLD_LOCAL_SIZE", &local) && local == l->size;
    snprintf(l->key, sizeof l->key, "openmpi %.*s", s ? (int)strcspn(s, ";") : 0, s ? s : "");
    const char *tcp = s ? strstr(s, ";tcp://") : NULL;
    if (tcp) {
        tcp += strlen(";tcp://");
        snprintf(l->launcher, sizeof l->launcher, "%.*s", (int)strcspn(tcp, ",:;"), tcp);
    }
}

/* srun: the job, its step, and how often Slurm requeued the job (a
 * requeued job keeps its id, and numbers its steps from 0 again). */
static void slurm(struct mpcr_launch *l)
{
    int nodes = 0, restarts = 0;
    const char *ip = getenv("SLURM_LAUNCH_NODE_IPADDR");
    l->mpi = "mpich";
    l->one_host = (env_int("SLURM_STEP_NUM_NODES", &nodes) || env_int("SLURM_NNODES", &nodes)) &&
                  nodes == 1;
    env_int("SLURM_RESTART_COUNT", &restarts);
    snprintf(l->key, sizeof l->key, "slurm %s.%s.%d", getenv("SLURM_JOB_ID"),
             getenv("SLURM_STEP_ID"), restarts);
    snprintf(l->launcher, sizeof l->launcher, "%s", ip ? ip : "");
}

/* Open MPI's mpirun, Slurm's srun, MPICH's hydra: checked in that order,
 * as a launcher inside a Slurm allocation inherits the batch step's
 * SLURM_PROCID (0 on every rank). */
int mpcr_find_launch(struct mpcr_launch *l, const char *mpi_opt)
{
    memset(l, 0, sizeof *l);
    if (env_int("OMPI_COMM_WORLD_RANK", &l->rank) && env_int("OMPI_COMM_WORLD_SIZE", &l->size)) {
        open_mpi(l);
    } else if (getenv("MPI_LOCALNRANKS") && env_int("PMI_RANK", &l->rank) &&
               env_int("PMI_SIZE", &l->size)) {
        hydra(l);
    } else if ((env_int("PMI_RANK", &l->rank) || env_int("SLURM_PROCID", &l->rank)) &&
               (env_int("PMI_SIZE", &l->size) || env_int("SLURM_NTASKS", &l->size)) &&
               getenv("SLURM_JOB_ID") && getenv("SLURM_STEP_ID")) {
        slurm(l);
    } else {
        mpcr_err("exec: no launcher's rank in the environment (PMI_RANK/PMI_SIZE of mpiexec.mpich, "
                 "SLURM_PROCID/SLURM_NTASKS of srun, OMPI_COMM_WORLD_RANK/SIZE of mpirun.openmpi): "
                 "start `mpcr exec` with an MPI launcher, or a job with `mpcr run -n N`");
        return -1;
    }
    if (l->size <= 0 || l->rank >= l->size) {
        mpcr_err("exec: the launcher says rank %d of %d", l->rank, l->size);
        return -1;
    }
    if (mpi_opt) l->mpi = mpi_opt;
    if (strcmp(l->mpi, "mpich") && strcmp(l->mpi, "openmpi")) {
        mpcr_err("exec: --mpi %s is not supported (mpich or openmpi)", l->mpi);
        return -1;
    }
    return 0;
}

static int loopback(struct in_addr a) { return (ntohl(a.s_addr) >> 24) == 127; }

/* This host's address on the route to host (no packet is sent). */
static int source_toward(const char *host, struct in_addr *out)
{
    struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_DGRAM}, *res;
    if (!*host || getaddrinfo(host, "9", &hints, &res)) return -1;
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int ok = fd >= 0 && !connect(fd, res->ai_addr, res->ai_addrlen) &&
             !getsockname(fd, (struct sockaddr *)&a, &len);
    if (fd >= 0) close(fd);
    freeaddrinfo(res);
    if (ok) *out = a.sin_addr;
    return ok ? 0 : -1;
}

/* The first IPv4 address of an interface that is up, not loopback. */
static int first_address(struct in_addr *out)
{
    struct ifaddrs *all;
    int found = -1;
    if (getifaddrs(&all)) return -1;
    for (struct ifaddrs *i = all; i && found; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
            !(i->ifa_flags & IFF_LOOPBACK)) {
            *out = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
            found = 0;
        }
    freeifaddrs(all);
    return found;
}

int mpcr_launch_listen_ip(const struct mpcr_launch *l, char *ip, size_t cap)
{
    const char *given = getenv("MPCR_EXEC_LISTEN");
    struct in_addr a = {htonl(INADDR_LOOPBACK)};
    if (given && *given) {
        if (inet_pton(AF_INET, given, &a) != 1) {
            mpcr_err("exec: MPCR_EXEC_LISTEN=%s is no IPv4 address (A.B.C.D)", given);
            return -1;
        }
    } else if (!l->one_host && (source_toward(l->launcher, &a) || loopback(a)) &&
               first_address(&a)) {
        mpcr_err("exec: the ranks run on several hosts, and this one has no address but "
                 "127.0.0.1 for the coordinator; set MPCR_EXEC_LISTEN=A.B.C.D, or start "
                 "`mpcr coordinator` and give --coordinator");
        return -1;
    }
    return inet_ntop(AF_INET, &a, ip, (socklen_t)cap) ? 0 : -1;
}
