/* What a checkpoint directory on a shared machine needs (docs/security.md):
 * files created where another user may have planted something, ownership
 * and mode checks before anything found there is trusted, the uid of a
 * unix-socket peer, and a comparison of secrets that takes the same time
 * wherever they differ. */
#ifndef MPCR_COORD_PRIVATE_H
#define MPCR_COORD_PRIVATE_H

#include <stddef.h>
#include <sys/types.h>

/* Creates `path` for writing, mode 0600 whatever the umask, never through
 * a symbolic link and never an existing file (O_CREAT|O_EXCL|O_NOFOLLOW).
 * Something already there (a temporary left by a process that was killed,
 * or a planted link) is removed first, itself, not what it points to.
 * Returns the descriptor, or -errno. */
int mpcr_create_private(const char *path);

/* Whether `path` may be trusted by this user: it is what `type` says
 * (S_IFDIR or S_IFREG; a symbolic link is neither), owned by the effective
 * uid, and writable by no one else (no group or other write bit). 0, or -1
 * with the problem, naming the path, in why. */
int mpcr_check_private(const char *path, mode_t type, char *why, size_t cap);

/* The peer of a connected unix socket: 1 when its uid is this process's
 * effective uid, else 0 (uid in *uid); its pid in *pid (0 if unknown). */
int mpcr_peer_is_owner(int fd, pid_t *pid, uid_t *uid);

/* Whether `given` equals `expected`, in a time that depends only on
 * expected's length. */
int mpcr_secret_equal(const char *given, const char *expected);

#endif
