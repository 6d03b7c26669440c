/* Copies of large page ranges that leave untouched pages alone
 * (sparse_copy.c), for the shared buffers (shared_buffers.c): a page the
 * program never touched reads as zeros, and so does a hole of a memfd, so
 * copying one into the other would only give both real memory (a receive
 * buffer fresh from malloc: 2 GiB of page faults to copy zeros). */
#ifndef MPCR_SPARSE_COPY_H
#define MPCR_SPARSE_COPY_H

#include <stddef.h>
#include <stdint.h>

/* Whether this process can tell its untouched pages (/proc/self/pagemap). */
int mpcr_pagemap_readable(void);

/* Copies the whole pages [lo, hi) of the program's private anonymous
 * memory to dst (a fresh memfd mapping: all holes), skipping pages never
 * touched (neither in memory nor swapped out); the caller has made sure
 * that mpcr_pagemap_readable(), or that every page is in memory. */
void mpcr_copy_touched(char *dst, uintptr_t lo, uintptr_t hi);

/* Copies n bytes (whole pages) of a memfd's mapping src to dst, fresh
 * private zero pages, skipping the memfd's holes where the kernel can tell
 * them (no swap configured: mincore then sees every page that holds data);
 * otherwise all of it. */
void mpcr_copy_filled(void *dst, const void *src, size_t n);

#endif
