/* The SHA-256 of sha256.h, which vouches for the files an image maps
 * (docs/security.md): FIPS 180-4's test vectors, a buffer hashed whole and in
 * pieces of every small size, and, given files, their digests printed one a
 * line in sha256sum's form for engine.sha256 to compare with sha256sum's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

int main(int argc, char **argv)
{
    int bad = 0;
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
    if (argc == 1 && !bad) printf("PASS\n");
    return bad != 0;
}
