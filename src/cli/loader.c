/* See loader.h. */
#include "loader.h"

#include "ld_cache.h"
#include "path.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The directories glibc's loader (Debian's multiarch build) searches last. */
static const char *const system_dirs[] = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
                                          "/lib", "/usr/lib", NULL};

/* The object's directory, for $ORIGIN: the program's real path (the loader
 * reads /proc/self/exe), a library's path as it was found. */
static void origin_of(const struct load_set *s, int i, char *out, size_t cap)
{
    char real[PATH_MAX];
    const char *p = s->obj[i].path;
    if (s->obj[i].via == VIA_MAIN && realpath(p, real)) p = real;
    snprintf(out, cap, "%s", p);
    char *slash = strrchr(out, '/');
    if (slash)
        *(slash == out ? slash + 1 : slash) = 0;
    else
        snprintf(out, cap, ".");
}

/* One directory of a search list with $ORIGIN, $LIB and $PLATFORM
 * replaced; -ENAMETOOLONG when it does not fit. */
static int expand(const char *dir, size_t len, const char *origin, char *out, size_t cap)
{
    static const struct {
        const char *token, *braced, *value;
    } dst[] = {{"$LIB", "${LIB}", "lib/x86_64-linux-gnu"},
               {"$PLATFORM", "${PLATFORM}", "x86_64"},
               {"$ORIGIN", "${ORIGIN}", NULL}};
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        const char *value = NULL;
        size_t skip = 0;
        for (size_t k = 0; k < sizeof dst / sizeof dst[0] && !value; k++)
            for (const char *t = dst[k].token; t; t = t == dst[k].token ? dst[k].braced : NULL)
                if (!value && !strncmp(dir + i, t, strlen(t)) && strlen(t) <= len - i)
                    value = dst[k].value ? dst[k].value : origin, skip = strlen(t);
        if (!value) value = dir + i, skip = 1;
        size_t vlen = value == dir + i ? 1 : strlen(value);
        if (n + vlen >= cap) return -ENAMETOOLONG;
        memcpy(out + n, value, vlen);
        n += vlen, i += skip;
    }
    out[n] = 0;
    return 0;
}

/* Tries name in dir and its hardware subdirectories, in the loader's order;
 * 0 with the path and the object opened, else -ENOENT. */
static int try_dir(const char *dir, const char *name, struct loaded *o)
{
    const char *subdirs[10];
    int k = 0;
    if (__builtin_cpu_supports("x86-64-v4")) subdirs[k++] = "glibc-hwcaps/x86-64-v4/";
    if (__builtin_cpu_supports("x86-64-v3")) subdirs[k++] = "glibc-hwcaps/x86-64-v3/";
    if (__builtin_cpu_supports("x86-64-v2")) subdirs[k++] = "glibc-hwcaps/x86-64-v2/";
    const char *legacy[] = {"tls/x86_64/x86_64/", "tls/x86_64/", "tls/",
                            "x86_64/x86_64/",     "x86_64/",     ""};
    for (size_t j = 0; j < sizeof legacy / sizeof legacy[0]; j++)
        subdirs[k++] = legacy[j];
    for (int j = 0; j < k; j++) {
        char path[PATH_MAX];
        if (mpcr_path_printf(path, sizeof path, "%s%s%s%s", dir, *dir ? "/" : "", subdirs[j], name))
            continue;
        if (!elf_open(&o->elf, path)) {
            snprintf(o->path, sizeof o->path, "%s", path);
            return 0;
        }
    }
    return -ENOENT;
}

/* Tries name in each directory of a list separated by colons (an empty
 * entry is the current directory), origin for $ORIGIN. */
static int try_list(const char *list, const char *origin, const char *name, struct loaded *o)
{
    for (const char *p = list; p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char dir[PATH_MAX];
        if (!expand(p, len, origin, dir, sizeof dir) && !try_dir(len ? dir : ".", name, o))
            return 0;
        p = end ? end + 1 : NULL;
    }
    return -ENOENT;
}

/* The search list of object i for tag: DT_RPATH is void where the object
 * also has a DT_RUNPATH (the loader ignores it then). */
static const char *search_list(const struct load_set *s, int i, Elf64_Sxword tag)
{
    const struct elf_file *f = &s->obj[i].elf;
    if (!f->map || (tag == DT_RPATH && elf_dyn_string(f, DT_RUNPATH, 0))) return NULL;
    return elf_dyn_string(f, tag, 0);
}

