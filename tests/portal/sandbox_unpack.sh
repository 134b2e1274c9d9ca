#!/bin/bash
# timeout: 120
# Uploads unpacked by tools/portal/ferry_portal/unpack.py, through JobManager.submit: a tar
# and a zip with an input file are accepted (the job reads its input and writes an output
# that is listed and found by file_path); refused with a message naming the member: an
# absolute path, `..`, a symlink, a hard link, a fifo, a device (tar), a zip symlink, too
# many members, and a bomb: a gzip tar of one 1 GB member of zeros made here by streaming
# (about 1 MB compressed, never stored whole), stopped at the unpacked-size cap while
# writing. Nothing is left under the state dir by a refused upload. file_path refuses
# traversal and links.
exec python3 - <<'PY'
import io, os, sys, tarfile, zipfile, gzip, asyncio
sys.path.insert(0, os.path.join(os.environ["FY_SRC"], "tests", "portal"))
from runner_driver import *

PROG = r'''
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv)
{
    int rank, n = 0;
    char word[64];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        FILE *in = fopen("data/input.txt", "r"), *out = fopen("result.csv", "w");
        if (!out) return 1;
        while (in && fscanf(in, "%63s", word) == 1) n++;
        fprintf(out, "words\n%d\n", n);
        if (in) fclose(in);
        fclose(out);
        printf("counted %d\n", n);
    }
    MPI_Finalize();
    return 0;
}
'''

def tar_of(members, mode="w:gz"):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode=mode) as t:
        for info, data in members:
            t.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()

def reg(name, data):
    i = tarfile.TarInfo(name)
    i.size = len(data)
    return i, data

def special(name, kind, target=""):
    i = tarfile.TarInfo(name)
    i.type = kind
    i.linkname = target
    return i, None

def zip_of(entries):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data, mode in entries:
            zi = zipfile.ZipInfo(name)
            if mode:
                zi.external_attr = mode << 16
            z.writestr(zi, data)
    return buf.getvalue()

class Zeros(io.RawIOBase):
    def __init__(self, n): self.left = n
    def readable(self): return True
    def readinto(self, b):
        k = min(len(b), self.left)
        b[:k] = bytes(k)
        self.left -= k
        return k

def bomb():
    """A .tar.gz of one member of 1 GB of zeros, streamed through gzip."""
    raw = io.BytesIO()
    with gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1) as gz:
        with tarfile.open(fileobj=gz, mode="w|") as t:
            i = tarfile.TarInfo("zeros.bin")
            i.size = 1 << 30
            t.addfile(i, io.BufferedReader(Zeros(1 << 30), 1 << 20))
    return raw.getvalue()

async def main(m):
    src = PROG.encode()
    good_tar = tar_of([reg("prog/main.c", src), reg("prog/data/input.txt", b"one two three")])
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2, main="prog/main.c"),
                                        upload=("job.tar.gz", good_tar)))
    check(rec["state"] == "done" and any(e["type"] == "out" and e["text"] == "counted 0"
                                         for e in evs), "main in a subdirectory ran", rec)
    good_tar = tar_of([reg("main.c", src), reg("data/input.txt", b"one two three")])
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=2), upload=("job.tgz", good_tar)))
    check(rec["state"] == "done" and any(e["type"] == "out" and e["text"] == "counted 3"
                                         for e in evs), "tgz upload: the input was read", rec)
    check({"path": "result.csv", "size": 8, "kind": "csv"} in rec["files"],
          "the output file is listed", rec["files"])
    p = m.file_path(rec["id"], "result.csv")
    check(p is not None and p.read_text() == "words\n3\n", "file_path finds the output")
    for bad in ("../portal.db", "/etc/passwd", "main.c/../../x", "", "data/../../../etc"):
        check(m.file_path(rec["id"], bad) is None, f"file_path refuses {bad!r}")
    os.symlink("/etc/passwd", m.state_dir / "jobs" / rec["id"] / "work" / "link")
    check(m.file_path(rec["id"], "link") is None, "file_path refuses a symlink")
    rec, evs = await finish(m, m.submit(1, JobSpec(ranks=1), upload=(
        "job.zip", zip_of([("main.c", src, 0o100644), ("data/input.txt", b"a b", 0)]))))
    check(rec["state"] == "done" and any(e["type"] == "out" and e["text"] == "counted 2"
                                         for e in evs), "zip upload", rec)

    cases = [
        ("absolute path", "x.tar", tar_of([reg("/etc/evil.c", b"x")], "w"), "absolute"),
        ("dot-dot", "x.tgz", tar_of([reg("main.c", src), reg("a/../../evil", b"x")]), "'..'"),
        ("symlink", "x.tgz", tar_of([reg("main.c", src), special("l", tarfile.SYMTYPE, "/etc/passwd")]), "links"),
        ("hard link", "x.tgz", tar_of([reg("main.c", src), special("h", tarfile.LNKTYPE, "main.c")]), "links"),
        ("fifo", "x.tgz", tar_of([reg("main.c", src), special("f", tarfile.FIFOTYPE)]), "fifo"),
        ("device", "x.tgz", tar_of([reg("main.c", src), special("d", tarfile.CHRTYPE)]), "device"),
        ("zip symlink", "x.zip", zip_of([("main.c", src, 0o100644), ("l", b"/etc/passwd", 0o120777)]), "links"),
        ("zip dot-dot", "x.zip", zip_of([("../main.c", src, 0o100644)]), "'..'"),
        ("members", "x.tgz", tar_of([reg(f"f{i}.txt", b"") for i in range(40)]), "more than 30 members"),
        ("not an archive", "x.tgz", b"this is not gzip", "not a readable tar"),
        ("other file", "x.exe", b"MZ", ".c file"),
    ]
    before = set(os.listdir(m.state_dir / "jobs"))
    for what, name, data, words in cases:
        try:
            m.submit(1, JobSpec(ranks=1), upload=(name, data))
            check(False, f"{what}: refused")
        except JobError as e:
            check(e.field == "upload" and words in e.message, f"{what}: refused: {e.message}")
    data = bomb()
    print(f"bomb: {len(data)} bytes compressed, 1 GiB unpacked")
    try:
        m.submit(1, JobSpec(ranks=1), upload=("bomb.tar.gz", data))
        check(False, "bomb refused")
    except JobError as e:
        check("zeros.bin" in e.message and "limit" in e.message, f"bomb refused: {e.message}")
    check(set(os.listdir(m.state_dir / "jobs")) == before, "refused uploads leave nothing")

run(main, limits={"max_members": 30, "max_unpacked": 8 << 20})
PY
