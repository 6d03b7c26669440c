/* libmpcr-guard.so: an rtld-audit library (LD_AUDIT) that the proxy gives
 * every program it starts. The dynamic loader shows it each object it maps
 * (la_objopen), at startup and at every dlopen, before the object is
 * relocated and before any of its code runs. An object that is an MPI
 * implementation (it defines PMPI_Init) and not mpcr's stand-in is one
 * that mpcr cannot stand in for: Python importing an mpi4py built for Open
 * MPI, a program that dlopens libmpi.so.40. The rank would run as a job of
 * one and print wrong results; instead the guard says so and asks its
 * proxy to end the whole job, and the program never runs another
 * instruction. docs/abi-check.md says why this way and not another.
 *
 * It asks nothing else of the loader: no symbol binding passes through it
 * (la_objopen returns no LA_FLG_BIND* flags and there is no la_symbind or
 * PLT hook), so a program's calls cost what they cost without it. */
#include "channel.h"
#include "dynsym.h"
#include "mpi_abi.h"
#include "report.h"

#include <errno.h>
#include <link.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#define GUARD_API __attribute__((visibility("default")))

/* How long the refused program waits for its proxy to end the job before it
 * ends itself (the proxy does it at once; this only bounds a lost message). */
#define GUARD_WAIT_MS 30000

GUARD_API unsigned int la_version(unsigned int version)
{
    (void)version;
    return LAV_CURRENT;
}

static int is_foreign_mpi(const struct link_map *map)
{
    int impl = 0;
    for (const char *const *s = mpcr_mpi_impl_symbols; *s && !impl; s++)
        impl = guard_defines(map, *s);
    return impl && !guard_defines(map, MPCR_PASSIVE_MARK);
}

static _Noreturn void refuse(const struct link_map *map)
{
    const char *rank = getenv("MPCR_RANK"), *lib = map->l_name;
    mpcr_report_open();
    if (lib && *lib)
        mpcr_report("rank %s: %s loaded %s (%s), which mpcr cannot stand in for yet, so mpcr "
                    "ended the job before the program went on. " MPCR_ABI_ADVICE,
                    rank ? rank : "?", program_invocation_short_name, lib, mpcr_mpi_abi_words(lib));
    else
        mpcr_report("rank %s: %s contains an MPI library of its own (it defines PMPI_Init), "
                    "which mpcr cannot stand in for, so mpcr ended the job before the program "
                    "started; link it with mpicc.mpich against the shared libmpich.so.12 "
                    "(docs/abi-check.md)",
                    rank ? rank : "?", program_invocation_short_name);
    /* Before MPI_Init the set-up socket to the proxy is still open: the
     * proxy ends the job at once (and this process with it, which waits
     * here meanwhile). Later it is closed, and the proxy learns of the
     * end from this process's exit. */
    const char *fd = getenv(MPCR_ENV_CHANNEL_FD);
    struct mpcr_hello refusal = {MPCR_CHAN_MAGIC, MPCR_HELLO_REFUSED, 0};
    if (fd && send(atoi(fd), &refusal, sizeof refusal, MSG_NOSIGNAL) == sizeof refusal) {
        struct pollfd p = {atoi(fd), POLLIN, 0};
        poll(&p, 1, GUARD_WAIT_MS);
    }
    _exit(1);
}

GUARD_API unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie)
{
    (void)lmid, (void)cookie;
    if (is_foreign_mpi(map)) refuse(map);
    return 0;
}
