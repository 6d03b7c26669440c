# Tests of collectives (included by tests/CMakeLists.txt; mpi_test, mpi_program are defined there).

# Every collective against the native run: v forms, IN_PLACE, zero counts, _c
# forms, long and short Allreduce, user ops commutative or not, collectives
# back to back (their sequence numbers keep them apart).
mpi_program(t_coll_more mpi/coll_more.c)
mpi_test(mpi.coll_more 2 t_coll_more)
mpi_test(mpi.coll_more3 3 t_coll_more)
mpi_test(mpi.coll_more4 4 t_coll_more)
# Every predefined op on every type family, MINLOC/MAXLOC pairs, refused ops.
mpi_program(t_coll_ops mpi/coll_ops.c)
mpi_test(mpi.coll_ops 2 t_coll_ops)
mpi_test(mpi.coll_ops3 3 t_coll_ops)
