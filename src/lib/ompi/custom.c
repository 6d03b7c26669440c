/* The entry points of the Open MPI front end written by hand: the strings
 * whose longest lengths differ (MPICH may write more than Open MPI's
 * MPI_MAX_OBJECT_NAME, _ERROR_STRING, _INFO_KEY, _LIBRARY_VERSION_STRING let
 * the program reserve: copied through a buffer of MPICH's size, cut to Open
 * MPI's), collectives' arrays of datatypes, values inside attributes and
 * datatypes' contents. Compiled for the standard ABI's front end too
 * (src/lib/abi: MPCR_FRONT_ABI); what is Open MPI's only is in openmpi.c. */
#include <mpi.h>

#include "ompi/ompi_front.h"
#include "ompi_mpich.h"

#include <string.h>

#define ALIAS(name) extern __typeof__(P##name) name __attribute__((weak, alias("P" #name)))
#define ERR_OUT(e) mpcr_ompi_value_out(MPCR_OMPI_errclass, e)

/* the longest answers of MPICH's ABI: MPI_MAX_LIBRARY_VERSION_STRING */
#define MPICH_LONGEST 8192

/* Copies what MPICH wrote into buf to out, cut to cap - 1 characters. */
static int cut(const char *buf, char *out, int *len, int cap, int err)
{
    if (err) return ERR_OUT(err);
    size_t n = strnlen(buf, (size_t)cap - 1); /* cut on purpose */
    memcpy(out, buf, n);
    out[n] = '\0';
    *len = (int)n;
    return MPI_SUCCESS;
}

int PMPI_Get_library_version(char *version, int *resultlen)
{
    char buf[MPICH_LONGEST];
    int len, err = mpcr_mpich_PMPI_Get_library_version(buf, &len);
    return cut(buf, version, resultlen, MPI_MAX_LIBRARY_VERSION_STRING, err);
}
ALIAS(MPI_Get_library_version);

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    char buf[MPICH_LONGEST];
    int len, err = mpcr_mpich_PMPI_Error_string(
                 mpcr_ompi_value_in(MPCR_OMPI_errclass, errorcode), buf, &len);
    return cut(buf, string, resultlen, MPI_MAX_ERROR_STRING, err);
}
ALIAS(MPI_Error_string);

/* Objects' names (MPI_MAX_OBJECT_NAME 64 in Open MPI, 128 in MPICH). */
#define GET_NAME(Kind, type)                                                                       \
    int PMPI_##Kind##_get_name(type obj, char *name, int *resultlen)                               \
    {                                                                                              \
        char buf[MPICH_LONGEST];                                                                   \
        int len, err = mpcr_mpich_PMPI_##Kind##_get_name(mpcr_ompi_handle(obj), buf, &len);        \
        return cut(buf, name, resultlen, MPI_MAX_OBJECT_NAME, err);                                \
    }                                                                                              \
    ALIAS(MPI_##Kind##_get_name);
GET_NAME(Comm, MPI_Comm)
GET_NAME(Type, MPI_Datatype)
GET_NAME(Win, MPI_Win)

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    char buf[MPICH_LONGEST];
    int len, err = mpcr_mpich_PMPI_Info_get_nthkey(mpcr_ompi_handle(info), n, buf);
    return cut(buf, key, &len, MPI_MAX_INFO_KEY, err);
}
ALIAS(MPI_Info_get_nthkey);

/* The number of peers whose datatypes an array of a collective holds:
 * which 2, the group (the remote one of an inter-communicator); 0 and 1,
 * a neighbourhood collective's sources and destinations. 0 for a handle
 * MPICH refuses (the call then fails as it should). */
