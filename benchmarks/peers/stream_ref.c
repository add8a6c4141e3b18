/* stream_ref.c - a plain C STREAM loop, the peer of hpcbench's `stream`
 * (benchmarks/bench_stream.py). Written for hpcbench from the facts of
 * STREAM's method, not copied from it:
 *
 *   Copy c = a, Scale b = s*c, Add c = a + b, Triad a = b + s*c, in that
 *   order, per repetition; bytes counted as STREAM counts them (16 per
 *   element for Copy and Scale, 24 for Add and Triad); the best repetition
 *   reported.
 *
 * One POSIX thread per PU given, pinned to it; each thread allocates its own
 * three arrays and touches them first (local pages), as STREAM's OpenMP
 * loops place them. Every kernel starts after a barrier; each thread reads
 * the clock (CLOCK_MONOTONIC) right before and after its part, and a
 * repetition's rate is all threads' bytes over the first start to the last
 * end, the span hpcbench counts. The loops are plain C, compiled as
 * hpcbench's kernels are (-O2): whatever the compiler makes of them is what
 * STREAM compiled plainly measures.
 *
 *   stream_ref ARRAY_BYTES REPETITIONS PU[,PU...] [COPY]
 *
 * COPY (default loop) chooses Copy's code, to find what moves fewer bytes:
 *   loop    the plain loop above (GCC may turn it into a call to memcpy)
 *   lines   per 64-byte line with an empty asm between lines (as
 *           hpcbench's memory benchmark writes it: vectorised, no memcpy)
 *   memcpy  one call to the C library's memcpy
 *   movsb   rep movsb (x86-64)
 *   nt      SSE2 non-temporal stores, movntpd (x86-64)
 * Prints one line per kernel: name, best and median rate in bytes/s.
 * Exit status 2 with one line on bad input. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#define KERNELS 4
#define MAX_THREADS 1024

static const char *const names[KERNELS] = {"copy", "scale", "add", "triad"};
static const double counted[KERNELS] = {2, 2, 3, 3};   /* arrays touched per element */

struct shared {
    size_t n, reps;
    int copy_kind;
    pthread_barrier_t barrier;
    double *start, *end;   /* [thread][rep][kernel] ns */
};

struct worker {
    struct shared *s;
    int pu;
    size_t id;
    int failed;
};

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void copy_kernel(double *restrict c, const double *restrict a, size_t n, int kind)
{
    switch (kind) {
    case 0:
        for (size_t j = 0; j < n; j++)
            c[j] = a[j];
        break;
    case 1:
        for (size_t i = 0; i < n; i += 8) {
            for (size_t j = i; j < i + 8; j++)
                c[j] = a[j];
            __asm__ __volatile__("" : : "r"(c) : "memory");
        }
        break;
    case 2:
        memcpy(c, a, n * sizeof(double));
        break;
#if defined(__x86_64__)
    case 3: {
        void *d = c;
        const void *src = a;
        size_t bytes = n * sizeof(double);
        __asm__ __volatile__("rep movsb" : "+D"(d), "+S"(src), "+c"(bytes) : : "memory");
        break;
    }
    case 4:
        for (size_t j = 0; j < n; j += 2)
            _mm_stream_pd(c + j, _mm_load_pd(a + j));
        _mm_sfence();
        break;
#endif
    default:
        break;
    }
}

static void *work(void *arg)
{
    struct worker *w = arg;
    struct shared *s = w->s;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->pu, &set);
    double *a = NULL, *b = NULL, *c = NULL;
    size_t bytes = s->n * sizeof(double);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0 || posix_memalign((void **)&a, 64, bytes) ||
        posix_memalign((void **)&b, 64, bytes) || posix_memalign((void **)&c, 64, bytes))
        w->failed = 1;
    const double q = 3.0;
    for (size_t j = 0; !w->failed && j < s->n; j++) {
        a[j] = 1.0;
        b[j] = 2.0;
        c[j] = 0.0;
    }
    for (size_t r = 0; r <= s->reps; r++) {   /* round 0 is the untimed warm-up */
        for (int k = 0; k < KERNELS; k++) {
            pthread_barrier_wait(&s->barrier);
            if (w->failed)
                continue;
            double t0 = now_ns();
            switch (k) {
            case 0: copy_kernel(c, a, s->n, s->copy_kind); break;
            case 1: for (size_t j = 0; j < s->n; j++) b[j] = q * c[j]; break;
            case 2: for (size_t j = 0; j < s->n; j++) c[j] = a[j] + b[j]; break;
            default: for (size_t j = 0; j < s->n; j++) a[j] = b[j] + q * c[j]; break;
            }
            double t1 = now_ns();
            if (r > 0) {
                size_t at = (w->id * s->reps + r - 1) * KERNELS + (size_t)k;
                s->start[at] = t0;
                s->end[at] = t1;
            }
        }
    }
    /* STREAM's own check, shortened: every value grew alike, so a[0] == a[n-1]. */
    if (!w->failed && (a[0] != a[s->n - 1] || b[0] != b[s->n - 1] || c[0] != c[s->n - 1]))
        w->failed = 2;
    free(a);
    free(b);
    free(c);
    return NULL;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

