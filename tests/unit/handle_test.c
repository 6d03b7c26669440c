/* The handle system (src/lib/runtime/handle.c): kinds are told apart, freed
 * handles are refused, slots are reused, references keep objects alive. */
#include "runtime/handle.h"
#include "unit.h"

struct thing {
    struct mpcr_object h;
    int value;
};

static int destroyed;
static void count_destroy(void *obj)
{
    destroyed += ((struct thing *)obj)->value;
}

static struct thing *new_thing(enum mpcr_kind kind, int value)
{
    struct thing *t = mpcr_obj_new(kind, sizeof *t, count_destroy);
    ASSERT_TRUE(t);
    t->value = value;
    return t;
}

static void kinds_and_encoding(void)
{
    struct thing *c = new_thing(MPCR_KIND_COMM, 0), *r = new_thing(MPCR_KIND_REQUEST, 0);
    struct thing *m = new_thing(MPCR_KIND_MESSAGE, 0);
    uint32_t hc = mpcr_obj_handle(c), hr = mpcr_obj_handle(r), hm = mpcr_obj_handle(m);
    ASSERT_EQ(hc >> 26, 0x84u >> 2);            /* MPICH: direct handle of kind 1 */
    ASSERT_EQ(hr >> 26, 0xacu >> 2);            /* kind 11 */
    ASSERT_EQ(hm >> 30, 3);                     /* messages: request kind, type 11 */
    ASSERT_NE((hc >> 20) & 0x3f, 0);            /* generation never 0 */
    ASSERT_TRUE(mpcr_obj_get(MPCR_KIND_COMM, hc) == c);
    ASSERT_TRUE(mpcr_obj_get(MPCR_KIND_REQUEST, hc) == NULL); /* wrong kind */
    ASSERT_TRUE(mpcr_obj_get(MPCR_KIND_REQUEST, hm) == NULL);
    ASSERT_TRUE(mpcr_obj_get(MPCR_KIND_MESSAGE, hr) == NULL);
    ASSERT_TRUE(mpcr_obj_get(MPCR_KIND_COMM, 0x44000000u) == NULL); /* predefined: not here */
    ASSERT_TRUE(mpcr_obj_get(MPCR_KIND_COMM, 0x12345678u) == NULL); /* garbage */
    ASSERT_TRUE(mpcr_obj_get(MPCR_KIND_COMM, hc + 1000) == NULL);   /* index past the table */
    mpcr_obj_drop_handle(c), mpcr_obj_drop_handle(r), mpcr_obj_drop_handle(m);
}

static void freed_handles_and_reuse(void)
{
    struct thing *a = new_thing(MPCR_KIND_GROUP, 0);
    uint32_t ha = mpcr_obj_handle(a);
    mpcr_obj_drop_handle(a);
    ASSERT_TRUE(mpcr_obj_get(MPCR_KIND_GROUP, ha) == NULL); /* freed */
    struct thing *b = new_thing(MPCR_KIND_GROUP, 0);
    uint32_t hb = mpcr_obj_handle(b);
    ASSERT_EQ(hb & MPCR_HANDLE_MAX_INDEX, ha & MPCR_HANDLE_MAX_INDEX); /* slot reused */
    ASSERT_NE(hb, ha);                                                 /* new generation */
    ASSERT_TRUE(mpcr_obj_get(MPCR_KIND_GROUP, ha) == NULL);
    ASSERT_TRUE(mpcr_obj_get(MPCR_KIND_GROUP, hb) == b);
    mpcr_obj_drop_handle(b);
    /* Many create/free cycles keep the table at one slot. */
    for (int i = 0; i < 100000; i++)
        mpcr_obj_drop_handle(new_thing(MPCR_KIND_GROUP, 0));
    ASSERT_EQ(mpcr_obj_count(MPCR_KIND_GROUP), 0);
    struct thing *c = new_thing(MPCR_KIND_GROUP, 0);
    ASSERT_EQ(mpcr_obj_index(c), ha & MPCR_HANDLE_MAX_INDEX);
    mpcr_obj_drop_handle(c);
}

static void references(void)
{
    destroyed = 0;
    struct thing *comm = new_thing(MPCR_KIND_COMM, 7);
    uint32_t h = mpcr_obj_handle(comm);
    mpcr_obj_ref(comm); /* a pending request uses it */
    ASSERT_EQ(mpcr_obj_drop_handle(comm), 0); /* the program frees it: it lives on */
    ASSERT_EQ(destroyed, 0);
    ASSERT_TRUE(mpcr_obj_get(MPCR_KIND_COMM, h) == NULL); /* but its handle is gone */
    ASSERT_EQ(mpcr_obj_count(MPCR_KIND_COMM), 1);
    ASSERT_EQ(comm->value, 7);                 /* still usable by the request */
    ASSERT_EQ(mpcr_obj_unref(comm), 1);        /* the request completes */
    ASSERT_EQ(destroyed, 7);
    ASSERT_EQ(mpcr_obj_count(MPCR_KIND_COMM), 0);
}

static void many_alive(void)
{
    enum { N = 5000 };
    static struct thing *t[N];
    for (int i = 0; i < N; i++)
        t[i] = new_thing(MPCR_KIND_REQUEST, 0);
    for (int i = 0; i < N; i++)
        ASSERT_TRUE(mpcr_obj_get(MPCR_KIND_REQUEST, mpcr_obj_handle(t[i])) == t[i]);
    for (int i = 0; i < N; i += 2)
        mpcr_obj_drop_handle(t[i]);
    for (int i = 0; i < N; i++)
        ASSERT_TRUE((mpcr_obj_get(MPCR_KIND_REQUEST, mpcr_obj_handle(t[i])) != NULL) == (i % 2));
    for (int i = 1; i < N; i += 2)
        mpcr_obj_drop_handle(t[i]);
    ASSERT_EQ(mpcr_obj_count(MPCR_KIND_REQUEST), 0);
}

int main(void)
{
    kinds_and_encoding();
    freed_handles_and_reuse();
    references();
    many_alive();
    printf("handle: all passed\n");
    return 0;
}
