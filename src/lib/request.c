/* The table of non-blocking requests. The program holds handles of MPICH's
 * shape (0xac000000 | index); what a request needs to complete lives here. */
#include "lib.h"

#include <stdlib.h>

#define REQUEST_PREFIX 0xac000000u
#define INDEX_MASK     0x03ffffffu

static struct mpcr_request *table;
static uint32_t *free_list;
static uint32_t capacity, nfree;

struct mpcr_request *mpcr_request_new(MPI_Request *handle)
{
    if (!nfree) {
        uint32_t cap = capacity ? 2 * capacity : 64;
        struct mpcr_request *t = realloc(table, cap * sizeof *t);
        uint32_t *f = realloc(free_list, cap * sizeof *f);
        if (!t || !f) mpcr_fatal("out of memory for requests");
        table = t, free_list = f;
        for (uint32_t i = cap; i > capacity; i--)
            free_list[nfree++] = i - 1;
        capacity = cap;
    }
    uint32_t i = free_list[--nfree];
    table[i] = (struct mpcr_request){0};
    *handle = (MPI_Request)(REQUEST_PREFIX | i);
    return &table[i];
}

struct mpcr_request *mpcr_request_get(MPI_Request handle)
{
    uint32_t u = (uint32_t)handle, i = u & INDEX_MASK;
    if ((u & ~INDEX_MASK) != REQUEST_PREFIX || i >= capacity || !table[i].kind) return NULL;
    return &table[i];
}

void mpcr_request_free(MPI_Request *handle)
{
    uint32_t i = (uint32_t)*handle & INDEX_MASK;
    table[i].kind = 0;
    free_list[nfree++] = i;
    *handle = MPI_REQUEST_NULL;
}
