/* Attribute caching (MPI 4.0 section 7.7): keyvals with their copy and
 * delete callbacks, attributes on communicators and datatypes, and the
 * predefined attributes of MPI_COMM_WORLD. Everything is in the
 * application's heap: keyvals keep their values, attributes their values
 * and callbacks (function pointers into the program, whose memory is
 * restored too) across a restart.
 *
 * Attributes are one list in the order they were set, each naming its
 * object by handle (predefined communicators by MPI_COMM_WORLD/SELF), so no
 * object needs a field for them; a program holds few. A keyval is an
 * object of the handle system whose handle is the int the program holds;
 * each attribute holds a reference, so a keyval freed while attributes use
 * it lives on until the last is deleted (MPI 4.0 section 7.7.2). Until
 * then its value still works, as in MPICH: attributes can be read and
 * deleted through it, and freeing it again does nothing (MPICH's tests
 * attr/fkeyval and keyval_double_free do both). */
#include "api_gen.h"
#include "dtype.h"

#include <stdlib.h>
#include <string.h>

struct mpcr_keyval {
    struct mpcr_object h;
    enum mpcr_attr_on on;
    union { /* the callbacks, as the program gave them (NULL: MPI_*_NULL_*_FN) */
        MPI_Comm_copy_attr_function *comm;
        MPI_Type_copy_attr_function *type;
    } copy;
    union {
        MPI_Comm_delete_attr_function *comm;
        MPI_Type_delete_attr_function *type;
    } del;
    void *extra_state;
    int freed; /* the program freed it: its reference is gone, attributes hold the rest */
};

static struct attr {
    enum mpcr_attr_on on;
    uint32_t object;
    struct mpcr_keyval *kv;
    void *value;
} * attrs;
static size_t nattrs, cap;

