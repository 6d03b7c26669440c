/* The SHA-256 of sha256.h, which vouches for the files an image maps
 * (docs/security.md): FIPS 180-4's test vectors, a buffer hashed whole and in
 * pieces of every small size, by the portable code and, where the CPU has
 * them, by the SHA extensions, which must also agree on random buffers of
 * every length up to a few blocks; given files, their digests printed one a
 * line in sha256sum's form for engine.sha256 to compare with sha256sum's.
 * `sha_check --speed` prints both ways' MB/s (docs/security.md's figures). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sha256.h"

static void hex(const unsigned char *d, char out[65])
{
    for (int i = 0; i < MPCR_SHA256_LEN; i++) sprintf(out + 2 * i, "%02x", d[i]);
}

static int vector(const char *what, const void *p, size_t n, size_t piece, const char *want)
{
    struct mpcr_sha256 s;
    unsigned char d[MPCR_SHA256_LEN];
    char got[65];
    mpcr_sha256_init(&s);
    for (size_t off = 0; off < n; off += piece)
        mpcr_sha256_update(&s, (const char *)p + off, n - off < piece ? n - off : piece);
    mpcr_sha256_final(&s, d);
    hex(d, got);
    if (strcmp(got, want)) return printf("FAIL: %s (pieces of %zu): %s, want %s\n", what, piece, got, want), 1;
    return 0;
}

/* Selects the way blocks are hashed: 0 portable, 1 the SHA extensions; says
 * whether that way exists here. */
static int use_hw(int hw)
{
#if defined(__x86_64__)
    mpcr_sha256_hw = -1;
    if (!hw) return mpcr_sha256_hw = 0, 1;
    return mpcr_sha256_hw_present();
#else
    return !hw;
#endif
}

static void digest(const unsigned char *p, size_t n, unsigned char d[MPCR_SHA256_LEN])
{
    struct mpcr_sha256 s;
    mpcr_sha256_init(&s);
    mpcr_sha256_update(&s, p, n);
    mpcr_sha256_final(&s, d);
}

/* Both ways on the same random bytes, every length up to 300 and a few large. */
static int agree(void)
{
    static unsigned char buf[1 << 20];
    unsigned x = 12345;
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
    for (size_t n = 0; n <= sizeof buf; n = n < 300 ? n + 1 : n * 2 + 7) {
        unsigned char a[MPCR_SHA256_LEN], b[MPCR_SHA256_LEN];
        use_hw(0), digest(buf + n % 5, n > sizeof buf - 5 ? sizeof buf - 5 : n, a);
        use_hw(1), digest(buf + n % 5, n > sizeof buf - 5 ? sizeof buf - 5 : n, b);
        if (memcmp(a, b, sizeof a)) return printf("FAIL: the two ways differ on %zu random bytes\n", n), 1;
    }
    return 0;
}

static int speed(void)
{
    size_t n = 256u << 20;
    unsigned char *p = malloc(n), d[MPCR_SHA256_LEN];
    if (!p) return 1;
    memset(p, 0x5a, n);
    for (int hw = 0; hw < 2; hw++) {
        if (!use_hw(hw)) continue;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        digest(p, n, d);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
        printf("%-14s %7.0f MB/s (256 MiB in %.3f s)\n", hw ? "SHA extensions" : "portable", (double)n / 1e6 / s, s);
    }
    free(p);
    return 0;
}

int main(int argc, char **argv)
{
    int bad = 0;
    if (argc == 2 && !strcmp(argv[1], "--speed")) return speed();
    for (int hw = 0; hw < 2; hw++) {
        if (!use_hw(hw)) continue;
        static const char *abc = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
        bad += vector("empty", "", 0, 1, abc);
        bad += vector("abc", "abc", 3, 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"; /* 56 bytes: padding spills */
        for (size_t piece = 1; piece <= 65; piece++)
            bad += vector("two blocks", two, strlen(two), piece,
                          "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        char *million = malloc(1000000);
        memset(million, 'a', 1000000);
        bad += vector("a million a", million, 1000000, 1000000,
                      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
        bad += vector("a million a", million, 1000000, 4099,
                      "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
        free(million);
    }
    int hw_here = use_hw(1);
    if (hw_here) bad += agree();
    char *million = malloc(1000000);
    for (int i = 1; i < argc; i++) {
        FILE *f = fopen(argv[i], "rb");
        if (!f) return printf("FAIL: cannot open %s\n", argv[i]), 1;
        struct mpcr_sha256 s;
        unsigned char d[MPCR_SHA256_LEN];
        char out[65];
        size_t n;
        mpcr_sha256_init(&s);
        while ((n = fread(million, 1, 1000000, f)) > 0) mpcr_sha256_update(&s, million, n);
        fclose(f);
        mpcr_sha256_final(&s, d);
        hex(d, out);
        printf("%s  %s\n", out, argv[i]);
    }
    free(million);
    if (argc == 1 && !bad)
        printf("PASS (%s)\n", hw_here ? "portable and SHA extensions, which agree" : "portable; no SHA extensions here");
    return bad != 0;
}
