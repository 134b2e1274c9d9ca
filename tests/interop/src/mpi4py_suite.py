"""Runs mpi4py's own test suite (its test/main.py) in one rank of a Ferry job.

usage: python mpi4py_suite.py TESTDIR OUTDIR [main.py options...]

Each rank writes its whole output to OUTDIR/rank<N>.log (mpi4py's runner prints on every rank,
and interleaved lines could not be told apart); the calling script reads the logs.

One adaptation, and only one: mpi4py's suite treats NotImplementedError as "this MPI does not
have the feature" and skips, but it gets that exception only when the library lacks the symbol.
Ferry exports every function and answers MPI_ERR_UNSUPPORTED_OPERATION for those of its later
issues (one-sided, I/O, dynamic processes). test_subclass.py opens a file while it is imported
and catches NotImplementedError only, so without help the whole module, most of which tests
communicators and requests, would fail to import. While that module is imported (and only
then: File objects must still pickle as mpi4py.MPI.File in test_objmodel.py), MPI.File is a
subclass whose Open turns exactly that error into NotImplementedError; the module then skips its
file tests itself ("mpi-file"). Every other unsupported call is excluded by name in
exclusions.txt, so nothing else is hidden.
"""
import os
import runpy
import sys


def redirect(outdir, rank):
    fd = os.open(os.path.join(outdir, f"rank{rank}.log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    sys.stdout.flush()
    sys.stderr.flush()
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)


def import_with_file_shim(MPI, module):
    base = MPI.File

    class File(base):
        @classmethod
        def Open(cls, *args, **kwargs):
            try:
                return base.Open.__func__(cls, *args, **kwargs)
            except MPI.Exception as exc:
                if exc.Get_error_class() == MPI.ERR_UNSUPPORTED_OPERATION:
                    raise NotImplementedError(str(exc)) from exc
                raise

    File.__name__ = File.__qualname__ = "File"
    File.__module__ = base.__module__
    MPI.File = File
    try:
        __import__(module)
    finally:
        MPI.File = base


def main():
    testdir, outdir = sys.argv[1], sys.argv[2]
    from mpi4py import MPI

    redirect(outdir, MPI.COMM_WORLD.Get_rank())
    sys.path.insert(0, testdir)
    os.chdir(testdir)
    import_with_file_shim(MPI, "test_subclass")
    sys.argv = [os.path.join(testdir, "main.py")] + sys.argv[3:]
    runpy.run_path(sys.argv[0], run_name="__main__")


if __name__ == "__main__":
    main()
