/* Test helper: copies an image, changing one header field and fixing the
 * header checksum, to make a foreign-kernel, foreign-CPU or future-version
 * image that is otherwise intact.  img_patch IN OUT kernel|xcr0|version VALUE */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32c.h"
#include "image.h"

int main(int argc, char **argv)
{
    if (argc != 5) return 2;
    int in = open(argv[1], O_RDONLY), out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (in < 0 || out < 0) return 1;
    static char buf[1 << 20];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n) return 1;
    unsigned char block[MPCR_IMG_HEADER_SIZE];
    if (pread(in, block, sizeof block, 0) != (ssize_t)sizeof block) return 1;
    struct mpcr_img_header *h = (struct mpcr_img_header *)block;
    if (!strcmp(argv[3], "kernel")) snprintf(h->kernel, sizeof h->kernel, "%s", argv[4]);
    else if (!strcmp(argv[3], "xcr0")) h->cpu.xcr0 |= strtoull(argv[4], NULL, 0);
    else if (!strcmp(argv[3], "version")) h->version = (uint32_t)atoi(argv[4]);
    else return 2;
    h->header_crc = 0;
    h->header_crc = mpcr_crc32c(0, block, sizeof block);
    if (pwrite(out, block, sizeof block, 0) != (ssize_t)sizeof block) return 1;
    return close(out) ? 1 : 0;
}
