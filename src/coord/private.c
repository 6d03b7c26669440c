/* See private.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "private.h"

int mpcr_create_private(const char *path)
{
    return mpcr_create_excl(path, 0600);
}

int mpcr_check_private(const char *path, mode_t type, char *why, size_t cap)
{
    struct stat st;
    const char *what = type == S_IFDIR ? "a directory" : "a regular file";
    if (lstat(path, &st)) {
        snprintf(why, cap, "%s: %s", path, strerror(errno));
        return -1;
    }
    if ((st.st_mode & S_IFMT) != type) {
        mode_t t = st.st_mode & S_IFMT;
        const char *is = t == S_IFLNK    ? "a symbolic link"
                         : t == S_IFDIR  ? "a directory"
                         : t == S_IFIFO  ? "a FIFO"
                         : t == S_IFSOCK ? "a socket"
                         : t == S_IFREG  ? "a regular file"
                                         : "a device";
        snprintf(why, cap, "%s is %s, not %s", path, is, what);
        return -1;
    }
    if (st.st_uid != geteuid()) {
        snprintf(why, cap, "%s is owned by uid %u, not by the user restoring it (uid %u)", path,
                 (unsigned)st.st_uid, (unsigned)geteuid());
        return -1;
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, cap, "%s is writable by other users (mode %04o)", path,
                 (unsigned)(st.st_mode & 07777));
        return -1;
    }
    return 0;
}

int mpcr_peer_is_owner(int fd, pid_t *pid, uid_t *uid)
{
    struct ucred cred;
    socklen_t len = sizeof cred;
    *pid = 0;
    *uid = (uid_t)-1;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) || len != sizeof cred) return 0;
    *pid = cred.pid;
    *uid = cred.uid;
    return cred.uid == geteuid();
}

int mpcr_secret_equal(const char *given, const char *expected)
{
    size_t n = strlen(expected), have = strnlen(given, n + 1);
    unsigned diff = have != n;
    /* every byte of expected is looked at, whatever given holds */
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(i < have ? given[i] : 0) ^ (unsigned char)expected[i];
    return diff == 0;
}
