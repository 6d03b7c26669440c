#!/usr/bin/env python3
"""Generates mpcr's Open MPI front end (libmpi.so.40, Open MPI 4.1's C ABI)
from the same description of the API as the MPICH-ABI library (the *.api
files of src/lib/api, read by gen_api.py's parser), and from the data of
this directory:

    gen_ompi.py APIDIR OMPIDIR OUTDIR

  openmpi.slice   the functions translated so far, with the kinds of the
                  parameters whose plain C type carries an ABI-dependent value
  exports.txt     every MPI function Open MPI's libmpi.so.40 exports
  predefined.txt  Open MPI's predefined handles: name, type, object, size
  values.txt      constants whose values differ, by group

writes into OUTDIR:
  ompi_mpich.h    the MPICH-ABI entry points (mpcr_mpich_PMPI_NAME) with
                  neutral C types (handles are int), for the front end
  ompi_gen.c      compiled against Open MPI's mpi.h: every translated entry
                  point, its MPI_ alias, the value tables of Open MPI's side
  ompi_stubs.c    compiled without any mpi.h: every other exported function,
                  ending the job with "mpcr: MPI_Xxx is not supported yet for
                  Open MPI-built programs"
  ompi_objects.c  compiled against MPICH's mpi.h: the predefined objects
                  (each holds its MPICH handle) and the value tables of
                  MPICH's side
  ompi_names.txt  the functions translated (tests, docs)

docs/abi-openmpi.md says how the pieces fit together."""

import copy
import os
import shlex
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'api'))
import gen_api  # noqa: E402  (the parser of the description)

HANDLE_TYPES = ('MPI_Comm', 'MPI_Datatype', 'MPI_Group', 'MPI_Op', 'MPI_Info', 'MPI_Errhandler',
                'MPI_Request', 'MPI_Message', 'MPI_Win', 'MPI_File', 'MPI_Session')

# The description's kinds as the front end translates them.
#   H       a handle, in          H_OUT  written by the call   H_INOUT  both
#   HS=N    an array of N handles, read and written back (N: a parameter's name)
#   HS_IN=N read only            HS_OUT=N written only
#   RANK    a rank or MPI_ANY_SOURCE, MPI_PROC_NULL, MPI_ROOT
#   BUF     a buffer or MPI_IN_PLACE
#   STATUS_OUT STATUS_IN STATUSES=N   statuses (Open MPI's layout <-> MPICH's)
#   VALUE=G VALUE_OUT=G   an int of the value group G of values.txt
#   FLAGS=G an int of bits, each a value of group G (a one-sided assert:
#           MPI_MODE_NOCHECK 1 in Open MPI, 1024 in MPICH)   FLAGS_OUT=G  written
#   WEIGHTS an int array or MPI_UNWEIGHTED, MPI_WEIGHTS_EMPTY (Open MPI's are
#           (int *)2 and 3, MPICH's the addresses of its library's data)
#   PLAIN   passed as it is
# N may be any C expression without spaces (mpcr_ompi_peers(comm,1): the
# number of peers a collective's arrays of types have, custom.c).
# An MPI_File is a handle of pointer size on MPICH's side too (its handle
# value, src/lib/io/file.h): passed as void *.
FROM_KIND = {
    'COMM': 'H', 'GROUP': 'H', 'TYPE': 'H', 'RTYPE': 'H', 'OP': 'H', 'INFO': 'H',
    'ERRHANDLER': 'H', 'WIN': 'H', 'FILE': 'H',
    'COMM_OUT': 'H_OUT', 'GROUP_OUT': 'H_OUT', 'TYPE_OUT': 'H_OUT', 'INFO_OUT': 'H_OUT',
    'WIN_OUT': 'H_OUT', 'REQUEST_OUT': 'H_OUT',
    'COMM_INOUT': 'H_INOUT', 'GROUP_INOUT': 'H_INOUT', 'TYPE_INOUT': 'H_INOUT',
    'INFO_INOUT': 'H_INOUT', 'WIN_INOUT': 'H_INOUT', 'REQUEST_INOUT': 'H_INOUT',
    'FILE_INOUT': 'H_INOUT', 'SESSION': 'H', 'SESSION_INOUT': 'H_INOUT',
    'REQUESTS': 'HS', 'STATUSES': 'STATUSES',
    'RANK': 'RANK', 'SOURCE': 'RANK', 'ROOT': 'RANK',
    'BUF': 'BUF', 'BUF_OUT': 'BUF',
    'STATUS_OUT': 'STATUS_OUT', 'STATUS_IN': 'STATUS_IN',
}
PLAIN_KINDS = ('COUNT', 'COUNT_OUT', 'COUNTS', 'DISPLS', 'TAG', 'RECV_TAG', 'COUNT_INOUT', 'AINT',
               'DISP', 'AINT_OUT', 'AINT_INOUT', 'AINTS')
