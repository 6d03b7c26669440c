/* The proxy's drain cache (src/proxy/cache.c): matching with wildcards in
 * arrival order, truncation, and a message whose drain receive failed. */
#include "cache.h"
#include "unit.h"

enum { ANY_SOURCE = -2, ANY_TAG = -1, ERR_TRUNCATE = 14, ERR_OTHER = 15 };

static void add(uint32_t comm, int source, int tag, int rc, const char *text)
{
    size_t n = strlen(text);
    char *data = malloc(n + 1);
    memcpy(data, text, n + 1);
    ASSERT_EQ(cache_add(comm, source, tag, rc, n, data), 0);
}

int main(void)
{
    add(2, 0, 7, 0, "first");
    add(2, 1, 7, 0, "second");
    add(3, 0, 7, 0, "other comm");
    add(2, 0, 8, ERR_OTHER, "bad");
    ASSERT_EQ(cache_find(2, ANY_SOURCE, 7), 0); /* arrival order */
    ASSERT_EQ(cache_find(2, 1, ANY_TAG), 1);
    ASSERT_EQ(cache_find(3, ANY_SOURCE, ANY_TAG), 2);
    ASSERT_EQ(cache_find(4, ANY_SOURCE, ANY_TAG), -1);
    ASSERT_EQ(cache_find(2 | 0x80000000u, ANY_SOURCE, ANY_TAG), -1); /* collective context apart */

    char buf[16] = {0};
    struct req_status s;
    cache_take(cache_find(2, 1, 7), buf, 3, &s); /* 6 bytes into 3 */
    ASSERT_EQ(s.rc, ERR_TRUNCATE);
    ASSERT_EQ(s.bytes, 3);
    ASSERT_MEM_EQ(buf, "sec", 3); /* what fits is delivered, as from the network */
    ASSERT_EQ(buf[3], 0);
    memset(buf, 0, sizeof buf);
    cache_take(cache_find(2, ANY_SOURCE, 7), buf, sizeof buf, &s);
    ASSERT_EQ(s.rc, 0);
    ASSERT_EQ(s.source, 0);
    ASSERT_EQ(s.bytes, 5);
    ASSERT_MEM_EQ(buf, "first", 5);
    /* The drain's receive failed: the program's receive reports it. */
    cache_peek(cache_find(2, 0, 8), &s);
    ASSERT_EQ(s.rc, ERR_OTHER);
    cache_take(cache_find(2, 0, 8), buf, sizeof buf, &s);
    ASSERT_EQ(s.rc, ERR_OTHER);
    ASSERT_EQ(s.bytes, 0);
    ASSERT_EQ(ncache, 1);
    ASSERT_EQ(cache_bytes(), 10);
    printf("cache: all passed\n");
    return 0;
}
