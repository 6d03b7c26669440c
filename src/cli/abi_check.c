/* The check `mpcr run` and `mpcr exec` make before a job starts: would the
 * program, started with mpcr's library directory first on its library path
 * (as the proxy starts it), load an MPI that mpcr cannot stand in for?
 * Then it would run as a job of one in every rank and print wrong results,
 * so it is refused, with the library named and what to do
 * (docs/abi-check.md). What the loader would load is found by reading the
 * files (loader.h), never by running the program or ldd on it. A script
 * (#!) is not judged: what it loads is known only once it runs, where the
 * guard of every rank (src/guard) judges it. */
#include "abi_check.h"

#include "cli.h"
#include "loader.h"
#include "mpi_abi.h"
#include "path.h"

#include <errno.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Strings that an MPI implementation linked into a program leaves in its
 * data even when the program is stripped: the prefixes of the environment
 * variables it reads its settings from. */
static const struct {
    const char *text, *mpi;
} markers[] = {{"MPIR_CVAR_", "MPICH"}, {"OMPI_MCA_", "Open MPI"}};

/* Where a rank other than the first, whose launcher says all ranks run on
 * this host, refuses in silence: the first says it for all. */
static int quiet;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    if (quiet) return;
    va_list ap;
    va_start(ap, fmt);
    mpcr_verr(fmt, ap);
    va_end(ap);
}

/* The program as execvp would find it (PATH for a bare name), in out;
 * -ENOENT when there is none (the proxy then says it cannot start it). */
static int find_program(const char *program, char *out, size_t cap)
{
    if (strchr(program, '/')) return snprintf(out, cap, "%s", program) < (int)cap ? 0 : -ENOENT;
    const char *path = getenv("PATH");
    for (const char *p = path ? path : "/usr/local/bin:/usr/bin:/bin"; p;) {
        const char *end = strchr(p, ':');
        int len = end ? (int)(end - p) : (int)strlen(p);
        if (!mpcr_path_printf(out, cap, "%.*s/%s", len, len ? p : ".", program) &&
            !access(out, X_OK))
            return 0;
        p = end ? end + 1 : NULL;
    }
    return -ENOENT;
}

static int defines_any(const struct elf_file *f, const char *const *names, int full_table)
{
    for (; *names; names++)
        if (elf_defines(f, *names, full_table)) return 1;
    return 0;
}

static int imports_any(const struct elf_file *f, const char *const *names)
{
    for (; *names; names++)
        if (elf_imports(f, *names)) return 1;
    return 0;
}

/* Whether mpcr has a library of its own for an ABI named so (the real MPI's
 * library of an ABI mpcr speaks: MPICH's, Open MPI's, the standard's). */
static int speaks(const char *words)
{
    return !strcmp(mpcr_mpi_abi_words("libmpich.so.12"), words) ||
           !strcmp(mpcr_mpi_abi_words("libmpi.so.40"), words) ||
           !strcmp(mpcr_mpi_abi_words("libmpi_abi.so.1"), words);
}

/* Says why object i of s, an MPI that is not mpcr's, would be loaded. */
static void refuse_library(const char *program, const struct load_set *s, int i)
{
    const struct loaded *o = &s->obj[i];
    const char *soname = loader_soname(o), *words = mpcr_mpi_abi_words(soname);
    char through[PATH_MAX + 64] = "";
    if (o->loader > 0)
        snprintf(through, sizeof through, " through %s", loader_soname(&s->obj[o->loader]));
    if (o->via == VIA_PRELOAD) {
        say("LD_PRELOAD (or /etc/ld.so.preload) loads %s (%s) into %s ahead of mpcr's MPI "
            "library, which mpcr cannot stand in for; run it without that preload (docs/abi-check.md)",
            o->path, words, program);
    } else if (o->via == VIA_RPATH && speaks(words)) {
        say("%s would load %s%s (%s): the RPATH of %s (%s) comes before the library path on "
            "which mpcr puts its own %s. Relink it without that -rpath, or with "
            "-Wl,--enable-new-dtags (a RUNPATH, which mpcr's path precedes); docs/abi-check.md",
            program, o->path, through, words, loader_soname(&s->obj[o->via_object]),
            elf_dyn_string(&s->obj[o->via_object].elf, DT_RPATH, 0), soname);
    } else if (o->via == VIA_NOT_FOUND) {
        say("%s links %s%s (%s; not installed here), which mpcr cannot stand in for "
            "yet. " MPCR_ABI_ADVICE,
            program, soname, through, words);
    } else {
        say("%s links %s%s (%s: %s), which mpcr cannot stand in for yet. " MPCR_ABI_ADVICE, program,
            soname, through, words, o->path);
    }
}

