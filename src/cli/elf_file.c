/* See elf_file.h. Symbols are read through the section headers, which every
 * linker writes and `strip` keeps; a file without them (sstrip) defines
 * nothing as far as this reader knows. */
#include "elf_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* [off, off + len) lies in the file. */
static int in_file(const struct elf_file *f, Elf64_Off off, Elf64_Xword len)
{
    return off <= f->size && len <= f->size - off;
}

/* The file offset of virtual address v (len bytes from it), through the
 * loadable segments; 0 when no segment holds it in the file. */
static Elf64_Off offset_of(const struct elf_file *f, Elf64_Addr v, Elf64_Xword len)
{
    const Elf64_Ehdr *eh = f->eh;
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        const Elf64_Phdr *p = (const Elf64_Phdr *)(f->map + eh->e_phoff) + i;
        if (p->p_type == PT_LOAD && v >= p->p_vaddr && v - p->p_vaddr < p->p_filesz &&
            len <= p->p_filesz - (v - p->p_vaddr) &&
            in_file(f, p->p_offset + (v - p->p_vaddr), len))
            return p->p_offset + (v - p->p_vaddr);
    }
    return 0;
}

/* The dynamic section and its string table, from the program headers (what
 * the loader itself reads). */
static void find_dynamic(struct elf_file *f)
{
    const Elf64_Ehdr *eh = f->eh;
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        const Elf64_Phdr *p = (const Elf64_Phdr *)(f->map + eh->e_phoff) + i;
        if (p->p_type == PT_INTERP && p->p_filesz && in_file(f, p->p_offset, p->p_filesz) &&
            memchr(f->map + p->p_offset, 0, p->p_filesz))
            f->interp = (const char *)f->map + p->p_offset;
        if (p->p_type == PT_DYNAMIC && in_file(f, p->p_offset, p->p_filesz)) {
            f->dyn = (const Elf64_Dyn *)(f->map + p->p_offset);
            f->ndyn = p->p_filesz / sizeof *f->dyn;
        }
    }
    Elf64_Addr strtab = 0;
    Elf64_Xword strsz = 0;
    for (size_t i = 0; i < f->ndyn && f->dyn[i].d_tag != DT_NULL; i++) {
        if (f->dyn[i].d_tag == DT_STRTAB) strtab = f->dyn[i].d_un.d_ptr;
        if (f->dyn[i].d_tag == DT_STRSZ) strsz = f->dyn[i].d_un.d_val;
    }
    Elf64_Off off = strsz ? offset_of(f, strtab, strsz) : 0;
    if (off) f->dynstr = (const char *)f->map + off, f->dynstr_size = strsz;
}

int elf_open(struct elf_file *f, const char *path)
{
    memset(f, 0, sizeof *f);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -errno;
    struct stat st;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
        close(fd);
        return -ENOEXEC;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return -ENOEXEC;
    f->map = map, f->size = (size_t)st.st_size, f->eh = map;
    const Elf64_Ehdr *eh = f->eh;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_X86_64 ||
        (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) || eh->e_phentsize != sizeof(Elf64_Phdr) ||
        !in_file(f, eh->e_phoff, (Elf64_Xword)eh->e_phnum * sizeof(Elf64_Phdr))) {
        elf_close(f);
        return -ENOEXEC;
    }
    find_dynamic(f);
    return 0;
}

void elf_close(struct elf_file *f)
{
    if (f->map) munmap((void *)f->map, f->size);
    f->map = NULL;
}

/* The string at offset off of a table of size bytes, NULL unless it ends
 * inside the table. */
static const char *string_at(const char *table, size_t size, size_t off)
{
    if (!table || off >= size || !memchr(table + off, 0, size - off)) return NULL;
    return table + off;
}

const char *elf_dyn_string(const struct elf_file *f, Elf64_Sxword tag, size_t index)
{
    for (size_t i = 0; i < f->ndyn && f->dyn[i].d_tag != DT_NULL; i++)
        if (f->dyn[i].d_tag == tag && !index--)
            return string_at(f->dynstr, f->dynstr_size, f->dyn[i].d_un.d_val);
    return NULL;
}

/* The section header at index i, NULL when the table is missing or odd. */
static const Elf64_Shdr *section(const struct elf_file *f, unsigned i)
{
    const Elf64_Ehdr *eh = f->eh;
    if (eh->e_shentsize != sizeof(Elf64_Shdr) || i >= eh->e_shnum ||
        !in_file(f, eh->e_shoff, (Elf64_Xword)eh->e_shnum * sizeof(Elf64_Shdr)))
        return NULL;
    return (const Elf64_Shdr *)(f->map + eh->e_shoff) + i;
}

/* Looks name up in every symbol table of type `type`: 1 defined there, 0
 * not, and -1 present but undefined (a reference). */
static int lookup(const struct elf_file *f, Elf64_Word type, const char *name)
{
    int found = 0;
    for (unsigned i = 0; section(f, i); i++) {
        const Elf64_Shdr *s = section(f, i), *str = section(f, s->sh_link);
        if (s->sh_type != type || !str || s->sh_entsize != sizeof(Elf64_Sym) ||
            !in_file(f, s->sh_offset, s->sh_size) || !in_file(f, str->sh_offset, str->sh_size))
            continue;
        const Elf64_Sym *sym = (const Elf64_Sym *)(f->map + s->sh_offset);
        const char *strings = (const char *)f->map + str->sh_offset;
        for (size_t k = 0; k < s->sh_size / sizeof *sym; k++) {
            const char *n = string_at(strings, str->sh_size, sym[k].st_name);
            if (!n || strcmp(n, name)) continue;
            if (sym[k].st_shndx != SHN_UNDEF) return 1;
            found = -1;
        }
    }
    return found;
}

int elf_defines(const struct elf_file *f, const char *name, int full_table)
{
    return lookup(f, SHT_DYNSYM, name) == 1 || (full_table && lookup(f, SHT_SYMTAB, name) == 1);
}

int elf_imports(const struct elf_file *f, const char *name)
{
    return lookup(f, SHT_DYNSYM, name) == -1;
}

int elf_data_contains(const struct elf_file *f, const char *text)
{
    for (unsigned i = 0; section(f, i); i++) {
        const Elf64_Shdr *s = section(f, i);
        if (s->sh_type == SHT_PROGBITS && (s->sh_flags & SHF_ALLOC) &&
            !(s->sh_flags & SHF_EXECINSTR) && in_file(f, s->sh_offset, s->sh_size) &&
            memmem(f->map + s->sh_offset, s->sh_size, text, strlen(text)))
            return 1;
    }
    return 0;
}
