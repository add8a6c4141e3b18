! hpcb_params.f90 - the Fortran interface of hpcbench's parameters API
! (hpcb_params.h), through ISO_C_BINDING. Compile this file with your code
! and link libhpcbdegr:
!
!   gfortran -c $(python -m hpcbench config --cflags) \
!       $(python -m hpcbench config --cflags | sed 's/^-I//')/hpcb_params.f90
!   gfortran app.f90 hpcb_params.o $(python -m hpcbench config --libs)
!
!   use hpcb_params
!   type(hpcb_params_t) :: p
!   character(len=256) :: why
!   if (hpcb_load(p, "run.params", why) /= HPCB_PARAMS_OK) stop trim(why)
!   print *, hpcb_params_cache_size(p%desc, 2_c_int)       ! bytes of L2
!   print *, hpcb_params_layer_of(p%desc, 0_c_int, 1_c_int) ! layer of ranks 0 and 1
!   call hpcb_release(p)
!
! The C functions are bound one to one, with the descriptor passed as
! p%desc (a C struct of pointers the Fortran side never looks into);
! hpcb_load and hpcb_release wrap hpcb_load_params and hpcb_release_params
! with Fortran strings. Positions in lists are 1-based, as in C; PUs and
! ranks are numbered from 0, as hwloc and MPI number them.
module hpcb_params
    use, intrinsic :: iso_c_binding, only: c_int, c_long_long, c_double, c_char, c_size_t, c_null_char, c_ptr
    implicit none
    private

    integer(c_int), parameter, public :: HPCB_PARAMS_OK = 0, HPCB_PARAMS_ENOFILE = -1, &
        HPCB_PARAMS_EFORMAT = -2, HPCB_PARAMS_ERANGE = -3, HPCB_PARAMS_ENOMEM = -4, HPCB_PARAMS_EINVAL = -5

    ! The layout of hpcb_params (hpcb_params.h): counts and pointers, in order.
    type, bind(c), public :: hpcb_params_desc
        integer(c_int) :: ncaches
        type(c_ptr) :: caches
        integer(c_int) :: nshared
        type(c_ptr) :: shared
        real(c_double) :: memory_reference
        integer(c_int) :: nmemory
        type(c_ptr) :: memory
        integer(c_int) :: nranks
        type(c_ptr) :: ranks
        integer(c_int) :: nlayers
        type(c_ptr) :: layers
        integer(c_int) :: ndist
        type(c_ptr) :: rat_dist
        integer(c_int) :: nnc
        type(c_ptr) :: rat_nc
    end type

    type, public :: hpcb_params_t
        type(hpcb_params_desc) :: desc
    end type

    public :: hpcb_load, hpcb_release
    public :: hpcb_params_cache_levels, hpcb_params_cache_size
    public :: hpcb_params_shared_groups, hpcb_params_shared_group, hpcb_params_share_cache
    public :: hpcb_params_memory_reference, hpcb_params_memory_levels, hpcb_params_memory_bandwidth, &
        hpcb_params_memory_relative, hpcb_params_memory_groups, hpcb_params_memory_group, hpcb_params_memory_level_of
    public :: hpcb_params_ranks, hpcb_params_rank_node, hpcb_params_layers, hpcb_params_layer_latency, &
        hpcb_params_layer_bandwidth, hpcb_params_layer_pairs, hpcb_params_layer_of
    public :: hpcb_params_dist_count, hpcb_params_access_count, hpcb_params_dist_ratio, hpcb_params_access_ratio

    interface
        integer(c_int) function c_load(p, path, message, size) bind(c, name="hpcb_load_params")
            import :: hpcb_params_desc, c_int, c_char, c_size_t
            type(hpcb_params_desc), intent(out) :: p
            character(kind=c_char), intent(in) :: path(*)
            character(kind=c_char), intent(out) :: message(*)
            integer(c_size_t), value :: size
        end function
        subroutine c_release(p) bind(c, name="hpcb_release_params")
            import :: hpcb_params_desc
            type(hpcb_params_desc), intent(inout) :: p
        end subroutine
        integer(c_int) function hpcb_params_cache_levels(p) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
        end function
        integer(c_long_long) function hpcb_params_cache_size(p, level) bind(c)
            import :: hpcb_params_desc, c_int, c_long_long
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: level
        end function
        integer(c_int) function hpcb_params_shared_groups(p, level) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: level
        end function
        integer(c_int) function hpcb_params_shared_group(p, level, group, pus, capacity) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: level, group, capacity
            integer(c_int), intent(out) :: pus(*)
        end function
        integer(c_int) function hpcb_params_share_cache(p, level, pu_a, pu_b) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: level, pu_a, pu_b
        end function
        real(c_double) function hpcb_params_memory_reference(p) bind(c)
            import :: hpcb_params_desc, c_double
            type(hpcb_params_desc), intent(in) :: p
        end function
        integer(c_int) function hpcb_params_memory_levels(p) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
        end function
        real(c_double) function hpcb_params_memory_bandwidth(p, level) bind(c)
            import :: hpcb_params_desc, c_int, c_double
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: level
        end function
        real(c_double) function hpcb_params_memory_relative(p, level) bind(c)
            import :: hpcb_params_desc, c_int, c_double
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: level
        end function
        integer(c_int) function hpcb_params_memory_groups(p, level) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: level
        end function
        integer(c_int) function hpcb_params_memory_group(p, level, group, pus, capacity) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: level, group, capacity
            integer(c_int), intent(out) :: pus(*)
        end function
        integer(c_int) function hpcb_params_memory_level_of(p, pu_a, pu_b) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: pu_a, pu_b
        end function
        integer(c_int) function hpcb_params_ranks(p) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
        end function
        integer(c_int) function hpcb_params_rank_node(p, rank) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: rank
        end function
        integer(c_int) function hpcb_params_layers(p) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
        end function
        real(c_double) function hpcb_params_layer_latency(p, layer) bind(c)
            import :: hpcb_params_desc, c_int, c_double
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: layer
        end function
        real(c_double) function hpcb_params_layer_bandwidth(p, layer) bind(c)
            import :: hpcb_params_desc, c_int, c_double
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: layer
        end function
        integer(c_int) function hpcb_params_layer_pairs(p, layer) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: layer
        end function
        integer(c_int) function hpcb_params_layer_of(p, rank_a, rank_b) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: rank_a, rank_b
        end function
        integer(c_int) function hpcb_params_dist_count(p) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
        end function
        integer(c_int) function hpcb_params_access_count(p) bind(c)
            import :: hpcb_params_desc, c_int
            type(hpcb_params_desc), intent(in) :: p
        end function
        real(c_double) function hpcb_params_dist_ratio(p, dist) bind(c)
            import :: hpcb_params_desc, c_int, c_double
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: dist
        end function
        real(c_double) function hpcb_params_access_ratio(p, nprocs_per_node) bind(c)
            import :: hpcb_params_desc, c_int, c_double
            type(hpcb_params_desc), intent(in) :: p
            integer(c_int), value :: nprocs_per_node
        end function
    end interface

contains

    ! Load `path` into p; on failure `message` (if given) holds one line
    ! naming the line of the file and the broken rule.
    integer(c_int) function hpcb_load(p, path, message) result(status)
        type(hpcb_params_t), intent(out) :: p
        character(len=*), intent(in) :: path
        character(len=*), intent(out), optional :: message
        character(kind=c_char) :: buffer(512)
        integer :: i
        buffer = c_null_char
        status = c_load(p%desc, trim(path) // c_null_char, buffer, int(size(buffer), c_size_t))
        if (present(message)) then
            message = ""
            do i = 1, min(len(message), size(buffer))
                if (buffer(i) == c_null_char) exit
                message(i:i) = buffer(i)
            end do
        end if
    end function

    subroutine hpcb_release(p)
        type(hpcb_params_t), intent(inout) :: p
        call c_release(p%desc)
    end subroutine
end module hpcb_params
