/* Open file descriptors. Regular files, directories and character devices
 * are reopened by path at the same number, flags and offset; descriptors
 * that share one open file (dup, fork-inherited) are found with
 * kcmp(KCMP_FILE) and shared again with dup3, so they keep one offset.
 * Descriptors 0-2 come from whoever runs the restart, descriptors excluded by
 * the layer above are left out. Anything else (pipes, sockets, eventfd,
 * epoll, deleted files) refuses the checkpoint. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "file_trust.h"
#include "fmt.h"
#include "internal.h"

static int save_one(struct mpcr_scratch *s, int fd)
{
    char path[64], target[4096], info[1024];
    mpcr_fmt(path, sizeof path, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n < 0) return 0; /* closed meanwhile: it was one of ours */
    target[n] = 0;
    struct stat st;
    if (fstat(fd, &st)) return 0;
    if (s->nfiles == MPCR_MAX_FILES) return mpcr_fail(-E2BIG, "more than %d open files", MPCR_MAX_FILES);
    struct mpcr_img_file *f = &s->files[s->nfiles];
    memset(f, 0, sizeof *f);
    f->fd = fd;
    f->shares_with = -1;
    f->mode = st.st_mode;
    pid_t pid = getpid();
    for (uint32_t i = 0; i < s->nfiles; i++)
        if (syscall(SYS_kcmp, pid, pid, KCMP_FILE, s->files[i].fd, fd) == 0) {
            f->shares_with = s->files[i].shares_with >= 0 ? s->files[i].shares_with : s->files[i].fd;
            break;
        }
    /* 0-2 are the restart command's; a copy of one of them stays a copy */
    if (fd > 2 && f->shares_with < 0) {
        if (!(S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) || S_ISCHR(st.st_mode)) || target[0] != '/')
            return mpcr_fail(-ENOTSUP, "file descriptor %d (%s) cannot be checkpointed: only regular files, "
                                       "directories and devices are supported", fd, target);
        if (n > 10 && !strcmp(target + n - 10, " (deleted)"))
            return mpcr_fail(-ENOTSUP, "file descriptor %d refers to a deleted file (%s)", fd, target);
    }
    mpcr_fmt(path, sizeof path, "/proc/self/fdinfo/%d", fd);
    if (mpcr_read_file(path, info, sizeof info) < 0) return 0;
    const char *p = strstr(info, "pos:");
    if (p) {
        p += 4;
        while (*p == ' ' || *p == '\t') p++;
        f->pos = mpcr_parse_dec(&p);
    }
    p = strstr(info, "flags:");
    if (p) {
        p += 6;
        while (*p == ' ' || *p == '\t') p++;
        f->flags = (uint32_t)mpcr_parse_oct(&p);
    }
    f->cloexec = (f->flags & O_CLOEXEC) != 0;
    f->path_str = mpcr_str_add(s, target, (uint32_t)n);
    f->path_len = (uint32_t)n;
    s->nfiles++;
    return 0;
}

static int excluded(int fd)
{
    for (int i = 0; i < MPCR_MAX_EXCLUDE_FDS; i++)
        if (mpcr_exclude_fd[i] == fd) return 1;
    return 0;
}

int mpcr_files_save(struct mpcr_scratch *s)
{
    s->nfiles = 0;
    int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) return mpcr_fail(-errno, "opening /proc/self/fd: %s", mpcr_strerror(errno));
    char buf[8192];
    int rc = 0;
    for (;;) {
        long n = syscall(SYS_getdents64, dfd, buf, sizeof buf);
        if (n <= 0) break;
        for (long off = 0; off < n && !rc;) {
            struct dirent64 *d = (struct dirent64 *)(buf + off);
            off += d->d_reclen;
            if (d->d_name[0] < '0' || d->d_name[0] > '9') continue;
            const char *digits = d->d_name;
            int fd = (int)mpcr_parse_dec(&digits);
            if (fd != dfd && !excluded(fd)) rc = save_one(s, fd);
        }
        if (rc) break;
    }
    close(dfd);
    return rc;
}

/* The restorer checked whose each file is (file_trust.h); this is the file
 * actually opened, which someone could have swapped in since. */
static int distrusted(int fd, const char *path)
{
    struct stat st;
    if (fstat(fd, &st)) return mpcr_fail(-errno, "reopening %s: %s", path, mpcr_strerror(errno));
    switch (mpcr_file_distrust(st.st_mode, st.st_uid, geteuid())) {
    case MPCR_TRUSTED: return 0;
    case MPCR_OTHERS_FILE:
        return mpcr_fail(-EPERM, "the open file %s is now owned by uid %u, another user (" MPCR_TRUST_OPTION ")", path,
                         (unsigned)st.st_uid);
    default:
        return mpcr_fail(-EPERM, "the open file %s is now writable by other users (mode %04o; " MPCR_TRUST_OPTION ")",
                         path, (unsigned)(st.st_mode & 07777));
    }
}

int mpcr_files_restore(const struct mpcr_handoff *h)
{
    const struct mpcr_img_file *files = h->table[MPCR_T_FILES];
    const char *strings = h->table[MPCR_T_STRINGS];
    for (uint32_t i = 0; i < h->hdr->table[MPCR_T_FILES].count; i++) {
        const struct mpcr_img_file *f = &files[i];
        if (f->fd <= 2) continue;
        int cloexec = f->cloexec ? O_CLOEXEC : 0;
        if (f->shares_with >= 0) {
            if (dup3(f->shares_with, f->fd, cloexec) < 0)
                return mpcr_fail(-errno, "dup3(%d, %d): %s", f->shares_with, f->fd, mpcr_strerror(errno));
            continue;
        }
        const char *path = strings + f->path_str;
        int flags = (int)f->flags & ~(O_CREAT | O_TRUNC | O_EXCL | O_NOCTTY | O_CLOEXEC);
        int tmp = open(path, flags | O_CLOEXEC | O_NOCTTY);
        if (tmp < 0) return mpcr_fail(-errno, "reopening %s as descriptor %d: %s", path, f->fd, mpcr_strerror(errno));
        int rc = h->trust_others_files ? 0 : distrusted(tmp, path);
        if (rc) {
            close(tmp);
            return rc;
        }
        if (S_ISREG(f->mode) || S_ISDIR(f->mode)) lseek(tmp, (off_t)f->pos, SEEK_SET);
        if (tmp != f->fd) {
            if (dup3(tmp, f->fd, cloexec) < 0) {
                int e = errno;
                close(tmp);
                return mpcr_fail(-e, "dup3 to descriptor %d: %s", f->fd, mpcr_strerror(e));
            }
            close(tmp);
        } else if (!cloexec) {
            fcntl(tmp, F_SETFD, 0);
        }
    }
    return 0;
}
