/* Compiled and run by test_degr_capi.py against libhpcbdegr: prints what the
 * C API returns, one line per call. Usage: degr_check FILE|- DIST NPROCS */
#include <stdio.h>
#include <stdlib.h>

#include "hpcb_degr.h"

int main(int argc, char **argv)
{
    if (argc != 4)
        return 2;
    hpcb_degr_desc d;
    int rc = hpcb_load_degr_info(&d, argv[1][0] == '-' ? NULL : argv[1]);
    printf("load %d %s\n", rc, hpcb_degr_strerror(rc));
    printf("dist %.6f\n", hpcb_get_network_dist_ratio(&d, atoi(argv[2])));
    printf("access %.6f\n", hpcb_get_network_access_ratio(&d, atoi(argv[3])));
    printf("null %.6f\n", hpcb_get_network_dist_ratio(NULL, 1));
    hpcb_release_degr_info(&d);
    hpcb_release_degr_info(&d);   /* twice is harmless */
    printf("released %.6f\n", hpcb_get_network_dist_ratio(&d, 1));
    return 0;
}
