/* Test helper: copies a proxy state file (rank-R.state, layout at the top of
 * src/proxy/ckpt/state.c: sections, one per resource kind) with one change
 * to its "requests" section, and a CRC32C trailer that matches again, to
 * make a hostile file that only the bounds on its counts catch:
 *   state_patch IN OUT token N    adds a finished request with token N
 *   state_patch IN OUT nreqs N    says N requests follow (none added)
 *   state_patch IN OUT rename S   names the section S (one this mpcr does not know) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"

enum { HEADER = 32, SECTION_HEADER = 32, SAVED_REQ = 72, REQ_DONE = 2 };
enum { NSECTIONS = 20, NAME = 0, BYTES = 24 }; /* offsets in the header, in a section's header */

int main(int argc, char **argv)
{
    if (argc != 5) return 2;
    FILE *in = fopen(argv[1], "rb");
    if (!in) return 1;
    static char buf[64 << 20];
    size_t len = fread(buf, 1, sizeof buf - SAVED_REQ, in);
    fclose(in);
    if (len < HEADER + 4 || memcmp(buf, "MPCRPST1", 8)) return 1;
    len -= 4; /* the old CRC */
    uint32_t nsections;
    memcpy(&nsections, buf + NSECTIONS, 4);
    size_t at = HEADER; /* the requests section's header */
    for (uint32_t i = 0;; i++) {
        if (i == nsections || at + SECTION_HEADER > len) return 1;
        uint64_t bytes;
        memcpy(&bytes, buf + at + BYTES, 8);
        if (!strncmp(buf + at + NAME, "requests", 16)) break;
        at += SECTION_HEADER + (bytes + 7) / 8 * 8;
    }
    char *section = buf + at, *data = section + SECTION_HEADER;
    uint32_t nreqs;
    uint64_t bytes;
    memcpy(&nreqs, data, 4);
    memcpy(&bytes, section + BYTES, 8);
    uint32_t value = (uint32_t)strtoul(argv[4], NULL, 0);
    if (!strcmp(argv[3], "token")) {
        size_t end = (size_t)(data - buf) + bytes; /* after the last request (72: no padding) */
        if (end > len) return 1;
        memmove(buf + end + SAVED_REQ, buf + end, len - end);
        memset(buf + end, 0, SAVED_REQ);
        memcpy(buf + end, &value, 4);
        buf[end + 4] = REQ_DONE;
        len += SAVED_REQ, bytes += SAVED_REQ;
        nreqs++;
        memcpy(section + BYTES, &bytes, 8);
    } else if (!strcmp(argv[3], "nreqs")) {
        nreqs = value;
    } else if (!strcmp(argv[3], "rename")) {
        memset(section + NAME, 0, 16);
        memcpy(section + NAME, argv[4], strnlen(argv[4], 16));
    } else {
        return 2;
    }
    memcpy(data, &nreqs, 4);
    uint32_t crc = mpcr_crc32c(0, buf, len);
    memcpy(buf + len, &crc, 4);
    FILE *out = fopen(argv[2], "wb");
    if (!out || fwrite(buf, 1, len + 4, out) != len + 4) return 1;
    return fclose(out) ? 1 : 0;
}
