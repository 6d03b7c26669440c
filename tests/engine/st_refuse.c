/* What the engine cannot carry is refused at checkpoint time with a message
 * naming it, no image is left behind, and the program goes on unharmed: a
 * child process, a socket, a pipe, a POSIX timer. Then a checkpoint through
 * the API succeeds, with the hooks called; the driver (api.sh) restarts the
 * image, and the program finds itself restarted (return value 1, restarted
 * hook) and prints PASS. A range excluded with mpcr_engine_exclude_region()
 * (the middle of a larger mapping) is absent after the restart, until the
 * restarted hook maps it again, as the MPI layer does with its channel;
 * excluded descriptors (a socket pair) are neither refused nor restored. */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "mpcr/engine.h"
#include "zdtm.h"

static const char *image;
static int before, resumed, restarted;
static int on_before(void *a) { (void)a; before++; return 0; }
static void on_resume(void *a) { (void)a; resumed++; }
#define MIB (1 << 20)
static unsigned char *shm;
static int remapped;
static void on_restart(void *a)
{
    (void)a;
    restarted++;
    /* fails if anything is still mapped there */
    remapped = mmap(shm + MIB, MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0) ==
               shm + MIB;
}

static void refused(const char *what, const char *needle)
{
    int rc = mpcr_engine_checkpoint(image);
    CHECK(rc < 0, "a checkpoint with %s was not refused", what);
    CHECK(strstr(mpcr_engine_last_error(), needle), "the refusal does not name %s: %s", what, mpcr_engine_last_error());
    CHECK(access(image, F_OK) != 0, "an image was left after refusing %s", what);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", image);
    CHECK(access(tmp, F_OK) != 0, "a temporary image was left after refusing %s", what);
    printf("refused %s: %s\n", what, mpcr_engine_last_error());
}

int main(int argc, char **argv)
{
    CHECK(argc == 2, "usage: st_refuse IMAGE");
    image = argv[1];
    syscall(SYS_close_range, 3, ~0u, 0); /* whatever the test runner left open is not ours to refuse */
    struct mpcr_engine_hooks h = {on_before, on_resume, on_restart, NULL};
    mpcr_engine_set_hooks(&h);

    pid_t child = fork();
    if (!child) {
        pause();
        _exit(0);
    }
    refused("a child process", "child process");
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);

    int sv[2];
    socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
    refused("a socket", "socket");
    close(sv[0]), close(sv[1]);

    int p[2];
    CHECK(pipe(p) == 0, "pipe");
    refused("a pipe", "pipe");
    close(p[0]), close(p[1]);

    timer_t t;
    struct sigevent sev = {.sigev_notify = SIGEV_NONE};
    CHECK(timer_create(CLOCK_MONOTONIC, &sev, &t) == 0, "timer_create");
    refused("a POSIX timer", "timer");
    timer_delete(t);

    shm = mmap(NULL, 3 * MIB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    memset(shm, 0xab, 3 * MIB);
    CHECK(mpcr_engine_exclude_region(shm + MIB, MIB) == 0, "exclude");
    int chan[2]; /* like the MPI layer's channel: excluded, closed after a restart */
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, chan) == 0, "socketpair");
    CHECK(mpcr_engine_exclude_fd(chan[0]) == 0 && mpcr_engine_exclude_fd(chan[1]) == 0, "exclude_fd");
    struct stat chan_st;
    fstat(chan[0], &chan_st);
    int keep = 42;
    fflush(stdout);
    int rc = mpcr_engine_checkpoint(image);
    if (rc == 0) {
        CHECK(before == 5 && resumed == 1 && restarted == 0, "hooks %d %d %d", before, resumed, restarted);
        CHECK(access(image, F_OK) == 0, "no image");
        printf("written\n");
        return 0;
    }
    CHECK(rc == 1, "checkpoint failed: %s", mpcr_engine_last_error());
    CHECK(restarted == 1 && resumed == 0, "hooks after restart: resumed %d restarted %d", resumed, restarted);
    CHECK(keep == 42, "stack");
    /* closed, or whatever the restorer inherited under that number: not the socket */
    struct stat now_st;
    CHECK(fstat(chan[0], &now_st) != 0 || now_st.st_ino != chan_st.st_ino, "an excluded descriptor was restored");
    CHECK(remapped, "the excluded range was still mapped after the restart");
    CHECK(shm[0] == 0xab && shm[MIB - 1] == 0xab && shm[2 * MIB] == 0xab && shm[3 * MIB - 1] == 0xab,
          "memory around the excluded range");
    CHECK(shm[MIB] == 0 && shm[2 * MIB - 1] == 0, "the excluded range was saved");
    zdtm_pass();
}
