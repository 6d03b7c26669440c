/* MPI_Comm_split_type with MPI_COMM_TYPE_HW_GUIDED and _HW_UNGUIDED
 * (MPI 4.0 section 7.4.2), and MPICH's MPIX_COMM_TYPE_NEIGHBORHOOD. mpcr knows one level of the hardware, the host:
 * what MPI_COMM_TYPE_SHARED splits by, and what a communicator made so
 * keeps across a restart (docs/communicators.md). So:
 *   - HW_GUIDED with mpi_hw_resource_type "mpi_shared_memory" (the value
 *     MPI defines) or "machine": the ranks on this host, as
 *     MPI_COMM_TYPE_SHARED makes them;
 *   - HW_GUIDED with any other value, without that key, or MPI_INFO_NULL:
 *     MPI_COMM_NULL, MPI's answer for a resource type the implementation
 *     does not know (every member gives the same value, so all answer alike);
 *   - HW_UNGUIDED: the ranks on this host where they are fewer than comm's
 *     (the job spans several hosts), with info's mpi_hw_resource_type set
 *     to "mpi_shared_memory"; else MPI_COMM_NULL, as MPI answers when comm
 *     cannot be split further (at a level mpcr knows).
 * Natively MPICH also splits by socket, core, cache... through hwloc; a
 * placement that a restart on other hosts would not keep.
 * MPIX_COMM_TYPE_NEIGHBORHOOD with nbhd_common_dirname: the ranks that see
 * one another's files in that directory (each makes one, all look, each
 * removes its own); MPI_COMM_NULL for every rank where the members gave
 * different directories, for a rank that cannot write there, and for any
 * other key (network_topo included: mpcr knows no network topology). */
#include "api_gen.h"
#include "comm.h"
#include "datatype/dtype.h"
#include "datatype/typemap.h"
#include "env/info.h"
#include "hash.h"
#include "path.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char resource_key[] = "mpi_hw_resource_type";

/* Whether info names a resource type that is the host. */
static int names_the_host(MPI_Info info)
{
    struct mpcr_info *in = info == MPI_INFO_NULL ? NULL : mpcr_info_get(info);
    char value[32];
    int flag = 0;
    if (!in || mpcr_impl_Info_get(in, resource_key, (int)sizeof value - 1, value, &flag) || !flag)
        return 0;
    return !strcmp(value, "mpi_shared_memory") || !strcmp(value, "machine");
}

int mpcr_comm_split_hw(struct mpcr_comm *c, int split_type, int key, MPI_Info info,
                       MPI_Comm *newcomm)
{
    *newcomm = MPI_COMM_NULL;
    if (split_type == MPI_COMM_TYPE_HW_GUIDED && !names_the_host(info)) return MPI_SUCCESS;
    int err = mpcr_impl_Comm_split_type(c, MPI_COMM_TYPE_SHARED, key, MPI_INFO_NULL, newcomm);
    if (err || split_type == MPI_COMM_TYPE_HW_GUIDED || *newcomm == MPI_COMM_NULL) return err;
    struct mpcr_comm *n = mpcr_comm_get(*newcomm);
    if (n->size == c->size) /* one host: no strict subset */
        return mpcr_impl_Comm_free(newcomm, n);
    struct mpcr_info *in = info == MPI_INFO_NULL ? NULL : mpcr_info_get(info);
    return in ? mpcr_impl_Info_set(in, resource_key, "mpi_shared_memory") : MPI_SUCCESS;
}

/* A name too long leaves buf "": no file made, so no member joins (the
 * same directory on all, so on all alike). */
static void probe_name(char *buf, size_t cap, const char *dir, uint64_t nonce, int32_t world_rank)
{
    mpcr_path_printf(buf, cap, "%s/.mpcr-nbhd-%016llx-%d", dir, (unsigned long long)nonce,
                     (int)world_rank);
}

int mpcr_comm_split_neighborhood(struct mpcr_comm *c, int key, MPI_Info info, MPI_Comm *newcomm)
{
    *newcomm = MPI_COMM_NULL;
    struct mpcr_info *in = info == MPI_INFO_NULL ? NULL : mpcr_info_get(info);
    char dir[4096] = "";
    int flag = 0;
    if (in) mpcr_impl_Info_get(in, "nbhd_common_dirname", (int)sizeof dir - 1, dir, &flag);
    /* Everyone's hash and its complement (the same dir everywhere iff the
     * largest of both agree), and a nonce for the files' names. */
    uint64_t h = flag ? mpcr_hash64(MPCR_HASH64_INIT, dir, strlen(dir)) : 0;
    uint64_t mine[3] = {h, ~h, (uint64_t)getpid() * 0x9e3779b97f4a7c15u ^ (uint64_t)time(NULL)};
    uint64_t all[3];
    const struct mpcr_type *u64 = mpcr_type_get(MPI_UINT64_T);
    int err = mpcr_impl_Allreduce(mine, all, 3, MPI_UINT64_T, u64, MPI_MAX, c);
    if (err) return err;
    if (!flag || all[0] != ~all[1]) /* no directory, or not the same one */
        return mpcr_impl_Comm_split(c, MPI_UNDEFINED, key, newcomm);
    char path[PATH_MAX];
    probe_name(path, sizeof path, dir, all[2], mpcr_comm_world_rank(c, c->rank));
    FILE *f = fopen(path, "wx");
    int made = f != NULL;
    if (f) fclose(f);
    if ((err = mpcr_impl_Barrier(c))) return err;
    int color = MPI_UNDEFINED;
    for (int r = 0; made && r < c->size && color == MPI_UNDEFINED; r++) {
        probe_name(path, sizeof path, dir, all[2], mpcr_comm_world_rank(c, r));
        if (!access(path, F_OK)) color = r;
    }
    if ((err = mpcr_impl_Barrier(c))) return err;
    if (made) {
        probe_name(path, sizeof path, dir, all[2], mpcr_comm_world_rank(c, c->rank));
        unlink(path);
    }
    return mpcr_impl_Comm_split(c, color, key, newcomm);
}
