! A Fortran program for the tracer tests (use mpi + the perwiz_prgn markers). Counts per rank
! (test_programs.cpp), N steps:
!   MPI_Init 1, MPI_Finalize 1, MPI_Sendrecv N, MPI_Irecv N, MPI_Isend N, MPI_Waitall N,
!   MPI_Allreduce N, MPI_Send r (r > 0), MPI_Recv P(P-1)/2 on rank 0 (MPI_ANY_SOURCE with a
!   status), MPI_Comm_split 1, MPI_Bcast 1, MPI_Reduce 1 (MPI_IN_PLACE at the root),
!   MPI_Comm_free 1, MPI_Barrier 1; markers: N x "PRGN_step" and one unnamed "PRGN".
program calls
  use mpi
  use perwiz_prgn
  implicit none
  integer :: ierr, rank, nranks, nsteps, s, i, next, prev, req(2), sub, subrank, q
  integer :: status(MPI_STATUS_SIZE)
  double precision :: x, y, total
  integer :: v(4)
  character(len=16) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  nsteps = 3
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read(arg, *) nsteps
  end if
  next = mod(rank + 1, nranks)
  prev = mod(rank + nranks - 1, nranks)
  x = rank

  do s = 1, nsteps
    call prgn_begin('step')
    call MPI_Sendrecv(x, 1, MPI_DOUBLE_PRECISION, next, 1, y, 1, MPI_DOUBLE_PRECISION, prev, 1, &
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Irecv(y, 1, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Isend(x, 1, MPI_DOUBLE_PRECISION, next, 2, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitall(2, req, MPI_STATUSES_IGNORE, ierr)
    call MPI_Allreduce(x, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call prgn_end('step')
  end do

  ! Rank r > 0 sends r messages of r integers to rank 0, which takes them with MPI_ANY_SOURCE.
  call prgn_begin()
  if (rank == 0) then
    do i = 1, nranks * (nranks - 1) / 2
      call MPI_Recv(v, 4, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, status, ierr)
      q = status(MPI_SOURCE)
      if (status(MPI_TAG) /= 100 + q) call MPI_Abort(MPI_COMM_WORLD, 5, ierr)
    end do
  else
    do i = 1, rank
      call MPI_Send(v, rank, MPI_INTEGER, 0, 100 + rank, MPI_COMM_WORLD, ierr)
    end do
  end if
  call prgn_end()

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub, ierr)
  call MPI_Comm_rank(sub, subrank, ierr)
  v = rank
  call MPI_Bcast(v, 4, MPI_INTEGER, 0, sub, ierr)
  if (subrank == 0) then
    call MPI_Reduce(MPI_IN_PLACE, v, 4, MPI_INTEGER, MPI_SUM, 0, sub, ierr)
  else
    call MPI_Reduce(v, v, 4, MPI_INTEGER, MPI_SUM, 0, sub, ierr)
  end if
  call MPI_Comm_free(sub, ierr)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  call MPI_Finalize(ierr)
end program calls
