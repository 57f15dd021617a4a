! A `use mpi_f08` program for the tracer tests. Per rank (test_programs.cpp): MPI_Init 1,
! MPI_Finalize 1, MPI_Irecv 1 (MPI_ANY_SOURCE), MPI_Isend 1, MPI_Waitall 1, MPI_Allreduce 1
! (MPI_IN_PLACE), MPI_Barrier 1; markers: one "PRGN" step.
program calls_f08
  use mpi_f08
  use perwiz_prgn
  implicit none
  integer :: rank, nranks, v, w
  type(MPI_Request) :: req(2)
  type(MPI_Status) :: st(2)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  v = rank
  call prgn_begin()
  call MPI_Irecv(w, 1, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, req(1))
  call MPI_Isend(v, 1, MPI_INTEGER, mod(rank + 1, nranks), 40 + rank, MPI_COMM_WORLD, req(2))
  call MPI_Waitall(2, req, st)
  if (st(1)%MPI_SOURCE /= mod(rank + nranks - 1, nranks)) call MPI_Abort(MPI_COMM_WORLD, 7)
  call MPI_Allreduce(MPI_IN_PLACE, v, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call prgn_end()
  ! sum of 0..P-1: MPI_IN_PLACE was passed through as the sentinel, not as a buffer
  if (v /= nranks * (nranks - 1) / 2) call MPI_Abort(MPI_COMM_WORLD, 8)
  call MPI_Barrier(MPI_COMM_WORLD)
  call MPI_Finalize()
end program calls_f08
