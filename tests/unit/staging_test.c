/* The staging allocator (src/lib/runtime/staging.c): aligned, non-overlapping
 * extents inside the area, first fit, the area grown through the proxy's
 * GROW (played here: the memfd is extended by this test) with its contents
 * kept. No MPI, no proxy. */
#include "env/errors.h"
#include "runtime/runtime.h"
#include "runtime/staging.h"
#include "unit.h"

#include <stdarg.h>
#include <sys/mman.h>
#include <unistd.h>

struct mpcr_lib mpcr;
unsigned mpcr_posts_queued; /* post_queue.c's; none queued here */
void mpcr_posts_flush_queued(void) {}
static int memfd, grows;
static struct mpcr_reply reply;

/* The proxy's side of the one call staging.c makes: GROW (the call as the
 * library wrote it: its draft, which the real mpcr_call_finish publishes). */
const struct mpcr_reply *mpcr_call_finish(void)
{
    ASSERT_EQ(mpcr.draft.op, MPCR_OP_GROW);
    ASSERT_EQ(ftruncate(memfd, (off_t)(MPCR_CHAN_CONTROL + mpcr.draft.bytes)), 0);
    grows++;
    reply.rc = MPI_SUCCESS;
    return &reply;
}

/* No offset the allocator gives is a shared buffer's (staging.h: mpcr_staging_free). */
void mpcr_share_release(uint64_t offset)
{
    ASSERT_TRUE(offset < MPCR_SHARED_BASE);
}

_Noreturn void mpcr_fatal(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    exit(1);
}

static void setup(void)
{
    memfd = memfd_create("staging-test", 0);
    ASSERT_TRUE(memfd >= 0);
    ASSERT_EQ(ftruncate(memfd, MPCR_CHAN_CONTROL), 0);
    mpcr.chan = mmap(NULL, MPCR_CHAN_CONTROL, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    ASSERT_TRUE(mpcr.chan != MAP_FAILED);
}

#define N 200
static uint64_t off[N], len[N];
static int used[N];

static void check_disjoint(void)
{
    for (int i = 0; i < N; i++) {
        if (!used[i]) continue;
        ASSERT_EQ(off[i] % 64, 0);
        ASSERT_TRUE(off[i] + len[i] <= mpcr.staging_size);
        for (int j = i + 1; j < N; j++)
            if (used[j]) ASSERT_TRUE(off[i] + (len[i] ? len[i] : 1) <= off[j] ||
                                     off[j] + (len[j] ? len[j] : 1) <= off[i]);
    }
}

int main(void)
{
    setup();
    /* First fit: a freed gap is taken again by what fits in it. */
    uint64_t a, b, c, d;
    ASSERT_EQ(mpcr_staging_alloc(100, &a), MPI_SUCCESS);
    ASSERT_EQ(grows, 1); /* the first allocation maps the area */
    ASSERT_EQ(mpcr_staging_alloc(0, &b), MPI_SUCCESS);
    ASSERT_EQ(mpcr_staging_alloc(64, &c), MPI_SUCCESS);
    ASSERT_EQ(a, 0);
    ASSERT_EQ(b, 128); /* 100 rounded up to 128; an empty one still takes 64 */
    ASSERT_EQ(c, 192);
    mpcr_staging_free(b);
    ASSERT_EQ(mpcr_staging_alloc(10, &d), MPI_SUCCESS);
    ASSERT_EQ(d, 128);
    mpcr_staging_free(a), mpcr_staging_free(c), mpcr_staging_free(d);

    /* Growing keeps what is there. */
    ASSERT_EQ(mpcr_staging_alloc(1000, &a), MPI_SUCCESS);
    memset(mpcr_staging_ptr(a), 0x5a, 1000);
    uint64_t before = mpcr.staging_size;
    ASSERT_EQ(mpcr_staging_alloc(3u << 20, &b), MPI_SUCCESS);
    ASSERT_TRUE(mpcr.staging_size > before && b + (3u << 20) <= mpcr.staging_size);
    for (int i = 0; i < 1000; i++)
        ASSERT_EQ(((unsigned char *)mpcr_staging_ptr(a))[i], 0x5a);
    memset(mpcr_staging_ptr(b), 1, 3u << 20); /* all of it is mapped */
    mpcr_staging_free(a), mpcr_staging_free(b);

    /* Random allocations and frees never overlap. */
    srand(7);
    for (int step = 0; step < 20000; step++) {
        int i = rand() % N;
        if (used[i]) {
            mpcr_staging_free(off[i]);
            used[i] = 0;
        } else {
            len[i] = (uint64_t)(rand() % 4 ? rand() % 5000 : rand() % 200000);
            ASSERT_EQ(mpcr_staging_alloc(len[i], &off[i]), MPI_SUCCESS);
            used[i] = 1;
        }
        if (step % 1000 == 0) check_disjoint();
    }
    check_disjoint();
    printf("staging: all passed (%d grows, area %llu bytes)\n", grows,
           (unsigned long long)mpcr.staging_size);
    return 0;
}
