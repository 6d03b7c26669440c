/* Which rank's proxy was the first process of a job to end, when it ended
 * without a word (proxy_watch.c). */
#ifndef MPCR_PROXY_WATCH_H
#define MPCR_PROXY_WATCH_H

#include <sys/types.h>

/* A proxy's start note (report.h: "RANK PID") and the pipe end it carried
 * (-1: none): watch that process. Takes the descriptor. */
void mpcr_proxy_watch_started(const char *note, unsigned len, int end_fd);
/* A proxy's end note ("CODE RANK"): that rank's proxy said its end. */
void mpcr_proxy_watch_noted_end(const char *note, unsigned len);
/* When the first watched proxy to end sent no end note before: 1, with its
 * rank and pid. Whether a report explained the end is the caller's part. */
int mpcr_proxy_watch_first_silent(int *rank, pid_t *pid);
void mpcr_proxy_watch_close(void);

#endif