# Plain C types that mean the same in both ABIs.
PLAIN_TYPES = ('int', 'int *', 'const int *', 'int []', 'const int []', 'void *', 'const void *',
               'char *', 'const char *', 'char []', 'const char []', 'char ***', 'double', 'MPI_Aint', 'MPI_Aint *',
               'MPI_Aint []', 'const MPI_Aint []', 'MPI_Count', 'MPI_Count *', 'MPI_Offset',
               'MPI_Offset *', 'MPI_Fint', 'MPI_Fint *', 'const MPI_Fint *', 'void')


def mpich_type(ctype):
    """The C type of the MPICH-ABI side, in neutral terms (ompi_front.h)."""
    if 'function' in ctype:
        return 'void *'
    t = ctype.replace('MPI_Status', 'struct mpich_status').replace('MPI_File', 'void *')
    for h in HANDLE_TYPES:
        t = t.replace(h, 'int')
    return t


def parse_slice(path):
    """{name: (status, {param: kind})}: 'auto' lines are generated, 'custom'
    ones written by hand (src/lib/ompi/*.c)."""
    out = {}
    for n, line in enumerate(open(path), 1):
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        words = shlex.split(line)
        status = 'auto'
        if words[0] == 'custom':
            status, words = 'custom', words[1:]
        kinds = dict(w.split(':', 1) for w in words[1:])
        out[words[0]] = (status, kinds, f'openmpi.slice:{n}')
    return out


def parse_values(path):
    """[(group, [names])]"""
    groups = []
    for line in open(path):
        line = line.split('#', 1)[0].strip()
        if line:
            words = line.split()
            groups.append((words[0], words[1:]))
    return groups


def described(name, by_name):
    """The description's function of a name of Open MPI's, with its target,
    the MPICH library's function the front end calls: its own, or for Open
    MPI's MPIX_ forms of MPI 4.0's persistent collectives (mpi-ext.h's
    MPIX_Allreduce_init...) a copy of MPI_'s under the MPIX_ name."""
    if name in by_name:
        f = by_name[name]
        f.target = name
        return f
    if name.startswith('MPIX_') and 'MPI_' + name[5:] in by_name:
        f = copy.copy(by_name['MPI_' + name[5:]])
        f.name, f.target = name, 'MPI_' + name[5:]
        return f
    return None


class Unclassified(Exception):
    """A parameter whose kind the description and the slice leave open."""


def kind_of(f, p, overrides, where, front_kinds):
    if p.name in overrides:
        return overrides[p.name]
    if p.kind in front_kinds:  # a description kind this front end translates (gen_abi.py)
        return front_kinds[p.kind]
    if p.kind in FROM_KIND:
        k = FROM_KIND[p.kind]
        if k in ('HS', 'STATUSES'):  # counted by the function's first count
            n = next(q.name for q in f.params if q.kind == 'COUNT')
            return f'{k}={n}'
        return k
    if p.kind in PLAIN_KINDS or p.kind in PLAIN_TYPES:
        return 'PLAIN'
    if p.kind in HANDLE_TYPES:
        return 'H'
    raise Unclassified(f'{where}: {f.name}: parameter {p.name} ({p.kind}) needs a kind in openmpi.slice')


