/* Communicator hints (MPI 4.0 section 7.4.4): MPI_Comm_set_info,
 * MPI_Comm_get_info and the info of MPI_Comm_dup_with_info.
 *
 * mpcr knows the four assertions MPI defines and keeps what the program
 * asserts, in the communicator (so across a restart), though it exploits
 * none: they let an implementation skip wildcard matching or ordering, and
 * mpcr's matching is the real MPI's, at the proxy. Every other key is
 * ignored, as MPI allows and MPICH does, so MPI_Comm_get_info returns the
 * four, each "true" or "false" (the default). MPI_Comm_dup_with_info
 * and MPI_Comm_idup_with_info take the hints of their info; every other constructor, MPI_Comm_dup
 * included, starts from the defaults, as MPICH 4.0.2 does (a library
 * handed a duplicate must not inherit its caller's assertions). */
#include "api_gen.h"
#include "comm.h"
#include "env/info.h"

#include <stdbool.h>
#include <strings.h>

static const char *const assertion[] = {"mpi_assert_no_any_tag", "mpi_assert_no_any_source",
                                        "mpi_assert_exact_length",
                                        "mpi_assert_allow_overtaking"};
enum { NASSERTIONS = sizeof assertion / sizeof *assertion };

/* c's hints as info sets them; keys it does not give stay as they are, and
 * so does an assertion whose value is neither true nor false. */
static void take_hints(struct mpcr_comm *c, struct mpcr_info *info)
{
    for (int i = 0; i < NASSERTIONS; i++) {
        char value[8];
        int flag = 0;
        if (mpcr_impl_Info_get(info, assertion[i], (int)sizeof value - 1, value, &flag) ||
            !flag)
            continue;
        if (!strcasecmp(value, "true"))
            c->hints |= 1u << i;
        else if (!strcasecmp(value, "false"))
            c->hints &= ~(1u << i);
    }
}

int mpcr_impl_Comm_set_info(struct mpcr_comm *c, MPI_Info info)
{
    struct mpcr_info *in = info == MPI_INFO_NULL ? NULL : mpcr_info_get(info);
    if (!in) return MPI_ERR_INFO;
    take_hints(c, in);
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_get_info(struct mpcr_comm *c, MPI_Info *info_used)
{
    if (!info_used) return MPI_ERR_ARG;
    MPI_Info h;
    int err = mpcr_impl_Info_create(&h);
    struct mpcr_info *out = err ? NULL : mpcr_info_get(h);
    for (int i = 0; out && !err && i < NASSERTIONS; i++)
        err = mpcr_impl_Info_set(out, assertion[i], c->hints & (1u << i) ? "true" : "false");
    if (err) {
        if (out) mpcr_impl_Info_free(&h);
        return err;
    }
    *info_used = h;
    return MPI_SUCCESS;
}

/* MPI_Comm_dup_with_info and MPI_Comm_idup_with_info: idup's request NULL
 * for the blocking one. */
static int dup_with_info(struct mpcr_comm *c, MPI_Info info, MPI_Comm *newcomm,
                         MPI_Request *request)
{
    struct mpcr_info *in = info == MPI_INFO_NULL ? NULL : mpcr_info_get(info);
    if (info != MPI_INFO_NULL && !in) return MPI_ERR_INFO;
    int err = request ? mpcr_comm_idup(c, newcomm, request) : mpcr_impl_Comm_dup(c, newcomm);
    if (err) return err;
    struct mpcr_comm *n = mpcr_comm_get(*newcomm);
    if (in) take_hints(n, in);
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_dup_with_info(struct mpcr_comm *c, MPI_Info info, MPI_Comm *newcomm)
{
    return dup_with_info(c, info, newcomm, NULL);
}

int mpcr_impl_Comm_idup_with_info(struct mpcr_comm *c, MPI_Info info, MPI_Comm *newcomm,
                                  MPI_Request *request)
{
    return dup_with_info(c, info, newcomm, request);
}
