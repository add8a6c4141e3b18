! Compiled by test_params_capi.py with hpcbench/include/hpcb_params.f90 and
! linked against libhpcbdegr: loads the file named on the command line
! through the Fortran module and prints what an autotuner would ask, one
! "name value" a line (doubles with 17 significant digits).
program params_check
    use, intrinsic :: iso_c_binding, only: c_int, c_long_long
    use hpcb_params
    implicit none
    type(hpcb_params_t) :: p
    character(len=4096) :: path
    character(len=256) :: why
    integer(c_int) :: rc, i, g, n, groups
    integer(c_int) :: pus(64)

    call get_command_argument(1, path)
    rc = hpcb_load(p, path, why)
    print '(a, i0)', 'load ', rc
    if (rc /= HPCB_PARAMS_OK) then
        print '(a, a)', 'message ', trim(why)
        stop
    end if
    do i = 1, hpcb_params_cache_levels(p%desc)
        print '(a, i0, a, i0)', 'cache ', i, ' ', hpcb_params_cache_size(p%desc, i)
    end do
    do i = 1, 4
        groups = hpcb_params_shared_groups(p%desc, i)
        do g = 1, groups
            n = hpcb_params_shared_group(p%desc, i, g, pus, int(size(pus), c_int))
            print '(a, i0, a, i0, a, 64(1x, i0))', 'shared ', i, ' ', g, ':', pus(1:min(n, 64))
        end do
    end do
    if (hpcb_params_memory_levels(p%desc) > 0) then
        print '(a, es24.17)', 'memory ', hpcb_params_memory_reference(p%desc)
    end if
    do i = 1, hpcb_params_memory_levels(p%desc)
        print '(a, i0, 2(1x, es24.17))', 'overhead ', i, hpcb_params_memory_bandwidth(p%desc, i), &
            hpcb_params_memory_relative(p%desc, i)
    end do
    do i = 1, hpcb_params_layers(p%desc)
        print '(a, i0, 1x, es24.17, 1x, es24.17, 1x, i0)', 'layer ', i, hpcb_params_layer_latency(p%desc, i), &
            hpcb_params_layer_bandwidth(p%desc, i), hpcb_params_layer_pairs(p%desc, i)
    end do
    if (hpcb_params_ranks(p%desc) >= 2) then
        print '(a, i0)', 'layer_of_0_1 ', hpcb_params_layer_of(p%desc, 0_c_int, 1_c_int)
    end if
    do i = 1, hpcb_params_dist_count(p%desc)
        print '(a, i0, 1x, es24.17)', 'ratDist ', i, hpcb_params_dist_ratio(p%desc, i)
    end do
    do i = 1, hpcb_params_access_count(p%desc)
        print '(a, i0, 1x, es24.17)', 'ratNC ', i, hpcb_params_access_ratio(p%desc, i)
    end do
    print '(a, i0)', 'out_of_range ', hpcb_params_cache_size(p%desc, 99_c_int)
    call hpcb_release(p)
    print '(a, i0)', 'released ', hpcb_params_layers(p%desc)
end program
