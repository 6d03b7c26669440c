#!/usr/bin/env python3
"""Generates the passive library's MPI entry points from the description
of the API: the *.api files of one directory (src/lib/api, one file per
chapter of the MPI standard).

    gen_api.py APIDIR OUTDIR

writes into OUTDIR:
  api_gen.h    the prototypes of the hand-written mpcr_impl_NAME functions
  api_gen.c    every PMPI_ entry point of an `impl` line (and its _c twin)
               with the common prologue and epilogue, the stubs of `stub`
               lines, and the weak MPI_ alias of both (a `custom` function's
               alias must be beside its definition: MPCR_ALIAS in api/api.h)
  api_names.txt every exported MPI function name, one a line (tests/exports.sh)
  mpi-functions.md  the table of functions and their state (docs/)

The format of the .api files and the meaning of each kind are described in
src/lib/api/README; docs/api-generator.md says how the pieces fit together."""

import glob
import os
import shlex
import sys

# ---- the description ----


class Param:
    def __init__(self, name, kind):
        self.name = name
        # KIND? : significant only in some calls (a root's receive type):
        # looked up, but checked by the implementation where it matters.
        self.optional = kind.endswith('?')
        kind = kind.rstrip('?')
        if '|' in kind:
            self.kind, self.large = (t.strip() for t in kind.split('|'))
        else:
            self.kind, self.large = kind, None

    @property
    def known(self):
        return self.kind in KINDS


class Function:
    def __init__(self, status, name, params, ret, flags, lineno):
        self.status, self.name, self.params, self.ret = status, name, params, ret
        self.flags, self.lineno = flags, lineno
        # The collectives (collective.api) take intra-communicators unless
        # flagged `inter` (src/lib/api/README).
        self.collective = lineno.startswith('collective.api:')
        # calls=SHORT: the entry point calls another function's implementation
        # (mpcr_impl_SHORT, same parameters): MPI_File_read_all is MPI_File_read.
        self.calls = next((fl.split('=', 1)[1] for fl in flags if fl.startswith('calls=')), None)
        self.large = name.endswith('+c')
        self.name = name[:-2] if self.large else name

    def names(self):
        return [self.name] + ([self.name + '_c'] if self.large else [])

    @property
    def short(self):  # MPI_Send -> Send, MPIX_Foo -> X_Foo... kept unique
        return self.name.split('_', 1)[1] if self.name.startswith('MPI_') else self.name


def parse(path):
    funcs = []
    for n, line in enumerate(open(path), 1):
        lineno = f'{path.rsplit("/", 1)[-1]}:{n}'  # where errors point
        line = line.split('#', 1)[0].strip()
        if not line:
            continue
        ret = 'int'
        if '->' in line:
            line, ret = (s.strip() for s in line.split('->'))
        words = shlex.split(line)
        status, name, rest = words[0], words[1], words[2:]
        if status not in ('impl', 'custom', 'stub'):
            sys.exit(f'{lineno}: unknown status {status!r}')
        flags = [w for w in rest if ':' not in w and w != '...']
        params = [Param(*w.split(':', 1)) if w != '...' else Param('...', '...')
                  for w in rest if ':' in w or w == '...']
        funcs.append(Function(status, name, params, ret, flags, lineno))
    return funcs


# ---- kinds: C types of both forms and what the implementation receives ----

