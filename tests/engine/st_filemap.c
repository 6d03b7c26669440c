/* Private and shared file mappings: a private mapping keeps its in-memory
 * changes (and the file does not see them), a shared mapping is still the
 * file after the restart (writes through it reach the file). */
#include <fcntl.h>
#include <sys/mman.h>

#include "zdtm.h"

#define LEN (64 * 4096)

int main(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/mapped", getenv("ZDTM_DIR") ? getenv("ZDTM_DIR") : "/tmp");
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    CHECK(fd >= 0, "open");
    char page[4096];
    for (int p = 0; p < LEN / 4096; p++) {
        memset(page, 'a' + p % 26, sizeof page);
        CHECK(write(fd, page, sizeof page) == sizeof page, "write");
    }
    char *priv = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
    char *shared = mmap(NULL, LEN, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    char *ro = mmap(NULL, LEN, PROT_READ, MAP_PRIVATE, fd, 4096);
    CHECK(priv != MAP_FAILED && shared != MAP_FAILED && ro != MAP_FAILED, "mmap");
    close(fd);
    priv[5 * 4096 + 1] = 'X';        /* copied on write */
    memset(priv + 9 * 4096, 0, 4096); /* a copied page that is all zero */
    shared[7 * 4096 + 2] = 'S';      /* in the file */
    volatile char touch = priv[20 * 4096];
    (void)touch;
    zdtm_ready();
    zdtm_wait();

    CHECK(priv[5 * 4096 + 1] == 'X' && priv[5 * 4096] == 'a' + 5, "private change lost");
    CHECK(priv[9 * 4096 + 100] == 0, "private zero page");
    CHECK(priv[7 * 4096 + 2] == 'S', "an uncopied private page shows the file");
    CHECK(priv[33 * 4096] == 'a' + 33 % 26, "unchanged private page");
    CHECK(shared[7 * 4096 + 2] == 'S' && shared[5 * 4096 + 1] == 'f', "shared mapping contents");
    CHECK(ro[0] == 'b', "read-only mapping at offset");
    shared[11 * 4096] = 'W';
    CHECK(msync(shared, LEN, MS_SYNC) == 0, "msync");
    fd = open(path, O_RDONLY);
    char c = 0;
    CHECK(pread(fd, &c, 1, 11 * 4096) == 1 && c == 'W', "a write through the shared mapping did not reach the file");
    CHECK(pread(fd, &c, 1, 5 * 4096 + 1) == 1 && c == 'f', "a private change reached the file");
    close(fd);
    zdtm_pass();
}
