/* See atomic_file.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h> /* rename */
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "path.h"

int mpcr_create_excl(const char *path, mode_t mode)
{
    /* A leftover goes first, itself and not what it points to; whatever is
     * there again at the open (put back in between, or a directory that
     * unlink left) makes it fail with EEXIST. */
    unlink(path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) return -errno;
    if (fchmod(fd, mode)) { /* mode less the umask: say it outright */
        int e = errno;
        close(fd);
        unlink(path);
        return -e;
    }
    return fd;
}

int mpcr_atomic_open(struct mpcr_atomic_file *f, const char *path, mode_t mode)
{
    f->fd = -1;
    int rc = mpcr_path_cat(f->path, sizeof f->path, path, "");
    if (!rc) rc = mpcr_path_cat(f->tmp, sizeof f->tmp, path, ".tmp");
    if (rc) return rc;
    int fd = mpcr_create_excl(f->tmp, mode);
    if (fd < 0) return fd;
    f->fd = fd;
    return 0;
}

int mpcr_atomic_write(struct mpcr_atomic_file *f, const void *p, size_t n)
{
    for (size_t done = 0; done < n;) {
        ssize_t k = write(f->fd, (const char *)p + done, n - done);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) return k < 0 ? -errno : -EIO;
        done += (size_t)k;
    }
    return 0;
}

/* fsync of the directory that holds path (its name cut at the last '/');
 * buf: room for it. */
static int sync_dir(const char *path, char *buf, size_t cap)
{
    const char *slash = strrchr(path, '/');
    size_t n = !slash ? 0 : slash == path ? 1 : (size_t)(slash - path);
    if (n >= cap) return -ENAMETOOLONG;
    if (n)
        memcpy(buf, path, n);
    else
        buf[n++] = '.';
    buf[n] = 0;
    int dfd = open(buf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return -errno;
    int rc = fsync(dfd) ? -errno : 0;
    close(dfd);
    return rc;
}

int mpcr_atomic_commit(struct mpcr_atomic_file *f)
{
    int rc = fsync(f->fd) ? -errno : 0;
    if (close(f->fd) && !rc) rc = -errno;
    f->fd = -1;
    if (!rc && rename(f->tmp, f->path)) rc = -errno;
    if (rc) {
        unlink(f->tmp);
        return rc;
    }
    return sync_dir(f->path, f->tmp, sizeof f->tmp); /* the temporary's name is free now */
}

void mpcr_atomic_abort(struct mpcr_atomic_file *f)
{
    if (f->fd < 0) return;
    close(f->fd);
    f->fd = -1;
    unlink(f->tmp);
}

int mpcr_atomic_write_file(const char *path, const void *p, size_t n, mode_t mode)
{
    struct mpcr_atomic_file f;
    int rc = mpcr_atomic_open(&f, path, mode);
    if (!rc) rc = mpcr_atomic_write(&f, p, n);
    if (rc) {
        mpcr_atomic_abort(&f);
        return rc;
    }
    return mpcr_atomic_commit(&f);
}