# kind: (C type, C type of the _c form, type the implementation receives)
KINDS = {
    'COMM': ('MPI_Comm', None, 'struct mpcr_comm *'),
    'COMM_OUT': ('MPI_Comm *', None, None),
    'COMM_INOUT': ('MPI_Comm *', None, None),
    'TYPE': ('MPI_Datatype', None, 'const struct mpcr_type *'),
    'RTYPE': ('MPI_Datatype', None, 'const struct mpcr_type *'),
    'OP': ('MPI_Op', None, None),
    'COUNT': ('int', 'MPI_Count', 'MPI_Count'),
    'COUNT_OUT': ('int *', 'MPI_Count *', 'MPI_Count *'),
    'COUNTS': ('const int []', 'const MPI_Count []', 'struct mpcr_counts'),
    'DISPLS': ('const int []', 'const MPI_Aint []', 'struct mpcr_counts'),
    'BUF': ('const void *', None, None),
    'BUF_OUT': ('void *', None, None),
    'RANK': ('int', None, None),
    'SOURCE': ('int', None, None),
    'ROOT': ('int', None, None),
    'TAG': ('int', None, None),
    'RECV_TAG': ('int', None, None),
    'STATUS_OUT': ('MPI_Status *', None, None),
    'STATUS_IN': ('const MPI_Status *', None, None),
    'STATUSES': ('MPI_Status []', None, None),
    'REQUEST_OUT': ('MPI_Request *', None, None),
    'REQUEST_INOUT': ('MPI_Request *', None, None),
    'REQUESTS': ('MPI_Request []', None, None),
    'ERRHANDLER': ('MPI_Errhandler', None, None),
    # In-out count (MPI_Pack's position): read before the call, written after.
    'COUNT_INOUT': ('int *', 'MPI_Count *', 'MPI_Count *'),
    # Addresses and byte displacements: MPI_Aint in the int form, MPI_Count
    # in the _c form (both `long` in MPICH's mpi.h, so passed as they are).
    'AINT': ('MPI_Aint', 'MPI_Count', 'MPI_Count'),
    # A signed int of the int form (a stride in elements): no check.
    'DISP': ('int', 'MPI_Count', 'MPI_Count'),
    'AINT_OUT': ('MPI_Aint *', 'MPI_Count *', 'MPI_Count *'),
    'AINT_INOUT': ('MPI_Aint *', 'MPI_Count *', 'MPI_Count *'),
    'AINTS': ('const MPI_Aint []', 'const MPI_Count []', 'const MPI_Count *'),
    'TYPE_OUT': ('MPI_Datatype *', None, None),
    'TYPE_INOUT': ('MPI_Datatype *', None, None),
    'INFO': ('MPI_Info', None, 'struct mpcr_info *'),
    'INFO_OUT': ('MPI_Info *', None, None),
    'INFO_INOUT': ('MPI_Info *', None, None),
    # Groups (group.c): MPI_ERR_GROUP unless a valid group (MPI_GROUP_EMPTY is one).
    'GROUP': ('MPI_Group', None, 'struct mpcr_group *'),
    'GROUP_OUT': ('MPI_Group *', None, None),
    'GROUP_INOUT': ('MPI_Group *', None, None),
    # Windows (win.c): MPI_ERR_WIN unless a valid window.
    'WIN': ('MPI_Win', None, 'struct mpcr_win *'),
    'WIN_OUT': ('MPI_Win *', None, None),
    'WIN_INOUT': ('MPI_Win *', None, None),
    # Files (src/lib/io): MPI_ERR_FILE unless a valid open file; the file is
    # the call's error-handler object (MPI_FILE_NULL's handler for a bad one).
    'FILE': ('MPI_File', None, 'struct mpcr_file *'),
    'FILE_INOUT': ('MPI_File *', None, None),
    # Sessions (src/lib/session): MPI_ERR_SESSION unless an open session;
    # the session is the call's error-handler object (MPI 4.0 9.3).
    'SESSION': ('MPI_Session', None, 'struct mpcr_session *'),
    'SESSION_INOUT': ('MPI_Session *', None, None),
}
# Objects looked up by handle (GROUP, WIN and their _INOUT forms): the C
# type of the object, the look-up, the error class of an invalid handle.
OBJECTS = {
    'GROUP': ('struct mpcr_group *', 'mpcr_group_get', 'MPI_ERR_GROUP'),
    'WIN': ('struct mpcr_win *', 'mpcr_win_get', 'MPI_ERR_WIN'),
    'FILE': ('struct mpcr_file *', 'mpcr_file_get', 'MPI_ERR_FILE'),
    'SESSION': ('struct mpcr_session *', 'mpcr_session_get', 'MPI_ERR_SESSION'),
}
# Kinds an `impl` line may use today.
IMPL_KINDS = {'COMM', 'COMM_OUT', 'COMM_INOUT', 'TYPE', 'RTYPE', 'OP', 'COUNT', 'COUNT_OUT', 'COUNTS',
              'DISPLS', 'BUF', 'BUF_OUT', 'RANK', 'SOURCE', 'ROOT', 'TAG', 'RECV_TAG',
              'STATUS_OUT', 'STATUS_IN', 'STATUSES', 'REQUEST_OUT', 'REQUEST_INOUT', 'REQUESTS',
              'GROUP', 'GROUP_OUT', 'GROUP_INOUT', 'WIN', 'WIN_OUT', 'WIN_INOUT',
              'ERRHANDLER', 'COUNT_INOUT', 'AINT', 'DISP', 'AINT_OUT', 'AINT_INOUT', 'AINTS', 'TYPE_OUT',
              'TYPE_INOUT', 'INFO', 'INFO_OUT', 'INFO_INOUT', 'FILE', 'FILE_INOUT', 'SESSION',
              'SESSION_INOUT'}


def c_type(p, large):
    """The parameter's C type in the int form or the _c form."""
    if p.known:
        t, tl, _ = KINDS[p.kind]
        return tl if large and tl else t
    return p.large if large and p.large else p.kind


def declare(ctype, name):
    """A C declaration: arrays put the name before their brackets."""
    if '[' in ctype:
        base, dims = ctype.split('[', 1)
        return f'{base.strip()} {name}[{dims}'
    sep = '' if ctype.endswith('*') else ' '
    return f'{ctype}{sep}{name}'


def signature(f, name, large, prefix):
    if not f.params:
        args = 'void'
    else:
        args = ', '.join('...' if p.name == '...' else declare(c_type(p, large), p.name)
                         for p in f.params)
    ret = f.ret + ('' if f.ret.endswith('*') else ' ')
    return f'{ret}{prefix}{name}({args})'


