# A correct mpi4py program: its objects live until the interpreter exits, after MPI_Finalize
# (mpi4py finalizes at exit). No leak report by default; FERRY_CHECK=leak reports them.
from mpi4py import MPI
t = MPI.INT.Create_contiguous(2).Commit()   # alive until exit: mpi4py never frees it
info = MPI.Info.Create()
print("ok", MPI.COMM_WORLD.Get_rank())
