/* Incremental images on the coordinator's side (docs/incremental.md):
 * mpcr_image_chain reads an image header's chain (and refuses a damaged
 * header or a chain longer than MPCR_MAX_CHAIN); mpcr_gen_prune with --keep
 * 1 keeps the newest complete generation and every generation its images
 * refer to, and removes the rest (old complete ones, a failed attempt). */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "binding.h"
#include "coord.h"
#include "crc32c.h"
#include "image.h"
#include "unit.h"

static char dir[] = "/tmp/mpcr-unit-chain.XXXXXX";

/* gen-G/rank-0.img: a header (and footer) only, with the chain given, and
 * gen-G/manifest when complete (the pruning reads only that it exists). */
static void make_gen(unsigned gen, int complete, uint32_t n, const uint64_t *chain)
{
    char path[512];
    snprintf(path, sizeof path, "%s/gen-%u", dir, gen);
    ASSERT_EQ(mkdir(path, 0700), 0);
    static unsigned char block[MPCR_IMG_HEADER_SIZE + sizeof(struct mpcr_img_footer)];
    memset(block, 0, sizeof block);
    struct mpcr_img_header *h = (struct mpcr_img_header *)block;
    memcpy(h->magic, MPCR_IMG_MAGIC, 8);
    h->version = MPCR_IMG_VERSION;
    h->generation = gen;
    h->job_id = 0x1234;
    h->total_len = sizeof block;
    h->chain_len = n;
    for (uint32_t i = 0; i < n && i < MPCR_MAX_CHAIN; i++) h->chain[i] = chain[i];
    h->header_crc = mpcr_crc32c(0, block, MPCR_IMG_HEADER_SIZE);
    struct mpcr_img_footer *f = (struct mpcr_img_footer *)(block + MPCR_IMG_HEADER_SIZE);
    memcpy(f->magic, MPCR_IMG_FOOTER_MAGIC, 8);
    f->total_len = sizeof block;
    snprintf(path, sizeof path, "%s/gen-%u/rank-0.img", dir, gen);
    FILE *out = fopen(path, "w");
    ASSERT_TRUE(out && fwrite(block, sizeof block, 1, out) == 1);
    fclose(out);
    if (!complete) return;
    snprintf(path, sizeof path, "%s/gen-%u/manifest", dir, gen);
    out = fopen(path, "w");
    ASSERT_TRUE(out != NULL);
    fclose(out);
}

static int exists(unsigned gen)
{
    char path[512];
    snprintf(path, sizeof path, "%s/gen-%u", dir, gen);
    return access(path, F_OK) == 0;
}

int main(void)
{
    mpcr_crc32c_init();
    ASSERT_TRUE(mkdtemp(dir) != NULL);
    const uint64_t c3[] = {3}, c34[] = {3, 4}, c345[] = {3, 4, 5};
    make_gen(1, 1, 0, NULL);
    make_gen(2, 1, 0, NULL);
    make_gen(3, 1, 0, NULL);    /* a chain's full image */
    make_gen(4, 1, 1, c3);
    make_gen(5, 0, 2, c34);     /* a failed attempt */
    make_gen(6, 1, 2, c34);
    make_gen(7, 0, 3, c345);    /* being written: newer than the newest complete one */

    uint64_t chain[MPCR_MAX_CHAIN];
    uint32_t n = 99;
    char why[MPCR_WHY_MAX], path[512];
    snprintf(path, sizeof path, "%s/gen-6/rank-0.img", dir);
    ASSERT_EQ(mpcr_image_chain(path, chain, &n, why, sizeof why), 0);
    ASSERT_EQ(n, 2);
    ASSERT_EQ(chain[0], 3);
    ASSERT_EQ(chain[1], 4);

    mpcr_gen_prune(dir, 1);
    ASSERT_TRUE(!exists(1) && !exists(2)); /* complete, beyond --keep 1, needed by none */
    ASSERT_TRUE(exists(3) && exists(4));   /* gen-6 refers to them */
    ASSERT_TRUE(!exists(5));               /* a failed attempt */
    ASSERT_TRUE(exists(6) && exists(7));   /* the newest complete one; one still being written */

    /* a damaged header, and a chain longer than the format allows (checksum right) */
    FILE *f = fopen(path, "r+");
    ASSERT_TRUE(f && fseek(f, 100, SEEK_SET) == 0 && fputc(0x55, f) != EOF);
    fclose(f);
    ASSERT_EQ(mpcr_image_chain(path, chain, &n, why, sizeof why), -1);
    ASSERT_TRUE(strstr(why, "damaged") != NULL);
    uint64_t long_chain[MPCR_MAX_CHAIN + 1] = {0};
    make_gen(8, 1, MPCR_MAX_CHAIN + 1, long_chain);
    snprintf(path, sizeof path, "%s/gen-8/rank-0.img", dir);
    ASSERT_EQ(mpcr_image_chain(path, chain, &n, why, sizeof why), -1);
    ASSERT_TRUE(strstr(why, "earlier generations") != NULL);

    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ASSERT_EQ(system(cmd), 0);
    printf("unit.chain: PASS\n");
    return 0;
}