int mpcr_ompi_peers(const void *comm, int which)
{
    int c = mpcr_ompi_handle(comm), n = 0, inter = 0, topo = MPI_UNDEFINED;
    if (which == 2) {
        if (mpcr_mpich_PMPI_Comm_test_inter(c, &inter)) return 0;
        return (inter ? mpcr_mpich_PMPI_Comm_remote_size(c, &n) : mpcr_mpich_PMPI_Comm_size(c, &n))
                   ? 0 : n;
    }
    if (mpcr_mpich_PMPI_Topo_test(c, &topo)) return 0;
    topo = mpcr_ompi_value_out(MPCR_OMPI_topo, topo);
    if (topo == MPI_CART) return mpcr_mpich_PMPI_Cartdim_get(c, &n) ? 0 : 2 * n;
    if (topo == MPI_GRAPH) {
        int rank;
        if (mpcr_mpich_PMPI_Comm_rank(c, &rank)) return 0;
        return mpcr_mpich_PMPI_Graph_neighbors_count(c, rank, &n) ? 0 : n;
    }
    if (topo == MPI_DIST_GRAPH) {
        int in, out, weighted;
        if (mpcr_mpich_PMPI_Dist_graph_neighbors_count(c, &in, &out, &weighted)) return 0;
        return which ? out : in;
    }
    return 0;
}

/* Darrays: the distributions, their arguments and the order are values
 * whose numbers differ (MPI_DISTRIBUTE_BLOCK 0 and 121...). */
int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
                            const int distribs[], const int dargs[], const int psizes[],
                            int order, MPI_Datatype oldtype, MPI_Datatype *newtype)
{
    int d[MPCR_OMPI_ARRAY], a[MPCR_OMPI_ARRAY];
    if (ndims < 0 || ndims > MPCR_OMPI_ARRAY || (ndims && (!distribs || !dargs)))
        return MPI_ERR_ARG; /* MPI_MAX_DIMS: no more than 16 here */
    for (int i = 0; i < ndims; i++) {
        d[i] = mpcr_ompi_value_in(MPCR_OMPI_distribute, distribs[i]);
        a[i] = mpcr_ompi_value_in(MPCR_OMPI_darg, dargs[i]);
    }
    int m = 0, err = mpcr_mpich_PMPI_Type_create_darray(
                       size, rank, ndims, gsizes, d, a, psizes,
                       mpcr_ompi_value_in(MPCR_OMPI_order, order), mpcr_ompi_handle(oldtype),
                       newtype ? &m : NULL);
    if (!err) *newtype = mpcr_ompi_pointer(m);
    return ERR_OUT(err);
}
ALIAS(MPI_Type_create_darray);

/* varargs: what follows the level is the profiler's, none of mpcr's */
int PMPI_Pcontrol(const int level, ...)
{
    return ERR_OUT(mpcr_mpich_PMPI_Pcontrol(level));
}
ALIAS(MPI_Pcontrol);

/* Predefined attributes whose values differ: MPI_HOST's is a rank or
 * MPI_PROC_NULL, MPI_WIN_MODEL's MPI_WIN_UNIFIED (0 in Open MPI, 2 in MPICH)
 * or MPI_WIN_SEPARATE. The program is answered the address of Open MPI's
 * value (one int per model: a second window's answer leaves the first's
 * alone). The other predefined attributes mean the same in both ABIs (the
 * windows' flavors: checked in mpich_layout.c). */
static int get_attr(int (*get)(int, int, void *, int *), const void *obj, int keyval, void *value,
                    int *flag)
{
    static int host, unified = MPI_WIN_UNIFIED, separate = MPI_WIN_SEPARATE;
    int err = get(mpcr_ompi_handle(obj), mpcr_ompi_value_in(MPCR_OMPI_keyval, keyval), value, flag);
    if (err) return ERR_OUT(err);
    if (!flag || !*flag || !value) return MPI_SUCCESS;
    int **answer = value;
    if (keyval == MPI_HOST) {
        host = mpcr_ompi_value_out(MPCR_OMPI_rank, **answer);
        *answer = &host;
    } else if (keyval == MPI_WIN_MODEL) {
        int model = mpcr_ompi_value_out(MPCR_OMPI_winmodel, **answer);
        *answer = model == MPI_WIN_UNIFIED ? &unified : &separate;
    }
#ifdef MPCR_FRONT_ABI /* flavors are 311-314 in the standard's ABI, 1-4 in the others */
    else if (keyval == MPI_WIN_CREATE_FLAVOR) {
        static int flavors[] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
                                MPI_WIN_FLAVOR_DYNAMIC, MPI_WIN_FLAVOR_SHARED};
        int flavor = mpcr_ompi_value_out(MPCR_OMPI_winflavor, **answer);
        for (int i = 0; i < 4; i++)
            if (flavors[i] == flavor) *answer = &flavors[i];
    }
