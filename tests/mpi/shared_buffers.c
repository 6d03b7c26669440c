/* Large messages through shared buffers (src/lib/runtime/shared_buffers.c): the
 * buffers' pages become memory the proxy maps too, so every way a program
 * may treat its memory must still give MPI's answers. Rank 0 and rank 1:
 *   - ping-pong of large messages at many offsets and lengths inside one
 *     buffer (unaligned ends, messages inside, across and beyond an earlier
 *     message's pages), the buffer rewritten between messages;
 *   - a receive shorter than its buffer: the bytes after the message keep
 *     their values; a received buffer sent on as it is;
 *   - memory given back and replaced behind MPI's back: malloc/free cycles,
 *     munmap and a new mapping at the same address (anonymous, then a
 *     file's), a buffer's pages replaced with MAP_FIXED while shared;
 *   - fork: a child writing into a shared buffer changes nothing for its
 *     parent;
 *   - synchronous sends, a strided type (copied, as before), a buffered
 *     send from a shared buffer rewritten as soon as it returns;
 *   - MPI_Sendrecv and MPI_Sendrecv_replace of large buffers;
 *   - a shared buffer's pages discarded (madvise) and grown (mremap), also
 *     at the start of a large untouched reservation, and discarded with a
 *     file's mapping of a long name below it;
 *   - a buffer freed after its messages gives its memory back, also while
 *     the program computes without MPI calls;
 *   - the library's own thread blocks the program's signals.
 * Each rank prints checksums of what it received; compare.sh compares them
 * with native MPICH's. Under mpcr on a kernel that can tell (PROCMAP_QUERY),
 * it also checks that a ping-pong buffer did become shared (else it says
 * so, and the outputs differ). */
#include <mpi.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MIB (1 << 20)
static int rank;

/* Rank 1's lines are kept and printed by rank 0 at the end: two ranks
 * printing at once may interleave inside a line. */
static char said[1 << 16];
static size_t nsaid;
#define say(...)                                                                                   \
    do {                                                                                           \
        if (rank == 0)                                                                             \
            printf(__VA_ARGS__);                                                                   \
        else                                                                                       \
            nsaid += (size_t)snprintf(said + nsaid, sizeof said - nsaid, __VA_ARGS__);             \
    } while (0)
static void print_rank1(void)
{
    if (rank == 1) {
        MPI_Send(said, (int)nsaid, MPI_CHAR, 0, 99, MPI_COMM_WORLD);
    } else {
        MPI_Status st;
        int n;
        MPI_Recv(said, sizeof said, MPI_CHAR, 1, 99, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_CHAR, &n);
        fwrite(said, 1, (size_t)n, stdout);
    }
}

static uint64_t sum(const unsigned char *p, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(i * 31u + seed * 7u + (i >> 12));
}

/* Rank 0 sends [buf + off, + n) of a buffer it rewrites with `seed`; rank 1
 * receives it into [rbuf + roff, + n) and sends it back; rank 0 receives it
 * back into the same place and both print what they got. */