static int usage(const char *what)
{
    fprintf(stderr, "stream_ref: %s (usage: stream_ref ARRAY_BYTES REPETITIONS PU[,PU...] "
            "[loop|lines|memcpy|movsb|nt])\n", what);
    return 2;
}

static int parse_pus(const char *text, int *pus, size_t *count)
{
    *count = 0;
    for (const char *p = text; *p;) {
        char *end;
        errno = 0;
        long v = strtol(p, &end, 10);
        if (end == p || errno || v < 0 || v >= CPU_SETSIZE || *count == MAX_THREADS)
            return -1;
        pus[(*count)++] = (int)v;
        p = *end == ',' ? end + 1 : end;
        if (*end && *end != ',')
            return -1;
    }
    return *count > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    static const char *const kinds[] = {"loop", "lines", "memcpy", "movsb", "nt"};
    static int pus[MAX_THREADS];
    struct shared s = {0};
    size_t threads;
    if (argc < 4 || argc > 5)
        return usage("wrong number of arguments");
    unsigned long long bytes = strtoull(argv[1], NULL, 10);
    s.reps = strtoull(argv[2], NULL, 10);
    if (bytes == 0 || bytes % 64 != 0)
        return usage("ARRAY_BYTES must be a positive multiple of 64");
    if (s.reps == 0 || s.reps > 100000)
        return usage("REPETITIONS must be 1..100000");
    if (parse_pus(argv[3], pus, &threads) != 0)
        return usage("PUs must be a comma-separated list of CPU numbers");
    s.copy_kind = -1;
    for (int k = 0; k < 5; k++)
        if (strcmp(argc == 5 ? argv[4] : "loop", kinds[k]) == 0)
            s.copy_kind = k;
#if !defined(__x86_64__)
    if (s.copy_kind >= 3)
        s.copy_kind = -1;
#endif
    if (s.copy_kind < 0)
        return usage("COPY must be loop, lines, memcpy, movsb or nt (the last two on x86-64)");
    s.n = bytes / sizeof(double);
    s.start = calloc(threads * s.reps * KERNELS, sizeof(double));
    s.end = calloc(threads * s.reps * KERNELS, sizeof(double));
    pthread_t tid[MAX_THREADS];
    static struct worker w[MAX_THREADS];
    if (!s.start || !s.end || pthread_barrier_init(&s.barrier, NULL, (unsigned)threads) != 0)
        return usage("out of memory");
    for (size_t t = 0; t < threads; t++) {
        w[t] = (struct worker){&s, pus[t], t, 0};
        if (pthread_create(&tid[t], NULL, work, &w[t]) != 0)
            return usage("cannot create a thread");
    }
    int failed = 0;
    for (size_t t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        failed |= w[t].failed;
    }
    if (failed)
        return usage(failed & 1 ? "a thread could not pin itself or allocate" : "the arrays failed the check");
    double *rate = malloc(s.reps * sizeof(double));
    for (int k = 0; k < KERNELS && rate; k++) {
        for (size_t r = 0; r < s.reps; r++) {
            double first = 1e300, last = 0;
            for (size_t t = 0; t < threads; t++) {
                size_t at = (t * s.reps + r) * KERNELS + (size_t)k;
                first = s.start[at] < first ? s.start[at] : first;
                last = s.end[at] > last ? s.end[at] : last;
            }
            rate[r] = (double)threads * counted[k] * (double)bytes / ((last - first) * 1e-9);
        }
        qsort(rate, s.reps, sizeof(double), cmp_double);
        printf("%s %.6e %.6e\n", names[k], rate[s.reps - 1], rate[s.reps / 2]);
    }
    free(rate);
    free(s.start);
    free(s.end);
    return 0;
}
