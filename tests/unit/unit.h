/* Typed assertions for the unit tests (in the manner of libuv's): each
 * failure names the file, the line, the expression and both values, and
 * ends the test with status 1. */
#ifndef MPCR_UNIT_H
#define MPCR_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNIT_FAIL(fmt, ...)                                                                        \
    do {                                                                                           \
        fprintf(stderr, "%s:%d: " fmt "\n", __FILE__, __LINE__, __VA_ARGS__);                      \
        exit(1);                                                                                   \
    } while (0)

#define ASSERT_TRUE(e)                                                                             \
    do {                                                                                           \
        if (!(e)) UNIT_FAIL("assertion failed: %s", #e);                                           \
    } while (0)

#define ASSERT_INT_OP(a, op, b)                                                                    \
    do {                                                                                           \
        int64_t a_ = (int64_t)(a), b_ = (int64_t)(b);                                              \
        if (!(a_ op b_))                                                                           \
            UNIT_FAIL("%s %s %s: %" PRId64 " vs %" PRId64, #a, #op, #b, a_, b_);                   \
    } while (0)
#define ASSERT_EQ(a, b) ASSERT_INT_OP(a, ==, b)
#define ASSERT_NE(a, b) ASSERT_INT_OP(a, !=, b)
#define ASSERT_LT(a, b) ASSERT_INT_OP(a, <, b)
#define ASSERT_GE(a, b) ASSERT_INT_OP(a, >=, b)

#define ASSERT_MEM_EQ(a, b, n)                                                                     \
    do {                                                                                           \
        if (memcmp((a), (b), (n))) UNIT_FAIL("%s and %s differ in their %zu bytes", #a, #b,       \
                                             (size_t)(n));                                         \
    } while (0)

#endif
