#!/usr/bin/env python3
"""Generates the checker's default wrappers (chk_gen.c) from src/api/mpi_functions.txt.

Every int-returning MPI_x that the checker's hand-written files (src/tools/check/chk_*.c) do not
define gets a wrapper that
  - reports a call before MPI_Init or after MPI_Finalize (except the functions the standard
    allows then),
  - reports the use of a freed handle passed by value (and the second free of one),
  - records the handles it creates (an output `MPI_<handle> *`) and frees (`*_free`),
  - for the collectives: checks that every rank makes the same call (chk_coll.c) and tells the
    deadlock watch what it waits for,
then calls PMPI_x. The MPI_T_ tool interface and the handle conversions are not wrapped.
"""
import argparse
import os
import re
import sys

# The prototypes are parsed as the library's own generator parses them (one parser for both).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..',
                                'tools', 'gen'))
from gen_api import handwritten_wrappers, parse_args as split_params, read_functions  # noqa: E402


KINDS = {
    'MPI_Comm': 'CHK_K_COMM', 'MPI_Datatype': 'CHK_K_TYPE', 'MPI_Group': 'CHK_K_GROUP',
    'MPI_Request': 'CHK_K_REQUEST', 'MPI_Op': 'CHK_K_OP', 'MPI_Info': 'CHK_K_INFO',
    'MPI_Errhandler': 'CHK_K_ERRH', 'MPI_Win': 'CHK_K_WIN', 'MPI_Message': 'CHK_K_MESSAGE',
    'MPI_Session': 'CHK_K_SESSION',
}

# MPI 4.1 (table "functions that may be called before MPI_INIT / after MPI_FINALIZE" and the
# Sessions chapter): these never get the "called before MPI_Init" report.
ALLOWED_OUTSIDE = re.compile(
    r'^(Initialized|Finalized|Get_version|Get_library_version|Init|Init_thread|Info_\w+|'
    r'Errhandler_free|Session_\w+|Error_string|Error_class|Add_error_\w+|Remove_error_\w+|'
    r'Status_(get|set)_(source|tag|error)|Get_hw_resource_info|Abi_\w+)$')
NOT_WRAPPED = re.compile(r'^(T_\w+|\w+_c2f|\w+_f2c|\w+_f082c|\w+_c2f08|\w+_f2f08|\w+_f082f|'
                         r'Pcontrol|Wtime|Wtick|Aint_\w+)$')
# Output handles that are not new objects the program must free.
NOT_CREATED = re.compile(r'^(\w+_get_errhandler|Errhandler_get|Comm_get_parent|Type_match_size|Type_get_contents\w*|'
                         r'Type_get_envelope\w*|Type_create_f90_\w+|Type_commit|Wait\w*|Test\w*|Start\w*|\w+_free|'
                         r'Comm_disconnect|Session_finalize|Cancel|Request_get_status\w*|'
                         r'Comm_idup\w*|Type_get_value_index|Op_f2c)$')

# Blocking collectives: name (without _c) -> (root param or None, op param or None, sig mode,
# t1, c1, t2, c2, sendbuf, recvbuf). Modes (chk_coll.c): 0 none, 1 (t1, c1) at every rank,
# 2 root (t2, c2) others (t1, c1) [Gather], 3 root (t1, c1) others (t2, c2) [Scatter],
# 4 (t1, c1), or (t2, c2) when the send buffer is MPI_IN_PLACE [Allgather, Alltoall].
COLL = {
    'Barrier': (None, None, 0),
    'Bcast': ('root', None, 1, 'datatype', 'count', None, None, None, None),
    'Reduce': ('root', 'op', 1, 'datatype', 'count', None, None, 'sendbuf', 'recvbuf'),
    'Allreduce': (None, 'op', 1, 'datatype', 'count', None, None, 'sendbuf', 'recvbuf'),
    'Scan': (None, 'op', 1, 'datatype', 'count', None, None, 'sendbuf', 'recvbuf'),
    'Exscan': (None, 'op', 1, 'datatype', 'count', None, None, 'sendbuf', 'recvbuf'),
    'Reduce_scatter_block': (None, 'op', 1, 'datatype', 'recvcount', None, None, None, None),
    'Reduce_scatter': (None, 'op', 1, 'datatype', '1', None, None, None, None),
    'Gather': ('root', None, 2, 'sendtype', 'sendcount', 'recvtype', 'recvcount', 'sendbuf', 'recvbuf'),
    'Scatter': ('root', None, 3, 'sendtype', 'sendcount', 'recvtype', 'recvcount', 'sendbuf', 'recvbuf'),
    'Allgather': (None, None, 4, 'sendtype', 'sendcount', 'recvtype', 'recvcount', 'sendbuf', 'recvbuf'),
    'Alltoall': (None, None, 4, 'sendtype', 'sendcount', 'recvtype', 'recvcount', 'sendbuf', 'recvbuf'),
    'Gatherv': ('root', None, 0),
    'Scatterv': ('root', None, 0),
    'Allgatherv': (None, None, 0),
    'Alltoallv': (None, None, 0),
    'Alltoallw': (None, None, 0),
    'Neighbor_allgather': (None, None, 0),
    'Neighbor_allgatherv': (None, None, 0),
    'Neighbor_alltoall': (None, None, 0),
    'Neighbor_alltoallv': (None, None, 0),
    'Neighbor_alltoallw': (None, None, 0),
}
# Other calls that wait on other ranks: told to the watch as CHK_W_OTHER.
OTHER_BLOCKING = re.compile(r'^(Win_fence|Win_wait|Win_complete|Win_start|Win_lock_all|Win_unlock_all|'
                            r'Win_create\w*|Win_allocate\w*|Win_free|Comm_spawn\w*|Comm_accept|'
                            r'Comm_connect|Intercomm_create\w*|Comm_create\w*|Comm_split\w*|Comm_dup\w*|'
                            r'Cart_create|Graph_create|Dist_graph_create\w*|Cart_sub|Intercomm_merge)$')


