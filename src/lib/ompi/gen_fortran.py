#!/usr/bin/env python3
"""Generates mpcr's Open MPI Fortran library (libmpi_mpifh.so.40: mpif.h and
`use mpi`; Open MPI's own libmpi_usempif08 for `use mpi_f08` calls it too)
from the description of the API (src/lib/api/*.api), the C front end's
slice (openmpi.slice) and fortran_exports.txt:

    gen_fortran.py APIDIR OMPIDIR OUTDIR

Every Fortran entry point converts its arguments (all passed by reference,
handles as MPI_Fint, strings with hidden lengths, Fortran's sentinels) and
calls the C entry point of the same function in mpcr's libmpi.so.40, which
speaks Open MPI's C ABI. A function whose parameters this generator cannot
convert by their kind and C type (callbacks, attribute values) is written by
hand (a `custom` line of fortran_exports.txt, fortran_custom.c) or is a stub
that ends the job naming itself.

writes into OUTDIR:
  fortran_gen.c      the entry points ompi_NAME_f, their eight names (mpi_name_,
                     MPI_NAME, pmpi_name__...) and the stubs
  fortran_names.txt  the functions translated (docs)

docs/abi-openmpi.md, "Fortran", says how the pieces fit together."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'api'))
import gen_api  # noqa: E402  (the parser of the description)
import gen_ompi  # noqa: E402  (the kinds of the C front end)

# The C handle types and the name of their f2c/c2f functions.
HANDLES = {'MPI_Comm': 'Comm', 'MPI_Datatype': 'Type', 'MPI_Group': 'Group', 'MPI_Op': 'Op',
           'MPI_Info': 'Info', 'MPI_Errhandler': 'Errhandler', 'MPI_Request': 'Request',
           'MPI_Message': 'Message', 'MPI_Win': 'Win', 'MPI_File': 'File'}
# Types passed by value in C and by reference in Fortran.
SCALARS = ('int', 'MPI_Aint', 'MPI_Offset', 'MPI_Count', 'double', 'MPI_Fint')
# Pointers and arrays the same in both (MPI_Fint is int; LOGICAL is an int
# that is 1 or 0 with gfortran, as in C).
SAME = tuple(t + s for t in SCALARS for s in (' *', ' []')) + tuple(
    'const ' + t + ' []' for t in SCALARS) + ('const int *', 'void *', 'const void *')


# Indices Fortran counts from 1 (MPI_WAITANY's index, MPI_WAITSOME's
# array of indices, with the parameter that says how many): C's plus one,
# MPI_UNDEFINED as it is.
INDICES = {'MPI_Waitany': ('indx', None), 'MPI_Testany': ('indx', None),
           'MPI_Waitsome': ('array_of_indices', 'outcount'),
           'MPI_Testsome': ('array_of_indices', 'outcount')}


class Unsupported(Exception):
    """A parameter this generator cannot convert."""


def base_type(ctype):
    return ctype.replace('const ', '').replace('[]', '').replace('*', '').strip()


def param(f, p, kind, ctype):
    """(Fortran declarations, lines before the call, the C argument, lines
    after it, hidden string lengths) for one parameter."""
    n, fn = p.name, p.name + '_f'
    arg, _, count = kind.partition('=')
    handle = HANDLES.get(base_type(ctype))
    if handle and arg == 'H' and ctype == base_type(ctype):
        return [f'MPI_Fint *{fn}'], [f'{ctype} {n} = PMPI_{handle}_f2c(*{fn});'], n, [], []
    if handle and arg in ('H_OUT', 'H_INOUT', 'H') and ctype.endswith('*'):
        # an output is read too: a value Fortran left in it converts without harm
        t = base_type(ctype)
        return ([f'MPI_Fint *{fn}'], [f'{t} {n} = PMPI_{handle}_f2c(*{fn});'], f'&{n}',
                [f'*{fn} = PMPI_{handle}_c2f({n});'], [])
    if handle and arg in ('HS', 'HS_IN', 'HS_OUT'):
        t = base_type(ctype)
        pre = [f'int {n}_n = {count};',
               f'{t} {n}_s[MPCR_F_ARRAY], *{n} = mpcr_f_array({fn}, {n}_n, sizeof *{n}, {n}_s);',
               f'for (int i = 0; {n} && i < {n}_n; i++) {n}[i] = PMPI_{handle}_f2c({fn}[i]);']
        post = [] if arg == 'HS_IN' else [
            f'for (int i = 0; {n} && i < {n}_n; i++) {fn}[i] = PMPI_{handle}_c2f({n}[i]);']
        return [f'MPI_Fint *{fn}'], pre, n, post + [f'mpcr_f_free({n}, {n}_s);'], []
    if handle:
        raise Unsupported(f'{n}: handle {ctype} of kind {kind}')
    if arg in ('STATUS_OUT', 'STATUS_IN'):
        post = [f'mpcr_f_status_out({n}, {fn});'] if arg == 'STATUS_OUT' else []
        return ([f'MPI_Fint *{fn}'], [f'MPI_Status {n}_s, *{n} = mpcr_f_status_in({fn}, &{n}_s);'],
                n, post, [])
    if arg == 'STATUSES':
        return ([f'MPI_Fint *{fn}'], [f'int {n}_n = {count};',
                                      f'MPI_Status {n}_s[MPCR_F_ARRAY], *{n} = '
                                      f'mpcr_f_statuses_in({fn}, {n}_n, {n}_s);'],
                n, [f'mpcr_f_statuses_out({n}, {fn}, {n}_n, {n}_s);'], [])
    if arg == 'BUF':
        return [f'{ctype}{fn}' if ctype.endswith('*') else f'{ctype} {fn}'], [], f'mpcr_f_buf({fn})', [], []
    if arg == 'WEIGHTS':
        return [f'MPI_Fint *{fn}'], [], f'mpcr_f_weights({fn})', [], []
    # RANK, VALUE, FLAGS, VALUE_OUT, PLAIN: the C front end converts the value
    if ctype in SCALARS:
        return [f'{ctype} *{fn}'], [f'{ctype} {n} = *{fn};'], n, [], []
    if ctype in SAME:
        t = base_type(ctype)
        return [f'{t} *{fn}' if t != 'void' else f'void *{fn}'], [], f'({ctype.replace("[]", "*")}){fn}', [], []
    if ctype == 'int [][3]':  # INTEGER RANGES(3, N): the same ints in the same order
        return [f'int *{fn}'], [], f'(int (*)[3]){fn}', [], []
    if ctype in ('const char *', 'const char []'):
        return ([f'const char *{fn}'], [f'char *{n} = mpcr_f_string_in({fn}, {fn}_len);'], n,
                [f'free({n});'], [f'size_t {fn}_len'])
    if ctype in ('char *', 'char []'):
        return ([f'char *{fn}'], [f'char *{n} = mpcr_f_string_buffer({fn}, {fn}_len);'], n,
                [f'mpcr_f_string_out({n}, {fn}, {fn}_len);'], [f'size_t {fn}_len'])
    raise Unsupported(f'{n}: {ctype}')


def entry(f, kinds, where):
    """The Fortran entry point of f, or raises Unsupported."""
    decls, pre, late, args, post, lens = [], [], [], [], [], []
    for p in f.params:
        if p.name == '...':
            raise Unsupported('variable arguments')
        try:
            kind = gen_ompi.kind_of(f, p, kinds, where, {})
        except gen_ompi.Unclassified as e:
            raise Unsupported(str(e))
        d, b, a, c, h = param(f, p, kind, gen_api.c_type(p, False))
        decls += d
        # arrays counted by an expression of other parameters come after them
        (late if kind.partition('=')[2] else pre).extend(b)
        args.append(a)
        post = c + post
        lens += h
    if f.name in INDICES:
        index, count = INDICES[f.name]
        ok = 'err == MPI_SUCCESS || err == MPI_ERR_IN_STATUS'
        if count:
            post.insert(0, f'if (({ok}) && *{count}_f != MPI_UNDEFINED) '
                           f'for (int i = 0; i < *{count}_f; i++) {index}_f[i] += 1;')
        else:
            post.insert(0, f'if (({ok}) && *{index}_f != MPI_UNDEFINED) *{index}_f += 1;')
    call = f'P{f.name}({", ".join(args)})'
    name = impl_name(f.name)
    pre += late
    if f.ret == 'int':
        sig = ', '.join(decls + ['MPI_Fint *ierr'] + lens)
        body = pre + [f'int err = {call};'] + post + ['if (ierr) *ierr = err;']
        ret = 'void'
    elif f.ret in ('double', 'MPI_Aint'):
        sig = ', '.join(decls + lens) or 'void'
        body = pre + [f'{f.ret} r = {call};'] + post + ['return r;']
        ret = f.ret
    else:
        raise Unsupported(f'returns {f.ret}')
    text = '\n'.join('    ' + ln for ln in body)
    return f'{ret} {name}({sig});\n{ret} {name}({sig})\n{{\n{text}\n}}\n'


def impl_name(name):
    """ompi_send_f, ompix_..._f: Open MPI's own name of the Fortran entry point."""
    head, rest = name.split('_', 1)
    return f'{head.lower().replace("mpi", "ompi")}_{rest.lower()}_f'


