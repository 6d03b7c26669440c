/* The three-lane CRC32C of crc32c.h against a bit-at-a-time reference: the
 * standard check value, then random buffers of every size class around the
 * lane boundaries, at odd alignments, in one call and split into pieces. */
#include <stdio.h>
#include <stdlib.h>

#include "crc32c.h"

static uint32_t reference(uint32_t crc, const unsigned char *p, size_t len)
{
    crc = ~crc;
    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) crc = crc & 1 ? crc >> 1 ^ 0x82f63b78u : crc >> 1;
    }
    return ~crc;
}

int main(void)
{
    int bad = 0;
    mpcr_crc32c_init();
    if (mpcr_crc32c(0, "123456789", 9) != 0xe3069283u) printf("FAIL: check value\n"), bad++;
    size_t cap = 8 * MPCR_CRC_LANE + 64;
    unsigned char *buf = malloc(cap);
    srand(7);
    for (size_t i = 0; i < cap; i++) buf[i] = (unsigned char)rand();
    size_t sizes[] = {0, 1, 7, 8, 9, 3 * MPCR_CRC_LANE - 1, 3 * MPCR_CRC_LANE, 3 * MPCR_CRC_LANE + 1,
                      6 * MPCR_CRC_LANE + 13, 8 * MPCR_CRC_LANE};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++)
        for (size_t align = 0; align < 9; align++) {
            size_t len = sizes[s];
            const unsigned char *p = buf + align;
            uint32_t want = reference(0, p, len), whole = mpcr_crc32c(0, p, len);
            uint32_t split = mpcr_crc32c(mpcr_crc32c(0, p, len / 3), p + len / 3, len - len / 3);
            if (whole != want || split != want)
                printf("FAIL: %zu bytes at +%zu: %08x / %08x, want %08x\n", len, align, whole, split, want), bad++;
        }
    if (!bad) printf("PASS\n");
    return bad != 0;
}
