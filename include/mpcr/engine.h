/* mpcr checkpoint engine: the public API of libmpcr-engine.
 *
 * The engine lives inside the process it checkpoints. Loaded with LD_PRELOAD
 * it starts itself; a library that links it (mpcr's passive MPI library)
 * calls mpcr_engine_init() and may add hooks and excluded regions.
 *
 * A checkpoint is taken either when the process receives the engine's signal
 * (SIGRTMAX, sent by the coordinator with sigqueue) or when the program calls
 * mpcr_engine_checkpoint(). Every thread is stopped inside a signal handler,
 * the image is written, and the threads go on (or, in a restarted process,
 * go on from the same instant). SIGRTMAX-1 is left to the MPI library.
 *
 * Functions return 0 or a negative errno; they never print and never exit. */
#ifndef MPCR_ENGINE_H
#define MPCR_ENGINE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPCR_ENGINE_API __attribute__((visibility("default")))

/* Installs the checkpoint signal handler. Idempotent. Call from the main
 * thread before threads that must be checkpointed block SIGRTMAX. */
MPCR_ENGINE_API int mpcr_engine_init(void);

/* Called in the thread that writes the image, inside a signal handler, with
 * every other thread stopped (before) or about to go on (resume, restarted).
 * Only async-signal-safe work is allowed: no malloc, no stdio. Any may be
 * NULL. `before` returning non-zero cancels the checkpoint. */
struct mpcr_engine_hooks {
    int (*before)(void *arg);
    void (*resume)(void *arg);    /* the image is written and this process goes on */
    void (*restarted)(void *arg); /* this process was just restored from an image */
    void *arg;
};
MPCR_ENGINE_API void mpcr_engine_set_hooks(const struct mpcr_engine_hooks *hooks);

/* Memory never saved (a shared-memory channel the layer above re-creates in
 * its `restarted` hook). Up to 32 regions. */
MPCR_ENGINE_API int mpcr_engine_exclude_region(void *addr, size_t len);

/* File descriptors never saved nor refused (the channel to the MPI proxy):
 * after a restart they are closed, free for the layer above to re-create in
 * its `restarted` hook. Up to 16; include_fd takes one back. */
MPCR_ENGINE_API int mpcr_engine_exclude_fd(int fd);
MPCR_ENGINE_API void mpcr_engine_include_fd(int fd);

/* Where later checkpoints report and write (a restarted process may have a
 * new coordinator and directory): a unix socket path or tcp:A.B.C.D:PORT,
 * the job's secret (NULL or "": none), the checkpoint directory (NULL or
 * "": unchanged). Async-signal-safe. */
MPCR_ENGINE_API void mpcr_engine_set_coordinator(const char *addr, const char *secret, const char *dir);

/* Takes a checkpoint now, from the calling thread, into the file `path`
 * (written atomically). Returns 0 when the image is written and the process
 * goes on, 1 when the process was restarted from this image, or a negative
 * errno; mpcr_engine_last_error() then says why in words. */
MPCR_ENGINE_API int mpcr_engine_checkpoint(const char *path);

MPCR_ENGINE_API const char *mpcr_engine_last_error(void);

#ifdef __cplusplus
}
#endif
#endif