def impl_params(f):
    """The implementation's parameters: (C declaration, argument expression)."""
    out = []
    for p in f.params:
        k = p.kind
        if k in ('COMM', 'TYPE', 'INFO'):
            out.append((declare(KINDS[k][2], p.name + '_o'), p.name + '_o'))
        elif k == 'RTYPE':
            out.append((declare('MPI_Datatype', p.name), p.name))
            out.append((declare(KINDS[k][2], p.name + '_o'), p.name + '_o'))
        elif k == 'COMM_INOUT':
            out.append((declare('MPI_Comm *', p.name), p.name))
            out.append((declare('struct mpcr_comm *', p.name + '_o'), p.name + '_o'))
        elif k in OBJECTS:
            out.append((declare(OBJECTS[k][0], p.name + '_o'), p.name + '_o'))
        elif k.endswith('_INOUT') and k[:-len('_INOUT')] in OBJECTS:
            out.append((declare(KINDS[k][0], p.name), p.name))
            out.append((declare(OBJECTS[k[:-len('_INOUT')]][0], p.name + '_o'), p.name + '_o'))
        elif k in ('COUNT', 'COUNT_OUT', 'COUNT_INOUT'):
            out.append((declare(KINDS[k][2], p.name), p.name + ('' if k == 'COUNT' else '_v')))
        elif k in ('AINT', 'DISP', 'AINT_OUT', 'AINT_INOUT', 'AINTS'):
            out.append((declare(KINDS[k][2], p.name), p.name))
        elif k in ('COUNTS', 'DISPLS'):
            out.append((declare('struct mpcr_counts', p.name), p.name + '_a'))
        else:
            out.append((declare(c_type(p, False), p.name), p.name))
    return out


def impl_name(f):
    return 'mpcr_impl_' + (f.calls or f.short)


def inter_name(f):
    """The implementation over an inter-communicator (coll_inter.c) of an `inter` function."""
    return 'mpcr_inter_' + f.short


def inter_comm(f):
    """A collective's communicator object (C name), or None."""
    obj = error_object(f)
    return obj.name + '_o' if f.collective and obj and obj.kind == 'COMM' else None


def inter_check(f, name):
    """Lines that end the job when a collective without an inter-communicator
    form (no `inter` flag) is called on an inter-communicator."""
    c = inter_comm(f)
    if not c or 'inter' in f.flags:
        return []
    return [f'if (__builtin_expect({c}->inter != NULL, 0))',
            f'    mpcr_unsupported_feature("{name} on an inter-communicator");']


# ---- the generated entry point of an `impl` function ----


def error_object(f):
    for p in f.params:
        if p.kind in ('COMM', 'COMM_INOUT'):
            return p
    return None


def file_object(f):
    """The file whose error handler a call of chapter 14 raises its errors
    on (MPI 4.0 14.7), or None."""
    return next((p for p in f.params if p.kind in ('FILE', 'FILE_INOUT')), None)


def win_object(f):
    """The window whose error handler a call raises its errors on (MPI 4.0
    9.3.2: the window the call is on), or None: a call with a communicator
    (MPI_Win_create) raises them on the communicator."""
    if error_object(f):
        return None
    return next((p for p in f.params if p.kind in ('WIN', 'WIN_INOUT')), None)


def session_object(f):
    """The session whose error handler a call raises its errors on, or None."""
    return next((p for p in f.params if p.kind in ('SESSION', 'SESSION_INOUT')), None)


def raise_with(f, eh):
    """The C function and object that raise a call's errors: a file's
    handler for the calls on a file, MPI_FILE_NULL's for MPI_File_open and
    _delete (flag `fileerrors`), a window's for the calls on a window, a
    session's for the calls on a session, else the communicator's."""
    fo = file_object(f)
    if fo:
        return 'mpcr_file_error', fo.name + '_o'
    wo = win_object(f)
    if wo:
        return 'mpcr_win_error', wo.name + '_o'
    so = session_object(f)
    if so:
        return 'mpcr_session_error', so.name + '_o'
    if 'fileerrors' in f.flags:
        return 'mpcr_file_error', 'NULL'
    return 'mpcr_error', eh


