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
#include "attr.h"
#include "comm/comm.h"
#include "datatype/dtype.h"
#include "errors.h"
#include "rma/win.h"
#include "runtime/handle.h"
#include "runtime/runtime.h"

#include <stdlib.h>
#include <string.h>

struct mpcr_keyval {
    struct mpcr_object h;
    enum mpcr_attr_on on;
    union { /* the callbacks, as the program gave them (NULL: MPI_*_NULL_*_FN) */
        MPI_Comm_copy_attr_function *comm;
        MPI_Type_copy_attr_function *type; /* windows are never copied */
    } copy;
    union {
        MPI_Comm_delete_attr_function *comm;
        MPI_Type_delete_attr_function *type;
        MPI_Win_delete_attr_function *win;
    } del;
    void *extra_state;
    /* Set by MPII_Keyval_set_proxy for a keyval created from Fortran: they
     * call the callbacks above with Fortran's conventions (fortran_attr.c). */
    mpcr_attr_copy_proxy *copy_proxy;
    mpcr_attr_delete_proxy *delete_proxy;
    int freed; /* the program freed it: its reference is gone, attributes hold the rest */
};

/* A Fortran attribute as C reads it: a pointer to an int (MPI_ATTR_PUT's
 * INTEGER) or to an MPI_Aint (MPI_COMM_SET_ATTR's address-sized integer). */
union attr_cell {
    int fint;
    MPI_Aint aint;
};

