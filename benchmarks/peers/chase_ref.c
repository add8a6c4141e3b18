/* chase_ref.c - the simplest thing that measures load latency: a plain
 * random pointer chase through every 64-byte line of one buffer. A peer for
 * benchmarks/bench_cache.py, independent of hpcbench's code.
 *
 * Usage: chase_ref CPU HUGE SIZE [SIZE ...]
 *   CPU: the CPU to pin to; HUGE: 1 to madvise(MADV_HUGEPAGE) the buffer,
 *   0 for base pages; SIZE: bytes (a multiple of 64).
 * With WINDOW=BYTES in the environment the cycle is random within windows
 * of that many bytes, the windows in random order (hpcbench's "windowed"
 * order, which keeps a chase over base pages from missing the TLB on
 * almost every load); without it, one uniformly random cycle.
 * For each size: one buffer (2 MiB aligned, and whole 2 MiB pages long so
 * that huge pages can back it), written in address order, the lines of its
 * first SIZE bytes linked into one uniformly random cycle; at least 4 traversals and
 * 2^22 loads per timing, best of 5 timings. Prints "SIZE ticks ns" per line
 * (TSC ticks and nanoseconds per load). */
#define _GNU_SOURCE
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t state = 0x2545F4914F6CDD1Dull;
static uint64_t next(void) { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state; }
static double now_ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1e9 + t.tv_nsec; }

int main(int argc, char **argv)
{
    if (argc < 4) { fprintf(stderr, "usage: chase_ref CPU HUGE SIZE...\n"); return 2; }
    cpu_set_t set; CPU_ZERO(&set); CPU_SET(atoi(argv[1]), &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) { perror("sched_setaffinity"); return 1; }
    int huge = atoi(argv[2]);
    for (int a = 3; a < argc; a++) {
        size_t size = strtoull(argv[a], NULL, 10) / 64 * 64, lines = size / 64, align = 2u << 20;
        size_t mapped = (size + align - 1) / align * align;
        if (lines < 2) { fprintf(stderr, "size too small: %s\n", argv[a]); return 2; }
        char *raw = mmap(NULL, mapped + align, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw == MAP_FAILED) { perror("mmap"); return 1; }
        char *buf = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
        madvise(buf, mapped, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
        memset(buf, 0, mapped);
        size_t *order = malloc(lines * sizeof *order);
        for (size_t i = 0; i < lines; i++) order[i] = i;
        const char *w = getenv("WINDOW");
        size_t win = w ? strtoull(w, NULL, 10) / 64 : 0;
        if (win >= 2 && win < lines) {
            /* Shuffle the lines inside each window, then the windows. */
            size_t nwin = (lines + win - 1) / win;
            for (size_t b = 0; b < lines; b += win) {
                size_t n = lines - b < win ? lines - b : win;
                for (size_t i = n - 1; i > 0; i--) { size_t k = next() % (i + 1); size_t t = order[b + i]; order[b + i] = order[b + k]; order[b + k] = t; }
            }
            size_t *wins = malloc(nwin * sizeof *wins), *out = malloc(lines * sizeof *out), o = 0;
            for (size_t i = 0; i < nwin; i++) wins[i] = i;
            for (size_t i = nwin - 1; i > 0; i--) { size_t k = next() % (i + 1); size_t t = wins[i]; wins[i] = wins[k]; wins[k] = t; }
            for (size_t i = 0; i < nwin; i++)
                for (size_t j = wins[i] * win; j < lines && j < (wins[i] + 1) * win; j++) out[o++] = order[j];
            free(order); free(wins); order = out;
        } else {
            for (size_t i = lines - 1; i > 1; i--) { size_t k = 1 + next() % i; size_t t = order[i]; order[i] = order[k]; order[k] = t; }
        }
        for (size_t i = 0; i < lines; i++) *(void **)(buf + order[i] * 64) = buf + order[(i + 1) % lines] * 64;
        size_t loads = lines * 4 > ((size_t)1 << 22) ? lines * 4 : ((size_t)1 << 22);
        double best_ticks = 1e300, best_ns = 1e300;
        void **p = (void **)buf;
        for (size_t i = 0; i < lines; i++) p = *p;       /* warm up */
        for (int r = 0; r < 5; r++) {
            double n0 = now_ns(); uint64_t t0 = __rdtsc();
            for (size_t i = 0; i < loads; i++) p = *p;
            uint64_t t1 = __rdtsc(); double n1 = now_ns();
            __asm__ volatile("" : : "r"(p));
            if ((double)(t1 - t0) / loads < best_ticks) { best_ticks = (double)(t1 - t0) / loads; best_ns = (n1 - n0) / loads; }
        }
        printf("%zu %.4f %.4f\n", size, best_ticks, best_ns);
        fflush(stdout);
        free(order);
        munmap(raw, mapped + align);
    }
    return 0;
}
