/* Test helper: copies an image, changing one header field and fixing the
 * header checksum, to make a foreign-kernel, foreign-CPU or future-version
 * image that is otherwise intact.  img_patch IN OUT kernel|xcr0|version VALUE
 * Also hostile images whose checksums are all right (a checksum guards
 * against damage, not against a crafted file):
 *   img_patch IN OUT vdso ADDRESS             where [vdso] is to be moved
 *   img_patch IN OUT region-data OFFSET LENGTH  the first region with data
 *   img_patch IN OUT strings OFFSET LENGTH    the string table's place */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crc32c.h"
#include "image.h"

/* Sets the first region with data to data_off = off, data_len = len, and
 * the regions table's checksum to match. */
static int patch_region(int fd, struct mpcr_img_header *h, uint64_t off, uint64_t len)
{
    struct mpcr_img_table *t = &h->table[MPCR_T_REGIONS];
    struct mpcr_img_region *r = malloc(t->len);
    if (!r || pread(fd, r, t->len, (off_t)t->off) != (ssize_t)t->len) return 1;
    uint32_t i = 0;
    while (i < t->count && !r[i].data_len) i++;
    if (i == t->count) return 1;
    r[i].data_off = off, r[i].data_len = len;
    t->crc = mpcr_crc32c(0, r, t->len);
    return pwrite(fd, r, t->len, (off_t)t->off) != (ssize_t)t->len;
}

int main(int argc, char **argv)
{
    if (argc < 5) return 2;
    int two = !strcmp(argv[3], "region-data") || !strcmp(argv[3], "strings"); /* fields that take two values */
    if (argc != 5 + two) return 2;
    int in = open(argv[1], O_RDONLY), out = open(argv[2], O_RDWR | O_CREAT | O_TRUNC, 0600);
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
    else if (!strcmp(argv[3], "vdso")) h->vdso.vdso = strtoull(argv[4], NULL, 0);
    else if (!strcmp(argv[3], "strings")) {
        h->table[MPCR_T_STRINGS].off = strtoull(argv[4], NULL, 0);
        h->table[MPCR_T_STRINGS].len = strtoull(argv[5], NULL, 0);
    } else if (!strcmp(argv[3], "region-data")) {
        if (patch_region(out, h, strtoull(argv[4], NULL, 0), strtoull(argv[5], NULL, 0))) return 1;
    } else return 2;
    h->header_crc = 0;
    h->header_crc = mpcr_crc32c(0, block, sizeof block);
    if (pwrite(out, block, sizeof block, 0) != (ssize_t)sizeof block) return 1;
    return close(out) ? 1 : 0;
}