static void pingpong(unsigned char *buf, unsigned char *rbuf, size_t off, size_t roff, size_t n,
                     unsigned seed, const char *what)
{
    MPI_Status st;
    int count;
    if (rank == 0) {
        fill(buf + off, n, seed);
        uint64_t sent = sum(buf + off, n);
        MPI_Send(buf + off, (int)n, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
        memset(buf + off, 0, n);
        MPI_Recv(buf + off, (int)n, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        say("%s: back %d bytes, %s\n", what, count,
            sum(buf + off, n) == sent ? "same" : "DIFFERENT");
    } else {
        MPI_Recv(rbuf + roff, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        say("%s: got %d bytes, sum %016llx\n", what, count,
            (unsigned long long)sum(rbuf + roff, n));
        MPI_Send(rbuf + roff, (int)n, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
    }
}

/* Under mpcr, where the kernel can tell: whether p lies in a shared buffer. */
static int under_mpcr(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(v, &len);
    return !strncmp(v, "mpcr ", 5);
}
struct maps_query {
    uint64_t size, query_flags, query_addr;
    uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
    uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
    uint64_t vma_name_addr, build_id_addr;
};
static int shared_seen; /* a buffer became shared */
static void expect_shared(const void *p, const char *what)
{
    int fd = open("/proc/self/maps", O_RDONLY);
    char name[256] = "";
    struct maps_query q = {.size = sizeof q,
                           .query_addr = (uintptr_t)p,
                           .vma_name_size = sizeof name,
                           .vma_name_addr = (uintptr_t)name};
    int can_tell = fd >= 0 && !ioctl(fd, _IOWR('f', 17, struct maps_query), &q);
    if (fd >= 0) close(fd);
    const char *asked = getenv("MPCR_SHARE_MIN");
    shared_seen |= strstr(name, "mpcr-shared") != NULL;
    if (can_tell && under_mpcr() && !(asked && atol(asked) <= 0) && !strstr(name, "mpcr-shared"))
        say("%s: NOT SHARED (%s)\n", what, name);
}

static void pingpongs(void)
{
    size_t size = 3 * MIB;
    unsigned char *buf = malloc(size), *rbuf = malloc(size);
    memset(buf, 1, size);
    memset(rbuf, 2, size);
    static const struct {
        size_t off, n;
    } cases[] = {
        {0, MIB},     {0, MIB},        {123, MIB + 4567},  {4096, MIB - 8192},
        {77, 300000}, {MIB / 2, MIB},  {5000, 2 * MIB},    {1, 3 * MIB - 2},
        {0, 3 * MIB}, {0, 300 * 1024}, {2 * MIB, MIB - 1}, {4095, 700001},
    };
    char what[64];
    for (unsigned i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(what, sizeof what, "pingpong %u (+%zu, %zu)", i, cases[i].off, cases[i].n);
        pingpong(buf, rbuf, cases[i].off, cases[i].off / 2, cases[i].n, i, what);
        if (i == 1) expect_shared(rank ? rbuf + MIB / 2 : buf + MIB / 2, what);
    }
    /* the program writes into its buffer between messages */
    for (unsigned i = 0; i < 4; i++) {
        snprintf(what, sizeof what, "rewritten %u", i);
        pingpong(buf, rbuf, 64, 64, MIB, 100 + i, what);
    }
    free(buf);
    free(rbuf);
}

/* A receive whose message is shorter than its buffer; the buffer sent on. */
static void short_receive(void)
{
    size_t cap = 2 * MIB, n = 700000;
    unsigned char *buf = malloc(cap);
    if (rank == 0) {
        fill(buf, n, 9);
        MPI_Send(buf, (int)n, MPI_BYTE, 1, 3, MPI_COMM_WORLD);
        memset(buf, 0, cap);
        MPI_Recv(buf, (int)cap, MPI_BYTE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        say("forwarded: sum %016llx\n", (unsigned long long)sum(buf, cap));
    } else {
        memset(buf, 0xee, cap);
        MPI_Status st;
        int count;
        MPI_Recv(buf, (int)cap, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_BYTE, &count);
        size_t kept = 0;
        for (size_t i = n; i < cap; i++)
            kept += buf[i] == 0xee;
        say("short: %d bytes, sum %016llx, %zu of %zu after it kept\n", count,
            (unsigned long long)sum(buf, n), kept, cap - n);
        MPI_Send(buf, (int)cap, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
    }
    free(buf);
}

/* One large message from [p, p + n) to rank 1, which prints its sum. */
static void one_message(const unsigned char *p, size_t n, const char *what)
{
    if (rank == 0) {
        MPI_Send(p, (int)n, MPI_BYTE, 1, 5, MPI_COMM_WORLD);
    } else {
        unsigned char *r = malloc(n);
        MPI_Recv(r, (int)n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        say("%s: sum %016llx\n", what, (unsigned long long)sum(r, n));
        free(r);
    }
}

/* Memory the program gives back and replaces without telling MPI. */
static void replaced_memory(void)
{
    size_t n = 2 * MIB;
    /* Pages of a reservation of their own, so that no earlier share lies in
     * the way: each message below finds the share the one before made over
     * the same pages, and must notice that the program replaced them. */
    unsigned char *reserved = mmap(NULL, 4 * n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned char *m = mmap(reserved + n, n, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (reserved == MAP_FAILED || m != reserved + n) abort();
    if (rank == 0) fill(m, n, 30);
    one_message(m + 100, n - 200, "mapping");
    /* new anonymous pages at the same address: zeros, then written */
    munmap(m, n);
    if (mmap(m, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != m)
        abort();
    one_message(m + 100, n - 200, "mapped again, zeros");
    if (rank == 0) fill(m + 4096, n - 8192, 31);
    one_message(m + 100, n - 200, "mapped again, written");
    /* part of it replaced with MAP_FIXED while the rest stays */
    if (mmap(m + MIB, MIB / 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
             0) != m + MIB)
        abort();
    if (rank == 0) memset(m + MIB, 0x5a, MIB / 4);
    one_message(m + 100, n - 200, "half replaced");
    /* a file's pages at the same address */
    char path[] = "/tmp/mpcr-shared-test-XXXXXX";
    int fd = mkstemp(path);
    unlink(path);
    unsigned char *content = malloc(n);
    fill(content, n, 40 + rank);
    if (write(fd, content, n) != (ssize_t)n) abort();
    free(content);
    if (mmap(m, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) != m) abort();
    close(fd);
    one_message(m + 100, n - 200, "a file mapped there");
    munmap(reserved, 4 * n);
    for (unsigned i = 0; i < 4; i++) { /* malloc/free: glibc unmaps or reuses the pages */
        unsigned char *p = malloc(n);
        if (rank == 0) fill(p, n, 20 + i);
        char what[32];
        snprintf(what, sizeof what, "malloc cycle %u", i);
        one_message(p + 16, n - 32, what);
        free(p);
    }
}

/* A fork child writes into a shared buffer: its parent's stays as it was.
 * Earlier buffers were unmapped by the program: the child must not touch
 * them. */
static void forked(void)
{
    size_t n = MIB;
    unsigned char *p = malloc(n);
    fill(p, n, 50);
    one_message(p, n, "before fork"); /* p is shared on rank 0 now */
    if (rank == 0) {
        fflush(stdout);
        pid_t child = fork();
        if (child == 0) {
            memset(p, 0x77, n);
            _exit(0);
        }
        int status = 0;
        waitpid(child, &status, 0);
        say("fork child: %s\n",
            WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "exited" : "CRASHED");
    }
    one_message(p, n, "after the child wrote");
    free(p);
}

static void other_sends(void)
{
    size_t n = MIB + 3;
    unsigned char *p = malloc(2 * n);
    if (rank == 0) {
        fill(p, 2 * n, 60);
        MPI_Ssend(p, (int)n, MPI_BYTE, 1, 6, MPI_COMM_WORLD);
        MPI_Datatype every_other;
        MPI_Type_vector((int)n, 1, 2, MPI_BYTE, &every_other);
        MPI_Type_commit(&every_other);
        MPI_Send(p, 1, every_other, 1, 7, MPI_COMM_WORLD);
        MPI_Type_free(&every_other);
        double *d = malloc(MIB);
        for (int i = 0; i < MIB / 8; i++)
            d[i] = i * 0.5;
        MPI_Send(d + 1, MIB / 8 - 2, MPI_DOUBLE, 1, 8, MPI_COMM_WORLD);
        free(d);
    } else {
        MPI_Recv(p, (int)n, MPI_BYTE, 0, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        say("ssend: sum %016llx\n", (unsigned long long)sum(p, n));
        MPI_Recv(p, (int)n, MPI_BYTE, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        say("strided: sum %016llx\n", (unsigned long long)sum(p, n));
        double *d = malloc(MIB);
        MPI_Status st;
        int count;
        MPI_Recv(d, MIB / 8, MPI_DOUBLE, 0, 8, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_DOUBLE, &count);
        say("doubles: %d, sum %016llx\n", count,
            (unsigned long long)sum((unsigned char *)d, (size_t)count * 8));
        free(d);
    }
    free(p);
}

/* A buffered send's data is the program's again as soon as MPI_Bsend
 * returns, shared buffer or not. */
static void buffered(void)
{
    size_t n = MIB;
    unsigned char *p = malloc(n);
    fill(p, n, 70);
    one_message(p, n, "before the buffered send"); /* p is shared on rank 0 now */
    if (rank == 0) {
        int size = 2 * MIB;
        void *attached = malloc((size_t)size);
        MPI_Buffer_attach(attached, size);
        fill(p, n, 71);
        MPI_Bsend(p, (int)n, MPI_BYTE, 1, 9, MPI_COMM_WORLD);
        memset(p, 0, n);
        MPI_Buffer_detach(&attached, &size);
        free(attached);
    } else {
        MPI_Recv(p, (int)n, MPI_BYTE, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        say("buffered: sum %016llx\n", (unsigned long long)sum(p, n));
    }
    free(p);
}

/* MPI_Isendrecv_replace on a buffer shared at both ranks: each must get the
 * other's bytes, not its own sent back. */
static void exchanged_in_place(void)
{
    size_t n = MIB;
    int peer = 1 - rank;
    unsigned char *p = malloc(n);
    fill(p, n, 80);
    MPI_Sendrecv(MPI_BOTTOM, 0, MPI_BYTE, peer, 11, MPI_BOTTOM, 0, MPI_BYTE, peer, 11,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int turn = 0; turn < 2; turn++) /* p becomes shared at both ranks */
        if (rank == turn)
            MPI_Send(p, (int)n, MPI_BYTE, peer, 12, MPI_COMM_WORLD);
        else
            MPI_Recv(p, (int)n, MPI_BYTE, peer, 12, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (unsigned i = 0; i < 3; i++) {
        fill(p, n, 90 + 2 * i + (unsigned)rank);
        MPI_Request r;
        MPI_Isendrecv_replace(p, (int)n, MPI_BYTE, peer, 13, peer, 13, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        say("isendrecv_replace %u: got sum %016llx\n", i, (unsigned long long)sum(p, n));
    }
    free(p);
}

/* MPI_Sendrecv and MPI_Sendrecv_replace of large buffers: both halves of
 * the first may be shared, the replace's receive too (its send is copied
 * first: the message lands where the data was). */
static void sendrecv_large(void)
{
    size_t n = MIB + 5;
    int peer = 1 - rank;
    unsigned char *out = malloc(n), *in = malloc(n);
    memset(in, 0, n);
    for (unsigned i = 0; i < 3; i++) {
        fill(out, n, 140 + 2 * i + (unsigned)rank);
        MPI_Sendrecv(out, (int)n, MPI_BYTE, peer, 15, in, (int)n, MPI_BYTE, peer, 15,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        say("sendrecv %u: got sum %016llx\n", i, (unsigned long long)sum(in, n));
    }
    expect_shared(out + MIB / 2, "sendrecv's send");
    expect_shared(in + MIB / 2, "sendrecv's receive");
    for (unsigned i = 0; i < 3; i++) {
        fill(in, n, 150 + 2 * i + (unsigned)rank);
        MPI_Sendrecv_replace(in, (int)n, MPI_BYTE, peer, 16, peer, 16, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
        say("sendrecv_replace %u: got sum %016llx\n", i, (unsigned long long)sum(in, n));
    }
    free(out);
    free(in);
}

/* The program discards a buffer's pages and grows the buffer in place,
 * after it became shared at both ranks: MADV_DONTNEED leaves zeros (an
 * allocator handing the pages out again as zeroed memory counts on it),
 * MADV_FREE and MADV_WIPEONFORK succeed, mremap keeps the bytes and the new pages are zeros,
 * a receive pending meanwhile still lands there, MADV_REMOVE and
 * MADV_DONTNEED on locked pages fail and change nothing: as with the
 * private memory the program had. */
static void discarded_and_grown(void)
{
    size_t n = 2 * MIB, page = 4096;
    unsigned char *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) abort();
    memset(p, 3, n);
    pingpong(p, p, 0, 0, n, 130, "before discarding");
    expect_shared(p + MIB, "before discarding");
    uint64_t rest = sum(p, 3 * page);
    int rc = madvise(p + 3 * page, MIB, MADV_DONTNEED);
    size_t zeros = 0;
    for (size_t i = 0; i < MIB; i++)
        zeros += p[3 * page + i] == 0;
    say("dontneed: rc %d, %zu of %d bytes zero, before them %s\n", rc, zeros, MIB,
        sum(p, 3 * page) == rest ? "kept" : "CHANGED");
    say("free: rc %d\n", madvise(p + MIB + 8 * page, 64 * page, MADV_FREE));
    pingpong(p, p, 100, 100, n - 200, 131, "after discarding");
    expect_shared(p + MIB, "after discarding");
    rest = sum(p, n);
    unsigned char *q = mremap(p, n, 2 * n, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) abort();
    size_t grown_zeros = 0;
    for (size_t i = n; i < 2 * n; i++)
        grown_zeros += q[i] == 0;
    say("mremap: bytes %s, %zu of %zu new bytes zero\n", sum(q, n) == rest ? "kept" : "CHANGED",
        grown_zeros, n);
    pingpong(q, q, 5, 5, 2 * n - 10, 132, "grown");
    /* a receive pending while the program changes its pages' kind: the
     * message still arrives there */
    if (rank == 1) {
        MPI_Request r;
        MPI_Irecv(q, MIB, MPI_BYTE, 0, 17, MPI_COMM_WORLD, &r);
        say("wipeonfork, receive pending: rc %d\n", madvise(q, n, MADV_WIPEONFORK));
        MPI_Send(NULL, 0, MPI_BYTE, 0, 18, MPI_COMM_WORLD);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        say("pending receive: sum %016llx\n", (unsigned long long)sum(q, MIB));
    } else {
        MPI_Recv(NULL, 0, MPI_BYTE, 1, 18, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        fill(q, MIB, 133);
        MPI_Send(q, MIB, MPI_BYTE, 1, 17, MPI_COMM_WORLD);
        say("wipeonfork: rc %d\n", madvise(q, n, MADV_WIPEONFORK));
    }
    /* what fails on private memory fails here too, and changes nothing */
    memset(q + n, 0x44, n);
    int removed = madvise(q + 3 * MIB, 4 * page, MADV_REMOVE);
    say("remove: rc %d, bytes %s\n", removed, q[3 * MIB] == 0x44 ? "kept" : "CHANGED");
    if (mlock(q + n, 4 * page) == 0) {
        int locked = madvise(q + n, 4 * page, MADV_DONTNEED);
        say("dontneed on locked pages: rc %d, bytes %s\n", locked,
            q[n + page] == 0x44 ? "kept" : "CHANGED");
        munlock(q + n, 4 * page);
    } else {
        say("mlock failed\n");
    }
    munmap(q, 2 * n);
}

/* Resident memory of this process, in bytes (/proc/self/statm). */
static long resident_bytes(void)
{
    long pages = 0, res = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f && fscanf(f, "%ld %ld", &pages, &res) != 2) res = 0;
    if (f) fclose(f);
    return res * 4096;
}

/* A large reservation, mostly untouched, with a shared buffer at its start,
 * moved and grown with mremap: the untouched pages stay untouched (natively
 * mremap moves page tables, nothing is copied). */
/* A shared buffer whose discard begins in a file's mapping with a long
 * name just below it: the library walks the range's mappings by name and
 * once stopped at the file (its name too long for the walk's buffer, asked
 * again in a way the kernel refused), leaving the buffer's pages the
 * share's, where a discard reads back the bytes, not zeros. */
static void beside_a_file(void)
{
    size_t page = 4096, file_bytes = 16 * page, n = 2 * MIB;
    char path[] = "/tmp/mpcr-shared-buffers-a-file-whose-name-is-longer-than-a-share-s-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || ftruncate(fd, (off_t)file_bytes)) abort();
    unlink(path);
    unsigned char *room = mmap(NULL, file_bytes + n, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (room == MAP_FAILED ||
        mmap(room, file_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) == MAP_FAILED)
        abort();
    close(fd);
    unsigned char *p = mmap(room + file_bytes, n, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p == MAP_FAILED) abort();
    memset(p, 5, n);
    pingpong(p, p, 0, 0, n, 135, "beside a file");
    expect_shared(p + MIB, "beside a file");
    int rc = madvise(room, file_bytes + n, MADV_DONTNEED);
    size_t zeros = 0;
    for (size_t i = 0; i < n; i++)
        zeros += p[i] == 0;
    say("beside a file, discarded: rc %d, %zu of %zu bytes zero\n", rc, zeros, n);
    munmap(room, file_bytes + n);
}

static void moved_sparse(void)
{
    size_t n = (size_t)512 * MIB, used = 4 * MIB;
    unsigned char *p =
        mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) abort();
    memset(p, 5, used);
    pingpong(p, p, 0, 0, used, 134, "sparse");
    uint64_t kept = sum(p, used);
    long before = resident_bytes();
    unsigned char *q = mremap(p, n, 2 * n, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) abort();
    long grown = resident_bytes() - before;
    say("sparse moved: bytes %s, resident memory grew by less than 64 MiB: %s\n",
        sum(q, used) == kept ? "kept" : "CHANGED", grown < 64L * MIB ? "yes" : "NO");
    munmap(q, 2 * n);
}

/* A small message into a huge buffer the program never touched: its pages
 * must not all become real memory, neither at the receive (under mpcr the
 * buffer becomes a share, its untouched pages holes of the memfd) nor in a
 * fork child, whose library makes every share private memory again (as a
 * checkpoint does): only the pages that hold data are copied. */
static void untouched_capacity(void)
{
    size_t cap = (size_t)512 * MIB, n = 400 * 1024;
    if (rank == 0) {
        unsigned char *p = malloc(n);
        fill(p, n, 110);
        MPI_Send(p, (int)n, MPI_BYTE, 1, 14, MPI_COMM_WORLD);
        free(p);
    } else {
        unsigned char *p = malloc(cap);
        long before = resident_bytes();
        MPI_Recv(p, (int)cap, MPI_BYTE, 0, 14, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        long grown = resident_bytes() - before;
        say("untouched capacity: sum %016llx, resident memory grew by less than 64 MiB: %s\n",
            (unsigned long long)sum(p, n), grown < 64L * MIB ? "yes" : "NO");
        expect_shared(p + MIB, "untouched capacity");
        before = resident_bytes();
        int fd[2];
        if (pipe(fd)) abort();
        pid_t child = fork();
        if (child == 0) {
            char grew = resident_bytes() - before < 64L * MIB ? 'y' : 'n';
            if (write(fd[1], &grew, 1) != 1) _exit(1);
            _exit(0);
        }
        char grew = '?';
        if (child < 0 || read(fd[0], &grew, 1) != 1) grew = '?';
        waitpid(child, NULL, 0);
        close(fd[0]), close(fd[1]);
        say("untouched capacity, in a fork child: resident memory grew by less than 64 MiB: %s\n",
            grew == 'y' ? "yes" : "NO");
        free(p);
    }
}

/* Shared memory resident in process pid (0: this one; RssShmem), in bytes:
 * a share's pages count there, the program's own private memory does not. */
static long shmem_bytes(pid_t pid)
{
    char line[256], path[64];
    long kb = 0;
    if (pid)
        snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    else
        snprintf(path, sizeof path, "/proc/self/status");
    FILE *f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "RssShmem:", 9)) kb = atol(line + 9);
    if (f) fclose(f);
    return kb * 1024;
}

struct freed {
    size_t n;
    long held, parent_held; /* shared memory of this process and its parent before the free */
};

/* A buffer of n bytes shared by a ping-pong, then freed. */
static struct freed share_then_free(size_t n, unsigned seed, const char *what)
{
    unsigned char *p = malloc(n);
    if (!p) abort();
    fill(p, n, seed);
    pingpong(p, p, 0, 0, n, seed, what);
    expect_shared(p + MIB, what);
    struct freed f = {n, shmem_bytes(0), shmem_bytes(getppid())};
    free(p);
    return f;
}

/* Whether this process and its parent have given the buffer's memory
 * back: the buffer's mapping went with free(); the share's other mappings
 * (the library's mirror of the memfd, the proxy's) must go too. */
static int given_back(const struct freed *f)
{
    long most = (long)(f->n / 4 * 3);
    return (f->held < most || shmem_bytes(0) < f->held - (long)(f->n + f->n / 2)) &&
           (f->parent_held < most || shmem_bytes(getppid()) < f->parent_held - (long)(f->n / 2));
}

/* A buffer freed after its messages: its memory goes back to the system
 * soon, as natively (the share held it until the next share was made or
 * MPI_Finalize; the proxy now asks the library about once a second to
 * drop shares whose buffers are gone). Both ranks poll, agreeing when to
 * stop, for at most 10 s. Under mpcr the proxy is the program's parent:
 * its mapping of the memfd must go too. Natively the buffer was never
 * shared memory, and the parent (the launcher's) holds little. */
static void freed_given_back(void)
{
    struct freed f = share_then_free(256 * MIB, 136, "freed");
    int back = 0;
    for (int i = 0; i < 200 && !back; i++) {
        int mine = given_back(&f);
        MPI_Allreduce(&mine, &back, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        if (!back) usleep(50000);
    }
    say("freed buffer: its memory given back within 10 s: %s\n", back ? "yes" : "NO");
}

/* The same, but the program computes after the free and makes no MPI call
 * for up to 20 s: the library's progress helper answers the proxy's
 * request to drop the share (before, the memory stayed until the next
 * call). Each rank watches its own memory and its parent's alone; they
 * agree afterwards. */
static double seconds(void) /* (MPI_Wtime is an MPI call) */
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void freed_while_computing(void)
{
    struct freed f = share_then_free(128 * MIB, 137, "freed, then computing");
    int back = 0;
    volatile double x = 1;
    for (int i = 0; i < 400 && !(back = given_back(&f)); i++)
        for (double until = seconds() + 0.05; seconds() < until;) x = x * 1.0000001 + 1e-9;
    int all = 0;
    MPI_Allreduce(&back, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    say("freed buffer, computing: its memory given back within 20 s: %s\n", all ? "yes" : "NO");
}

/* The library's progress helper (which the shares above started, under
 * mpcr) must block every signal the program may expect on its own threads
 * (a process-wide SIGALRM or SIGCHLD would otherwise run the program's
 * handler there now and then), but not the checkpoint signal, SIGRTMAX.
 * Natively there is no such thread. */
static void helper_signals(void)
{
    int fine = 1, found = 0;
    char path[300], line[256];
    DIR *tasks = opendir("/proc/self/task");
    for (struct dirent *e; tasks && (e = readdir(tasks));) {
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        int helper = fgets(line, sizeof line, f) && !strncmp(line, "mpcr-progress", 13);
        fclose(f);
        snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
        if (!helper || !(f = fopen(path, "r"))) continue;
        found = 1;
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "SigBlk:", 7)) {
                unsigned long long blocked = strtoull(line + 7, NULL, 16);
                const int program[] = {SIGALRM, SIGCHLD, SIGPROF, SIGUSR1, SIGINT, SIGTERM};
                for (unsigned i = 0; i < sizeof program / sizeof *program; i++)
                    fine &= (int)(blocked >> (program[i] - 1)) & 1;
                fine &= !((blocked >> (SIGRTMAX - 1)) & 1);
            }
        fclose(f);
    }
    if (tasks) closedir(tasks);
    const char *off = getenv("MPCR_PROGRESS_THREAD");
    if (shared_seen && !found && !(off && !strcmp(off, "0"))) fine = 0; /* a share starts it */
    say("the library's own thread leaves the program's signals alone: %s\n", fine ? "yes" : "NO");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    setvbuf(stdout, NULL, _IOLBF, 0);
    pingpongs();
    short_receive();
    replaced_memory();
    forked();
    other_sends();
    buffered();
    exchanged_in_place();
    sendrecv_large();
    discarded_and_grown();
    beside_a_file();
    untouched_capacity();
    moved_sparse();
    freed_given_back();
    freed_while_computing();
    helper_signals();
    print_rank1();
    MPI_Finalize();
    return 0;
}