def prologue(f, large):
    """Lines of C: look-ups and checks, in parameter order (error object first)."""
    fn = f'"{f.name}{"_c" if large else ""}"'
    serialized = 'MPCR_SERIALIZED_CARRY();' if 'carries' in f.flags else 'MPCR_SERIALIZED_CALL();'
    lines = [f'static const char fn[] = {fn};', serialized]
    if 'noinit' not in f.flags:
        lines.append('MPCR_REQUIRE_INIT(fn);')
    obj = error_object(f)
    eh = 'NULL'
    fo = file_object(f)
    so = session_object(f)
    raiser = ('mpcr_file_error' if fo or 'fileerrors' in f.flags else
              'mpcr_session_error' if so else 'mpcr_error')
    if so:  # looked up first: it is the error-handler object (a bad one: the world's)
        if so.kind == 'SESSION_INOUT':
            lines.append(f'if (!{so.name}) return mpcr_session_error(NULL, MPI_ERR_ARG, fn);')
        handle = ('*' + so.name) if so.kind == 'SESSION_INOUT' else so.name
        lines.append(f'struct mpcr_session *{so.name}_o = mpcr_session_get({handle});')
        lines.append(f'if (!{so.name}_o) return mpcr_session_error(NULL, MPI_ERR_SESSION, fn);')
    if fo:  # looked up first: it is the error-handler object
        if fo.kind == 'FILE_INOUT':
            lines.append(f'if (!{fo.name}) return mpcr_file_error(NULL, MPI_ERR_ARG, fn);')
        handle = ('*' + fo.name) if fo.kind == 'FILE_INOUT' else fo.name
        lines.append(f'struct mpcr_file *{fo.name}_o = mpcr_file_get({handle});')
        lines.append(f'if (!{fo.name}_o) return mpcr_file_error(NULL, MPI_ERR_FILE, fn);')
    wo = win_object(f)
    if wo:  # looked up first too; no valid window: MPI_COMM_WORLD's handler
        if wo.kind == 'WIN_INOUT':
            lines.append(f'if (!{wo.name}) return mpcr_error(NULL, MPI_ERR_ARG, fn);')
        handle = ('*' + wo.name) if wo.kind == 'WIN_INOUT' else wo.name
        lines.append(f'struct mpcr_win *{wo.name}_o = mpcr_win_get({handle});')
        lines.append(f'if (!{wo.name}_o) return mpcr_error(NULL, MPI_ERR_WIN, fn);')
    if obj:
        eh = obj.name + '_o'
        handle = ('*' + obj.name) if obj.kind == 'COMM_INOUT' else obj.name
        if obj.kind == 'COMM_INOUT':
            lines.append(f'if (!{obj.name}) return {raiser}(NULL, MPI_ERR_ARG, fn);')
        lines.append(f'struct mpcr_comm *{eh} = mpcr_comm_get({handle});')
        lines.append(f'if (!{eh}) return {raiser}(NULL, MPI_ERR_COMM, fn);')
    rfn, robj = raise_with(f, eh)

    def fail(cond, err):
        lines.append(f'if (__builtin_expect({cond}, 0)) return {rfn}({robj}, {err}, fn);')

    ps = f.params
    for i, p in enumerate(ps):
        k, n = p.kind, p.name
        if k == 'COUNT':
            if not p.optional:
                fail(f'{n} < 0', 'MPI_ERR_COUNT')
        elif k in ('TYPE', 'RTYPE'):
            lines.append(f'const struct mpcr_type *{n}_o = mpcr_type_get({n});')
            if not p.optional:
                fail(f'!{n}_o', 'MPI_ERR_TYPE')
        elif k == 'OP':
            fail(f'!mpcr_op_valid({n})', 'MPI_ERR_OP')
        elif k in ('RANK', 'SOURCE'):
            extra = ' && ' + f'{n} != MPI_ANY_SOURCE' if k == 'SOURCE' else ''
            fail(f'({n} < 0 || {n} >= mpcr_comm_peers({eh})) && {n} != MPI_PROC_NULL{extra}',
                 'MPI_ERR_RANK')
        elif k == 'ROOT':  # on an inter-communicator: a remote rank, MPI_ROOT or MPI_PROC_NULL
            fail(f'({n} < 0 || {n} >= mpcr_comm_peers({eh})) && !({eh}->inter && '
                 f'({n} == MPI_ROOT || {n} == MPI_PROC_NULL))', 'MPI_ERR_ROOT')
        elif k in ('TAG', 'RECV_TAG'):
            extra = f' && {n} != MPI_ANY_TAG' if k == 'RECV_TAG' else ''
            fail(f'({n} < 0 || {n} > mpcr.tag_ub){extra}', 'MPI_ERR_TAG')
        elif k == 'INFO':
            lines.append(f'struct mpcr_info *{n}_o = mpcr_info_get({n});')
            if not p.optional:
                fail(f'!{n}_o', 'MPI_ERR_INFO')
        elif k in ('REQUEST_OUT', 'COMM_OUT', 'COUNT_OUT', 'COUNT_INOUT', 'AINT_OUT', 'AINT_INOUT',
                   'TYPE_OUT', 'TYPE_INOUT', 'INFO_OUT', 'INFO_INOUT'):
            fail(f'!{n}', 'MPI_ERR_ARG')
        elif k == 'ERRHANDLER':
            fail(f'!mpcr_errhandler_valid({n})', 'MPI_ERR_ARG')
        elif k == 'COMM' and p is not obj:  # a second communicator (MPI_Comm_compare)
            lines.append(f'struct mpcr_comm *{n}_o = mpcr_comm_get({n});')
            fail(f'!{n}_o', 'MPI_ERR_COMM')
        elif k in ('FILE', 'FILE_INOUT', 'SESSION', 'SESSION_INOUT') or p is wo:
            pass  # looked up first, above
        elif k in OBJECTS or (k.endswith('_INOUT') and k[:-len('_INOUT')] in OBJECTS):
            inout = k.endswith('_INOUT')
            ctype, lookup, err = OBJECTS[k[:-len('_INOUT')] if inout else k]
            if inout:
                fail(f'!{n}', 'MPI_ERR_ARG')
            lines.append(f'{ctype}{n}_o = {lookup}({"*" if inout else ""}{n});')
            fail(f'!{n}_o', err)
        elif k in ('GROUP_OUT', 'WIN_OUT'):
            fail(f'!{n}', 'MPI_ERR_ARG')
        elif k in ('COUNTS', 'DISPLS'):
            lines.append(f'struct mpcr_counts {n}_a = {{{n}, {int(large)}}};')
        elif k in ('STATUS_OUT', 'STATUS_IN', 'STATUSES', 'REQUEST_INOUT', 'REQUESTS', 'BUF',
                   'BUF_OUT', 'COMM_INOUT', 'COMM', 'AINT', 'DISP', 'AINTS'):
            pass
        elif p.known:
            sys.exit(f'{f.lineno}: {f.name}: kind {k} is not implemented yet')
    # Buffers are checked once their count and type are known.
    for i, p in enumerate(ps):
        if p.kind in ('BUF', 'BUF_OUT') and i + 2 < len(ps) and ps[i + 1].kind == 'COUNT' \
                and ps[i + 2].kind in ('TYPE', 'RTYPE') and not ps[i + 1].optional \
                and not ps[i + 2].optional:
            c, t = ps[i + 1].name, ps[i + 2].name
            # On an inter-communicator a collective's buffers are significant
            # on one side only (MPI_ROOT, MPI_PROC_NULL): coll_inter.c's to check.
            inter = f'!{eh}->inter && ' if inter_comm(f) else ''
            fail(f'{inter}!{p.name} && {c} > 0 && mpcr_type_is_predefined({t})', 'MPI_ERR_BUFFER')
    return lines, eh


