/* page_colors.c - does the L2 see the guest's physical page colours?
 * Reads /proc/self/pagemap (root), picks pages by physical frame number
 * modulo NCOLORS, and times a random pointer chase through 4 slots (1 KiB
 * apart) of each chosen page. mode 0: every page of one colour; mode 1:
 * colours spread evenly. If the L2 (1 MiB, 8 ways, 32 page colours) were
 * indexed by these frame numbers, more than 8 pages of one colour would
 * overflow its sets and miss.
 * Usage: page_colors NCOLORS MODE NPAGES (bench_cache_colors.py runs it). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/mman.h>
#include <x86intrin.h>
#include <sched.h>
static uint64_t pfn(void *p, int fd) {
    uint64_t v; off_t off = ((uintptr_t)p / 4096) * 8;
    if (pread(fd, &v, 8, off) != 8) return 0;
    return (v >> 63) ? (v & ((1ULL << 55) - 1)) : 0;
}
int main(int argc, char **argv) {
    int ncolors = atoi(argv[1]), mode = atoi(argv[2]), npages = atoi(argv[3]);
    cpu_set_t s; CPU_ZERO(&s); CPU_SET(0, &s); sched_setaffinity(0, sizeof s, &s);
    size_t pool = 512ul << 20;
    char *a = mmap(NULL, pool, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0);
    madvise(a, pool, MADV_NOHUGEPAGE);
    for (size_t i = 0; i < pool; i += 4096) a[i] = 1;
    int fd = open("/proc/self/pagemap", O_RDONLY);
    size_t np = pool / 4096;
    char **chosen = malloc(npages * sizeof *chosen); int n = 0;
    int *count = calloc(ncolors, sizeof *count);
    for (size_t i = 0; i < np && n < npages; i++) {
        uint64_t f = pfn(a + i * 4096, fd);
        int c = f % ncolors;
        if (mode == 0 && c != 0) continue;
        if (mode == 1 && count[c] >= (npages + ncolors - 1) / ncolors) continue;
        count[c]++; chosen[n++] = a + i * 4096;
    }
    if (n < npages) { printf("only %d pages\n", n); return 1; }
    /* slots: 4 per page at 1 KiB; random cyclic order */
    int slots = 4 * n; char **sl = malloc(slots * sizeof *sl);
    for (int i = 0; i < n; i++) for (int k = 0; k < 4; k++) sl[4*i+k] = chosen[i] + 1024*k;
    srand(7); for (int i = slots - 1; i > 0; i--) { int j = rand() % (i + 1); char *t = sl[i]; sl[i] = sl[j]; sl[j] = t; }
    for (int i = 0; i < slots; i++) *(char **)sl[i] = sl[(i + 1) % slots];
    char *p = sl[0]; long steps = 2000000;
    for (long i = 0; i < steps; i++) p = *(char **)p;
    double best = 1e30;
    for (int r = 0; r < 5; r++) {
        uint64_t t0 = __rdtsc();
        for (long i = 0; i < steps; i++) p = *(char **)p;
        uint64_t t1 = __rdtsc();
        double v = (double)(t1 - t0) / steps; if (v < best) best = v;
    }
    printf("%d pages (%d KiB array), mode %d, colors %d: %.1f ticks/access %p\n", n, n * 4, mode, ncolors, best, (void*)p);
    return 0;
}