def names(name):
    """The eight names of a Fortran entry point (compilers' conventions, PMPI)."""
    low, up = name.lower(), name.upper()
    return f'MPCR_F_NAMES({impl_name(name)}, {low}, {up}, p{low}, P{up})\n'


HEAD = ('/* Generated by src/lib/ompi/gen_fortran.py from the description (src/lib/api) '
        'and the data of src/lib/ompi: do not edit. */\n')


def plan(apidir, ompidir):
    """[(name, text or None)] for every function of fortran_exports.txt:
    the generated entry point, '' for one written by hand, None for a stub
    (and why: '' when the C library lacks it, ' Fortran' when only the
    Fortran binding does)."""
    funcs = {f.name: f for path in sorted(os.listdir(apidir)) if path.endswith('.api')
             for f in gen_api.parse(f'{apidir}/{path}')}
    sliced = gen_ompi.parse_slice(f'{ompidir}/openmpi.slice')
    out = []
    for ln in open(f'{ompidir}/fortran_exports.txt'):
        words = ln.split('#', 1)[0].split()
        if not words:
            continue
        name = words[-1]
        if words[0] == 'custom':
            out.append((name, '', None))
        elif name.endswith('_cptr'):  # TYPE(C_PTR) by reference: an address, as the plain form's
            out.append((name, f'MPCR_F_CPTR({impl_name(name)}, {impl_name(name[:-5])}, {name.lower()}, '
                              f'{name.upper()}, p{name.lower()}, P{name.upper()})\n\n', None))
        elif name not in sliced or not gen_ompi.described(name, funcs):
            out.append((name, None, ''))
        else:
            try:
                f = gen_ompi.described(name, funcs)
                out.append((name, entry(f, sliced[name][1], sliced[name][2]) + names(name) + '\n', None))
            except Unsupported:
                out.append((name, None, ' Fortran'))
    return out


