/* Real point-to-point on neutral arguments, for any byte count. MPI 4's
 * large-count calls (MPICH 4) take it as it is. An MPI without them (Open
 * MPI 4.1 is MPI 3.1) takes an int count: a message above INT_MAX bytes
 * then travels as one element of a derived type made of that many bytes
 * (1 GiB blocks and the rest), which both sides may use since a receive
 * matches by type signature (bytes either way), and its length is read
 * back with MPI_Get_elements_x, which counts bytes whatever the type. */
#include "proxy.h"

#include <limits.h>

#if MPI_VERSION < 4
/* The datatype and count that carry `bytes` bytes. */
struct bytes_arg {
    MPI_Datatype type;
    int count;
};

static struct bytes_arg bytes_arg(uint64_t bytes)
{
    if (bytes <= INT_MAX) return (struct bytes_arg){MPI_BYTE, (int)bytes};
    const uint64_t block = 1u << 30;
    MPI_Datatype gib, parts[2];
    MPI_Type_contiguous((int)block, MPI_BYTE, &gib);
    parts[0] = gib, parts[1] = MPI_BYTE;
    int lengths[2] = {(int)(bytes / block), (int)(bytes % block)};
    MPI_Aint displacements[2] = {0, (MPI_Aint)(bytes / block * block)};
    struct bytes_arg a = {MPI_DATATYPE_NULL, 1};
    MPI_Type_create_struct(2, lengths, displacements, parts, &a.type);
    MPI_Type_commit(&a.type);
    MPI_Type_free(&gib);
    return a;
}

/* An operation started with a derived type keeps it until it completes:
 * the handle can go at once (MPI 4.0 5.1.9). */
static void bytes_arg_done(struct bytes_arg *a)
{
    if (a->type != MPI_BYTE) MPI_Type_free(&a->type);
}
#endif

int real_isend(int sync, uint32_t comm_id, int peer, int tag, uint64_t offset, uint64_t bytes,
               MPI_Request *req)
{
    void *buf = staging(offset);
    MPI_Comm comm = real_comm(comm_id);
#if MPI_VERSION >= 4
    if (sync) return MPI_Issend_c(buf, (MPI_Count)bytes, MPI_BYTE, peer, tag, comm, req);
    return MPI_Isend_c(buf, (MPI_Count)bytes, MPI_BYTE, peer, tag, comm, req);
#else
    struct bytes_arg a = bytes_arg(bytes);
    int rc = sync ? MPI_Issend(buf, a.count, a.type, peer, tag, comm, req)
                  : MPI_Isend(buf, a.count, a.type, peer, tag, comm, req);
    bytes_arg_done(&a);
    return rc;
#endif
}

int real_irecv(uint32_t comm_id, int peer, int tag, uint64_t offset, uint64_t cap, MPI_Request *req)
{
    void *buf = staging(offset);
    int src = real_source(peer), rtag = real_tag(tag);
    MPI_Comm comm = real_comm(comm_id);
#if MPI_VERSION >= 4
    return MPI_Irecv_c(buf, (MPI_Count)cap, MPI_BYTE, src, rtag, comm, req);
#else
    struct bytes_arg a = bytes_arg(cap);
    int rc = MPI_Irecv(buf, a.count, a.type, src, rtag, comm, req);
    bytes_arg_done(&a);
    return rc;
#endif
}

int real_mrecv(void *buf, uint64_t bytes, MPI_Message *msg, MPI_Status *st)
{
#if MPI_VERSION >= 4
    return MPI_Mrecv_c(buf, (MPI_Count)bytes, MPI_BYTE, msg, st);
#else
    struct bytes_arg a = bytes_arg(bytes);
    int rc = MPI_Mrecv(buf, a.count, a.type, msg, st);
    bytes_arg_done(&a);
    return rc;
#endif
}

uint64_t status_bytes(const MPI_Status *st)
{
    MPI_Count n = 0;
#if MPI_VERSION >= 4
    MPI_Get_count_c(st, MPI_BYTE, &n);
#else
    MPI_Get_elements_x(st, MPI_BYTE, &n);
#endif
    return n < 0 ? 0 : (uint64_t)n;
}
