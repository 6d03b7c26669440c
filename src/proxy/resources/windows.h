/* Windows (one-sided; docs/one-sided.md) as a resource of the proxy
 * (windows.c): the proxy's one real window, dynamic over MPI_COMM_WORLD and
 * locked for its whole life, and the memory of every window of its program
 * attached to it: memfds mapped in a reservation of this proxy's own, each
 * named by its offset there. The handlers of the WIN calls are
 * serve/serve_win.c. */
#ifndef MPCR_PROXY_WINDOWS_H
#define MPCR_PROXY_WINDOWS_H

#include "proxy.h"

/* At the proxy's start, collective over the proxies of the job, before any
 * program runs: the reservation; the real window too where the job has no
 * coordinator (else windows_start, later). */
void windows_init(void);
/* Collective over the proxies of the job: the dynamic window, every
 * proxy's base. Once; called by the proxy whose program makes the job's
 * first window and by every proxy that hears "windows" (ckpt.c). When the
 * real MPI refuses, one-sided calls are refused later, not the job. */
void windows_start(void);
/* In a new proxy, after the state file is loaded, before any program runs:
 * windows_start if the job had made its real window. */
void windows_start_loaded(void);
/* Before MPI_Finalize (collective, as MPI_Finalize is). */
void windows_finalize(void);

/* The real window, or MPI_WIN_NULL when this MPI gave none. */
MPI_Win windows_real(void);
/* The address of world rank r's reservation, as its proxy attached it. */
MPI_Aint windows_base(int r);

/* A new memfd of `length` bytes (whole pages) for window `win`, mapped at
 * a free offset and attached: its descriptor and offset. An MPI error class. */
int windows_memory(uint32_t win, uint64_t length, int *fd, uint64_t *offset);
/* Window win's memory made by another proxy of this host (pid's descriptor
 * fd, a sealed memfd of `length` bytes: MPI_Win_allocate_shared), mapped at
 * a free offset here too and attached: its offset. MPI_ERR_RMA_SHARED when
 * it cannot be opened (another host's) or is not such a memfd. */
int windows_memory_of(uint32_t win, int32_t pid, int32_t fd, uint64_t length, uint64_t *offset);
/* The memory at offset detached, unmapped, forgotten: MPI_ERR_ARG unless it
 * is window win's (a library that asks again after a restart lets go of
 * what it may have been given by a call served twice). An MPI error class. */
int windows_release(uint32_t win, uint64_t offset);
/* A restart's hand-over (shared.c gives it what carries MPCR_WIN_HANDOVER):
 * the memfd of a window the state file named. 0, or -1 (not named so). */
int windows_accept(int fd, uint64_t offset, uint64_t length);
/* The idle proxy, between naps: 1 when windows are attached, after a turn
 * of the real MPI's progress (passive target: others' operations on this
 * rank's windows), else 0. */
int windows_progress(void);

#endif