def sent_bytes(f):
    """C: the bytes of the call's send buffer, for the profile: its first
    BUF (an input) with the COUNT and TYPE that follow it, output buffers
    between them skipped (MPI_Allreduce's recvbuf); None when it has none
    (MPI_Bcast's buffer is BUF_OUT, a v-collective's counts COUNTS)."""
    ps = [p for p in f.params if p.kind != 'BUF_OUT']
    for i in range(len(ps) - 2):
        b, c, t = ps[i:i + 3]
        if b.kind == 'BUF' and c.kind == 'COUNT' and t.kind in ('TYPE', 'RTYPE'):
            return (f'{b.name} != MPI_IN_PLACE && {t.name}_o && {c.name} > 0 ? '
                    f'(uint64_t){c.name} * (uint64_t){t.name}_o->size : 0')
    return None


def entry(f, large, index):
    name = f.name + ('_c' if large else '')
    lines, eh = prologue(f, large)
    lines.insert(0, f'MPCR_PROFILED({index});')
    if sent_bytes(f):
        lines.append(f'MPCR_PROFILED_BYTES({sent_bytes(f)});')
    call_args = ', '.join(a for _, a in impl_params(f))
    outs = [p for p in f.params if p.kind in ('COUNT_OUT', 'COUNT_INOUT')]
    for p in outs:
        init = f'*{p.name}' if p.kind == 'COUNT_INOUT' else '0'
        lines.append(f'MPI_Count {p.name}_v_ = {init}, *{p.name}_v = &{p.name}_v_;')
    lines += inter_check(f, name)
    if task_of(f):
        lines += task_call(f)
    elif inter_comm(f) and 'inter' in f.flags:
        c = inter_comm(f)
        lines.append(f'int err = {c}->inter ? mpcr_inter_ready({c}) : MPI_SUCCESS;')
        lines.append(f'if (!err) err = {c}->inter ? {inter_name(f)}({call_args})')
        lines.append(f'                           : {impl_name(f)}({call_args});')
    else:
        lines.append(f'int err = {impl_name(f)}({call_args});')
    for p in outs:  # the int form reports a count that does not fit as MPI_UNDEFINED
        v = f'{p.name}_v_'
        if large:
            lines.append(f'if (!err) *{p.name} = {v};')
        else:
            lines.append(f'if (!err) *{p.name} = {v} > INT32_MAX ? MPI_UNDEFINED : (int){v};')
    if 'ownerrors' in f.flags:
        lines.append('return err;')
    else:
        rfn, robj = raise_with(f, eh)
        lines.append(f'return err ? {rfn}({robj}, err, fn) : MPI_SUCCESS;')
    body = '\n'.join('    ' + l for l in lines)
    return f'{signature(f, name, large, "P")}\n{{\n{body}\n}}\n'


