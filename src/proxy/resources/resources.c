/* The table of the proxy's resource kinds (resource.h) and the loops over it.
 * The order matters and is the same for every loop:
 *   - windows first: their load only records what the program will hand
 *     over (each window's memory, attached again at resume); memory of
 *     dynamic windows before the windows, whose resume ends in a barrier
 *     of the proxies (everything attached everywhere);
 *   - load: files first: they name nothing the proxy rebuilds (each is
 *     opened on MPI_COMM_SELF), and loading the communicators after them is
 *     collective over the job, so every rank's files are open again, and
 *     cut back to their size at the checkpoint, before any program goes on;
 *   - load: communicators first (every other kind names them), requests after
 *     the duplicates (a pending MPI_Comm_idup completes a request);
 *   - settle: duplicates before blocking creations (settling a duplicate may
 *     begin a creation whose members have all entered, which the creations'
 *     settling then finishes), requests after both. */
#include "resource.h"

const struct proxy_resource *const proxy_resources[] = {
    &resource_win_attached, &resource_windows, &resource_files, &resource_comms, &resource_idups, &resource_creations, &resource_requests, &resource_drained,
};
const size_t proxy_resource_count = sizeof proxy_resources / sizeof proxy_resources[0];

#define EACH(op)                                   \
    for (size_t i = 0; i < proxy_resource_count; i++) \
        if (proxy_resources[i]->op) proxy_resources[i]->op()

void resources_poll(void)
{
    EACH(poll);
}
void resources_drain(void)
{
    EACH(drain);
}
void resources_report_waiting(void)
{
    EACH(report_waiting);
}
void resources_settle(void)
{
    EACH(settle);
}
void resources_resume(void)
{
    EACH(resume);
}