/* Finds name, asked for by object `by`, as the loader would; fills o. */
static void search(struct load_set *s, int by, const char *name, const char *library_path,
                   struct loaded *o)
{
    char origin[PATH_MAX];
    if (strchr(name, '/')) {
        o->via = VIA_PATH;
        if (!elf_open(&o->elf, name))
            snprintf(o->path, sizeof o->path, "%s", name);
        else
            o->via = VIA_NOT_FOUND;
        return;
    }
    if (!search_list(s, by, DT_RUNPATH)) {
        /* the RPATHs up the chain of loaders, which ends at the program */
        for (int l = by; l >= 0; l = s->obj[l].loader) {
            const char *rpath = search_list(s, l, DT_RPATH);
            origin_of(s, l, origin, sizeof origin);
            if (rpath && !try_list(rpath, origin, name, o)) {
                o->via = VIA_RPATH, o->via_object = l;
                return;
            }
        }
    }
    origin_of(s, 0, origin, sizeof origin);
    if (library_path && *library_path && !try_list(library_path, origin, name, o)) {
        o->via = VIA_LIBRARY_PATH;
        return;
    }
    const char *runpath = search_list(s, by, DT_RUNPATH);
    origin_of(s, by, origin, sizeof origin);
    if (runpath && !try_list(runpath, origin, name, o)) {
        o->via = VIA_RUNPATH;
        return;
    }
    char cached[PATH_MAX];
    if (!ld_cache_find(name, cached, sizeof cached) && !elf_open(&o->elf, cached)) {
        snprintf(o->path, sizeof o->path, "%s", cached);
        o->via = VIA_CACHE;
        return;
    }
    for (int i = 0; system_dirs[i]; i++)
        if (!try_dir(system_dirs[i], name, o)) {
            o->via = VIA_SYSTEM;
            return;
        }
    o->via = VIA_NOT_FOUND;
}

const char *loader_soname(const struct loaded *o)
{
    const char *soname = o->elf.map ? elf_dyn_string(&o->elf, DT_SONAME, 0) : NULL;
    const char *slash = strrchr(o->name, '/');
    return soname ? soname : slash ? slash + 1 : o->name;
}

/* 1 when name is already loaded: the name an object was asked by, its
 * path or its soname (glibc: _dl_name_match_p). */
static int already(const struct load_set *s, const char *name)
{
    for (int i = 0; i < s->n; i++) {
        const struct loaded *o = &s->obj[i];
        const char *soname = o->elf.map ? elf_dyn_string(&o->elf, DT_SONAME, 0) : NULL;
        if (!strcmp(o->name, name) || !strcmp(o->path, name) || (soname && !strcmp(soname, name)))
            return 1;
    }
    return 0;
}

static struct loaded *add(struct load_set *s, const char *name, int loader)
{
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 32;
        struct loaded *obj = realloc(s->obj, (size_t)cap * sizeof *obj);
        if (!obj) return NULL;
        s->obj = obj, s->cap = cap;
    }
    struct loaded *o = &s->obj[s->n++];
    memset(o, 0, sizeof *o);
    o->name = name, o->loader = loader;
    return o;
}

/* The preload lists, whitespace or colons between names: LD_PRELOAD, then
 * /etc/ld.so.preload. */
static char *preload_lists(void)
{
    const char *env = getenv("LD_PRELOAD");
    char file[4096] = "";
    FILE *f = fopen("/etc/ld.so.preload", "re");
    if (f) {
        file[fread(file, 1, sizeof file - 1, f)] = 0;
        fclose(f);
    }
    char *all;
    return asprintf(&all, "%s %s", env ? env : "", file) < 0 ? NULL : all;
}

int loader_resolve(struct load_set *s, const char *exe, const char *library_path)
{
    memset(s, 0, sizeof *s);
    struct loaded *o = add(s, exe, -1);
    if (!o) return -ENOMEM;
    int rc = elf_open(&o->elf, exe);
    if (rc) return rc;
    snprintf(o->path, sizeof o->path, "%s", exe);
    o->via = VIA_MAIN;
    const char *interp = o->elf.interp;
    if (!interp) return 0; /* linked statically: it loads nothing */
    if (!(o = add(s, interp, -1))) return -ENOMEM;
    o->via = elf_open(&o->elf, interp) ? VIA_NOT_FOUND : VIA_INTERP;
    snprintf(o->path, sizeof o->path, "%s", interp);
    s->preload = preload_lists();
    for (char *save, *p = s->preload ? strtok_r(s->preload, " \t\n:", &save) : NULL; p;
         p = strtok_r(NULL, " \t\n:", &save)) {
        if (already(s, p)) continue;
        if (!(o = add(s, p, 0))) return -ENOMEM; /* the loader loads them for the program */
        search(s, 0, p, library_path, o);
        if (o->via != VIA_NOT_FOUND) o->via = VIA_PRELOAD;
    }
    for (int i = 0; i < s->n; i++) {
        const char *need;
        for (size_t k = 0;
             s->obj[i].elf.map && (need = elf_dyn_string(&s->obj[i].elf, DT_NEEDED, k)); k++) {
            if (already(s, need)) continue;
            struct loaded tmp = {.name = need, .loader = i};
            search(s, i, need, library_path, &tmp);
            if (!(o = add(s, need, i))) return -ENOMEM;
            *o = tmp;
        }
    }
    return 0;
}

void loader_free(struct load_set *s)
{
    for (int i = 0; i < s->n; i++)
        elf_close(&s->obj[i].elf);
    free(s->obj);
    free(s->preload);
    memset(s, 0, sizeof *s);
}