# ---- non-blocking and persistent collectives: the blocking schedule as a task ----

# An `impl` line with the flag `nonblocking` (MPI_Iallreduce) or `persistent`
# (MPI_Allreduce_init) has no hand-written implementation: its arguments,
# checked as the blocking function's are, are kept in a struct, and the
# blocking implementation runs on them as a task of the library
# (coll_task.h, docs/collectives.md): at once for `nonblocking`, at each
# MPI_Start for `persistent`. Its parameters are the blocking function's,
# then `info` (persistent) and `request`.
TASK_FLAGS = ('nonblocking', 'persistent')


def task_of(f):
    """The flag that makes f a task, or None."""
    return next((fl for fl in f.flags if fl in TASK_FLAGS), None)


def blocking_short(f):
    """MPI_Iallreduce -> Allreduce, MPI_Allreduce_init -> Allreduce."""
    s = f.short
    return s[:-len('_init')] if task_of(f) == 'persistent' else s[1].upper() + s[2:]


def task_params(f):
    """(field declaration, field name, argument expression) of the blocking call."""
    out = []
    for d, a in impl_params(Function(f.status, f.name, [p for p in f.params if p.kind not in (
            'REQUEST_OUT', 'INFO')], f.ret, [], f.lineno)):
        if d.endswith('[]'):  # a struct field: the array as a pointer
            base, name = d[:-2].rsplit(' ', 1)
            d = f'{base} *{name}'
        out.append((d, d.replace('*', ' ').split()[-1], a))
    return out


def inherit_inter(funcs):
    """A non-blocking or persistent collective has an inter-communicator form
    where its blocking one has (the task runs that one: coll_inter.c)."""
    inter = {f.short for f in funcs if 'inter' in f.flags and not task_of(f)}
    for f in funcs:
        if task_of(f) and blocking_short(f) in inter and 'inter' not in f.flags:
            f.flags.append('inter')


def task_support(f):
    """The struct of a task's arguments and the function that runs it."""
    s, ps = f.short, task_params(f)
    fields = ''.join(f'    {d};\n' for d, _, _ in ps)
    args = ', '.join(f'a->{n}' for _, n, _ in ps)
    run = f'mpcr_impl_{blocking_short(f)}({args})'
    if 'inter' in f.flags:  # the inter-communicator form of the blocking collective
        run = (f'a->{error_object(f).name}_o->inter ? mpcr_inter_{blocking_short(f)}({args})\n'
               f'                                        : {run}')
    return (f'struct task_{s} {{\n{fields}}};\n'
            f'static int task_run_{s}(const void *args)\n{{\n'
            f'    const struct task_{s} *a = args;\n'
            f'    return {run};\n}}\n\n')


def task_call(f):
    """Lines that start the task (instead of calling an implementation)."""
    s, ps = f.short, task_params(f)
    req = next(p.name for p in f.params if p.kind == 'REQUEST_OUT')
    comm = error_object(f).name + '_o'
    types = [p.name + '_o' for p in f.params if p.kind in ('TYPE', 'RTYPE')]
    tlist = ', '.join(types) if types else 'NULL'
    op = next((p.name for p in f.params if p.kind == 'OP'), 'MPI_OP_NULL')
    # MPI_INFO_NULL or a valid info object; none of its hints changes anything.
    infos = [f'if (!{p.name}_o && {p.name} != MPI_INFO_NULL) return mpcr_error({comm}, '
             f'MPI_ERR_INFO, fn);' for p in f.params if p.kind == 'INFO']
    # An inter-communicator's hidden local communicator exists before the
    # task starts: the task reserves sequence numbers on it (coll_task.c).
    ready = ([f'int ready = {comm}->inter ? mpcr_inter_ready({comm}) : MPI_SUCCESS;',
              f'if (ready) return mpcr_error({comm}, ready, fn);'] if 'inter' in f.flags else [])
    return infos + ready + [f'struct task_{s} a = {{{", ".join(x for _, _, x in ps)}}};',
            f'const struct mpcr_type *types[] = {{{tlist}}};',
            f'int err = mpcr_coll_task_new({comm}, {req}, task_run_{s}, &a, sizeof a, types, '
            f'{len(types)}, {op}, {int(task_of(f) == "persistent")});']


def alias(name):
    # mpcr_mpich_PMPI_NAME: the name by which the Open MPI front end
    # (libmpi.so.40, src/lib/ompi) calls this entry point, whose PMPI_NAME its
    # own shadows (docs/abi-openmpi.md).
    front = f'extern __typeof__(P{name}) mpcr_mpich_P{name} __attribute__((alias("P{name}")));\n'
    return front + ((f'extern __typeof__(PMPI_{name[4:]}) {name} '
            f'__attribute__((weak, alias("PMPI_{name[4:]}")));\n') if name.startswith('MPI_') else
        f'extern __typeof__(P{name}) {name} __attribute__((weak, alias("P{name}")));\n')


