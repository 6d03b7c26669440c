# mpi4py (Debian's, built for Open MPI) on mpcr's libmpi.so.40: pickled
# objects and numpy buffers through point-to-point, bcast, allreduce,
# scatter and gather. Rank 0 prints every line (gathered), so the output
# does not depend on how a launcher interleaves the ranks' output.
from mpi4py import MPI
import numpy as np

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
lines = [f"rank {rank} of {size} thread level {MPI.Query_thread() >= MPI.THREAD_SINGLE}"]
if rank == 0:
    comm.send({"a": 1, "b": [1, 2, 3]}, dest=1, tag=11)
    comm.Send([np.arange(10, dtype="d"), MPI.DOUBLE], dest=1, tag=12)
    req = comm.isend("nonblocking", dest=1, tag=13)
    req.wait()
elif rank == 1:
    obj = comm.recv(source=0, tag=11)
    buf = np.empty(10, dtype="d")
    st = MPI.Status()
    comm.Recv([buf, MPI.DOUBLE], source=MPI.ANY_SOURCE, tag=12, status=st)
    text = comm.irecv(source=0, tag=13).wait()
    lines.append(f"p2p {obj} {buf.sum()} source {st.Get_source()} tag {st.Get_tag()} "
                 f"count {st.Get_count(MPI.DOUBLE)} {text}")
data = comm.bcast({"key": "value", "n": 3} if rank == 0 else None, root=0)
total = comm.allreduce(rank + 1, op=MPI.SUM)
mx = comm.allreduce(np.float64(rank) * 1.5, op=MPI.MAX)
a, r = np.full(4, rank + 1.0), np.empty(4)
comm.Allreduce(a, r, op=MPI.SUM)
part = comm.scatter([i * i for i in range(size)] if rank == 0 else None, root=0)
gathered = comm.gather(part + 1, root=0)
sb = np.arange(size * 3, dtype="i") if rank == 0 else None
rb = np.empty(3, dtype="i")
comm.Scatter(sb, rb, root=0)
gb = np.empty(size * 3, dtype="i") if rank == 0 else None
comm.Gather(rb * 2, gb, root=0)
lines.append(f"coll {rank} {data} {total} {mx} {r.tolist()} {part} {rb.tolist()}")
if rank == 0:
    lines.append(f"root gathered {gathered} {gb.tolist()}")
sub = comm.Split(rank % 2, rank)
lines.append(f"split {rank} {sub.Get_rank()} {sub.Get_size()} {sub.allreduce(rank)}")
sub.Free()
for line in sum(comm.gather(lines, root=0) or [], []):
    print(line, flush=True)
