/* The shared objects a program would load, found by glibc's rules without
 * running it: the executable, LD_PRELOAD and /etc/ld.so.preload, then every
 * DT_NEEDED breadth first, a name already loaded (by its soname or the name
 * it was asked by) not loaded again. A name is searched in the RPATHs of
 * the object that needs it and of the objects that loaded that one, up to
 * the executable (unless the object has a RUNPATH), then LD_LIBRARY_PATH,
 * then the object's RUNPATH, /etc/ld.so.cache, and the system's
 * directories; in each directory its glibc-hwcaps and legacy subdirectories
 * first; a file of another architecture is passed over. (glibc 2.36,
 * elf/dl-load.c: _dl_map_object; checked with LD_DEBUG=libs.) */
#ifndef MPCR_CLI_LOADER_H
#define MPCR_CLI_LOADER_H

#include <limits.h>

#include "elf_file.h"

/* How an object was found. */
enum loader_via {
    VIA_MAIN,         /* the program itself */
    VIA_INTERP,       /* its dynamic loader (PT_INTERP), there before any library */
    VIA_PRELOAD,      /* LD_PRELOAD or /etc/ld.so.preload */
    VIA_PATH,         /* a name with a slash in it */
    VIA_RPATH,        /* the DT_RPATH of object via_object */
    VIA_LIBRARY_PATH, /* LD_LIBRARY_PATH */
    VIA_RUNPATH,      /* the DT_RUNPATH of the object that needs it */
    VIA_CACHE,        /* /etc/ld.so.cache */
    VIA_SYSTEM,       /* the system's directories */
    VIA_NOT_FOUND     /* the loader would fail: nothing to read */
};

struct loaded {
    char path[PATH_MAX]; /* where it was found ("" when not found) */
    const char *name;    /* as it was asked for (DT_NEEDED, LD_PRELOAD), or the program's path */
    int loader; /* the object whose DT_NEEDED named it (0 for a preload); -1: the program */
    enum loader_via via;
    int via_object;      /* VIA_RPATH: whose RPATH */
    struct elf_file elf; /* elf.map NULL when not found */
};

struct load_set {
    struct loaded *obj; /* obj[0] is the program */
    int n, cap;
    char *preload; /* a copy of the preload lists, which names point into */
};

/* Finds what the program at exe would load with this LD_LIBRARY_PATH
 * (library_path, may be NULL) and the environment's LD_PRELOAD. Returns 0,
 * -ENOEXEC when exe is not an ELF program of this machine (a script), or
 * another -errno. */
int loader_resolve(struct load_set *s, const char *exe, const char *library_path);
void loader_free(struct load_set *s);

/* The object's soname, or the last part of its path, for messages. */
const char *loader_soname(const struct loaded *o);

#endif