#endif
    return MPI_SUCCESS;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *value, int *flag)
{
    return get_attr(mpcr_mpich_PMPI_Comm_get_attr, comm, keyval, value, flag);
}
ALIAS(MPI_Comm_get_attr);

int PMPI_Win_get_attr(MPI_Win win, int keyval, void *value, int *flag)
{
    return get_attr(mpcr_mpich_PMPI_Win_get_attr, win, keyval, value, flag);
}
ALIAS(MPI_Win_get_attr);

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *value, int *flag)
{
    return get_attr(mpcr_mpich_PMPI_Attr_get, comm, keyval, value, flag);
}
ALIAS(MPI_Attr_get);

/* A subarray's and a darray's integers hold the order, distributions and
 * their arguments: in Open MPI's numbering for the program (MPI 4.0
 * 5.1.13: subarray ndims, sizes, subsizes, starts, order; darray size,
 * rank, ndims, gsizes, distribs, dargs, psizes, order). */
int PMPI_Type_get_contents(MPI_Datatype type, int max_integers, int max_addresses,
                           int max_datatypes, int integers[], MPI_Aint addresses[],
                           MPI_Datatype datatypes[])
{
    int t = mpcr_ompi_handle(type), ni, na, nd, combiner;
    int s[MPCR_OMPI_ARRAY], *m = mpcr_ompi_handles_in(s, (void *const *)datatypes, max_datatypes, 0);
    int err = mpcr_mpich_PMPI_Type_get_contents(t, max_integers, max_addresses, max_datatypes,
                                                integers, addresses, m);
    if (err) {
        if (max_datatypes > 0) mpcr_ompi_array_free(s, m);
        return ERR_OUT(err);
    }
    mpcr_ompi_handles_out(s, (void **)datatypes, m, max_datatypes);
    if (mpcr_mpich_PMPI_Type_get_envelope(t, &ni, &na, &nd, &combiner) || !integers) return MPI_SUCCESS;
    combiner = mpcr_ompi_value_out(MPCR_OMPI_combiner, combiner);
    int n = ni > 0 ? integers[combiner == MPI_COMBINER_DARRAY ? 2 : 0] : 0;
    if (combiner == MPI_COMBINER_SUBARRAY && ni == 3 * n + 2 && max_integers >= ni)
        integers[3 * n + 1] = mpcr_ompi_value_out(MPCR_OMPI_order, integers[3 * n + 1]);
    if (combiner == MPI_COMBINER_DARRAY && ni == 4 * n + 4 && max_integers >= ni) {
        for (int i = 0; i < n; i++) {
            integers[3 + n + i] = mpcr_ompi_value_out(MPCR_OMPI_distribute, integers[3 + n + i]);
            integers[3 + 2 * n + i] = mpcr_ompi_value_out(MPCR_OMPI_darg, integers[3 + 2 * n + i]);
        }
        integers[3 + 4 * n] = mpcr_ompi_value_out(MPCR_OMPI_order, integers[3 + 4 * n]);
    }
    return MPI_SUCCESS;
}
ALIAS(MPI_Type_get_contents);

/* The MPI version of the ABI the program was built for (Open MPI 4.1's
 * mpi.h: 3.1; the standard ABI's: 5.0), not the MPICH library's 4.0: an Open MPI-built program
 * reaches no function of MPI 4.0, and may compare the answer with mpi.h's
 * MPI_VERSION (MPICH's test baseenvf does). May be called before MPI_Init. */
int PMPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}
ALIAS(MPI_Get_version);
