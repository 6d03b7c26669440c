/* The one hash of mpcr: FNV-1a, 32 and 64 bits, for comparing names and
 * folding values into a word. Not a checksum of stored data (that is
 * CRC32C, src/engine/crc32c.h) and no defence against a chosen input.
 * Each call continues the hash h over n more bytes: start from
 * MPCR_HASH32_INIT or MPCR_HASH64_INIT. */
#ifndef MPCR_COMMON_HASH_H
#define MPCR_COMMON_HASH_H

#include <stddef.h>
#include <stdint.h>

#define MPCR_HASH32_INIT 2166136261u
#define MPCR_HASH64_INIT 0xcbf29ce484222325u

uint32_t mpcr_hash32(uint32_t h, const void *p, size_t n);
uint64_t mpcr_hash64(uint64_t h, const void *p, size_t n);

#endif
