/* One handle system for every kind of MPI object the program can hold.
 *
 * A handle is what the program stores (an MPI_Comm, MPI_Request, ...);
 * the object behind it lives in the application's heap, so it is in every
 * checkpoint image and survives a restart with the same handle value.
 *
 * Handles use MPICH's encoding, so that predefined handles (MPI_COMM_WORLD,
 * MPI_INT, MPI_SUM, ...) keep their ABI values and a handle of the wrong
 * kind is recognised as such:
 *
 *   bits 31-30  00 invalid/null, 01 predefined, 10 (and 11) user objects
 *   bits 29-26  the object kind (MPICH's numbering: 1 comm ... 11 request)
 *   bits 25-20  generation of the slot (user objects): 1..63, never 0
 *   bits 19-0   index of the slot in the kind's table
 *
 * A freed slot is reused by the next object of its kind with the next
 * generation, so a handle the program kept after freeing it is refused
 * (unless 63 objects have used the slot since) instead of reaching another
 * object. Messages (MPI_Message) share MPICH's request kind; theirs have
 * the bits 31-30 set to 11.
 *
 * Objects are reference counted: the program's handle is one reference,
 * and everything that must outlive the program's free (a pending request
 * on a communicator, a derived datatype's parts) takes one more. Freeing
 * the handle (mpcr_obj_drop_handle) makes it invalid at once; the object
 * itself is destroyed when its last reference goes.
 *
 * Not thread-safe: the library serialises MPI calls (MPI_THREAD_SERIALIZED). */
#ifndef MPCR_HANDLE_H
#define MPCR_HANDLE_H

#include <stdint.h>

enum mpcr_kind {
    MPCR_KIND_COMM,
    MPCR_KIND_GROUP,
    MPCR_KIND_DATATYPE,
    MPCR_KIND_FILE,
    MPCR_KIND_ERRHANDLER,
    MPCR_KIND_OP,
    MPCR_KIND_INFO,
    MPCR_KIND_WIN,
    MPCR_KIND_KEYVAL,
    MPCR_KIND_REQUEST,
    MPCR_KIND_MESSAGE,
    MPCR_KIND_SESSION,
    MPCR_NKINDS
};

/* Called when an object's last reference goes, before its memory is freed. */
typedef void mpcr_obj_destroy_fn(void *obj);

/* Every object starts with this header. */
struct mpcr_object {
    uint32_t handle; /* its handle; kept after the program freed it (messages, reports) */
    uint32_t refs;
    uint8_t kind;     /* enum mpcr_kind */
    uint8_t released; /* the program freed its handle: look-ups fail */
    mpcr_obj_destroy_fn *destroy;
};

/* The most objects of one kind alive at once. */
#define MPCR_HANDLE_MAX_INDEX ((1u << 20) - 1)

/* A new object of `size` bytes (header included), zeroed, one reference
 * (the program's). NULL when out of memory or when the kind has
 * MPCR_HANDLE_MAX_INDEX + 1 objects alive. */
void *mpcr_obj_new(enum mpcr_kind kind, uint32_t size, mpcr_obj_destroy_fn *destroy);

/* The object a program's handle names: NULL unless it is a live user object
 * of this kind whose handle the program has not freed. Predefined handles
 * are not in the tables: each kind's module answers them itself. */
void *mpcr_obj_get(enum mpcr_kind kind, uint32_t handle);

static inline uint32_t mpcr_obj_handle(const void *obj)
{
    return ((const struct mpcr_object *)obj)->handle;
}

/* Index of the object's slot (stable while it lives; reused after it). */
static inline uint32_t mpcr_obj_index(const void *obj)
{
    return ((const struct mpcr_object *)obj)->handle & MPCR_HANDLE_MAX_INDEX;
}

static inline void mpcr_obj_ref(void *obj)
{
    ((struct mpcr_object *)obj)->refs++;
}

/* Drops a reference; at the last one the object is destroyed and its slot
 * freed. Returns 1 when it was destroyed. */
int mpcr_obj_unref(void *obj);

/* The program freed its handle: look-ups of it fail from now on, and the
 * program's reference goes (the object may live on). */
int mpcr_obj_drop_handle(void *obj);

/* Objects of a kind alive now (tests, reports). */
uint32_t mpcr_obj_count(enum mpcr_kind kind);

#endif
