/* Reports of failures from proxies and programs to `mpcr run`.
 *
 * When a job fails, mpiexec tears it down and may drop what its processes
 * wrote last to stderr, which is exactly the explanation a user needs. So
 * mpcr's own failure messages go to `mpcr run` directly, as datagrams on a
 * unix socket it names in MPCR_REPORT_SOCKET, and it prints them. Without
 * that variable (or if sending fails) they go to stderr. */
#ifndef MPCR_REPORT_H
#define MPCR_REPORT_H

#define MPCR_ENV_REPORT_SOCKET "MPCR_REPORT_SOCKET"
#define MPCR_REPORT_MAX        1024

/* Opens the socket to send reports on (call once, outside signal handlers). */
void mpcr_report_open(void);
/* The socket's descriptor (-1 if none), for a checkpoint to leave alone. */
int mpcr_report_fd(void);
/* After a restart: the old descriptor is gone; reports go to `path` (that
 * of the new `mpcr restart`; NULL: stderr). Async-signal-safe. */
void mpcr_report_reopen(const char *path);
/* Prints "mpcr: " + message (a newline is added). */
void mpcr_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same for a rank whose program ended with `code` (non-zero) without
 * MPI_Finalize: `mpcr run` makes the first such code the job's status when
 * mpiexec's ends non-zero. Hydra kills the other ranks when a rank ends
 * unfinalized and then may report the status of a process it killed (9) or
 * its own placeholder (1), depending on the order in which it notices the
 * ends; natively the rank's code nearly always wins, and under mpcr always. */
void mpcr_report_exit(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A report datagram that carries an exit code starts with this byte, then
 * the code in decimal, then this byte again, then the message. */
#define MPCR_REPORT_EXIT_MARK '\001'
/* A datagram's message without its exit code: returns the code (0 when it
 * carries none) and moves *msg and *len past it. */
int mpcr_report_strip_exit(const char **msg, unsigned *len);
/* A proxy's note that its program ended with wait status `status` and that
 * it says what there is to say (nothing, for a program that ended well or
 * exited with its own code): a datagram of this byte and the exit code the
 * proxy passes on, in decimal, kept by `mpcr run`, never printed. A job
 * whose launcher's status no note or report explains lost a proxy, or its
 * launcher, to something no one could report (src/cli/job_end.c). Sent only
 * to the socket. */
#define MPCR_REPORT_END_MARK '\002'
/* The datagram is this byte, the code, a space and the proxy's rank. */
void mpcr_report_end(int rank, int status);
/* A proxy's note, once its rank is known, of its rank and pid (this byte,
 * then "RANK PID"), carrying (SCM_RIGHTS) the read end of a pipe whose write
 * end only this process holds: the pipe hangs up when the process ends, and
 * `mpcr run` watches those ends to name the first proxy of its host that
 * ended without a word (src/cli/proxy_watch.c). Sent only to the socket. */
#define MPCR_REPORT_START_MARK '\003'
void mpcr_report_start(int rank);
/* The same for an already formatted message; async-signal-safe. */
void mpcr_report_raw(const char *msg, unsigned len);

#endif
