/* See report.h. */
#include "report.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int report_fd = -1;
static struct sockaddr_un report_addr;

void mpcr_report_open(void)
{
    const char *path = getenv(MPCR_ENV_REPORT_SOCKET);
    if (report_fd >= 0 || !path || strlen(path) >= sizeof report_addr.sun_path) return;
    report_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    report_addr.sun_family = AF_UNIX;
    strcpy(report_addr.sun_path, path);
}

int mpcr_report_fd(void)
{
    return report_fd;
}

void mpcr_report_reopen(const char *path)
{
    report_fd = -1;
    size_t n = path ? strlen(path) : 0;
    if (!n || n >= sizeof report_addr.sun_path) return;
    report_addr.sun_family = AF_UNIX;
    memcpy(report_addr.sun_path, path, n + 1);
    report_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

int mpcr_report_strip_exit(const char **msg, unsigned *len)
{
    if (!*len || (*msg)[0] != MPCR_REPORT_EXIT_MARK) return 0;
    const char *end = memchr(*msg + 1, MPCR_REPORT_EXIT_MARK, *len - 1);
    if (!end) return 0;
    int code = 0;
    for (const char *d = *msg + 1; d < end && *d >= '0' && *d <= '9'; d++)
        code = code * 10 + (*d - '0');
    *len -= (unsigned)(end + 1 - *msg), *msg = end + 1;
    return code;
}

void mpcr_report_raw(const char *msg, unsigned len)
{
    if (report_fd >= 0 && sendto(report_fd, msg, len, MSG_NOSIGNAL, (struct sockaddr *)&report_addr,
                                 sizeof report_addr) == (ssize_t)len)
        return;
    mpcr_report_strip_exit(&msg, &len); /* stderr gets the message without its code */
    if (write(2, msg, len) < 0) { /* nowhere else to say it */
    }
}

/* Sends a note (never printed, report.h) to the socket alone. */
static void send_note(const char *note, int n)
{
    if (report_fd >= 0 && n > 0)
        sendto(report_fd, note, (size_t)n, MSG_NOSIGNAL, (struct sockaddr *)&report_addr, sizeof report_addr);
}

void mpcr_report_end(int rank, int status)
{
    char note[32];
    int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
    send_note(note, snprintf(note, sizeof note, "%c%d %d", MPCR_REPORT_END_MARK, code, rank));
}

/* The write end of the pipe whose read end went with the start note: held,
 * close-on-exec, until this process ends (report.h). */
static int end_pipe = -1;

void mpcr_report_start(int rank)
{
    char note[32];
    int n = snprintf(note, sizeof note, "%c%d %d", MPCR_REPORT_START_MARK, rank, (int)getpid());
    int p[2];
    if (report_fd < 0 || end_pipe >= 0 || pipe2(p, O_CLOEXEC)) {
        send_note(note, n);
        return;
    }
    struct iovec text = {.iov_base = note, .iov_len = (size_t)n};
    union {
        struct cmsghdr align;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control = {0};
    struct msghdr m = {.msg_name = &report_addr, .msg_namelen = sizeof report_addr, .msg_iov = &text,
                       .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &p[0], sizeof(int));
    sendmsg(report_fd, &m, MSG_NOSIGNAL);
    close(p[0]);
    end_pipe = p[1];
}

/* Sends "mpcr: " + the message + a newline, after `head` (see report.h). */
static void report_with(const char *head, const char *fmt, va_list ap)
{
    char msg[MPCR_REPORT_MAX];
    int n = snprintf(msg, sizeof msg, "%smpcr: ", head);
    n += vsnprintf(msg + n, sizeof msg - (size_t)n - 1, fmt, ap);
    if (n > (int)sizeof msg - 2) n = (int)sizeof msg - 2;
    msg[n++] = '\n';
    mpcr_report_raw(msg, (unsigned)n);
}

void mpcr_report(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report_with("", fmt, ap);
    va_end(ap);
}

void mpcr_report_exit(int code, const char *fmt, ...)
{
    char head[16];
    snprintf(head, sizeof head, "%c%d%c", MPCR_REPORT_EXIT_MARK, code, MPCR_REPORT_EXIT_MARK);
    va_list ap;
    va_start(ap, fmt);
    report_with(head, fmt, ap);
    va_end(ap);
}
