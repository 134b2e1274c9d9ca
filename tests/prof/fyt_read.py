#!/usr/bin/env python3
"""A small reader of the raw trace files (src/common/fy_trace_format.h) for the tests: each
DIR/ferry/rank.R.fyt as a list of records (dicts), a truncated last record ignored, as the
format says readers do.

usage: fyt_read.py DIR            prints per-rank record counts as JSON
       (imported: read_rank(path) -> (records, clean_end, trailing_bytes))
"""
import glob
import json
import os
import struct
import sys

TYPES = {1: 'HEADER', 2: 'NAME', 3: 'COMM', 4: 'SYNC', 5: 'ENTER', 6: 'LEAVE', 7: 'SEND',
         8: 'RECV', 9: 'COLL_BEGIN', 10: 'COLL_END', 11: 'RMA', 12: 'REGION_BEGIN',
         13: 'REGION_END', 14: 'NOTE', 15: 'END'}


def cstr(b):
    return b.split(b'\0', 1)[0].decode('utf-8', 'replace')


def parse(rtype, flags, rid, body):
    r = {'type': TYPES.get(rtype, rtype), 'flags': flags, 'id': rid}
    if rtype == 1:
        magic, ver, rank, size, pid, tpn, epoch = struct.unpack_from('<8sIIIIdQ', body)
        r.update(magic=magic, version=ver, rank=rank, size=size, pid=pid, ticks_per_ns=tpn,
                 epoch=epoch, host=cstr(body[40:104]), program=cstr(body[104:232]))
    elif rtype == 2:
        r['name'] = cstr(body)
    elif rtype == 3:
        uid, size, rsize = struct.unpack_from('<QII', body)
        r.update(uid=uid, size=size, remote_size=rsize,
                 world=list(struct.unpack_from(f'<{size + rsize}i', body, 16)))
    elif rtype == 4:
        r['t'], r['global_ns'], r['error_ns'] = struct.unpack_from('<QqQ', body)
    elif rtype in (5, 6, 12, 13, 15):
        r['t'], = struct.unpack_from('<Q', body)
    elif rtype in (7, 8):
        r['t'], r['peer'], r['tag'], r['comm'], _, r['bytes'] = struct.unpack_from('<QiiIIQ', body)
    elif rtype in (9, 10):
        r['t'], r['comm'], r['root'], r['sent'], r['received'] = struct.unpack_from('<QIiQQ', body)
    elif rtype == 11:
        r['t'], r['target'], r['win'], r['bytes'] = struct.unpack_from('<QiIQ', body)
    elif rtype == 14:
        r['t'], = struct.unpack_from('<Q', body)
        r['text'] = cstr(body[8:])
    return r


def read_rank(path):
    with open(path, 'rb') as fh:
        data = fh.read()
    recs, at = [], 0
    while at + 8 <= len(data):
        rtype, flags, len8, rid = struct.unpack_from('<BBHI', data, at)
        n = len8 * 8
        if n == 0:
            raise ValueError(f'{path}: record of length 0 at {at}')
        if at + n > len(data):
            break
        recs.append(parse(rtype, flags, rid, data[at + 8:at + n]))
        at += n
    if recs and recs[0]['type'] != 'HEADER':
        raise ValueError(f'{path}: first record is not a header')
    clean = bool(recs) and recs[-1]['type'] == 'END'
    return recs, clean, len(data) - at


def read_dir(d):
    out = {}
    for p in sorted(glob.glob(os.path.join(d, 'ferry', 'rank.*.fyt'))):
        rank = int(os.path.basename(p).split('.')[1])
        out[rank] = read_rank(p)
    return out


def main():
    res = {}
    for rank, (recs, clean, trailing) in read_dir(sys.argv[1]).items():
        counts = {}
        for r in recs:
            counts[r['type']] = counts.get(r['type'], 0) + 1
        res[rank] = {'counts': counts, 'clean': clean, 'trailing': trailing}
    json.dump(res, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == '__main__':
    main()
