/* Test helper: copies a proxy state file (rank-R.state, layout at the top of
 * src/proxy/state.c) with one change, and a CRC32C trailer that matches
 * again, to make a hostile file that only the bounds on its counts catch:
 *   state_patch IN OUT token N    adds a finished request with token N
 *   state_patch IN OUT nreqs N    says N requests follow (none added) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"

enum { HEADER = 32, COMM_OP = 20, SAVED_REQ = 72, REQ_DONE = 2 };
enum { VERSION = 8, RECORD = 20, NREQS = 24 }; /* offsets in the header */

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
    uint32_t version, record, nreqs;
    memcpy(&version, buf + VERSION, 4);
    memcpy(&record, buf + RECORD, 4);
    memcpy(&nreqs, buf + NREQS, 4);
    /* The communicator record: version 1 counts its 20-byte entries, versions 2-5 its bytes. */
    size_t record_bytes = version == 1 ? (size_t)record * COMM_OP : version >= 2 && version <= 5 ? record : SIZE_MAX;
    if (record_bytes == SIZE_MAX) return 1;
    uint32_t value = (uint32_t)strtoul(argv[4], NULL, 0);
    if (!strcmp(argv[3], "token")) {
        size_t at = HEADER + record_bytes + (size_t)nreqs * SAVED_REQ; /* after the last request */
        if (at > len) return 1;
        memmove(buf + at + SAVED_REQ, buf + at, len - at);
        memset(buf + at, 0, SAVED_REQ);
        memcpy(buf + at, &value, 4);
        buf[at + 4] = REQ_DONE;
        len += SAVED_REQ;
        nreqs++;
    } else if (!strcmp(argv[3], "nreqs")) {
        nreqs = value;
    } else {
        return 2;
    }
    memcpy(buf + NREQS, &nreqs, 4);
    uint32_t crc = mpcr_crc32c(0, buf, len);
    memcpy(buf + len, &crc, 4);
    FILE *out = fopen(argv[2], "wb");
    if (!out || fwrite(buf, 1, len + 4, out) != len + 4) return 1;
    return fclose(out) ? 1 : 0;
}
