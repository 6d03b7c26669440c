/* Info objects (MPI 4.0 chapter 10): ordered (key, value) pairs of
 * strings in the application's heap, so an info object keeps its handle
 * and contents across a restart. MPI_INFO_ENV is empty, as MPICH's is
 * under its mpiexec. Keys keep the order they were first set in (the order
 * MPI_Info_get_nthkey reports, as MPICH). */
#include "api_gen.h"
#include "info.h"
#include "runtime/handle.h"

#include <stdlib.h>
#include <string.h>

struct mpcr_info {
    struct mpcr_object h;
    int n, cap;
    struct info_pair {
        char *key, *value;
    } * v;
};

static struct mpcr_info env; /* MPI_INFO_ENV: never freed, never changed by MPI */

struct mpcr_info *mpcr_info_get(MPI_Info info)
{
    if (info == MPI_INFO_ENV) return &env;
    return mpcr_obj_get(MPCR_KIND_INFO, (uint32_t)info);
}

static void info_destroy(void *obj)
{
    struct mpcr_info *in = obj;
    for (int i = 0; i < in->n; i++) {
        free(in->v[i].key);
        free(in->v[i].value);
    }
    free(in->v);
}

static struct mpcr_info *info_new(MPI_Info *out)
{
    struct mpcr_info *in = mpcr_obj_new(MPCR_KIND_INFO, sizeof *in, info_destroy);
    if (in) *out = (MPI_Info)mpcr_obj_handle(in);
    return in;
}

/* MPI_ERR_INFO_KEY unless key is a valid key. */
static int key_check(const char *key)
{
    if (!key || !*key || strlen(key) >= MPI_MAX_INFO_KEY) return MPI_ERR_INFO_KEY;
    return MPI_SUCCESS;
}

static struct info_pair *find(struct mpcr_info *in, const char *key)
{
    for (int i = 0; i < in->n; i++)
        if (!strcmp(in->v[i].key, key)) return &in->v[i];
    return NULL;
}

/* Sets key to value (copied); MPI_ERR_NO_MEM leaves the object as it was. */
static int put(struct mpcr_info *in, const char *key, const char *value)
{
    char *v = strdup(value);
    if (!v) return MPI_ERR_NO_MEM;
    struct info_pair *p = find(in, key);
    if (p) {
        free(p->value);
        p->value = v;
        return MPI_SUCCESS;
    }
    if (in->n == in->cap) {
        int cap = in->cap ? 2 * in->cap : 8;
        struct info_pair *nv = realloc(in->v, (size_t)cap * sizeof *nv);
        if (!nv) {
            free(v);
            return MPI_ERR_NO_MEM;
        }
        in->v = nv, in->cap = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return MPI_ERR_NO_MEM;
    }
    in->v[in->n++] = (struct info_pair){k, v};
    return MPI_SUCCESS;
}

int mpcr_impl_Info_create(MPI_Info *info)
{
    return info_new(info) ? MPI_SUCCESS : MPI_ERR_NO_MEM;
}

int mpcr_impl_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    (void)argc, (void)argv;
    return mpcr_impl_Info_create(info); /* a copy of MPI_INFO_ENV, which is empty */
}

int mpcr_impl_Info_dup(struct mpcr_info *in, MPI_Info *newinfo)
{
    MPI_Info h;
    struct mpcr_info *n = info_new(&h);
    if (!n) return MPI_ERR_NO_MEM;
    for (int i = 0; i < in->n; i++)
        if (put(n, in->v[i].key, in->v[i].value)) {
            mpcr_obj_drop_handle(n);
            return MPI_ERR_NO_MEM;
        }
    *newinfo = h;
    return MPI_SUCCESS;
}

int mpcr_impl_Info_free(MPI_Info *info)
{
    struct mpcr_info *in = *info == MPI_INFO_ENV ? NULL : mpcr_info_get(*info);
    if (!in) return MPI_ERR_INFO;
    mpcr_obj_drop_handle(in);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

int mpcr_impl_Info_set(struct mpcr_info *in, const char *key, const char *value)
{
    if (in == &env) return MPI_ERR_INFO;
    int err = key_check(key);
    if (err) return err;
    if (!value || !*value || strlen(value) >= MPI_MAX_INFO_VAL) return MPI_ERR_INFO_VALUE;
    return put(in, key, value);
}

int mpcr_impl_Info_delete(struct mpcr_info *in, const char *key)
{
    if (in == &env) return MPI_ERR_INFO;
    int err = key_check(key);
    if (err) return err;
    struct info_pair *p = find(in, key);
    if (!p) return MPI_ERR_INFO_NOKEY;
    free(p->key);
    free(p->value);
    memmove(p, p + 1, (size_t)(in->v + in->n - (p + 1)) * sizeof *p);
    in->n--;
    return MPI_SUCCESS;
}

int mpcr_impl_Info_get(struct mpcr_info *in, const char *key, int valuelen, char *value, int *flag)
{
    int err = key_check(key);
    if (err) return err;
    if (valuelen < 0 || !flag) return MPI_ERR_ARG;
    struct info_pair *p = find(in, key);
    *flag = p != NULL;
    if (p) { /* at most valuelen characters and the terminating NUL */
        size_t n = strlen(p->value);
        if (n > (size_t)valuelen) n = (size_t)valuelen;
        memcpy(value, p->value, n);
        value[n] = 0;
    }
    return MPI_SUCCESS;
}

int mpcr_impl_Info_get_string(struct mpcr_info *in, const char *key, int *buflen, char *value,
                              int *flag)
{
    int err = key_check(key);
    if (err) return err;
    if (!buflen || *buflen < 0 || !flag) return MPI_ERR_ARG;
    struct info_pair *p = find(in, key);
    *flag = p != NULL;
    if (!p) return MPI_SUCCESS;
    int len = (int)strlen(p->value);
    if (*buflen > 0) { /* as much as fits, always terminated */
        int n = len < *buflen - 1 ? len : *buflen - 1;
        memcpy(value, p->value, (size_t)n);
        value[n] = 0;
    }
    *buflen = len + 1;
    return MPI_SUCCESS;
}

int mpcr_impl_Info_get_valuelen(struct mpcr_info *in, const char *key, int *valuelen, int *flag)
{
    int err = key_check(key);
    if (err) return err;
    if (!valuelen || !flag) return MPI_ERR_ARG;
    struct info_pair *p = find(in, key);
    *flag = p != NULL;
    if (p) *valuelen = (int)strlen(p->value);
    return MPI_SUCCESS;
}

int mpcr_impl_Info_get_nkeys(struct mpcr_info *in, int *nkeys)
{
    if (!nkeys) return MPI_ERR_ARG;
    *nkeys = in->n;
    return MPI_SUCCESS;
}

int mpcr_impl_Info_get_nthkey(struct mpcr_info *in, int n, char *key)
{
    if (n < 0 || n >= in->n || !key) return MPI_ERR_ARG;
    strcpy(key, in->v[n].key);
    return MPI_SUCCESS;
}