def stub(f, name, large):
    sig = signature(f, name, large, 'P')
    return f'{sig}\n{{\n    mpcr_unsupported("{name}");\n}}\n'


# ---- outputs ----

# What the generated entry points use besides api_gen.h: the look-ups and
# checks of the prologue, the lock, the collective tasks.
SOURCE_INCLUDES = ('coll/coll_task.h', 'coll/op.h', 'comm/comm.h', 'datatype/dtype.h', 'env/errors.h',
                   'env/info.h', 'io/file.h', 'rma/win.h', 'runtime/profile.h', 'runtime/runtime.h',
                   'runtime/threads.h', 'session/session.h')

HEAD = '/* Generated by src/lib/api/gen_api.py from the files src/lib/api/NAME.api: do not edit. */\n'


def gen_header(funcs):
    out = [HEAD, '#ifndef MPCR_API_GEN_H\n#define MPCR_API_GEN_H\n\n#include "api/api.h"\n\n']
    for f in funcs:
        if f.status != 'impl' or task_of(f) or f.calls:
            continue
        for p in f.params:
            if p.known and p.kind not in IMPL_KINDS:
                sys.exit(f'{f.lineno}: {f.name}: kind {p.kind} is not implemented yet')
            if p.large and f.large:
                sys.exit(f'{f.lineno}: {f.name}: "{p.kind} | {p.large}" needs a kind')
        args = ', '.join(d for d, _ in impl_params(f)) or 'void'
        out.append(f'int {impl_name(f)}({args});\n')
        if 'inter' in f.flags:
            out.append(f'int {inter_name(f)}({args});\n')
    out.append('\n#endif\n')
    return ''.join(out)


def gen_source(funcs):
    out = [HEAD, '#include "api_gen.h"\n' + ''.join(f'#include "{h}"\n' for h in SOURCE_INCLUDES) +
           '\n#include <stdint.h>\n\n',
           '/* A stub never looks at its arguments. */\n',
           '#pragma GCC diagnostic ignored "-Wunused-parameter"\n\n',
           '_Noreturn void mpcr_unsupported(const char *name);\n\n']
    profiled = [f for f in funcs if f.status == 'impl']
    index = {f.name: i for i, f in enumerate(profiled)}
    out.append('/* The profile\'s names (runtime/profile.h): a function\'s int and _c forms are one. */\n')
    out.append('const char *const mpcr_prof_names[] = {\n' +
               ''.join(f'    "{f.name}",\n' for f in profiled) + '};\n')
    out.append(f'const int mpcr_prof_functions = {len(profiled)};\n\n')
    for f in funcs:
        if f.status == 'impl' and task_of(f):
            out.append(task_support(f))
        for large, name in enumerate(f.names()):
            if f.status == 'impl':
                out.append(entry(f, bool(large), index[f.name]))
            elif f.status == 'stub':
                out.append(stub(f, name, bool(large)))
            if f.status != 'custom':  # a custom function's file defines its alias (MPCR_ALIAS)
                out.append(alias(name))
            out.append('\n')
    return ''.join(out)


def ompi_front(apidir):
    """The Open MPI front end's data (src/lib/ompi, docs/abi-openmpi.md):
    (the functions Open MPI's libmpi.so.40 exports, those translated)."""
    ompidir = os.path.join(apidir, '..', 'ompi')
    def names(path, slice_=False):
        out = set()
        for line in open(os.path.join(ompidir, path)):
            words = line.split('#', 1)[0].split()
            if words:
                out.add(words[1] if slice_ and words[0] == 'custom' else words[0])
        return out
    sys.path.insert(0, ompidir)
    import gen_fortran  # noqa: E402  (which Fortran entry points it makes)
    return names('exports.txt'), names('openmpi.slice', True), gen_fortran.translated(apidir, ompidir)


def abi_front(apidir):
    """The standard ABI's front end's data (src/lib/abi, docs/abi-standard.md):
    (the functions of the ABI, those translated)."""
    abidir = os.path.join(apidir, '..', 'abi')
    sys.path.insert(0, abidir)
    import gen_abi  # noqa: E402
    return gen_abi.translated(apidir, os.path.join(apidir, '..', 'ompi'), abidir)


