! PerWiz parallel-region markers for Fortran (the counterpart of perwiz/prgn.h):
!
!   use perwiz_prgn
!   call prgn_begin()            ! ... one step of the parallel region ...   call prgn_end()
!   call prgn_begin('stage')     ! region "PRGN_stage"                       call prgn_end('stage')
!
! Levels 7301/7302 as in C; they are no-ops without the tracer (prgn_marker.c). Link with
! -lperwiz-prgn-f (this module's library); the tracer itself is linked or LD_PRELOADed as for
! C programs. Under Open MPI plain MPI works too: call MPI_PCONTROL(7301) ... (7302).
module perwiz_prgn
  use, intrinsic :: iso_c_binding, only: c_int, c_char
  implicit none
  private
  public :: prgn_begin, prgn_end, prgn_begin_named, prgn_end_named

  integer(c_int), parameter :: PRGN_BEGIN_LEVEL = 7301_c_int
  integer(c_int), parameter :: PRGN_END_LEVEL = 7302_c_int

  interface
    subroutine perwiz_prgn_marker(level, name, length) bind(C, name="perwiz_prgn_marker")
      import :: c_int, c_char
      integer(c_int), value :: level
      character(kind=c_char), dimension(*), intent(in) :: name
      integer(c_int), value :: length
    end subroutine
  end interface

contains

  subroutine prgn_begin(name)
    character(len=*), intent(in), optional :: name
    call marker(PRGN_BEGIN_LEVEL, name)
  end subroutine

  subroutine prgn_end(name)
    character(len=*), intent(in), optional :: name
    call marker(PRGN_END_LEVEL, name)
  end subroutine

  subroutine prgn_begin_named(name)
    character(len=*), intent(in) :: name
    call marker(PRGN_BEGIN_LEVEL, name)
  end subroutine

  subroutine prgn_end_named(name)
    character(len=*), intent(in) :: name
    call marker(PRGN_END_LEVEL, name)
  end subroutine

  subroutine marker(level, name)
    integer(c_int), intent(in) :: level
    character(len=*), intent(in), optional :: name
    if (present(name)) then
      call perwiz_prgn_marker(level, name, int(len(name), c_int))
    else
      call perwiz_prgn_marker(level, ' ', 0_c_int)
    end if
  end subroutine

end module perwiz_prgn
