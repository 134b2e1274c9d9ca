#!/usr/bin/env python3
"""Generates the recorder's wrappers (prof_gen.c) and function ids (prof_ids.h) from
src/api/mpi_functions.txt.

Every function of the list gets an id (its line's order, so ids are stable for a given list) and
a name (prof_call_name). Every int-returning MPI_x that the hand-written files (prof_*.c) do not
define gets a wrapper: enter (clock, trace ENTER), the data this kind of call carries (message
sizes and peers, collective root and sizes, one-sided targets, new communicators and windows),
PMPI_x, leave (clock, statistics, trace LEAVE). Not wrapped, so neither counted nor traced:
MPI_Wtime, MPI_Wtick, the MPI_T_ tool interface, the handle conversions (c2f/f2c) and the
address arithmetic (MPI_Aint_add/diff): they are not communication, and they are called often
enough in timing loops that recording them would distort what they measure.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..',
                                'tools', 'gen'))
from gen_api import (handwritten_wrappers, parse_args as split_params,  # noqa: E402
                     read_functions, write_if_changed)

NOT_WRAPPED = re.compile(r'^(T_\w+|\w+_c2f|\w+_f2c|\w+_f082c|\w+_c2f08|\w+_f2f08|\w+_f082f|'
                         r'Pcontrol|Wtime|Wtick|Aint_\w+)$')

# Classes for --trace-calls (p2p, coll, rma) and the view's colours.
P2P = re.compile(r'^(Send|Bsend|Ssend|Rsend|Isend|Ibsend|Issend|Irsend|Recv|Irecv|Send_init|'
                 r'Bsend_init|Ssend_init|Rsend_init|Recv_init|Start|Startall|Sendrecv|'
                 r'Sendrecv_replace|Isendrecv|Isendrecv_replace|Probe|Iprobe|Mprobe|Improbe|'
                 r'Mrecv|Imrecv|Wait|Waitall|Waitany|Waitsome|Test|Testall|Testany|Testsome|'
                 r'Cancel|Request_free|Request_get_status\w*|Psend_init|Precv_init|Pready\w*|'
                 r'Parrived)$')
COLLS = ['Barrier', 'Bcast', 'Reduce', 'Allreduce', 'Scan', 'Exscan', 'Reduce_scatter_block',
         'Reduce_scatter', 'Gather', 'Gatherv', 'Scatter', 'Scatterv', 'Allgather', 'Allgatherv',
         'Alltoall', 'Alltoallv', 'Alltoallw', 'Neighbor_allgather', 'Neighbor_allgatherv',
         'Neighbor_alltoall', 'Neighbor_alltoallv', 'Neighbor_alltoallw', 'Reduce_local']
RMA = re.compile(r'^(Put|Get|Accumulate|Get_accumulate|Rput|Rget|Raccumulate|Rget_accumulate|'
                 r'Fetch_and_op|Compare_and_swap|Win_\w+)$')

# Bytes a rank sends and receives in a collective, as C expressions over the wrapper's
# parameters and pc_ (its communicator), n_ (the peers: the remote group's size on an
# intercommunicator), root_ (this rank is the root), in_/out_ (neighbourhood degrees).
# Arguments that are not significant on a rank are not touched there (a non-root's receive
# type may be anything).
TS = 'prof_tsize'
COLL_BYTES = {
    'Barrier': ('0', '0'),
    'Bcast': (f'root_ ? (uint64_t)count * {TS}(datatype) : 0',
              f'!root_ && root != MPI_PROC_NULL ? (uint64_t)count * {TS}(datatype) : 0'),
    'Reduce': (f'pc_->inter && root_ ? 0 : (uint64_t)count * {TS}(datatype)',
               f'root_ ? (uint64_t)count * {TS}(datatype) : 0'),
    'Allreduce': (f'(uint64_t)count * {TS}(datatype)', f'(uint64_t)count * {TS}(datatype)'),
    'Scan': (f'(uint64_t)count * {TS}(datatype)', f'(uint64_t)count * {TS}(datatype)'),
    'Exscan': (f'(uint64_t)count * {TS}(datatype)', f'(uint64_t)count * {TS}(datatype)'),
    'Reduce_scatter_block': (f'(uint64_t)recvcount * {TS}(datatype) * (uint64_t)n_',
                             f'(uint64_t)recvcount * {TS}(datatype)'),
    'Reduce_scatter': (f'SUM(recvcounts, pc_->size) * {TS}(datatype)',
                       f'(uint64_t)recvcounts[pc_->rank] * {TS}(datatype)'),
    'Gather': (f'root_ && (pc_->inter || sendbuf == MPI_IN_PLACE) ? 0 : root != MPI_PROC_NULL ? (uint64_t)sendcount * {TS}(sendtype) : 0',
               f'root_ ? (uint64_t)recvcount * {TS}(recvtype) * (uint64_t)n_ : 0'),
    'Gatherv': (f'root_ && (pc_->inter || sendbuf == MPI_IN_PLACE) ? 0 : root != MPI_PROC_NULL ? (uint64_t)sendcount * {TS}(sendtype) : 0',
                f'root_ ? SUM(recvcounts, n_) * {TS}(recvtype) : 0'),
    'Scatter': (f'root_ ? (uint64_t)sendcount * {TS}(sendtype) * (uint64_t)n_ : 0',
                f'root_ && (pc_->inter || recvbuf == MPI_IN_PLACE) ? 0 : root != MPI_PROC_NULL ? (uint64_t)recvcount * {TS}(recvtype) : 0'),
    'Scatterv': (f'root_ ? SUM(sendcounts, n_) * {TS}(sendtype) : 0',
                 f'root_ && (pc_->inter || recvbuf == MPI_IN_PLACE) ? 0 : root != MPI_PROC_NULL ? (uint64_t)recvcount * {TS}(recvtype) : 0'),
    'Allgather': (f'sendbuf == MPI_IN_PLACE ? (uint64_t)recvcount * {TS}(recvtype) : (uint64_t)sendcount * {TS}(sendtype)',
                  f'(uint64_t)recvcount * {TS}(recvtype) * (uint64_t)n_'),
    'Allgatherv': (f'sendbuf == MPI_IN_PLACE ? 0 : (uint64_t)sendcount * {TS}(sendtype)',
                   f'SUM(recvcounts, n_) * {TS}(recvtype)'),
    'Alltoall': (f'sendbuf == MPI_IN_PLACE ? (uint64_t)recvcount * {TS}(recvtype) * (uint64_t)n_ : (uint64_t)sendcount * {TS}(sendtype) * (uint64_t)n_',
                 f'(uint64_t)recvcount * {TS}(recvtype) * (uint64_t)n_'),
    'Alltoallv': (f'sendbuf == MPI_IN_PLACE ? SUM(recvcounts, n_) * {TS}(recvtype) : SUM(sendcounts, n_) * {TS}(sendtype)',
                  f'SUM(recvcounts, n_) * {TS}(recvtype)'),
    'Alltoallw': ('sendbuf == MPI_IN_PLACE ? WSUM(recvcounts, recvtypes, n_) : WSUM(sendcounts, sendtypes, n_)',
                  'WSUM(recvcounts, recvtypes, n_)'),
    'Neighbor_allgather': (f'(uint64_t)sendcount * {TS}(sendtype) * (uint64_t)out_',
                           f'(uint64_t)recvcount * {TS}(recvtype) * (uint64_t)in_'),
    'Neighbor_allgatherv': (f'(uint64_t)sendcount * {TS}(sendtype) * (uint64_t)out_',
                            f'SUM(recvcounts, in_) * {TS}(recvtype)'),
    'Neighbor_alltoall': (f'(uint64_t)sendcount * {TS}(sendtype) * (uint64_t)out_',
                          f'(uint64_t)recvcount * {TS}(recvtype) * (uint64_t)in_'),
    'Neighbor_alltoallv': (f'SUM(sendcounts, out_) * {TS}(sendtype)',
                           f'SUM(recvcounts, in_) * {TS}(recvtype)'),
    'Neighbor_alltoallw': ('WSUM(sendcounts, sendtypes, out_)', 'WSUM(recvcounts, recvtypes, in_)'),
}

SEND = re.compile(r'^(Send|Bsend|Ssend|Rsend|Isend|Ibsend|Issend|Irsend)$')
PSEND = re.compile(r'^(Send|Bsend|Ssend|Rsend)_init$')
RMA_OPS = {
    'Put': '(uint64_t)origin_count * prof_tsize(origin_datatype)',
    'Get': '(uint64_t)origin_count * prof_tsize(origin_datatype)',
    'Accumulate': '(uint64_t)origin_count * prof_tsize(origin_datatype)',
    'Get_accumulate': '(uint64_t)origin_count * prof_tsize(origin_datatype) + (uint64_t)result_count * prof_tsize(result_datatype)',
    'Fetch_and_op': 'prof_tsize(datatype)',
    'Compare_and_swap': 'prof_tsize(datatype)',
}
# New communicators whose members all call the creating function (so they can agree on an id,
# prof_comm.c); the others (a spawned job's, a connection's) get one known to this rank only.
LOCAL_COMM = re.compile(r'^(Comm_spawn\w*|Comm_accept|Comm_connect|Comm_join|Comm_get_parent|'
                        r'Comm_idup\w*)$')
NOT_NEW_COMM = re.compile(r'^(Comm_get_parent|Comm_idup\w*|Comm_free|Comm_disconnect|'
                          r'\w+_get_errhandler|Comm_set_errhandler)$')


def unI(base, table):
    """The blocking collective of a nonblocking one (Iallreduce -> Allreduce), else base."""
    if base.startswith('I') and len(base) > 2 and base[1].upper() + base[2:] in table:
        return base[1].upper() + base[2:]
    return base


def klass(base):
    b2 = unI(base, COLLS)
    b2 = b2[:-5] if b2.endswith('_init') and b2[:-5] in COLLS else b2
    if b2 in COLLS:
        return 'PROF_CLASS_COLL'
    if P2P.match(base):
        return 'PROF_CLASS_P2P'
    if RMA.match(base):
        return 'PROF_CLASS_RMA'
    return 'PROF_CLASS_OTHER'


def wrapper(name, args):
    params = split_params(args)
    names = {p[1] for p in params}
    call = ', '.join(p[1] for p in params)
    big = name.endswith('_c')
    base = name[:-2] if big else name
    sumf = 'prof_sum_c' if big else 'prof_sum_i'
    wsumf = 'prof_wsum_c' if big else 'prof_wsum_i'
    pre, post, decl = [], [], []
    # Point-to-point.
    # A send's bookkeeping (its communicator, the matrix, the trace record, stamped with the
    # entry time) is done after the PMPI call: the message is on its way by then, so in a
    # ping-pong that work overlaps the peer's receive instead of delaying the message.
    if SEND.match(base):
        nb = '1' if base.startswith('I') else '0'
        post.append(f'    prof_send(&f, count, datatype, dest, tag, comm, {nb});')
    elif PSEND.match(base):
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_req_psend(*request, count, datatype, dest, tag, comm);')
    elif base == 'Recv':
        decl.append('    MPI_Status st_;')
        decl.append('    if (status == MPI_STATUS_IGNORE)')
        decl.append('        status = &st_;')
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_recv(&f, status, f.rec ? prof_comm_get(comm) : NULL, 0);')
    elif base == 'Irecv':
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_req_recv(*request, prof_comm_get(comm), f.id, 0);')
    elif base == 'Recv_init':
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_req_recv(*request, prof_comm_get(comm), f.id, 1);')
    elif base in ('Sendrecv', 'Sendrecv_replace'):
        cnt, typ = ('sendcount', 'sendtype') if base == 'Sendrecv' else ('count', 'datatype')
        decl.append('    MPI_Status st_;')
        decl.append('    if (status == MPI_STATUS_IGNORE)')
        decl.append('        status = &st_;')
        post.append(f'    prof_send(&f, {cnt}, {typ}, dest, sendtag, comm, 0);')
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_recv(&f, status, f.rec ? prof_comm_get(comm) : NULL, 0);')
    elif base in ('Isendrecv', 'Isendrecv_replace'):
        cnt, typ = ('sendcount', 'sendtype') if base == 'Isendrecv' else ('count', 'datatype')
        post.append(f'    prof_send(&f, {cnt}, {typ}, dest, sendtag, comm, 1);')
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_req_recv(*request, prof_comm_get(comm), f.id, 0);')
    elif base in ('Mprobe', 'Improbe'):
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_msg_track(*message, comm);')
    elif base == 'Mrecv':
        decl.append('    MPI_Status st_;')
        decl.append('    if (status == MPI_STATUS_IGNORE)')
        decl.append('        status = &st_;')
        decl.append('    prof_comm_t *mc_ = prof_msg_take(*message);')
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_recv(&f, status, mc_, 0);')
    elif base == 'Imrecv':
        decl.append('    prof_comm_t *mc_ = prof_msg_take(*message);')
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_req_recv(*request, mc_, f.id, 0);')
    # Collectives: blocking and nonblocking (begin and end inside the call that starts them).
    cbase = unI(base, COLL_BYTES)
    if cbase in COLL_BYTES and 'comm' in names:
        sent, recvd = COLL_BYTES[cbase]
        sent = sent.replace('SUM(', f'{sumf}(').replace('W' + sumf, wsumf)
        recvd = recvd.replace('SUM(', f'{sumf}(').replace('W' + sumf, wsumf)
        decl.append('    prof_comm_t *pc_ = NULL;')
        pre.append('    uint64_t sent_ = 0, recvd_ = 0;')
        pre.append('    if (f.t0) {')
        pre.append('        pc_ = prof_comm_get(comm);')
        pre.append('        int n_ = pc_->inter ? pc_->rsize : pc_->size;')
        if 'root' in names:
            pre.append('        int root_ = pc_->inter ? root == MPI_ROOT : root == pc_->rank;')
        else:
            pre.append('        const int root_ = 0;')
        if cbase.startswith('Neighbor'):
            pre.append('        int in_ = 0, out_ = 0;')
            pre.append('        prof_neighbors(comm, &in_, &out_);')
            pre.append('        (void)in_, (void)out_;')
        pre.append('        (void)n_, (void)root_;')
        pre.append(f'        sent_ = {sent};')
        pre.append(f'        recvd_ = {recvd};')
        rootw = 'prof_root_world(pc_, root)' if 'root' in names else '-1'
        blocking = '0' if base != cbase else '1'
        pre.append(f'        prof_coll_begin(&f, pc_, {rootw}, sent_, recvd_, {blocking});')
        pre.append('    }')
        post.append('    if (pc_)')
        post.append('        prof_coll_end(&f, pc_, sent_, recvd_);')
    # One-sided.
    rbase = {'Rput': 'Put', 'Rget': 'Get', 'Raccumulate': 'Accumulate',
             'Rget_accumulate': 'Get_accumulate'}.get(base, base)
    if rbase in RMA_OPS:
        pre.append(f'    if (f.t0)')
        pre.append(f'        prof_rma(&f, win, target_rank, {RMA_OPS[rbase]});')
    if re.match(r'^Win_(create|allocate)\w*$', base) and 'win' in names and 'errhandler' not in base and 'keyval' not in base:
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_win_new(*win);')
    if base == 'Win_free':
        decl.append('    MPI_Win old_ = *win;')
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_win_free(old_);')
    # New communicators.
    if not NOT_NEW_COMM.match(base):
        for p, pname in params:
            if re.match(r'^MPI_Comm\s*\*\s*\w+$', p):
                coll = '0' if LOCAL_COMM.match(base) else '1'
                post.append('    if (rc == MPI_SUCCESS)')
                post.append(f'        prof_comm_new(*{pname}, {coll});')
    if base in ('Comm_free', 'Comm_disconnect'):
        decl.append('    MPI_Comm old_ = *comm;')
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_comm_free(old_);')
    if base.startswith('Comm_idup'):
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_comm_idup(comm, newcomm, *request);')
    if base == 'Comm_get_parent':
        post.append('    if (rc == MPI_SUCCESS)')
        post.append('        prof_comm_new(*parent, 0);')
    b = [f'int MPI_{name}({args})', '{', '    prof_frame_t f;']
    b += decl
    b.append(f'    prof_enter(&f, PROF_ID_{name}, PROF_RA());')
    b += pre
    b.append(f'    int rc = PMPI_{name}({call});')
    b.append('    prof_now(&f);')
    b += post
    b.append('    prof_leave(&f);')
    b.append('    return rc;')
    b.append('}')
    return '\n'.join(b) + '\n'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--functions', required=True)
    ap.add_argument('--src-dir', required=True)
    ap.add_argument('--out', required=True)
    ap.add_argument('--out-ids', required=True)
    o = ap.parse_args()
    handwritten = handwritten_wrappers(o.src_dir, 'prof_')
    funcs = read_functions(o.functions, 'gen_prof')
    ids = ['/* Generated by src/tools/prof/gen_prof.py: do not edit. */',
           '#ifndef PROF_IDS_H', '#define PROF_IDS_H', '', 'enum prof_id {']
    for i, (_, name, _) in enumerate(funcs):
        ids.append(f'    PROF_ID_{name} = {i},')
    ids += ['    PROF_NFUNCS', '};', '', '#endif', '']
    write_if_changed(o.out_ids, '\n'.join(ids))
    out = ['/* Generated by src/tools/prof/gen_prof.py: do not edit. */',
           '#include "prof.h"', '',
           'const char *const prof_names[PROF_NFUNCS] = {']
    out += [f'    "MPI_{name}",' for _, name, _ in funcs]
    out += ['};', '', 'const uint8_t prof_class[PROF_NFUNCS] = {']
    out += [f'    {klass(name[:-2] if name.endswith("_c") else name)},' for _, name, _ in funcs]
    out += ['};', '']
    n = 0
    for ret, name, args in funcs:
        if ret != 'int' or name in handwritten or NOT_WRAPPED.match(name):
            continue
        out.append(wrapper(name, args))
        n += 1
    write_if_changed(o.out, '\n'.join(out))
    print(f'gen_prof: {len(funcs)} ids, {n} generated wrappers, {len(handwritten)} written by hand')


if __name__ == '__main__':
    main()
