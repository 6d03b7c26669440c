/* A thread blocked in read(0) at the checkpoint: after the restart the read
 * is re-issued (SA_RESTART, from the saved registers) on the restart
 * command's stdin, and what the driver (stdin.sh) writes there arrives;
 * stdout is the restart command's too. */
#include "zdtm.h"

int main(void)
{
    char buf[64] = {0};
    zdtm_ready();
    ssize_t n = read(0, buf, sizeof buf - 1); /* blocks: the first stdin never delivers anything */
    CHECK(n == 6 && !strcmp(buf, "hello\n"), "read %zd bytes: '%s'", n, buf);
    zdtm_pass();
}
