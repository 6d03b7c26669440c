/* The coordinator's place on disk: its checkpoint directory and
 * DIR/coord.sock, through which every engine, proxy and `mpcr checkpoint`
 * reaches it by path. Someone may delete the directory, or delete it and
 * make a new one of the same name, while the job runs; the job's engines
 * then report through a socket no one listens on, every checkpoint fails
 * unseen, and `mpcr status` finds nothing (issue 43, point 2). So the
 * coordinator holds the directory open, remembers which directory and which
 * socket (device and inode) are its own, and looks once a second:
 *  - all still its own: nothing to do;
 *  - otherwise it says so at once on the job's stderr; when a directory is
 *    at the path again and passes the checks of a start (the user's, written
 *    by no one else), it binds a new coord.sock there and the job goes on
 *    with it (checkpoints in the new directory, numbered on); when not, it
 *    stops interval checkpoints, says why, and takes them up again once the
 *    directory is back. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding.h"
#include "coord.h"
#include "path.h"
#include "private.h"

#define CHECK_EVERY_S 1.0

/* Records that the directory and socket now at c->dir are the coordinator's. */
int mpcr_coord_hold_place(struct mpcr_coord *c)
{
    struct stat d, s;
    char sock[PATH_MAX];
    int fd = open(c->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 || fstat(fd, &d) || mpcr_path_join(sock, sizeof sock, c->dir, "coord.sock") || lstat(sock, &s)) {
        int e = errno;
        if (fd >= 0) close(fd);
        return -e;
    }
    if (c->dir_fd > 0) close(c->dir_fd);
    c->dir_fd = fd;
    c->dir_dev = d.st_dev, c->dir_ino = d.st_ino;
    c->sock_dev = s.st_dev, c->sock_ino = s.st_ino;
    return 0;
}

/* What is wrong with the place, in words, or NULL when it is still ours;
 * *sock_only when it is the coordinator's own directory without its socket. */
static const char *what_changed(const struct mpcr_coord *c, int *dir_there, int *sock_only)
{
    struct stat d, s;
    char sock[PATH_MAX];
    *sock_only = 0;
    *dir_there = !stat(c->dir, &d) && S_ISDIR(d.st_mode);
    if (!*dir_there) return "was deleted";
    if (d.st_dev != c->dir_dev || d.st_ino != c->dir_ino) return "was replaced by another directory of that name";
    if (mpcr_path_join(sock, sizeof sock, c->dir, "coord.sock") || lstat(sock, &s)) {
        *sock_only = 1;
        return "lost its coord.sock";
    }
    if (s.st_dev != c->sock_dev || s.st_ino != c->sock_ino) return "has another coord.sock than the coordinator's";
    return NULL;
}

/* Binds a new coord.sock in the directory now at c->dir, after the checks of
 * a start; 0, or -1 with why filled. */
static int settle_again(struct mpcr_coord *c, char *why, size_t cap)
{
    if (mpcr_check_private(c->dir, S_IFDIR, why, cap)) return -1;
    char sock[PATH_MAX];
    if (!mpcr_path_join(sock, sizeof sock, c->dir, "coord.sock")) unlink(sock); /* the user's own (checked dir) */
    int fd = mpcr_coord_bind(c->dir);
    if (fd < 0) {
        snprintf(why, cap, "cannot create %s/coord.sock: %s", c->dir, strerror(-fd));
        return -1;
    }
    if (c->listen_fd >= 0) close(c->listen_fd);
    c->listen_fd = fd;
    int rc = mpcr_coord_hold_place(c);
    if (rc) {
        snprintf(why, cap, "cannot hold %s: %s", c->dir, strerror(-rc));
        return -1;
    }
    return 0;
}

void mpcr_coord_watch_place(struct mpcr_coord *c, double now)
{
    if (now < c->next_place_check || c->listen_fd < 0) return;
    c->next_place_check = now + CHECK_EVERY_S;
    int dir_there, sock_only;
    const char *changed = what_changed(c, &dir_there, &sock_only);
    /* `rm -rf` empties a directory before removing it: a socket re-created
     * into it then would keep it from going (ENOTEMPTY). So a coord.sock
     * missing from the coordinator's own directory is acted on only when it
     * is still missing at the next look. */
    int first_look = sock_only && !c->sock_missing;
    c->sock_missing = sock_only;
    if (!changed || (first_look && !c->place_lost)) return;
    if (!c->place_lost)
        fprintf(stderr, "mpcr: coordinator: the checkpoint directory %s %s while the job runs\n", c->dir, changed);
    char why[MPCR_WHY_MAX] = "";
    if (dir_there && !settle_again(c, why, sizeof why)) {
        fprintf(stderr, "mpcr: coordinator: listening again on %s/coord.sock; checkpoints go on in that directory%s\n",
                c->dir, c->place_lost && c->lost_interval > 0 ? ", interval checkpoints again" : "");
        if (c->place_lost && c->lost_interval > 0) c->interval = c->lost_interval;
        c->place_lost = 0;
        return;
    }
    if (c->place_lost) return; /* said already; looked at again in a second */
    c->place_lost = 1;
    c->lost_interval = c->interval;
    c->interval = 0;
    fprintf(stderr, "mpcr: coordinator: %s; %s until a directory of the user's alone is at %s again "
                    "(`mpcr checkpoint` and `mpcr status` cannot reach the job meanwhile)\n",
            why[0] ? why : "it is gone", c->lost_interval > 0 ? "no interval checkpoints" : "no checkpoints",
            c->dir);
}
