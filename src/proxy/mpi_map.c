/* Translation between mpcr's neutral values on the channel and this MPI
 * implementation's. The channel speaks MPICH's ABI values for the few
 * constants it carries (wildcards, error classes); this file maps them to
 * the values of the mpi.h the proxy is compiled with (MPICH's or Open
 * MPI's, whose wildcards and error classes differ). */
#include "proxy.h"

#include <stdlib.h>

/* Real communicators by mpcr id: each with its collective context, a
 * duplicate that the library's collectives use (MPCR_COLL_CONTEXT), and its
 * size, against which the channel's peers are checked. */
static struct {
    MPI_Comm comm, coll;
    int size;
} * comms;
static uint32_t ncomms;

int map_comm_put(uint32_t vid, MPI_Comm comm, MPI_Comm coll)
{
    if (vid >= MPCR_COMM_ID_END) return MPI_ERR_COMM; /* no id the library gives (channel.h) */
    if (vid >= ncomms) {
        uint32_t n = ncomms ? ncomms : 16;
        while (n <= vid)
            n *= 2;
        void *t = realloc(comms, n * sizeof *comms);
        if (!t) return MPI_ERR_NO_MEM;
        comms = t;
        for (uint32_t i = ncomms; i < n; i++)
            comms[i].comm = comms[i].coll = MPI_COMM_NULL;
        ncomms = n;
    }
    comms[vid].comm = comm, comms[vid].coll = coll;
    MPI_Comm_size(comm, &comms[vid].size);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(coll, MPI_ERRORS_RETURN);
    return MPI_SUCCESS;
}

/* Collective over comm (it makes the collective context): record_rebuild
 * relies on that. */
int map_comm_add(uint32_t vid, MPI_Comm comm)
{
    MPI_Comm coll;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_dup(comm, &coll);
    return rc == MPI_SUCCESS ? map_comm_put(vid, comm, coll) : rc;
}

int map_comm_free(uint32_t vid)
{
    if (vid < 2 || vid >= ncomms || comms[vid].comm == MPI_COMM_NULL) return MPI_ERR_COMM;
    MPI_Comm_free(&comms[vid].coll);
    return MPI_Comm_free(&comms[vid].comm);
}

uint32_t map_comm_slots(void)
{
    return ncomms;
}

int map_comm_size(uint32_t vid)
{
    return real_comm(vid) == MPI_COMM_NULL ? 0 : comms[vid & ~MPCR_COLL_CONTEXT].size;
}

int map_comm_id_free(uint32_t vid)
{
    return vid >= 2 && vid < MAP_COMM_ID_END && real_comm(vid) == MPI_COMM_NULL;
}

void map_init(void)
{
    map_comm_add(0, MPI_COMM_WORLD);
    map_comm_add(1, MPI_COMM_SELF);
    int flag = 0, *ub = NULL;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    proxy.tag_ub = flag ? *ub : 32767; /* the least MPI allows */
    if (proxy.tag_ub > MPCR_TAG_UB_PORTABLE) proxy.tag_ub = MPCR_TAG_UB_PORTABLE;
}

MPI_Comm real_comm(uint32_t vid)
{
    uint32_t i = vid & ~MPCR_COLL_CONTEXT;
    if (i >= ncomms) return MPI_COMM_NULL;
    return vid & MPCR_COLL_CONTEXT ? comms[i].coll : comms[i].comm;
}

int real_source(int peer)
{
    return peer == ABI_ANY_SOURCE ? MPI_ANY_SOURCE : peer;
}
int real_tag(int tag)
{
    return tag == ABI_ANY_TAG ? MPI_ANY_TAG : tag;
}
int neutral_source(int source)
{
    return source == MPI_ANY_SOURCE ? ABI_ANY_SOURCE : source;
}
int neutral_tag(int tag)
{
    return tag == MPI_ANY_TAG ? ABI_ANY_TAG : tag;
}

/* Error classes by name, with their values in mpcr's ABI (MPICH's). */
// clang-format off
#define ERROR_CLASSES(X)                                                                           \
    X(BUFFER, 1) X(COUNT, 2) X(TYPE, 3) X(TAG, 4) X(COMM, 5) X(RANK, 6) X(ROOT, 7) X(GROUP, 8)     \
    X(OP, 9) X(TOPOLOGY, 10) X(DIMS, 11) X(ARG, 12) X(UNKNOWN, 13) X(TRUNCATE, 14) X(OTHER, 15)    \
    X(INTERN, 16) X(IN_STATUS, 17) X(PENDING, 18) X(REQUEST, 19) X(ACCESS, 20) X(AMODE, 21)        \
    X(BAD_FILE, 22) X(CONVERSION, 23) X(DUP_DATAREP, 24) X(FILE_EXISTS, 25) X(FILE_IN_USE, 26)     \
    X(FILE, 27) X(INFO, 28) X(INFO_KEY, 29) X(INFO_VALUE, 30) X(INFO_NOKEY, 31) X(IO, 32)          \
    X(NAME, 33) X(NO_MEM, 34) X(NOT_SAME, 35) X(NO_SPACE, 36) X(NO_SUCH_FILE, 37) X(PORT, 38)      \
    X(QUOTA, 39) X(READ_ONLY, 40) X(SERVICE, 41) X(SPAWN, 42) X(UNSUPPORTED_DATAREP, 43)           \
    X(UNSUPPORTED_OPERATION, 44) X(WIN, 45) X(BASE, 46) X(LOCKTYPE, 47) X(KEYVAL, 48)              \
    X(RMA_CONFLICT, 49) X(RMA_SYNC, 50) X(SIZE, 51) X(DISP, 52) X(ASSERT, 53) X(RMA_RANGE, 55)     \
    X(RMA_ATTACH, 56) X(RMA_SHARED, 57) X(RMA_FLAVOR, 58)
// clang-format on
enum { ABI_ERR_OTHER = 15 };

int error_class(int real_code)
{
    if (real_code == MPI_SUCCESS) return MPI_SUCCESS;
    int cls = MPI_ERR_OTHER;
    MPI_Error_class(real_code, &cls);
#define TO_ABI(name, abi)                                                                          \
    if (cls == MPI_ERR_##name) return abi;
    ERROR_CLASSES(TO_ABI)
#undef TO_ABI
    return ABI_ERR_OTHER;
}