def translate(f, overrides, where, front_kinds=None, large=False):
    """The body of a translated entry point (large: its _c form)."""
    pre, args, post = [], [], []
    for p in f.params:
        k, n = kind_of(f, p, overrides, where, front_kinds or {}), p.name
        ctype = gen_api.c_type(p, large)
        arg, _, param = k.partition('=')
        if arg == 'PLAIN':
            args.append(n)
        elif arg == 'H' and 'MPI_File' in ctype:
            args.append(f'F({n})')
        elif arg == 'H':
            args.append(f'H({n})')
        elif arg in ('H_OUT', 'H_INOUT') and 'MPI_File' in ctype:
            pre.append(f'void *{n}_m = {n} ? F(*{n}) : NULL;' if arg == 'H_INOUT' else f'void *{n}_m = NULL;')
            args.append(f'{n} ? &{n}_m : NULL')
            done = '' if arg == 'H_INOUT' else ' && !err'
            post.append(f'if ({n}{done}) *{n} = (MPI_File)P((int)(uintptr_t){n}_m);')
        elif arg in ('H_OUT', 'H_INOUT'):  # an output is written when MPICH wrote one
            # (no MPICH handle is 0; a failed MPI_Comm_dup writes MPI_COMM_NULL)
            pre.append(f'int {n}_m = {n} ? H(*{n}) : 0;' if arg == 'H_INOUT' else f'int {n}_m = 0;')
            args.append(f'{n} ? &{n}_m : NULL')
            done = '' if arg == 'H_INOUT' else f' && {n}_m'
            t = ctype.rstrip(' *')
            post.append(f'if ({n}{done}) *{n} = ({t})mpcr_ompi_pointer_of(MPCR_OMPI_KIND_{t[4:].upper()}, {n}_m);')
        elif arg in ('HS', 'HS_IN', 'HS_OUT'):
            pre.append(f'int {n}_s[MPCR_OMPI_ARRAY], *{n}_m = mpcr_ompi_handles_in({n}_s, '
                       f'(void *const *){n}, {param}, {int(arg != "HS_OUT")});')
            args.append(f'{n}_m')
            if arg != 'HS_IN':
                post.append(f'mpcr_ompi_handles_out({n}_s, (void **){n}, {n}_m, {param});')
            else:
                post.append(f'mpcr_ompi_array_free({n}_s, {n}_m);')
        elif arg == 'RANK':
            args.append(f'mpcr_ompi_value_in(MPCR_OMPI_rank, {n})')
        elif arg == 'BUF':
            args.append(f'mpcr_ompi_buf({n})')
        elif arg == 'WEIGHTS':
            args.append(f'mpcr_ompi_weights({n})')
        elif arg == 'VALUE':
            args.append(f'mpcr_ompi_value_in(MPCR_OMPI_{param}, {n})')
        elif arg == 'FLAGS':
            args.append(f'mpcr_ompi_flags_in(MPCR_OMPI_{param}, {n})')
        elif arg == 'FLAGS_OUT':
            args.append(n)
            post.append(f'if ({n} && !err) *{n} = mpcr_ompi_flags_out(MPCR_OMPI_{param}, *{n});')
        elif arg == 'VALUE_OUT':
            args.append(n)
            post.append(f'if ({n} && !err) *{n} = mpcr_ompi_value_out(MPCR_OMPI_{param}, *{n});')
        elif arg in ('STATUS_OUT', 'STATUS_IN'):  # converted in: what the call leaves is kept
            pre.append(f'struct mpich_status {n}_m;')
            pre.append(f'if ({n}) mpcr_ompi_status_in({n}, &{n}_m);')
            args.append(f'{n} ? &{n}_m : MPICH_STATUS_IGNORE')
            if arg == 'STATUS_OUT':
                post.append(f'if ({n}) mpcr_ompi_status_out(&{n}_m, {n});')
        elif arg == 'STATUSES':
            pre.append(f'struct mpich_status {n}_s[MPCR_OMPI_ARRAY], *{n}_m = '
                       f'mpcr_ompi_statuses_in({n}_s, {n}, {param});')
            args.append(f'{n}_m')
            post.append(f'mpcr_ompi_statuses_out({n}_s, {n}_m, {n}, {param});')
        else:
            sys.exit(f'{where}: {f.name}: unknown kind {k} of {n}')
    suffix = '_c' if large else ''
    call = f'mpcr_mpich_P{f.target}{suffix}({", ".join(args)})'
    lines = ['MPCR_PROF_SITE(); /* the profile names the program\'s call, not this one */'] + pre
    if f.ret == 'int':
        lines.append(f'int err = {call};')
        lines += post
        # MPI_SUCCESS is 0 in both: no look-up on the way out of a call that succeeded
        lines.append('return err ? mpcr_ompi_value_out(MPCR_OMPI_errclass, err) : MPI_SUCCESS;')
    elif f.ret in HANDLE_TYPES:
        lines.append(f'return ({f.ret})mpcr_ompi_pointer_of(MPCR_OMPI_KIND_{f.ret[4:].upper()}, {call});')
    else:
        lines.append(f'{f.ret} r = {call};')
        lines.append('return r;')
    body = '\n'.join('    ' + ln for ln in lines)
    return f'{gen_api.signature(f, f.name + suffix, large, "P")}\n{{\n{body}\n}}\n'