/* MPI_DUP_FN / MPI_COMM_DUP_FN / MPI_TYPE_DUP_FN: the copy is the value. */
int MPIR_Dup_fn(MPI_Comm oldcomm, int keyval, void *extra_state, void *in, void *out, int *flag)
{
    (void)oldcomm, (void)keyval, (void)extra_state;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

MPI_Comm mpcr_comm_handle_of(struct mpcr_comm *c)
{
    if (c == mpcr_comm_get(MPI_COMM_WORLD)) return MPI_COMM_WORLD;
    if (c == mpcr_comm_get(MPI_COMM_SELF)) return MPI_COMM_SELF;
    return (MPI_Comm)mpcr_obj_handle(c);
}

static uint32_t comm_handle(struct mpcr_comm *c)
{
    return (uint32_t)mpcr_comm_handle_of(c);
}

/* The keyval an int names, of the objects `on`, or NULL. */
static struct mpcr_keyval *keyval_get(int keyval, enum mpcr_attr_on on)
{
    struct mpcr_keyval *kv = mpcr_obj_get(MPCR_KIND_KEYVAL, (uint32_t)keyval);
    return kv && kv->on == on ? kv : NULL;
}

static struct attr *find(enum mpcr_attr_on on, uint32_t object, const struct mpcr_keyval *kv)
{
    for (size_t i = 0; i < nattrs; i++)
        if (attrs[i].on == on && attrs[i].object == object && attrs[i].kv == kv) return &attrs[i];
    return NULL;
}

static int add(enum mpcr_attr_on on, uint32_t object, struct mpcr_keyval *kv, void *value)
{
    if (nattrs == cap) {
        size_t n = cap ? 2 * cap : 16;
        struct attr *a = realloc(attrs, n * sizeof *a);
        if (!a) return MPI_ERR_NO_MEM;
        attrs = a, cap = n;
    }
    mpcr_obj_ref(kv);
    attrs[nattrs++] = (struct attr){on, object, kv, value};
    return MPI_SUCCESS;
}

static void remove_at(struct attr *a)
{
    struct mpcr_keyval *kv = a->kv;
    memmove(a, a + 1, (size_t)(attrs + nattrs - (a + 1)) * sizeof *a);
    nattrs--;
    mpcr_obj_unref(kv);
}

/* Runs the delete callback of attribute a (the program's error code, or
 * MPI_SUCCESS). */
static int run_delete(const struct attr *a)
{
    const struct mpcr_keyval *kv = a->kv;
    if (kv->on == MPCR_ATTR_COMM && kv->del.comm)
        return kv->del.comm((MPI_Comm)a->object, (int)kv->h.handle, a->value, kv->extra_state);
    if (kv->on == MPCR_ATTR_TYPE && kv->del.type)
        return kv->del.type((MPI_Datatype)a->object, (int)kv->h.handle, a->value, kv->extra_state);
    return MPI_SUCCESS;
}

/* ---- the hooks of dup and free ---- */

int mpcr_attr_copy_all(enum mpcr_attr_on on, uint32_t from, uint32_t to)
{
    size_t n = nattrs; /* attributes added to `to` come after: not copied again */
    for (size_t i = 0; i < n; i++) {
        struct attr a = attrs[i];
        if (a.on != on || a.object != from) continue;
        void *out = NULL;
        int flag = 0, err = MPI_SUCCESS;
        if (on == MPCR_ATTR_COMM && a.kv->copy.comm)
            err = a.kv->copy.comm((MPI_Comm)from, (int)a.kv->h.handle, a.kv->extra_state, a.value,
                                  &out, &flag);
        else if (on == MPCR_ATTR_TYPE && a.kv->copy.type)
            err = a.kv->copy.type((MPI_Datatype)from, (int)a.kv->h.handle, a.kv->extra_state,
                                  a.value, &out, &flag);
        if (err) return err;
        if (flag && (err = add(on, to, a.kv, out))) return err;
    }
    return MPI_SUCCESS;
}

int mpcr_attr_delete_all(enum mpcr_attr_on on, uint32_t handle)
{
    for (size_t i = nattrs; i-- > 0;) {
        if (i >= nattrs || attrs[i].on != on || attrs[i].object != handle) continue;
        int err = run_delete(&attrs[i]);
        if (err) return err;
        remove_at(&attrs[i]);
    }
    return MPI_SUCCESS;
}

int mpcr_attr_comm_dup(struct mpcr_comm *from, struct mpcr_comm *to)
{
    return mpcr_attr_copy_all(MPCR_ATTR_COMM, comm_handle(from), comm_handle(to));
}

int mpcr_attr_comm_free(struct mpcr_comm *c)
{
    return mpcr_attr_delete_all(MPCR_ATTR_COMM, comm_handle(c));
}

/* ---- keyvals ---- */

static int keyval_new(enum mpcr_attr_on on, void *copy, void *del, int *keyval, void *extra)
{
    if (!keyval) return MPI_ERR_ARG;
    struct mpcr_keyval *kv = mpcr_obj_new(MPCR_KIND_KEYVAL, sizeof *kv, NULL);
    if (!kv) return MPI_ERR_NO_MEM;
    kv->on = on, kv->extra_state = extra;
    /* The comm and type callbacks differ only in their handle's typedef. */
    kv->copy.comm = (MPI_Comm_copy_attr_function *)copy;
    kv->del.comm = (MPI_Comm_delete_attr_function *)del;
    *keyval = (int)mpcr_obj_handle(kv);
    return MPI_SUCCESS;
}

static int keyval_free(enum mpcr_attr_on on, int *keyval)
{
    struct mpcr_keyval *kv = keyval ? keyval_get(*keyval, on) : NULL;
    if (!kv) return MPI_ERR_KEYVAL;
    if (!kv->freed) { /* attributes that use it keep it */
        kv->freed = 1;
        mpcr_obj_unref(kv);
    }
    *keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_create_keyval(MPI_Comm_copy_attr_function *copy,
                                 MPI_Comm_delete_attr_function *del, int *keyval, void *extra)
{
    return keyval_new(MPCR_ATTR_COMM, (void *)copy, (void *)del, keyval, extra);
}

int mpcr_impl_Keyval_create(MPI_Copy_function *copy, MPI_Delete_function *del, int *keyval,
                            void *extra)
{
    return keyval_new(MPCR_ATTR_COMM, (void *)copy, (void *)del, keyval, extra);
}

int mpcr_impl_Type_create_keyval(MPI_Type_copy_attr_function *copy,
                                 MPI_Type_delete_attr_function *del, int *keyval, void *extra)
{
    return keyval_new(MPCR_ATTR_TYPE, (void *)copy, (void *)del, keyval, extra);
}

int mpcr_impl_Comm_free_keyval(int *keyval)
{
    return keyval_free(MPCR_ATTR_COMM, keyval);
}

int mpcr_impl_Keyval_free(int *keyval)
{
    return keyval_free(MPCR_ATTR_COMM, keyval);
}

int mpcr_impl_Type_free_keyval(int *keyval)
{
    return keyval_free(MPCR_ATTR_TYPE, keyval);
}

/* ---- set, get, delete ---- */

static int set(enum mpcr_attr_on on, uint32_t object, int keyval, void *value)
{
    struct mpcr_keyval *kv = keyval_get(keyval, on);
    if (!kv) return MPI_ERR_KEYVAL;
    struct attr *a = find(on, object, kv);
    if (!a && kv->freed) return MPI_ERR_KEYVAL; /* no new use of a freed keyval */
    if (!a) return add(on, object, kv, value);
    int err = run_delete(a); /* the old value goes first (MPI 4.0 section 7.7.3) */
    if (err) return err;
    a->value = value;
    return MPI_SUCCESS;
}

static int get(enum mpcr_attr_on on, uint32_t object, int keyval, void *value, int *flag)
{
    struct mpcr_keyval *kv = keyval_get(keyval, on);
    if (!kv) return MPI_ERR_KEYVAL;
    if (!value || !flag) return MPI_ERR_ARG;
    struct attr *a = find(on, object, kv);
    *flag = a != NULL;
    if (a) *(void **)value = a->value;
    return MPI_SUCCESS;
}

static int del(enum mpcr_attr_on on, uint32_t object, int keyval)
{
    struct mpcr_keyval *kv = keyval_get(keyval, on);
    if (!kv) return MPI_ERR_KEYVAL;
    struct attr *a = find(on, object, kv);
    if (!a) return MPI_SUCCESS; /* nothing attached: nothing to do (as MPICH) */
    int err = run_delete(a);
    if (err) return err;
    remove_at(a);
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_set_attr(struct mpcr_comm *c, int keyval, void *value)
{
    return set(MPCR_ATTR_COMM, comm_handle(c), keyval, value);
}

int mpcr_impl_Attr_put(struct mpcr_comm *c, int keyval, void *value)
{
    return mpcr_impl_Comm_set_attr(c, keyval, value);
}

int mpcr_impl_Comm_delete_attr(struct mpcr_comm *c, int keyval)
{
    return del(MPCR_ATTR_COMM, comm_handle(c), keyval);
}

int mpcr_impl_Attr_delete(struct mpcr_comm *c, int keyval)
{
    return mpcr_impl_Comm_delete_attr(c, keyval);
}

/* The predefined attributes (MPI 4.0 section 9.1.1): their values are
 * fixed for the job (MPI_LASTUSEDCODE grows with MPI_Add_error_class), kept
 * here so that the pointers handed out stay valid. */
static int predefined_get(int keyval, void *value, int *flag)
{
    static int tag_ub, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0, universe,
                       appnum = 0, last_code;
    tag_ub = mpcr.tag_ub;
    universe = mpcr.size;
    last_code = mpcr_last_used_code();
    int *v;
    switch (keyval) {
    case MPI_TAG_UB:
        v = &tag_ub;
        break;
    case MPI_HOST:
        v = &host;
        break;
    case MPI_IO:
        v = &io;
        break;
    case MPI_WTIME_IS_GLOBAL:
        v = &wtime_global;
        break;
    case MPI_UNIVERSE_SIZE:
        v = &universe;
        break;
    case MPI_APPNUM:
        v = &appnum;
        break;
    case MPI_LASTUSEDCODE:
        v = &last_code;
        break;
    default:
        return MPI_ERR_KEYVAL;
    }
    *(int **)value = v;
    *flag = 1;
    return MPI_SUCCESS;
}

int mpcr_impl_Comm_get_attr(struct mpcr_comm *c, int keyval, void *value, int *flag)
{
    if (!mpcr_obj_get(MPCR_KIND_KEYVAL, (uint32_t)keyval)) {
        if (!value || !flag) return MPI_ERR_ARG;
        return predefined_get(keyval, value, flag);
    }
    return get(MPCR_ATTR_COMM, comm_handle(c), keyval, value, flag);
}

int mpcr_impl_Attr_get(struct mpcr_comm *c, int keyval, void *value, int *flag)
{
    return mpcr_impl_Comm_get_attr(c, keyval, value, flag);
}

/* Datatype attributes are set on the handle (predefined types included). */
int mpcr_impl_Type_set_attr(MPI_Datatype t, int keyval, void *value)
{
    if (!mpcr_type_get(t)) return MPI_ERR_TYPE;
    return set(MPCR_ATTR_TYPE, (uint32_t)t, keyval, value);
}

int mpcr_impl_Type_get_attr(MPI_Datatype t, int keyval, void *value, int *flag)
{
    if (!mpcr_type_get(t)) return MPI_ERR_TYPE;
    return get(MPCR_ATTR_TYPE, (uint32_t)t, keyval, value, flag);
}

int mpcr_impl_Type_delete_attr(MPI_Datatype t, int keyval)
{
    if (!mpcr_type_get(t)) return MPI_ERR_TYPE;
    return del(MPCR_ATTR_TYPE, (uint32_t)t, keyval);
}