/* Says that the program carries an MPI of its own, and what shows it. */
static int own_mpi(const char *program, const char *evidence)
{
    say("%s carries an MPI of its own (%s), which mpcr cannot stand in for: every rank would be "
        "a job of one. Link it with mpicc.mpich or mpicc.openmpi against the shared library (their "
        "default) and run it again (docs/abi-check.md)",
        program, evidence);
    return 1;
}

/* 1 after saying so when the program itself carries an MPI (or stands in
 * for one). */
static int check_program(const char *program, const struct elf_file *f, int passive)
{
    if (defines_any(f, mpcr_mpi_impl_symbols, 1))
        return own_mpi(program, "it defines PMPI_Init: MPI linked statically");
    if (passive) return 0; /* what it defines wraps mpcr's (a profiling layer) */
    if (defines_any(f, mpcr_mpi_init_symbols, 1))
        return own_mpi(program, "it defines MPI_Init and loads no MPI library: MPI linked "
                                "statically, or serial stubs");
    if (imports_any(f, mpcr_mpi_init_symbols)) return 0; /* the loader will fail to start it */
    for (size_t k = 0; k < sizeof markers / sizeof markers[0]; k++)
        if (elf_data_contains(f, markers[k].text)) {
            char evidence[256];
            snprintf(evidence, sizeof evidence,
                     "it loads no MPI library but holds %s's strings, \"%s...\", as MPI linked "
                     "statically and stripped leaves them; if it uses no MPI at all, "
                     "MPCR_ABI_CHECK=off lets it start",
                     markers[k].mpi, markers[k].text);
            return own_mpi(program, evidence);
        }
    return 0;
}

int mpcr_abi_check(const char *program, const char *lib_dir, int silent)
{
    quiet = silent;
    const char *off = getenv("MPCR_ABI_CHECK");
    if (off && !strcmp(off, "off")) return 0;
    char exe[PATH_MAX], *path = NULL;
    if (find_program(program, exe, sizeof exe)) return 0;
    const char *old = getenv("LD_LIBRARY_PATH");
    /* the library path the proxy gives the program (src/proxy/main.c) */
    if (asprintf(&path, "%s%s%s", lib_dir, old && *old ? ":" : "", old ? old : "") < 0) return 0;
    struct load_set s;
    int refused = 0, passive = 0;
    if (!loader_resolve(&s, exe, path)) {
        for (int i = 1; i < s.n && !refused; i++) {
            const struct loaded *o = &s.obj[i];
            if (o->elf.map && elf_defines(&o->elf, MPCR_PASSIVE_MARK, 0)) {
                passive = 1;
            } else if (o->elf.map ? defines_any(&o->elf, mpcr_mpi_impl_symbols, 0)
                                  : strcmp(mpcr_mpi_abi_words(o->name), "an MPI library") &&
                                        !speaks(mpcr_mpi_abi_words(o->name))) {
                refuse_library(program, &s, i);
                refused = 1;
            }
        }
        if (!refused) refused = check_program(program, &s.obj[0].elf, passive);
    }
    loader_free(&s);
    free(path);
    return refused;
}