def gen_docs(funcs, ompi, abi):
    total = sum(len(f.names()) for f in funcs)
    done = sum(len(f.names()) for f in funcs if f.status != 'stub')
    exported, translated, (fortran, fortran_done) = ompi
    abi_all, abi_done = abi
    described = {n for f in funcs for n in f.names()}
    only_ompi = sorted(exported - described)  # macros in MPICH's mpi.h: MPI_Comm_c2f...
    out = ['# MPI functions in mpcr\n\n',
           '<!-- Generated by src/lib/api/gen_api.py from the files src/lib/api/NAME.api and '
           'src/lib/ompi/{openmpi.slice,exports.txt}: do not edit. -->\n\n',
           f'mpcr\'s passive library exports all {total} functions of MPICH 4.0.2\'s '
           f'`libmpich.so.12`; {done} of them are implemented. Calling any other ends the job '
           'with `mpcr: MPI_Xxx is not supported`.\n\n',
           f'For programs built with Open MPI, mpcr\'s `libmpi.so.40` (docs/abi-openmpi.md) '
           f'exports all {len(exported)} functions of Open MPI 4.1.4\'s; '
           f'{len(translated & exported)} of them are translated to the library above (the '
           'column "Open MPI-built"; "-": Open MPI 4.1.4 exports no such function: the `_c` '
           'forms, MPI 4.0\'s functions, a few macros of its `mpi.h`). Calling any other ends the job with `mpcr: MPI_Xxx is not supported '
           'yet for Open MPI-built programs`. Open MPI also exports functions outside this '
           'table (macros in MPICH\'s `mpi.h`, Open MPI\'s `MPIX_` persistent collectives, '
           f'Fortran\'s callbacks and functions under capital names): {len(only_ompi)}, '
           f'{len(translated & set(only_ompi))} of them translated '
           f'({", ".join(f"`{n}`" for n in only_ompi if n in translated)}).\n\n',
           f'Fortran programs built with Open MPI (`mpif.h`, `use mpi`, `use mpi_f08`) call '
           f'mpcr\'s `libmpi_mpifh.so.40`: {len(fortran_done)} of the {len(fortran)} functions '
           f'of Open MPI 4.1.4\'s Fortran library are translated to the C functions above '
           f'(column "Open MPI-built Fortran"); MPICH-built Fortran programs use MPICH\'s own '
           f'Fortran library over mpcr\'s C library (docs/fortran.md).\n\n',
           f'For programs built for the MPI 5.0 standard ABI (mpcr\'s `mpicc_abi`, '
           f'docs/abi-standard.md), mpcr\'s `libmpi_abi.so.1` exports all {len(abi_all)} functions '
           f'of the ABI; {len(abi_done & abi_all)} of them are translated (column "standard ABI", '
           'the `_c` form included where the MPICH-built column has one); calling any other '
           'ends the job with `mpcr: MPI_Xxx is not supported yet for programs built for the '
           'MPI 5.0 ABI`.\n\n',
           '| function | large-count `_c` form | MPICH-built | Open MPI-built | Open MPI-built Fortran '
           '| standard ABI |\n'
           '|---|---|---|---|---|---|\n']
    for f in funcs:
        state = {'impl': 'supported', 'custom': 'supported', 'stub': 'not supported'}[f.status]
        ostate = ('supported' if f.name in translated else
                  'not supported' if f.name in exported else '-')
        fstate = ('supported' if f.name in fortran_done else
                  'not supported' if f.name in fortran else '-')
        astate = ('supported' if f.name in abi_done else
                  'not supported' if f.name in abi_all else '-')
        out.append(f'| `{f.name}` | {"yes" if f.large else ""} | {state} | {ostate} | {fstate} '
                   f'| {astate} |\n')
    return ''.join(out)


def write_changed(outdir, files):
    """Writes each {name: text} into outdir unless the file holds it already
    (unchanged: its time stamp is kept, nothing rebuilds)."""
    for name, text in files.items():
        path = f'{outdir}/{name}'
        try:
            if open(path).read() == text:
                continue
        except FileNotFoundError:
            pass
        with open(path, 'w') as out:
            out.write(text)


def main():
    apidir, outdir = sys.argv[1], sys.argv[2]
    # Sorted by name, so the outputs do not depend on which chapter holds what.
    funcs = sorted((f for path in sorted(glob.glob(f'{apidir}/*.api')) for f in parse(path)),
                   key=lambda f: f.name)
    inherit_inter(funcs)
    by_short = {f.short: f for f in funcs}
    for f in funcs:  # calls=: an implemented function of the same parameters
        g = by_short.get(f.calls) if f.calls else None
        if f.calls and (not g or g.status != 'impl' or g.calls or
                        [d for d, _ in impl_params(g)] != [d for d, _ in impl_params(f)]):
            sys.exit(f'{f.lineno}: {f.name}: calls={f.calls} names no implemented function '
                     'with the same parameters')
    seen = set()
    for f in funcs:
        for n in f.names():
            if n in seen:
                sys.exit(f'{f.lineno}: {n} is described twice')
            seen.add(n)
    files = {
        'api_gen.h': gen_header(funcs),
        'api_gen.c': gen_source(funcs),
        'api_names.txt': ''.join(n + '\n' for f in funcs for n in f.names()),
        'mpi-functions.md': gen_docs(funcs, ompi_front(apidir), abi_front(apidir)),
    }
    write_changed(outdir, files)


if __name__ == '__main__':  # the Open MPI front end (src/lib/ompi) imports the parser
    main()
