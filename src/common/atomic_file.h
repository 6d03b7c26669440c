/* The one way mpcr publishes a file (images, manifests, the coordinator's
 * files, `mpcr exec`'s launch file): written under a temporary name beside
 * the final one, synced, renamed over it, and the directory synced, so that
 * a reader, even after a crash, sees the whole file or none.
 *
 * The temporary, PATH.tmp, is created O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC:
 * never through a link planted there, never into a file already there. One
 * found there (left by a writer that was killed, or planted) is removed
 * first, itself and not what it points to; one put there again between
 * that and the creation makes it fail with -EEXIST. Its mode is exactly
 * the one asked (fchmod), whatever the umask.
 *
 * Async-signal-safe: no allocation, no stdio, no locks; the engine
 * publishes images from its signal handler while the other threads of the
 * process are frozen. Every function returns 0 or -errno. */
#ifndef MPCR_COMMON_ATOMIC_FILE_H
#define MPCR_COMMON_ATOMIC_FILE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

struct mpcr_atomic_file {
    int fd;              /* the temporary, open for writing; -1 when none */
    char path[PATH_MAX]; /* the final name */
    char tmp[PATH_MAX];  /* path + ".tmp" */
};

/* Creates path's temporary; on failure (-ENAMETOOLONG for a path too long)
 * f->fd is -1 and nothing is left behind. */
int mpcr_atomic_open(struct mpcr_atomic_file *f, const char *path, mode_t mode);

/* Appends n bytes at the temporary's offset (all of them, or -errno; a
 * short write is -EIO). */
int mpcr_atomic_write(struct mpcr_atomic_file *f, const void *p, size_t n);

/* Publishes: fsync, close, rename over path, fsync of path's directory.
 * On failure before the rename the temporary is removed; f->fd is -1 in
 * every case. */
int mpcr_atomic_commit(struct mpcr_atomic_file *f);

/* Gives up: closes and removes the temporary (nothing when none is open). */
void mpcr_atomic_abort(struct mpcr_atomic_file *f);

/* The temporary's creation on its own, for a file that is not published
 * atomically: path created for writing as above (what was there removed
 * first, O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, exactly mode). The
 * descriptor, or -errno. */
int mpcr_create_excl(const char *path, mode_t mode);

/* All of it at once: path holds exactly the n bytes at p, with mode. */
int mpcr_atomic_write_file(const char *path, const void *p, size_t n, mode_t mode);

#endif