def translated(apidir, ompidir):
    """(every Fortran function, those translated): docs/mpi-functions.md"""
    p = plan(apidir, ompidir)
    return {n for n, _, _ in p}, {n for n, text, _ in p if text is not None}


def main():
    apidir, ompidir, outdir = sys.argv[1:4]
    p = plan(apidir, ompidir)
    out = [HEAD, '#include <mpi.h>\n#include <mpi-ext.h> /* MPIX_Allreduce_init... */\n#include <stdlib.h>\n\n'
           '#include "ompi/fortran.h"\n\n',
           '#pragma GCC diagnostic ignored "-Wdeprecated-declarations"\n\n']
    out += [text for _, text, _ in p if text]
    out.append('/* Not yet: each ends the job naming itself. */\n')
    for name, text, what in p:
        if text is None:
            out.append(f'void {impl_name(name)}(void);\nvoid {impl_name(name)}(void)\n{{\n'
                       f'    mpcr_f_unsupported("{name}", "{what}");\n}}\n{names(name)}\n')
    done = sorted(n for n, text, _ in p if text is not None)
    files = {'fortran_gen.c': ''.join(out), 'fortran_names.txt': ''.join(n + '\n' for n in done)}
    gen_api.write_changed(outdir, files)


if __name__ == '__main__':
    main()