static struct attr {
    enum mpcr_attr_on on;
    uint32_t object;
    struct mpcr_keyval *kv;
    void *value;
    enum mpcr_attr_kind kind; /* how the value was given: C pointer, Fortran integer */
    union attr_cell *cell;    /* what a C reader of a Fortran value points to (NULL until read) */
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

static int add(enum mpcr_attr_on on, uint32_t object, struct mpcr_keyval *kv, void *value,
               enum mpcr_attr_kind kind)
{
    if (nattrs == cap) {
        size_t n = cap ? 2 * cap : 16;
        struct attr *a = realloc(attrs, n * sizeof *a);
        if (!a) return MPI_ERR_NO_MEM;
        attrs = a, cap = n;
    }
    mpcr_obj_ref(kv);
    attrs[nattrs++] = (struct attr){on, object, kv, value, kind, NULL};
    return MPI_SUCCESS;
}

static void remove_at(struct attr *a)
{
    struct mpcr_keyval *kv = a->kv;
    free(a->cell);
    memmove(a, a + 1, (size_t)(attrs + nattrs - (a + 1)) * sizeof *a);
    nattrs--;
    mpcr_obj_unref(kv);
}

/* Runs the delete callback of attribute a (the program's error code, or
 * MPI_SUCCESS). */
static int run_delete(const struct attr *a)
{
    const struct mpcr_keyval *kv = a->kv;
    if (kv->delete_proxy && kv->del.comm)
        return kv->delete_proxy(kv->del.comm, (int)a->object, (int)kv->h.handle, a->kind, a->value,
                                kv->extra_state);
    if (kv->on == MPCR_ATTR_COMM && kv->del.comm)
        return kv->del.comm((MPI_Comm)a->object, (int)kv->h.handle, a->value, kv->extra_state);
    if (kv->on == MPCR_ATTR_TYPE && kv->del.type)
        return kv->del.type((MPI_Datatype)a->object, (int)kv->h.handle, a->value, kv->extra_state);
    if (kv->on == MPCR_ATTR_WIN && kv->del.win)
        return kv->del.win((MPI_Win)a->object, (int)kv->h.handle, a->value, kv->extra_state);
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
        if (a.kv->copy_proxy && a.kv->copy.comm)
            err = a.kv->copy_proxy(a.kv->copy.comm, (int)from, (int)a.kv->h.handle,
                                   a.kv->extra_state, a.kind, a.value, &out, &flag);
        else if (on == MPCR_ATTR_COMM && a.kv->copy.comm)
            err = a.kv->copy.comm((MPI_Comm)from, (int)a.kv->h.handle, a.kv->extra_state, a.value,
                                  &out, &flag);
        else if (on == MPCR_ATTR_TYPE && a.kv->copy.type)
            err = a.kv->copy.type((MPI_Datatype)from, (int)a.kv->h.handle, a.kv->extra_state,
                                  a.value, &out, &flag);
        if (err) return err;
        if (flag && (err = add(on, to, a.kv, out, a.kind))) return err;
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

int mpcr_impl_Win_create_keyval(MPI_Win_copy_attr_function *copy,
                                MPI_Win_delete_attr_function *del, int *keyval, void *extra)
{
    return keyval_new(MPCR_ATTR_WIN, (void *)copy, (void *)del, keyval, extra);
}

int mpcr_impl_Win_free_keyval(int *keyval)
{
    return keyval_free(MPCR_ATTR_WIN, keyval);
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

int mpcr_attr_set(enum mpcr_attr_on on, uint32_t object, int keyval, void *value,
                  enum mpcr_attr_kind kind)
{
    struct mpcr_keyval *kv = keyval_get(keyval, on);
    if (!kv) return MPI_ERR_KEYVAL;
    struct attr *a = find(on, object, kv);
    if (!a && kv->freed) return MPI_ERR_KEYVAL; /* no new use of a freed keyval */
    if (!a) return add(on, object, kv, value, kind);
    int err = run_delete(a); /* the old value goes first (MPI 4.0 section 7.7.3) */
    if (err) return err;
    a->value = value, a->kind = kind;
    return MPI_SUCCESS;
}

/* A C reader (MPCR_ATTR_PTR) of a Fortran attribute gets a pointer to an
 * int (MPI_ATTR_PUT) or MPI_Aint (MPI_COMM_SET_ATTR) holding the value (MPI
 * 4.0 section 19.3.7, as MPICH), a cell that lives as long as the
 * attribute; Fortran reads any attribute as stored: a C pointer as an
 * address-sized integer. */
int mpcr_attr_get(enum mpcr_attr_on on, uint32_t object, int keyval, void *value, int *flag,
                  enum mpcr_attr_kind reader)
{
    struct mpcr_keyval *kv = keyval_get(keyval, on);
    if (!kv) return MPI_ERR_KEYVAL;
    if (!value || !flag) return MPI_ERR_ARG;
    struct attr *a = find(on, object, kv);
    *flag = a != NULL;
    if (!a) return MPI_SUCCESS;
    if (reader == MPCR_ATTR_PTR && a->kind != MPCR_ATTR_PTR) {
        if (!a->cell && !(a->cell = malloc(sizeof *a->cell))) return MPI_ERR_NO_MEM;
        if (a->kind == MPCR_ATTR_INT)
            a->cell->fint = (int)(intptr_t)a->value;
        else
            a->cell->aint = (MPI_Aint)(intptr_t)a->value;
        *(void **)value = a->cell;
    } else {
        *(void **)value = a->value;
    }
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
    return mpcr_attr_set(MPCR_ATTR_COMM, comm_handle(c), keyval, value, MPCR_ATTR_PTR);
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

/* Fortran reads a predefined attribute as its value, C through a pointer.
 * MPICH's Fortran keyvals of the predefined attributes are C's plus one
 * (mpif.h: MPI_TAG_UB is 0x64400002, mpi.h 0x64400001). */
int mpcr_attr_comm_get(struct mpcr_comm *c, int keyval, void *value, int *flag,
                       enum mpcr_attr_kind reader)
{
    if (!mpcr_obj_get(MPCR_KIND_KEYVAL, (uint32_t)keyval)) {
        if (!value || !flag) return MPI_ERR_ARG;
        int fortran_predefined = (keyval & ~0xf) == (MPI_TAG_UB & ~0xf) && !(keyval & 1);
        if (reader != MPCR_ATTR_PTR && fortran_predefined) keyval -= 1;
        int err = predefined_get(keyval, value, flag);
        if (!err && reader != MPCR_ATTR_PTR) *(void **)value = (void *)(intptr_t) * *(int **)value;
        return err;
    }
    return mpcr_attr_get(MPCR_ATTR_COMM, comm_handle(c), keyval, value, flag, reader);
}

int mpcr_impl_Comm_get_attr(struct mpcr_comm *c, int keyval, void *value, int *flag)
{
    return mpcr_attr_comm_get(c, keyval, value, flag, MPCR_ATTR_PTR);
}

void mpcr_keyval_set_proxy(int keyval, mpcr_attr_copy_proxy *copy, mpcr_attr_delete_proxy *del)
{
    struct mpcr_keyval *kv = mpcr_obj_get(MPCR_KIND_KEYVAL, (uint32_t)keyval);
    if (kv) kv->copy_proxy = copy, kv->delete_proxy = del;
}

int mpcr_impl_Attr_get(struct mpcr_comm *c, int keyval, void *value, int *flag)
{
    return mpcr_impl_Comm_get_attr(c, keyval, value, flag);
}

/* Datatype attributes are set on the handle (predefined types included). */
int mpcr_impl_Type_set_attr(MPI_Datatype t, int keyval, void *value)
{
    if (!mpcr_type_get(t)) return MPI_ERR_TYPE;
    return mpcr_attr_set(MPCR_ATTR_TYPE, (uint32_t)t, keyval, value, MPCR_ATTR_PTR);
}

int mpcr_impl_Type_get_attr(MPI_Datatype t, int keyval, void *value, int *flag)
{
    if (!mpcr_type_get(t)) return MPI_ERR_TYPE;
    return mpcr_attr_get(MPCR_ATTR_TYPE, (uint32_t)t, keyval, value, flag, MPCR_ATTR_PTR);
}

int mpcr_impl_Type_delete_attr(MPI_Datatype t, int keyval)
{
    if (!mpcr_type_get(t)) return MPI_ERR_TYPE;
    return del(MPCR_ATTR_TYPE, (uint32_t)t, keyval);
}

/* Windows (win.c): a window's handle names its attributes. */
static uint32_t win_handle(struct mpcr_win *w)
{
    return (uint32_t)mpcr_obj_handle(w);
}

int mpcr_impl_Win_set_attr(struct mpcr_win *w, int keyval, void *value)
{
    return mpcr_attr_set(MPCR_ATTR_WIN, win_handle(w), keyval, value, MPCR_ATTR_PTR);
}

int mpcr_impl_Win_get_attr(struct mpcr_win *w, int keyval, void *value, int *flag)
{
    if (!value || !flag) return MPI_ERR_ARG;
    if (!mpcr_obj_get(MPCR_KIND_KEYVAL, (uint32_t)keyval))
        return mpcr_win_predefined(w, keyval, value, flag);
    return mpcr_attr_get(MPCR_ATTR_WIN, win_handle(w), keyval, value, flag, MPCR_ATTR_PTR);
}

int mpcr_impl_Win_delete_attr(struct mpcr_win *w, int keyval)
{
    return del(MPCR_ATTR_WIN, win_handle(w), keyval);
}
