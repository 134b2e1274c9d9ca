"""The examples gallery (GET /api/examples): programs written for the portal, in
tools/portal/examples/, each a single C file that runs as it is, with what the page shows
before the user runs it."""

from pathlib import Path

DIR = Path(__file__).resolve().parent.parent / "examples"
# cpi is the repository's own examples/cpi.c, kept once: installed beside the others
# (tools/ferry/CMakeLists.txt), read from the source tree's examples/ when run from it.
SHARED = DIR.parent.parent.parent / "examples"


def _source(ident):
    for d in (DIR, SHARED):
        p = d / f"{ident}.c"
        if p.is_file():
            return p.read_text(encoding="utf-8")
    raise FileNotFoundError(f"the example {ident}.c is in neither {DIR} nor {SHARED}")

# id, title, description, default ranks, default arguments (a list of strings)
GALLERY = [
    ("cpi", "Computing π",
     "Integrates 4/(1+x²) over [0,1]: the intervals are dealt round-robin to the ranks and "
     "the partial sums reduced to rank 0 (MPI_Bcast, MPI_Reduce).", 4, []),
    ("ring", "A token around a ring",
     "Each rank receives a token from its left neighbour, adds its number and passes it on; "
     "one output line per rank and lap (MPI_Send, MPI_Recv).", 4, ["3"]),
    ("matmul", "Matrix multiply",
     "C = A B by blocks of rows: scatter A, broadcast B, gather C, check the result; writes "
     "the row sums to matmul.csv (MPI_Scatter, MPI_Bcast, MPI_Gather).", 4, ["400"]),
    ("taskfarm", "Task farm",
     "Rank 0 hands out tasks (count primes in a range) to workers as they become free; "
     "farm.csv says which worker did which task (MPI_ANY_SOURCE, tags).", 4, ["40", "50000"]),
    ("gauss", "Gaussian elimination",
     "Solves A x = b with partial pivoting, rows dealt cyclically; iterative refinement "
     "writes the residual after each step to gauss.csv (MPI_Allreduce with MPI_MAXLOC).",
     4, ["300", "3"]),
    ("nbody", "N-body",
     "Stars of a rotating disc under gravity, leapfrog steps; energy per step in nbody.csv, "
     "final positions drawn in nbody.svg, coloured by owning rank (MPI_Allgatherv).",
     4, ["400", "200"]),
]


def gallery():
    """[{id, title, description, source, ranks, args}], in the gallery's order."""
    out = []
    for ident, title, desc, ranks, args in GALLERY:
        out.append({"id": ident, "title": title, "description": desc,
                    "source": _source(ident),
                    "ranks": ranks, "args": list(args)})
    return out