def wrapper(name, args, coll_ids):
    params = split_params(args)
    call = ', '.join(p[1] for p in params)
    base = name[:-2] if name.endswith('_c') else name
    fn = f'MPI_{name}'
    b = [f'int {fn}({args})', '{', '    const void *ra = CHK_RA();', '    (void)ra;']
    checks = []
    for decl, pname in params:
        m = re.match(r'^(MPI_\w+)\s+(\w+)$', decl)
        if m and m.group(1) in KINDS and base != 'Grequest_complete':
            # (a generalized request may be freed before it is completed)
            checks.append(f'        chk_use({KINDS[m.group(1)]}, {pname}, "{fn}", "{pname}", ra);')
        m = re.match(r'^(MPI_\w+)\s*\*\s*(\w+)$', decl)
        if m and m.group(1) in KINDS and base.endswith('_free'):
            checks.append(f'        chk_use({KINDS[m.group(1)]}, *{pname}, "{fn}", "{pname}", ra);')
    if ALLOWED_OUTSIDE.match(base):
        b.append('    if (chk_state == 1 || chk_sessions > 0) {')
    else:
        b.append(f'    if (!chk_outside("{fn}", ra)) {{')
    b += checks
    b.append('    }')
    # Frees: remember the handle's value before the call nulls it.
    frees = []
    if base.endswith('_free') or base == 'Session_finalize':
        for decl, pname in params:
            m = re.match(r'^(MPI_\w+)\s*\*\s*(\w+)$', decl)
            if m and m.group(1) in KINDS:
                frees.append((KINDS[m.group(1)], pname))
                b.append(f'    int chk_old_{pname} = (int)*{pname};')
                b.append(f'    uint64_t chk_gen_{pname} = chk_gen({KINDS[m.group(1)]}, chk_old_{pname});')
    comm = next((p[1] for p in params if re.match(r'^MPI_Comm\s+\w+$', p[0])), None)
    nb_coll = False
    if base in COLL and comm:
        spec = COLL[base]
        root, op, mode = spec[0], spec[1], spec[2]
        t1, c1, t2, c2, sb, rb = (spec[3:] + (None,) * 6)[:6]
        b.append(f'    chk_coll_check("{fn}", {coll_ids[base]}, ra, {comm}, {root or "-1"}, '
                 f'{op or "MPI_OP_NULL"}, {mode}, {t1 or "MPI_DATATYPE_NULL"}, {c1 or "0"}, '
                 f'{t2 or "MPI_DATATYPE_NULL"}, {c2 or "0"}, {sb or "NULL"}, {rb or "NULL"});')
        b.append(f'    int rc = PMPI_{name}({call});')
        b.append('    chk_coll_leave();')
    elif base.startswith('I') and base[1:2].upper() + base[2:] in COLL and comm:
        # Nonblocking: the same descriptor through a PMPI_Iallreduce, compared when the
        # request is waited for (chk_p2p.c), before the collective itself is waited for.
        key = base[1:2].upper() + base[2:]
        spec = COLL[key]
        root, op, mode = spec[0], spec[1], spec[2]
        t1, c1, t2, c2, sb, rb = (spec[3:] + (None,) * 6)[:6]
        b.append(f'    void *nc = chk_coll_check_nb("{fn}", {coll_ids[key]}, ra, {comm}, {root or "-1"}, '
                 f'{op or "MPI_OP_NULL"}, {mode}, {t1 or "MPI_DATATYPE_NULL"}, {c1 or "0"}, '
                 f'{t2 or "MPI_DATATYPE_NULL"}, {c2 or "0"}, {sb or "NULL"}, {rb or "NULL"});')
        b.append(f'    int rc = PMPI_{name}({call});')
        nb_coll = True
    elif OTHER_BLOCKING.match(base):
        b.append(f'    chk_block_other("{fn}", ra);')
        b.append(f'    int rc = PMPI_{name}({call});')
        b.append('    chk_unblock_other();')
    else:
        b.append(f'    int rc = PMPI_{name}({call});')
    post = []
    for kind, pname in frees:
        post.append(f'        chk_freed_gen({kind}, chk_old_{pname}, chk_gen_{pname}, "{fn}", ra);')
    if base == 'Session_init':
        post.append('        __atomic_add_fetch(&chk_sessions, 1, __ATOMIC_RELAXED);')
        post.append('        chk_watch_threads(true);')
    if base == 'Session_finalize':
        post.append('        __atomic_sub_fetch(&chk_sessions, 1, __ATOMIC_RELAXED);')
    if not NOT_CREATED.match(base):
        for decl, pname in params:
            m = re.match(r'^(MPI_\w+)\s*\*\s*(\w+)$', decl)
            if not m or m.group(1) not in KINDS:
                continue
            kind = KINDS[m.group(1)]
            if kind == 'CHK_K_COMM':
                post.append(f'        chk_comm_new(*{pname}, "{fn}", ra);')
            elif kind == 'CHK_K_REQUEST':
                persistent = 'true' if base.endswith('_init') else 'false'
                post.append(f'        chk_req_other(*{pname}, "{fn}", ra, {comm or "MPI_COMM_NULL"}, '
                            f'{persistent});')
            else:
                post.append(f'        chk_created({kind}, *{pname}, "{fn}", ra);')
    elif re.match(r'^(Type_create_f90_\w+|Type_match_size|Comm_get_parent)$', base):
        for decl, pname in params:
            m = re.match(r'^(MPI_\w+)\s*\*\s*(\w+)$', decl)
            if m and m.group(1) in KINDS:
                post.append(f'        chk_revive({KINDS[m.group(1)]}, *{pname});')
    elif re.match(r'^(\w+_get_errhandler|Errhandler_get)$', base):
        for decl, pname in params:
            if re.match(r'^MPI_Errhandler\s*\*\s*(\w+)$', decl):
                post.append(f'        chk_created(CHK_K_ERRH, *{pname}, "{fn}", ra);')
    elif base == 'Type_get_contents':
        # The derived types it returns are new objects the program frees (MPI 4.1, 5.1.13),
        # often under a handle value the library reuses from a type freed before: recording
        # them keeps a later use from being called a use of the freed one (mpi4py's
        # Datatype.decode). Named types (MPI_FLOAT_INT too) come back as themselves.
        post.append('        MPI_Count ni, na, nl, nd, nd2;')
        post.append('        int comb;')
        post.append('        if (PMPI_Type_get_envelope_c(datatype, &ni, &na, &nl, &nd, &comb) == MPI_SUCCESS)')
        post.append('            for (MPI_Count i = 0; i < nd && i < max_datatypes; i++)')
        post.append('                if (PMPI_Type_get_envelope_c(array_of_datatypes[i], &ni, &na, &nl, &nd2, &comb) == MPI_SUCCESS &&')
        post.append('                    comb != MPI_COMBINER_NAMED)')
        post.append(f'                    chk_created(CHK_K_TYPE, array_of_datatypes[i], "{fn}", ra);')
    elif base.startswith('Comm_idup'):
        post.append(f'        chk_comm_idup(*request, newcomm, {comm}, "{fn}", ra);')
    if nb_coll:
        post.append('        chk_req_coll(*request, nc);')
    if post:
        b.append('    if (rc == MPI_SUCCESS) {')
        b += post
        b.append('    }')
    if nb_coll:
        b.append('    else if (nc)')
        b.append('        chk_coll_nb_done(nc);')
    b.append('    return rc;')
    b.append('}')
    return '\n'.join(b) + '\n'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--functions', required=True)
    ap.add_argument('--src-dir', required=True)
    ap.add_argument('--out', required=True)
    o = ap.parse_args()
    handwritten = handwritten_wrappers(o.src_dir, 'chk_', skip=('chk_gen.c',))
    funcs = read_functions(o.functions, 'gen_check')
    coll_ids = {n: i for i, n in enumerate(COLL)}
    out = ['/* Generated by src/tools/check/gen_check.py: do not edit. */',
           '#include "chk.h"', '#include <stddef.h>', '',
           'const char *const chk_coll_names[] = {' + ', '.join(f'"MPI_{n}"' for n in COLL) + '};',
           f'const int chk_ncoll_names = {len(COLL)};', '']
    n = 0
    for ret, name, args in funcs:
        if ret != 'int' or name in handwritten or NOT_WRAPPED.match(name):
            continue
        out.append(wrapper(name, args, coll_ids))
        n += 1
    text = '\n'.join(out)
    try:
        with open(o.out) as fh:
            if fh.read() == text:
                return
    except FileNotFoundError:
        pass
    with open(o.out, 'w') as fh:
        fh.write(text)
    print(f'gen_check: {n} default wrappers, {len(handwritten)} written by hand')


if __name__ == '__main__':
    main()
