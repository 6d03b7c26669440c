/* Whose files a restart may take (docs/security.md, "Files the image maps or
 * has open"): one rule, shared by the freestanding restorer (mapped files,
 * before anything changes) and the restarted engine (descriptors it reopens).
 * Header-only and libc-free, as crc32c.h is.
 *
 * A file the restarted process maps or reads must be one that no other user
 * could have made or changed: owned by the user restarting it or by root, and
 * for a regular file, writable by neither its group nor others (a directory
 * or device open as a descriptor holds no code: only its owner is checked).
 * `mpcr restart --trust-files-others-can-change` (MPCR_TRUST_OTHERS_FILES=1
 * for the restorer) accepts such files; the content checks still apply. */
#ifndef MPCR_FILE_TRUST_H
#define MPCR_FILE_TRUST_H

#include <stdint.h>

#define MPCR_ENV_TRUST_OTHERS_FILES "MPCR_TRUST_OTHERS_FILES"
#define MPCR_TRUST_OPTION "--trust-files-others-can-change"

enum mpcr_distrust { MPCR_TRUSTED, MPCR_OTHERS_FILE, MPCR_OTHERS_CAN_WRITE };

static inline enum mpcr_distrust mpcr_file_distrust(uint32_t mode, uint32_t uid, uint32_t euid)
{
    if (uid != euid && uid != 0) return MPCR_OTHERS_FILE;
    if ((mode & 0170000) == 0100000 && (mode & 022)) return MPCR_OTHERS_CAN_WRITE;
    return MPCR_TRUSTED;
}

#endif
