"""Run under mpiexec at 2 ranks with mpi4py's wheel loading the library under test.

Checks the library's identity, a pickled-object exchange (comm.send/recv), a buffer
exchange of bytearrays (Send/Recv, with a Status), Sendrecv, and an Allreduce of an
array.array('d'). Rank 0 prints "library: <first line>" and "No Errors".
"""
import array
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank = comm.Get_rank()
size = comm.Get_size()
errors = []


def check(cond, what):
    if not cond:
        errors.append(what)
        print(f"rank {rank}: check failed: {what}", file=sys.stderr, flush=True)


check(size == 2, f"COMM_WORLD has {size} ranks, expected 2")
peer = 1 - rank

# Pickled objects.
obj = {"from": rank, "items": [rank, "x" * (rank + 1), (1.5, None)], "blob": bytes(range(rank, rank + 50))}
if rank == 0:
    comm.send(obj, dest=peer, tag=11)
    got = comm.recv(source=peer, tag=12)
else:
    got = comm.recv(source=peer, tag=11)
    comm.send(obj, dest=peer, tag=12)
want = {"from": peer, "items": [peer, "x" * (peer + 1), (1.5, None)], "blob": bytes(range(peer, peer + 50))}
check(got == want, f"pickled exchange got {got!r}")

# A large pickled object (more than any eager limit).
big = list(range(200000)) if rank == 0 else None
big = comm.bcast(big, root=0)
check(len(big) == 200000 and big[-1] == 199999, "bcast of a large list")

# Raw buffers.
out = bytearray((rank * 7 + i) % 256 for i in range(1000))
inb = bytearray(1000)
status = MPI.Status()
if rank == 0:
    comm.Send([out, MPI.BYTE], dest=peer, tag=21)
    comm.Recv([inb, MPI.BYTE], source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=status)
else:
    comm.Recv([inb, MPI.BYTE], source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=status)
    comm.Send([out, MPI.BYTE], dest=peer, tag=21)
check(inb == bytearray((peer * 7 + i) % 256 for i in range(1000)), "Send/Recv bytearray contents")
check(status.Get_source() == peer and status.Get_tag() == 21, f"status source {status.Get_source()} tag {status.Get_tag()}")
check(status.Get_count(MPI.BYTE) == 1000, f"status count {status.Get_count(MPI.BYTE)}")

sbuf = bytearray(b"rank%d" % rank)
rbuf = bytearray(len(sbuf))
comm.Sendrecv(sbuf, dest=peer, sendtag=31, recvbuf=rbuf, source=peer, recvtag=31)
check(rbuf == bytearray(b"rank%d" % peer), f"Sendrecv got {bytes(rbuf)!r}")

# Allreduce of doubles.
a = array.array("d", [rank + 0.5, 2.0 * rank, -1.0, 1e10])
r = array.array("d", [0.0] * 4)
comm.Allreduce([a, MPI.DOUBLE], [r, MPI.DOUBLE], op=MPI.SUM)
check(list(r) == [2.0, 2.0, -2.0, 2e10], f"Allreduce SUM gave {list(r)}")
comm.Allreduce(MPI.IN_PLACE, [a, MPI.DOUBLE], op=MPI.MAX)
check(list(a) == [1.5, 2.0, -1.0, 1e10], f"Allreduce IN_PLACE MAX gave {list(a)}")

nerr = comm.allreduce(len(errors), op=MPI.SUM)
if rank == 0:
    print("library:", MPI.Get_library_version().splitlines()[0], flush=True)
    print("No Errors" if nerr == 0 else f"Found {nerr} errors", flush=True)
sys.exit(0 if nerr == 0 else 1)