HEAD = ('/* Generated by src/lib/ompi/gen_ompi.py from the description (src/lib/api) '
        'and the data of src/lib/ompi: do not edit. */\n')


def gen_mpich_header(funcs, sliced, large=()):
    """large: the functions whose _c forms are called too."""
    out = [HEAD, '#ifndef MPCR_OMPI_MPICH_H\n#define MPCR_OMPI_MPICH_H\n\n',
           '#include "ompi/ompi_front.h"\n\n']
    for f in funcs:  # those the front end calls
        if f.name not in sliced:
            continue
        for lg in (False, True) if f.name in large else (False,):
            args = ', '.join(mpich_type(gen_api.c_type(p, lg)) for p in f.params) or 'void'
            out.append(f'{mpich_type(f.ret)} mpcr_mpich_P{f.name}{"_c" if lg else ""}({args});\n')
    out.append('\n#endif\n')
    return ''.join(out)


def group_tables(groups, prefix, table):
    """One side's value groups: each group's values, compiled against that
    side's mpi.h, and the table of groups."""
    out = [f'const int {prefix}{g}[] = {{{", ".join(names)}}};\n' for g, names in groups]
    out.append(f'const struct mpcr_ompi_group {table}[] = {{\n')
    out += [f'    {{{prefix}{g}, {len(names)}}},\n' for g, names in groups]
    return ''.join(out) + '};\n'


def gen_entries(funcs, sliced, groups):
    out = [HEAD, '#include <mpi.h>\n#include <mpi-ext.h> /* MPIX_Allreduce_init... */\n\n'
           '#include "ompi/ompi_front.h"\n#include "ompi_mpich.h"\n'
           '#include "runtime/profile.h"\n\n',
           '/* MPI-1 functions the standard deprecated or removed are in the ABI still */\n',
           '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n\n',
           '#define H(x) mpcr_ompi_handle((const void *)(x))\n',
           '#define P(h) mpcr_ompi_pointer(h)\n',
           '#define F(x) ((void *)(uintptr_t)(uint32_t)H(x)) /* MPICH\'s MPI_File */\n\n']
    # Open MPI's side of each value group (the MPICH side is in ompi_objects.c).
    out.append(group_tables(groups, 'mpcr_ompi_values_', 'mpcr_ompi_ompi_groups') + '\n')
    for f in funcs:
        status, kinds, where = sliced[f.name]
        if status != 'auto':
            continue
        out.append(translate(f, kinds, where))
        out.append(gen_api.alias(f.name).split('\n', 1)[1] + '\n')
    return ''.join(out)


def gen_stubs(names):
    out = [HEAD, '/* No mpi.h here: a stub never reads its arguments, and returns never. */\n',
           '_Noreturn void mpcr_ompi_unsupported(const char *name);\n\n']
    for n in names:
        out.append(f'void P{n}(void);\nvoid P{n}(void)\n{{\n    mpcr_ompi_unsupported("{n}");\n}}\n')
        out.append(f'extern __typeof__(P{n}) {n} __attribute__((weak, alias("P{n}")));\n\n')
    return ''.join(out)


