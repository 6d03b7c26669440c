#!/usr/bin/env python3
"""Generates mpcr's front end for the MPI 5.0 standard ABI (libmpi_abi.so.1
and the mpi.h programs are built against) from the description of the API
(src/lib/api) and the data of this directory, with the translation of the
Open MPI front end (src/lib/ompi/gen_ompi.py), whose kinds it shares:

    gen_abi.py APIDIR OMPIDIR ABIDIR OUTDIR HEADER

  constants.txt   the standard's constants and their values
  mpi_types.h     the standard's types, written by hand
  functions.txt   every function of the ABI
  abi.slice       what translates differently from openmpi.slice
  values.txt      the constants whose values differ from MPICH's, by group

writes HEADER, mpcr's mpi.h of the standard ABI (mpicc_abi's), and into OUTDIR:
  ompi_mpich.h, ompi_groups.h   as gen_ompi.py's, for this front end
  abi_gen.c       every translated entry point (compiled against include/mpi.h)
  abi_stubs.c     every other function of functions.txt
  abi_objects.c   compiled against MPICH's mpi.h: each predefined handle's
                  MPICH handle, MPICH's side of the value groups
  abi_names.txt   the functions translated (tests, docs)

docs/abi-standard.md says how the pieces fit together."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'api'))
sys.path.insert(0, os.path.join(HERE, '..', 'ompi'))
import gen_api  # noqa: E402
import gen_ompi  # noqa: E402

HEAD = gen_ompi.HEAD.replace('src/lib/ompi/gen_ompi.py', 'src/lib/abi/gen_abi.py')
# Kinds of the description whose values differ in this ABI only.
FRONT_KINDS = {'RECV_TAG': 'VALUE=tag'}
# Predefined handles' values are below this; no MPICH handle is.
PREDEFINED_LIMIT = 0x400  # MPCR_ABI_PREDEFINED_LIMIT (abi_front.h)


def read_lines(path):
    """The words of each line of a data file, comments left out."""
    for line in open(path):
        line = line.split('#', 1)[0].strip()
        if line:
            yield line.split()


def parse_slice(path):
    """({name: kinds}, customs, skipped, legacy)"""
    kinds, custom, skip, legacy = {}, set(), set(), []
    for words in read_lines(path):
        if words[0] == 'custom':
            custom.add(words[1])
        elif words[0] == 'skip':
            skip.add(words[1])
        elif words[0] == 'legacy':
            legacy.append(words[1])
        else:
            kinds[words[0]] = dict(w.split(':', 1) for w in words[1:])
    return kinds, custom, skip, legacy


def gen_header(constants, types_text, funcs, large):
    handle_types = sorted({c[1] for c in constants if c[0] == 'handle'})
    out = [HEAD, '/* mpcr\'s mpi.h for the MPI 5.0 standard ABI (libmpi_abi.so.1). */\n',
           '#ifndef MPI_H_ABI\n#define MPI_H_ABI\n\n#include <stdint.h>\n\n',
           '#if defined(__cplusplus)\nextern "C" {\n#endif\n\n']
    # the structures' names are the standard's: C++ mangles them into names of functions
    out += [f'typedef struct MPI_ABI_{t[4:]} *{t};\n' for t in handle_types]
    out.append('\n' + types_text + '\n')
    enums = []
    for c in constants:
        if c[0] == 'define':
            out.append(f'#define {c[1]} {c[2]}\n')
        elif c[0] in ('handle', 'cast'):
            out.append(f'#define {c[2]} (({c[1]}){c[3]})\n')
        elif c[0] == 'alias':
            out.append(f'#define {c[1]} {c[2]}\n')
        elif c[0] == 'int':
            enums.append(f'    {c[1]} = {c[2]},\n')
    out.append('\nenum {\n' + ''.join(enums) + '};\n\n')
    for f in funcs:
        for lg in (False, True) if f.name in large else (False,):
            name = f.name + ('_c' if lg else '')
            out.append(gen_api.signature(f, name, lg, '') + ';\n')
            out.append(gen_api.signature(f, name, lg, 'P') + ';\n')
    out.append('\n#if defined(__cplusplus)\n}\n#endif\n\n#endif\n')
    return ''.join(out)


def gen_entries(funcs, kinds, large, groups):
    out = [HEAD, '#include <mpi.h>\n\n#include "ompi/ompi_front.h"\n#include "ompi_mpich.h"\n'
           '#include "runtime/profile.h"\n\n',
           '#define H(x) mpcr_ompi_handle((const void *)(x))\n',
           '#define P(h) mpcr_ompi_pointer(h)\n',
           '#define F(x) ((void *)(uintptr_t)(uint32_t)H(x)) /* MPICH\'s MPI_File */\n\n',
           gen_ompi.group_tables(groups, 'mpcr_ompi_values_', 'mpcr_ompi_ompi_groups') + '\n']
    for f in funcs:
        for lg in (False, True) if f.name in large else (False,):
            out.append(gen_ompi.translate(f, kinds.get(f.name, {}), 'abi.slice', FRONT_KINDS, lg))
            out.append(gen_api.alias(f.name + ('_c' if lg else '')).split('\n', 1)[1] + '\n')
    return ''.join(out)


def gen_objects(constants, groups):
    """The MPICH handle of each predefined handle (MPICH's mpi.h), as a
    table by value, and as mpcr_ompi_predefined[] for the way back: requests
    first, MPICH's MPI_MESSAGE_NULL being its MPI_REQUEST_NULL and the way
    back of an array of handles taking the first of any kind."""
    nulls = {'MPI_Datatype': 'MPI_DATATYPE_NULL', 'MPI_Comm': 'MPI_COMM_NULL',
             'MPI_Group': 'MPI_GROUP_NULL', 'MPI_Op': 'MPI_OP_NULL',
             'MPI_Errhandler': 'MPI_ERRHANDLER_NULL', 'MPI_Info': 'MPI_INFO_NULL',
             'MPI_Request': 'MPI_REQUEST_NULL', 'MPI_Message': 'MPI_MESSAGE_NULL',
             'MPI_Win': 'MPI_WIN_NULL', 'MPI_File': 'MPI_FILE_NULL', 'MPI_Session': 'MPI_SESSION_NULL'}
    handles = [c[1:] for c in constants if c[0] == 'handle']
    handles.sort(key=lambda h: h[0] != 'MPI_Request')
    out = [HEAD, '#include <mpi.h>\n\n#include "ompi/ompi_front.h"\n#include "abi/abi_front.h"\n\n']
    table, back = [], []
    for ctype, name, value in handles:
        if int(value, 16) >= PREDEFINED_LIMIT:
            sys.exit(f'constants.txt: {name} is not below {PREDEFINED_LIMIT:#x}')
        out.append(f'#ifdef {name}\n#define V_{name} (int)(intptr_t){name}\n#define E_{name} 1\n#else\n'
                   f'#define V_{name} (int)(intptr_t){nulls[ctype]} /* none in MPICH */\n'
                   f'#define E_{name} 0\n#endif\n')
        table.append(f'    [{value}] = V_{name},\n')
        back.append(f'    {{V_{name}, E_{name}, (void *){value}, MPCR_OMPI_KIND_{ctype[4:].upper()}}},\n')
    out.append(f'\nconst int mpcr_abi_mpich[{PREDEFINED_LIMIT:#x}] = {{\n' + ''.join(table) + '};\n')
    out.append('\nconst struct mpcr_ompi_predefined mpcr_ompi_predefined[] = {\n' + ''.join(back) + '};\n')
    out.append('const int mpcr_ompi_npredefined = sizeof mpcr_ompi_predefined / '
               'sizeof mpcr_ompi_predefined[0];\n\n')
    out.append(gen_ompi.group_tables(groups, 'mpcr_ompi_mpich_values_', 'mpcr_ompi_mpich_groups'))
    return ''.join(out)


class Plan:
    """What the front end translates: from the description, openmpi.slice and
    this directory's data."""

    def __init__(self, apidir, ompidir, abidir):
        self.described = described = {f.name: f for path in sorted(os.listdir(apidir))
                                      if path.endswith('.api') for f in gen_api.parse(f'{apidir}/{path}')}
        abi = [w[0] for w in read_lines(f'{abidir}/functions.txt')]
        ompi = gen_ompi.parse_slice(f'{ompidir}/openmpi.slice')
        kinds, custom, skip, legacy = parse_slice(f'{abidir}/abi.slice')
        for name in set(kinds) | custom | skip:
            if name not in abi:
                sys.exit(f'abi.slice: {name} is not a function of the MPI 5.0 ABI')
        for name in legacy:
            if name in abi or name not in described:
                sys.exit(f'abi.slice: legacy {name} is in the ABI, or not in the description')
        # the Open MPI front end's kinds and hand-written functions, under MPI_ names
        for name, (status, k, _) in ompi.items():
            name = 'MPI_' + name[5:] if name.startswith('MPIX_') else name
            if name not in abi and name not in legacy:
                continue
            if status == 'custom':
                custom.add(name)
            else:
                kinds[name] = {**k, **kinds.get(name, {})}
        translated, large = [], set()
        for name in abi + legacy:
            base = name[:-2] if name.endswith('_c') and name[:-2] in described else name
            f = described.get(base)
            if not f or base in custom or name in skip or name.startswith('MPI_T_'):
                continue
            if name == base:
                f.target = base
                translated.append(f)
            elif f.large:
                large.add(base)
        names = {f.name for f in translated} | {n + '_c' for n in large} | custom
        translated.sort(key=lambda f: f.name)
        self.abi, self.kinds, self.custom, self.legacy = abi, kinds, custom, legacy
        self.translated, self.large, self.names = translated, large, names


def translated(apidir, ompidir, abidir):
    """(the functions of the ABI, those translated or written by hand)"""
    plan = Plan(apidir, ompidir, abidir)
    return set(plan.abi), plan.names


def main():
    apidir, ompidir, abidir, outdir, header = sys.argv[1:6]
    plan = Plan(apidir, ompidir, abidir)
    described, abi, kinds, custom = plan.described, plan.abi, plan.kinds, plan.custom
    legacy, translated, large, names = plan.legacy, plan.translated, plan.large, plan.names
    groups = gen_ompi.parse_values(f'{abidir}/values.txt')
    constants = list(read_lines(f'{abidir}/constants.txt'))
    declared = [f for f in described.values() if (f.name in names or f.name in custom)
                and f.name not in legacy]
    declared.sort(key=lambda f: f.name)
    files = {
        'ompi_mpich.h': gen_ompi.gen_mpich_header(sorted(described.values(), key=lambda f: f.name),
                                                  names | {f.target for f in translated}, large),
        'ompi_groups.h': gen_ompi.gen_group_enum(groups),
        'abi_gen.c': gen_entries(translated, kinds, large, groups),
        'abi_stubs.c': gen_ompi.gen_stubs([n for n in abi if n not in names]),
        'abi_objects.c': gen_objects(constants, groups),
        'abi_names.txt': ''.join(n + '\n' for n in sorted(names)),
    }
    gen_api.write_changed(outdir, files)
    gen_api.write_changed(os.path.dirname(header), {
        os.path.basename(header): gen_header(constants, open(f'{abidir}/mpi_types.h').read(),
                                             declared, large)})


if __name__ == '__main__':
    try:
        main()
    except gen_ompi.Unclassified as e:
        sys.exit(str(e))
