#!/usr/bin/env python3
"""Checks that the engine's checkpoint path calls only async-signal-safe
functions.

The checkpoint runs inside the engine's SIGRTMAX handler while the other
threads are frozen wherever they were (maybe inside malloc, stdio or a
locale lookup), so everything the handler can reach must be safe to run
there: system calls, and the functions POSIX lists as async-signal-safe.

How: disassembles a linked shared object (objdump -d) and builds its call
graph by address: every call, jump or address reference from one function
into another is an edge, calls through the PLT or loads from the GOT name
an outside function. From the roots (the signal handler, and the hooks the
handler calls through pointers) it walks the graph and fails on any outside
function not in the list below, printing the chain of calls that reaches
it. Calls through other function pointers are not followed: a function
called that way must be named as a root.

    signal_safe.py SHARED_OBJECT ROOT...
"""
import re
import subprocess
import sys

# POSIX.1-2017 (XSH 2.4.3) async-signal-safe functions, those the engine and
# the library's restart hook use, and the string functions POSIX added to
# the list in 2016.
POSIX_SAFE = """
    _exit accept bind chdir clock_gettime close connect dup dup2 fchmod fcntl fstat fstatat fsync ftruncate
    getegid geteuid getgid getpid getppid getuid kill lseek open openat pause read readlink recv recvfrom recvmsg rename
    send sendmsg sendto setsockopt sigaddset sigdelset sigemptyset sigfillset sigismember socket stat
    umask uname unlink wait waitpid write
    memchr memcmp memcpy memmove memset strchr strcmp strcpy strcspn strlen strncmp strncpy strnlen
    strrchr strspn strstr
""".split()

# Linux system calls that glibc 2.36 wraps as one system call (no lock, no
# allocation, no libc state), and glibc internals of the same kind.
SYSCALL_WRAPPERS = """
    syscall mmap munmap mremap mprotect mincore madvise pread pread64 pwrite pwrite64 dup3
    getrlimit setrlimit prlimit getitimer setitimer sigaltstack prctl arch_prctl sync_file_range
    memfd_create sched_getaffinity sched_setaffinity getdents64 gettid tgkill
    __errno_location __libc_current_sigrtmax __libc_current_sigrtmin
""".split()

# Data, not functions, that the handler path reads (glibc's rseq area).
DATA = "__rseq_offset __rseq_size _GLOBAL_OFFSET_TABLE_".split()

ALLOWED = set(POSIX_SAFE) | set(SYSCALL_WRAPPERS) | set(DATA)
EXEC_SECTIONS = {".text", ".plt", ".plt.got", ".plt.sec", ".init", ".fini"}


def run(*cmd):
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def sections(obj):
    """name -> (start, end) of every section."""
    out = {}
    for line in run("objdump", "-h", obj).splitlines():
        f = line.split()
        if len(f) >= 4 and f[0].isdigit():
            out[f[1]] = (int(f[3], 16), int(f[3], 16) + int(f[2], 16))
    return out


def got_entries(obj):
    """GOT slot address -> (relocation type, symbol or address) from the dynamic relocations."""
    out = {}
    for line in run("objdump", "-R", obj).splitlines():
        f = line.split()
        if len(f) == 3 and f[1].startswith("R_X86_64_"):
            out[int(f[0], 16)] = (f[1], f[2])
    return out


def bare(name):
    """'free@plt', 'free@GLIBC_2.2.5', 'x@Base' -> 'free'; 'f+0x10' -> 'f'."""
    return name.split("+")[0].split("@")[0]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    obj, roots = sys.argv[1], sys.argv[2:]
    sec = sections(obj)
    got = got_entries(obj)
    in_exec = lambda a: any(s <= a < e for n, (s, e) in sec.items() if n in EXEC_SECTIONS)
    in_plt = lambda a: any(s <= a < e for n, (s, e) in sec.items() if n.startswith(".plt"))
    in_got = lambda a: any(s <= a < e for n, (s, e) in sec.items() if n.startswith(".got"))

    funcs = []  # (start, name, section), in address order
    refs = {}   # start -> [(target address, annotation)]
    cur = None
    section = None
    head = re.compile(r"^([0-9a-f]+) <(.+)>:$")
    target = re.compile(r"\b([0-9a-f]+) <([^>]+)>")
    for line in run("objdump", "-d", "--no-show-raw-insn", obj).splitlines():
        if line.startswith("Disassembly of section "):
            section = line.split()[-1].rstrip(":")
            continue
        m = head.match(line)
        if m:
            cur = int(m.group(1), 16)
            funcs.append((cur, m.group(2), section))
            refs[cur] = []
            continue
        if cur is None or not line.startswith(" "):
            continue
        for t in target.finditer(line.split(":", 1)[1] if ":" in line else line):
            refs[cur].append((int(t.group(1), 16), t.group(2)))
    funcs.sort()
    starts = [f[0] for f in funcs]
    by_name = {}
    for start, name, section in funcs:
        if section in (".text",):
            by_name.setdefault(name, []).append(start)

    def containing(addr):
        lo, hi = 0, len(starts)
        while lo < hi:
            mid = (lo + hi) // 2
            if starts[mid] <= addr:
                lo = mid + 1
            else:
                hi = mid
        return starts[lo - 1] if lo else None

    name_of = {f[0]: f[1] for f in funcs}
    queue, parent = [], {}
    for r in roots:
        found = by_name.get(r, [])
        if len(found) != 1:
            sys.exit(f"signal_safe: root {r}: {len(found)} functions of that name in {obj}")
        queue.append(found[0])
        parent[found[0]] = None
    outside = {}  # name -> the function that calls it
    while queue:
        f = queue.pop()
        for addr, note in refs[f]:
            if in_got(addr) and addr in got:  # a pointer the dynamic linker fills in
                kind, value = got[addr]
                if kind == "R_X86_64_RELATIVE":  # to our own code or data
                    addr = int(value.split("+")[-1], 16)
                    note = None
                elif kind not in ("R_X86_64_GLOB_DAT", "R_X86_64_JUMP_SLOT"):
                    continue  # a TLS offset (TPOFF64, DTPMOD64): data of this thread
                else:
                    note = value
            if note is not None and (in_plt(addr) or in_got(addr)):
                name = bare(note)
                if name in by_name:  # our own exported function, called through the PLT
                    nxt = by_name[name][0]
                else:
                    outside.setdefault(name, f)
                    continue
            elif in_exec(addr):
                nxt = containing(addr)
            else:
                continue  # data
            if nxt is not None and nxt not in parent:
                parent[nxt] = f
                queue.append(nxt)

    def chain(f):
        names = []
        while f is not None:
            names.append(name_of[f])
            f = parent[f]
        return " <- ".join(names)

    bad = sorted(n for n in outside if n not in ALLOWED)
    print(f"signal_safe: {len(parent)} functions reachable from {', '.join(roots)} in {obj};"
          f" outside functions used: {' '.join(sorted(outside))}")
    for n in bad:
        print(f"NOT async-signal-safe: {n}, called by {chain(outside[n])}")
    if bad:
        sys.exit(1)
    print("signal_safe: PASS")


main()
