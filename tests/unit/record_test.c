/* The saved form of the communicator record (src/proxy/record_form.c):
 * a round trip sorted by key, every kind of damage refused, and the merge
 * of every rank's record at restart. */
#include "record_form.h"
#include "unit.h"

static int32_t m01[] = {0, 1}, m10[] = {1, 0}, m2[] = {2}, m012[] = {0, 1, 2};

int main(void)
{
    struct outcome in[] = {{5, 2, 9, m10}, {2, 3, 4, m012}, {3, 2, 7, m01}, {4, 1, 8, m2}};
    size_t len;
    char *buf = record_encode(in, 4, 9, &len);
    ASSERT_TRUE(buf);
    struct outcome *out;
    uint32_t n;
    uint64_t clock;
    char err[200];
    /* Rank 1 of 3 is in communicators 5, 2 and 3, not 4. */
    ASSERT_EQ(record_decode(buf, len, 1, 3, &out, &n, &clock, err, sizeof err), -1);
    char *b2 = record_encode(in, 3, 9, &len);
    ASSERT_EQ(record_decode(b2, len, 1, 3, &out, &n, &clock, err, sizeof err), 0);
    ASSERT_EQ(n, 3);
    ASSERT_EQ(clock, 9);
    ASSERT_EQ(out[0].id, 2); /* by key: 4, 7, 9 */
    ASSERT_EQ(out[1].id, 3);
    ASSERT_EQ(out[2].id, 5);
    ASSERT_EQ(out[2].nmembers, 2);
    ASSERT_EQ(out[2].members[0], 1); /* order of ranks in the communicator kept */
    ASSERT_EQ(out[2].members[1], 0);
    for (uint32_t i = 0; i < n; i++)
        free(out[i].members);
    free(out);

    /* Damage: every prefix is refused; so are a rank beyond the job, an
     * absurd count, a key after the clock, a collective-context id. */
    for (size_t cut = 0; cut < len; cut += 4)
        ASSERT_EQ(record_decode(b2, cut, 1, 3, &out, &n, &clock, err, sizeof err), -1);
    ASSERT_EQ(record_decode(b2, len, 1, 2, &out, &n, &clock, err, sizeof err), -1); /* size 2 */
    char *bad = malloc(len);
    memcpy(bad, b2, len);
    uint32_t huge = 0x40000000;
    memcpy(bad + 8, &huge, 4);
    ASSERT_EQ(record_decode(bad, len, 1, 3, &out, &n, &clock, err, sizeof err), -1);
    ASSERT_TRUE(strstr(err, "more than it holds"));
    struct outcome late[] = {{2, 2, 10, m01}};
    char *b3 = record_encode(late, 1, 9, &len);
    ASSERT_EQ(record_decode(b3, len, 0, 2, &out, &n, &clock, err, sizeof err), -1);
    struct outcome coll[] = {{2 | 0x80000000u, 2, 1, m01}};
    char *b4 = record_encode(coll, 1, 9, &len);
    ASSERT_EQ(record_decode(b4, len, 0, 2, &out, &n, &clock, err, sizeof err), -1);
    /* Nothing recorded: a valid, empty record. */
    char *b5 = record_encode(NULL, 0, 0, &len);
    ASSERT_EQ(record_decode(b5, len, 0, 1, &out, &n, &clock, err, sizeof err), 0);
    ASSERT_EQ(n, 0);
    free(out);
    free(buf), free(b2), free(bad), free(b3), free(b4), free(b5);

    /* The merge: rank 0 freed communicator key 5 that rank 1 still holds;
     * rank 1's own {1} (key 2) is not rank 0's to make; key 3 is in both. */
    static int32_t m1[] = {1};
    struct outcome r0[] = {{2, 2, 3, m01}}, r1[] = {{5, 2, 5, m01}, {6, 1, 2, m1}, {4, 2, 3, m01}};
    const struct outcome *theirs[] = {NULL, r1};
    uint32_t counts[] = {0, 3};
    ASSERT_EQ(record_merge(r0, 1, theirs, counts, 2, 0, &out, &n), 0);
    ASSERT_EQ(n, 2);
    ASSERT_EQ(out[0].key, 3);
    ASSERT_EQ(out[0].id, 2); /* held: its own id */
    ASSERT_EQ(out[1].key, 5);
    ASSERT_EQ(out[1].id, 0); /* freed here: made, then freed */
    ASSERT_EQ(out[1].members[1], 1);
    for (uint32_t i = 0; i < n; i++)
        free(out[i].members);
    free(out);
    printf("record: all passed\n");
    return 0;
}
