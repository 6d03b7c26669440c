/* Deep recursion on the main stack: the checkpoint happens 30000 frames
 * deep; after the restart every frame unwinds with its own data, and the
 * stack can grow deeper than it ever was (MAP_GROWSDOWN). */
#include "zdtm.h"

static unsigned long frame(int depth, int stop_at, unsigned long acc)
{
    volatile char pad[64];
    for (int i = 0; i < 64; i++) pad[i] = (char)(depth + i);
    unsigned long r;
    if (depth == stop_at) {
        if (stop_at == 30000) {
            zdtm_ready();
            zdtm_wait();
        }
        r = acc;
    } else {
        r = frame(depth + 1, stop_at, acc * 3 + (unsigned long)depth);
    }
    for (int i = 0; i < 64; i++)
        if (pad[i] != (char)(depth + i)) {
            printf("FAIL frame %d corrupted\n", depth);
            exit(1);
        }
    return r + (unsigned long)pad[depth % 64];
}

int main(void)
{
    unsigned long before = frame(0, 1000, 1); /* reference, shallow */
    (void)before;
    unsigned long deep = frame(0, 30000, 1);
    unsigned long again = frame(0, 30000, 1);  /* same computation after restart */
    CHECK(deep == again, "%lu != %lu", deep, again);
    unsigned long deeper = frame(0, 70000, 1); /* twice as deep as at the checkpoint */
    (void)deeper;
    zdtm_pass();
}
