/* An ELF file read without running it: what the dynamic loader would read
 * of it (its dependencies, search paths, soname) and what it defines. Used
 * by the check before a job starts (abi_check.c); the file is the user's,
 * so every offset in it is checked before it is followed. */
#ifndef MPCR_CLI_ELF_FILE_H
#define MPCR_CLI_ELF_FILE_H

#include <elf.h>
#include <stddef.h>

struct elf_file {
    const unsigned char *map; /* the whole file, mapped read-only */
    size_t size;
    const Elf64_Ehdr *eh;
    const Elf64_Dyn *dyn; /* the dynamic section (NULL: a static program) */
    size_t ndyn;
    const char *dynstr; /* its string table */
    size_t dynstr_size;
    const char *interp; /* PT_INTERP: the dynamic loader that starts it (NULL: none) */
};

/* Maps path and checks that it is an ELF file of this machine's class and
 * architecture (as the loader does: a file of another kind is skipped).
 * Returns 0, -ENOEXEC for another kind of file, or another -errno. */
int elf_open(struct elf_file *f, const char *path);
void elf_close(struct elf_file *f);

/* The string of the index-th dynamic entry with this tag (DT_NEEDED,
 * DT_RPATH, DT_RUNPATH, DT_SONAME), NULL when there is none. */
const char *elf_dyn_string(const struct elf_file *f, Elf64_Sxword tag, size_t index);

/* 1 when the file defines the symbol (not only refers to it) in its
 * dynamic symbol table, or with full_table also in .symtab (what a program
 * linked statically keeps unless stripped); 0 otherwise. */
int elf_defines(const struct elf_file *f, const char *name, int full_table);

/* 1 when the file refers to the symbol without defining it (it expects a
 * shared library to provide it). */
int elf_imports(const struct elf_file *f, const char *name);

/* 1 when text occurs in the file's read-only or initialised data (a
 * stripped program keeps the strings of what was linked into it). */
int elf_data_contains(const struct elf_file *f, const char *text);

#endif
