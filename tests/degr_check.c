/* Compiled and run by test_degr_capi.py and test_degr_grammar.py against
 * libhpcbdegr.
 *
 *   degr_check FILE|- DIST NPROCS
 *       what the C API returns, one line per call
 *   degr_check --dump [--locale]
 *       reads paths from stdin, one a line; for each prints "load RC" and,
 *       when RC is 0, "ratDist N V1 .. VN" and "ratNC N V1 .. VN" with every
 *       value as the 16 hex digits of its IEEE 754 bits. --locale first sets
 *       the locale from the environment (setlocale(LC_ALL, "")) and prints
 *       "decimal_point C", to show that reading does not depend on it. */
#include <inttypes.h>
#include <locale.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hpcb_degr.h"

static void print_table(const char *name, const double *values, int count)
{
    printf("%s %d", name, count);
    for (int i = 0; i < count; i++) {
        uint64_t bits;
        memcpy(&bits, &values[i], sizeof bits);
        printf(" %016" PRIx64, bits);
    }
    printf("\n");
}

static int dump(void)
{
    char path[8192];
    while (fgets(path, sizeof path, stdin) != NULL) {
        size_t n = strlen(path);
        if (n == 0 || path[n - 1] != '\n')
            return 2;               /* a path this long is not one the tests make */
        path[n - 1] = '\0';
        hpcb_degr_desc d;
        int rc = hpcb_load_degr_info(&d, path);
        printf("load %d\n", rc);
        if (rc == HPCB_DEGR_OK) {
            print_table("ratDist", d.rat_dist, d.ndist);
            print_table("ratNC", d.rat_nc, d.nnc);
        }
        hpcb_release_degr_info(&d);
    }
    return ferror(stdin) ? 2 : 0;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--dump") == 0) {
        if (argc == 3 && strcmp(argv[2], "--locale") == 0) {
            if (setlocale(LC_ALL, "") == NULL)
                return 3;
            printf("decimal_point %s\n", localeconv()->decimal_point);
        } else if (argc != 2) {
            return 2;
        }
        return dump();
    }
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
