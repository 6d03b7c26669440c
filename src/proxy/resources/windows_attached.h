/* Memory a program's dynamic windows attached (MPI_Win_attach; the design:
 * docs/one-sided.md, "Dynamic windows"), as a resource of the proxy
 * (windows_attached.c). A dynamic window's target displacement is an
 * address in the target program, so the proxy maps each memfd of attached
 * pages at that same address and attaches it to its real window: an
 * origin's proxy then uses the program's address as it is. */
#ifndef MPCR_PROXY_WINDOWS_ATTACHED_H
#define MPCR_PROXY_WINDOWS_ATTACHED_H

#include "proxy.h"

/* A new memfd of `length` bytes (whole pages) mapped at address `at` here
 * (where nothing of this proxy's is) and attached to the real window: its
 * descriptor. An MPI error class. */
int attached_memory(uint64_t at, uint64_t length, int *fd);
/* The memory at address `at` detached, unmapped, forgotten. An MPI error class. */
int attached_release(uint64_t at);
/* A restart's hand-over (shared.c gives it what carries
 * MPCR_WIN_ATTACHED_HANDOVER): the memfd of attached memory the state file
 * named. 0, or -1 (not named so). */
int attached_accept(int fd, uint64_t at, uint64_t length);

#endif
