/* The standalone coordinator of one checkpointed process (no MPI): a unix
 * socket DIR/coord.sock through which `mpcr checkpoint` and `mpcr status`
 * ask, and the engine inside the process reports (src/engine/control.h).
 * It numbers generations, writes DIR/gen-K/manifest last (a generation
 * without one does not exist) and keeps the newest K. An MPI coordinator
 * extends the same shape: one request, N image reports, one manifest.
 *
 * Client lines: "checkpoint\n", "checkpoint exit\n", "status\n".
 * Replies: "ok gen-K BYTES MILLISECONDS\n", "error WHY\n", status text. */
#ifndef MPCR_COORD_H
#define MPCR_COORD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct mpcr_coord {
    char dir[4096];      /* absolute */
    double interval;     /* seconds between automatic checkpoints; 0: none */
    int keep;            /* complete generations kept */
    unsigned long next_gen;
    int listen_fd;
    const char *mpi;     /* an MPI job's implementation ("mpich"), NULL for one process */
    int tcp_fd;          /* `mpcr coordinator --listen`: proxies and engines of other hosts; -1 */
    char secret[40];     /* what a TCP connection must open with ("secret S"); "" when none */
    uint64_t job_id;     /* the job's identity (binding.h): every image and state file names it */
    /* signals that ask an MPI job's coordinator for a checkpoint and go on,
     * or for one after which the job ends (triggers.h); 0: none */
    int checkpoint_signal, exit_signal;
    /* its place (place.c): the directory held open, which directory and
     * socket are its own, whether they are lost (and the interval then) */
    int dir_fd;
    uint64_t dir_dev, dir_ino, sock_dev, sock_ino;
    int place_lost;
    int sock_missing; /* its own directory lacked coord.sock at the last look */
    double lost_interval, next_place_check;
};

/* place.c: records the directory and coord.sock now at c->dir as the
 * coordinator's (0 or -errno); once a second (called from the serve loops
 * with the time), notices them deleted or replaced, says so on stderr and
 * binds a new socket in a new directory of the same path that passes the
 * checks of a start, or stops interval checkpoints until one does. */
int mpcr_coord_hold_place(struct mpcr_coord *c);
void mpcr_coord_watch_place(struct mpcr_coord *c, double now);
/* coord.c: a listening DIR/coord.sock, mode 0600 whatever the umask; fd or -errno. */
int mpcr_coord_bind(const char *dir);

/* Also listens on TCP at "A.B.C.D:PORT", with a new secret, written to
 * DIR/coord.secret (mode 0600) for `mpcr run --coordinator`, and the job's
 * identity to DIR/coord.job: that of the newest complete generation in DIR
 * (a restart continues its job), else the new one. */
int mpcr_coord_listen_tcp(struct mpcr_coord *c, const char *addr);
/* Reads DIR/coord.secret into buf; 0 or -errno. The job's identity, from
 * DIR/coord.job, into *job (0 when the file is not there). */
int mpcr_coord_read_job(const char *dir, uint64_t *job);
int mpcr_coord_read_secret(const char *dir, char *buf, size_t cap);

/* Creates DIR (or checks that it is the user's alone: -EPERM, said on
 * stderr), draws a new job identity, and listens on DIR/coord.sock; fails
 * with -EADDRINUSE when a coordinator already answers there. */
int mpcr_coord_open(struct mpcr_coord *c, const char *dir);
/* Serves until `child` ends; returns its wait status. Closes the socket. */
int mpcr_coord_serve(struct mpcr_coord *c, pid_t child);
void mpcr_coord_close(struct mpcr_coord *c);

/* Sends a printf-formatted line on a socket; a peer that went away is ignored. */
void mpcr_coord_send_line(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Client: sends a request line; returns the connected socket or -errno. */
/* A descriptor (pidfd) that polls readable once process `pid` has ended
 * (a child, or any process of this host), so that waiting loops notice at
 * once instead of at their next timeout; -1 where the kernel has no
 * pidfd_open (before Linux 5.3) or the process is gone. */
int mpcr_process_end_fd(pid_t pid);

int mpcr_coord_request(const char *dir, const char *request);
int mpcr_coord_read_line(int fd, char *buf, size_t cap); /* its length; 0 at the end */
/* Client: sends one request line to the coordinator of DIR and reads its one-line reply. */
int mpcr_coord_ask(const char *dir, const char *request, char *reply, size_t cap);

/* Generations on disk: the newest complete one (0 if none) and the highest number used. */
int mpcr_gen_scan(const char *dir, unsigned long *newest_complete, unsigned long *highest);
/* (Manifests: binding.h.) */

/* The coordinator of an MPI job of `nranks` ranks (job.c): serves until
 * `launcher` (mpiexec) ends and returns its wait status, or, with launcher
 * 0 (standalone), until every rank has come and gone; calls on_extra
 * whenever extra_fd is readable (`mpcr run`'s failure reports). */
int mpcr_job_serve(struct mpcr_coord *c, int nranks, pid_t launcher, int extra_fd,
                   void (*on_extra)(void));
void mpcr_gen_prune(const char *dir, int keep);
void mpcr_gen_remove(const char *dir, unsigned long gen);

#endif
