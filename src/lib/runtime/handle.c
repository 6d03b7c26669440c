/* See handle.h. Each kind has a table of slots (an object pointer and the
 * slot's current generation) and a stack of free slot indices, so that a
 * new object takes the most recently freed slot: tables stay small in a
 * program that creates and frees objects all the time. */
#include "handle.h"

#include <stdlib.h>

/* Top 6 bits of each kind's user handles: MPICH's "direct" handle type and
 * object kind (messages: type 11 in MPICH's request kind). */
static const uint32_t prefix[MPCR_NKINDS] = {
    [MPCR_KIND_COMM] = 0x84000000u,       [MPCR_KIND_GROUP] = 0x88000000u,
    [MPCR_KIND_DATATYPE] = 0x8c000000u,   [MPCR_KIND_FILE] = 0x90000000u,
    [MPCR_KIND_ERRHANDLER] = 0x94000000u, [MPCR_KIND_OP] = 0x98000000u,
    [MPCR_KIND_INFO] = 0x9c000000u,       [MPCR_KIND_WIN] = 0xa0000000u,
    [MPCR_KIND_KEYVAL] = 0xa4000000u,     [MPCR_KIND_REQUEST] = 0xac000000u,
    [MPCR_KIND_MESSAGE] = 0xec000000u,    [MPCR_KIND_SESSION] = 0xb8000000u,
};
#define PREFIX_MASK 0xfc000000u
#define GEN_SHIFT   20
#define GEN_MASK    0x3fu

struct slot {
    struct mpcr_object *obj; /* NULL when free */
    uint8_t gen;             /* generation of the object in it, or of the last one */
};

static struct table {
    struct slot *slots;
    uint32_t nslots, cap;
    uint32_t *free; /* indices of free slots, most recently freed last */
    uint32_t nfree, live;
} tables[MPCR_NKINDS];

static int grow(struct table *t)
{
    uint32_t cap = t->cap ? 2 * t->cap : 64;
    if (cap > MPCR_HANDLE_MAX_INDEX + 1) cap = MPCR_HANDLE_MAX_INDEX + 1;
    if (cap <= t->cap) return -1;
    struct slot *s = realloc(t->slots, cap * sizeof *s);
    if (!s) return -1;
    t->slots = s;
    uint32_t *f = realloc(t->free, cap * sizeof *f);
    if (!f) return -1;
    t->free = f;
    t->cap = cap;
    return 0;
}

void *mpcr_obj_new(enum mpcr_kind kind, uint32_t size, mpcr_obj_destroy_fn *destroy)
{
    struct table *t = &tables[kind];
    uint32_t i;
    if (t->nfree) {
        i = t->free[--t->nfree];
    } else {
        if (t->nslots == t->cap && grow(t)) return NULL;
        i = t->nslots++;
        t->slots[i] = (struct slot){NULL, 0};
    }
    struct mpcr_object *o = calloc(1, size);
    if (!o) {
        t->free[t->nfree++] = i;
        return NULL;
    }
    struct slot *s = &t->slots[i];
    s->gen = (uint8_t)(s->gen % GEN_MASK + 1); /* 1..63: a user handle never has generation 0 */
    s->obj = o;
    o->handle = prefix[kind] | (uint32_t)s->gen << GEN_SHIFT | i;
    o->refs = 1;
    o->kind = (uint8_t)kind;
    o->destroy = destroy;
    t->live++;
    return o;
}

void *mpcr_obj_get(enum mpcr_kind kind, uint32_t handle)
{
    if ((handle & PREFIX_MASK) != prefix[kind]) return NULL;
    const struct table *t = &tables[kind];
    uint32_t i = handle & MPCR_HANDLE_MAX_INDEX;
    if (i >= t->nslots) return NULL;
    struct mpcr_object *o = t->slots[i].obj;
    if (!o || o->handle != handle || o->released) return NULL;
    return o;
}

int mpcr_obj_unref(void *obj)
{
    struct mpcr_object *o = obj;
    if (--o->refs) return 0;
    if (o->destroy) o->destroy(o);
    struct table *t = &tables[o->kind];
    uint32_t i = o->handle & MPCR_HANDLE_MAX_INDEX;
    t->slots[i].obj = NULL;
    t->free[t->nfree++] = i;
    t->live--;
    free(o);
    return 1;
}

int mpcr_obj_drop_handle(void *obj)
{
    struct mpcr_object *o = obj;
    o->released = 1;
    return mpcr_obj_unref(o);
}

uint32_t mpcr_obj_count(enum mpcr_kind kind)
{
    return tables[kind].live;
}