def gen_objects(predefined, groups):
    out = [HEAD, '#include <mpi.h>\n\n#include "ompi/ompi_front.h"\n\n',
           '/* Each predefined object of Open MPI\'s ABI holds the MPICH handle it stands for;\n'
           ' * its size is the real library\'s (programs\' copy relocations copy that much). */\n']
    table, seen, fortran = [], set(), {}
    for name, ctype, sym, size, fint in predefined:
        fortran.setdefault(ctype, {})[int(fint)] = sym
        if sym in seen:  # a second name of the same object (MPI_LONG_LONG)
            continue
        seen.add(sym)
        null = {'MPI_Datatype': 'MPI_DATATYPE_NULL', 'MPI_Comm': 'MPI_COMM_NULL',
                'MPI_Group': 'MPI_GROUP_NULL', 'MPI_Op': 'MPI_OP_NULL',
                'MPI_Errhandler': 'MPI_ERRHANDLER_NULL', 'MPI_Info': 'MPI_INFO_NULL',
                'MPI_Request': 'MPI_REQUEST_NULL', 'MPI_Message': 'MPI_MESSAGE_NULL',
                'MPI_Win': 'MPI_WIN_NULL', 'MPI_File': '0'}[ctype]
        value = f'(int)(intptr_t){name}' if ctype != 'MPI_File' else '0'
        out.append(f'#ifdef {name}\n#define V_{sym} {value}\n#define E_{sym} 1\n#else\n'
                   f'#define V_{sym} (int)(intptr_t){null} /* none in MPICH */\n#define E_{sym} 0\n#endif\n')
        out.append(f'struct {{ int mpich, fortran; char rest[{int(size) - 8}]; }} {sym} '
                   f'__attribute__((aligned(32))) = {{V_{sym}, {fint}, {{0}}}};\n')
        table.append(f'    {{V_{sym}, E_{sym}, &{sym}, MPCR_OMPI_KIND_{ctype[4:].upper()}}},\n')
    out.append('\nconst struct mpcr_ompi_predefined mpcr_ompi_predefined[] = {\n')
    out += table
    out.append('};\nconst int mpcr_ompi_npredefined = sizeof mpcr_ompi_predefined / '
               'sizeof mpcr_ompi_predefined[0];\n\n')
    out.append(group_tables(groups, 'mpcr_ompi_mpich_values_', 'mpcr_ompi_mpich_groups'))
    # Fortran's predefined handles, by kind: the object of each value (MPI_Xxx_f2c)
    out.append('\nconst struct mpcr_ompi_fortran mpcr_ompi_fortran[] = {\n')
    for ctype in HANDLE_TYPES:
        objs = fortran.get(ctype, {})
        entries = ', '.join(f'[{v}] = &{sym}' for v, sym in sorted(objs.items()))
        out.append(f'    {{(void *const[]){{{entries or "0"}}}, {max(objs, default=-1) + 1}}}, /* {ctype} */\n')
    out.append('};\n')
    return ''.join(out)


def gen_group_enum(groups):
    return (HEAD + '#ifndef MPCR_OMPI_GROUPS_H\n#define MPCR_OMPI_GROUPS_H\n\nenum mpcr_ompi_group_id {\n' +
            ''.join(f'    MPCR_OMPI_{g},\n' for g, _ in groups) + '};\n' +
            '/* the kinds of handles, in the order of mpcr_ompi_fortran[] */\nenum mpcr_ompi_kind {\n' +
            ''.join(f'    MPCR_OMPI_KIND_{t[4:].upper()},\n' for t in HANDLE_TYPES) + '};\n' +
            ''.join(f'extern const int mpcr_ompi_values_{g}[];\n' for g, _ in groups) +
            '\n#endif\n')


def main():
    apidir, ompidir, outdir = sys.argv[1:4]
    funcs = sorted((f for path in sorted(os.listdir(apidir)) if path.endswith('.api')
                    for f in gen_api.parse(f'{apidir}/{path}')), key=lambda f: f.name)
    by_name = {f.name: f for f in funcs}
    exported = [ln.strip() for ln in open(f'{ompidir}/exports.txt')
                if ln.strip() and not ln.startswith('#')]
    sliced = parse_slice(f'{ompidir}/openmpi.slice')
    for n, (_, _, where) in sliced.items():
        if n not in exported:
            sys.exit(f'{where}: {n} is not a function of Open MPI\'s libmpi.so.40')
    auto = [described(n, by_name) or sys.exit(f'{w}: {n} is not in the description (src/lib/api)')
            for n, (s, _, w) in sliced.items() if s == 'auto']
    groups = parse_values(f'{ompidir}/values.txt')
    predefined = [ln.split() for ln in open(f'{ompidir}/predefined.txt')
                  if ln.strip() and not ln.startswith('#')]
    files = {
        'ompi_mpich.h': gen_mpich_header(funcs, set(sliced) | {f.target for f in auto}),
        'ompi_groups.h': gen_group_enum(groups),
        'ompi_gen.c': gen_entries(sorted(auto, key=lambda f: f.name), sliced, groups),
        'ompi_stubs.c': gen_stubs([n for n in exported if n not in sliced]),
        'ompi_objects.c': gen_objects(predefined, groups),
        'ompi_names.txt': ''.join(n + '\n' for n in sorted(sliced)),
    }
    gen_api.write_changed(outdir, files)


if __name__ == '__main__':
    try:
        main()
    except Unclassified as e:
        sys.exit(str(e))
