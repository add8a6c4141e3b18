/* numa_ref.c - the plain C peer of hpcbench's numa kernel (benchmarks/bench_numa.py):
 * read bandwidth of some cores together and load latency of the first of them, over one
 * buffer bound to one NUMA node with mbind(2), nothing from hpcbench.
 *
 *   numa_ref BUFFER_BYTES REPS NODE CPUS ACCESSES [WINDOW_BYTES]
 *
 * The buffer is mapped with base pages (MADV_NOHUGEPAGE, as hpcbench's "normal" pages),
 * bound to NODE with MPOL_BIND and MPOL_MF_STRICT before it is touched, then written.
 * Read: one pinned thread per CPU of the list CPUS (e.g. 0,1) reads its slice once per
 * repetition (eight 64-bit accumulators, plain C); a barrier starts every repetition and
 * the rate of a repetition is all threads' bytes over the first start to the last end.
 * Latency: the first CPU links every 64-byte line of the buffer into one cycle, random
 * within WINDOW_BYTES windows (default 128 KiB), the windows in random order, walks it
 * once, then times REPS samples of ACCESSES dependent loads (p = *p).
 * Prints "read BEST MEDIAN" (bytes/s) and "latency MIN MEDIAN" (ns per load); the sums
 * and the chase's end are checked (exit 1 if wrong). Build: cc -O2 -std=gnu11
 * -fno-strict-aliasing -pthread -o numa_ref numa_ref.c (benchmarks/build_peers.py). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define LINE 64
#define MAX_THREADS 1024
#define MPOL_BIND_MODE 2          /* MPOL_BIND of <linux/mempolicy.h> */
#define MPOL_MF_STRICT_FLAG 1     /* MPOL_MF_STRICT */

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct shared {
    uint64_t *data;
    size_t slice_words, reps, threads;
    int cpus[MAX_THREADS];
    pthread_barrier_t barrier;
    double *start, *end;     /* threads x reps */
    int bad;
};

struct member {
    struct shared *s;
    size_t index;
};

static void read_slice(const uint64_t *p, size_t words, uint64_t sum[8])
{
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (size_t i = 0; i < words; i += 8) {
        s0 += p[i]; s1 += p[i + 1]; s2 += p[i + 2]; s3 += p[i + 3];
        s4 += p[i + 4]; s5 += p[i + 5]; s6 += p[i + 6]; s7 += p[i + 7];
    }
    sum[0] = s0; sum[1] = s1; sum[2] = s2; sum[3] = s3; sum[4] = s4; sum[5] = s5; sum[6] = s6; sum[7] = s7;
}

static void *reader(void *arg)
{
    struct member *m = arg;
    struct shared *s = m->s;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(s->cpus[m->index], &set);
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0)
        s->bad = 1;
    const uint64_t *p = s->data + m->index * s->slice_words;
    uint64_t expected[8], got[8];
    read_slice(p, s->slice_words, expected);   /* untimed: the sums to check, and a warm-up */
    for (size_t r = 0; r < s->reps; r++) {
        pthread_barrier_wait(&s->barrier);
        uint64_t t0 = now_ns();
        read_slice(p, s->slice_words, got);
        uint64_t t1 = now_ns();
        __asm__ __volatile__("" ::: "memory");
        if (memcmp(got, expected, sizeof got) != 0)
            s->bad = 1;
        s->start[m->index * s->reps + r] = (double)t0;
        s->end[m->index * s->reps + r] = (double)t1;
    }
    return NULL;
}

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static void shuffle(size_t *v, size_t n, uint64_t *state)
{
    for (size_t i = n; i > 1; i--) {
        size_t j = (size_t)(next_random(state) % i);
        size_t t = v[i - 1]; v[i - 1] = v[j]; v[j] = t;
    }
}

/* The visiting order: windows in random order, lines random within each; line 0 first. */
static size_t *visit_order(size_t slots, size_t window_slots)
{
    size_t windows = (slots + window_slots - 1) / window_slots;
    size_t *order = malloc(slots * sizeof *order), *w = malloc(windows * sizeof *w);
    if (order == NULL || w == NULL)
        exit(1);
    uint64_t state = 0x9E3779B97F4A7C15ull;
    for (size_t i = 0; i < windows; i++)
        w[i] = i;
    shuffle(w + 1, windows - 1, &state);
    size_t at = 0;
    for (size_t k = 0; k < windows; k++) {
        size_t first = w[k] * window_slots, n = slots - first < window_slots ? slots - first : window_slots;
        for (size_t i = 0; i < n; i++)
            order[at + i] = first + i;
        shuffle(order + at + (k == 0), n - (k == 0), &state);
        at += n;
    }
    free(w);
    return order;
}

static void *chase(void *p, size_t steps)
{
    void **q = p;
    while (steps--)
        q = *q;
    return q;
}

static int parse_cpus(const char *text, int *cpus)
{
    int n = 0;
    for (const char *p = text; *p && n < MAX_THREADS; p++) {
        cpus[n++] = atoi(p);
        while (*p && *p != ',')
            p++;
        if (!*p)
            break;
    }
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 6) {
        fprintf(stderr, "usage: numa_ref BUFFER_BYTES REPS NODE CPUS ACCESSES [WINDOW_BYTES]\n");
        return 2;
    }
    size_t bytes = strtoull(argv[1], NULL, 10), reps = strtoull(argv[2], NULL, 10);
    unsigned node = (unsigned)atoi(argv[3]);
    size_t accesses = strtoull(argv[5], NULL, 10), window = argc > 6 ? strtoull(argv[6], NULL, 10) : 128 << 10;
    struct shared s = {.reps = reps};
    s.threads = (size_t)parse_cpus(argv[4], s.cpus);
    if (reps < 1 || s.threads < 1 || node >= 64 || window < LINE || accesses < 1 ||
        bytes < 2 * LINE * s.threads || bytes % (LINE * s.threads)) {
        fprintf(stderr, "numa_ref: bad arguments\n");
        return 2;
    }
    void *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    unsigned long mask = 1ul << node;
    if (buf == MAP_FAILED || madvise(buf, bytes, MADV_NOHUGEPAGE) != 0 ||
        syscall(SYS_mbind, buf, bytes, MPOL_BIND_MODE, &mask, 64, MPOL_MF_STRICT_FLAG) != 0) {
        fprintf(stderr, "numa_ref: map or bind failed: %s\n", strerror(errno));
        return 1;
    }
    s.data = buf;
    for (size_t i = 0; i < bytes / 8; i++)
        s.data[i] = (uint64_t)i * 0x9E3779B97F4A7C15ull + 1;

    s.slice_words = bytes / s.threads / 8;
    s.start = malloc(s.threads * reps * sizeof(double));
    s.end = malloc(s.threads * reps * sizeof(double));
    pthread_t tid[MAX_THREADS];
    struct member members[MAX_THREADS];
    pthread_barrier_init(&s.barrier, NULL, (unsigned)s.threads);
    for (size_t t = 0; t < s.threads; t++) {
        members[t] = (struct member){&s, t};
        pthread_create(&tid[t], NULL, reader, &members[t]);
    }
    for (size_t t = 0; t < s.threads; t++)
        pthread_join(tid[t], NULL);
    double *rate = malloc(reps * sizeof *rate), best = 0;
    for (size_t r = 0; r < reps; r++) {
        double first = s.start[r], last = s.end[r];
        for (size_t t = 1; t < s.threads; t++) {
            first = s.start[t * reps + r] < first ? s.start[t * reps + r] : first;
            last = s.end[t * reps + r] > last ? s.end[t * reps + r] : last;
        }
        rate[r] = (double)(s.slice_words * 8 * s.threads) / ((last - first) * 1e-9);
        best = rate[r] > best ? rate[r] : best;
    }
    printf("read %.6e %.6e\n", best, median(rate, reps));

    /* Latency, on the first CPU. */
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(s.cpus[0], &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0)
        return 1;
    size_t slots = bytes / LINE, *order = visit_order(slots, window / LINE);
    char *base = buf;
    for (size_t i = 0; i < slots; i++)
        *(void **)(base + order[i] * LINE) = base + order[(i + 1) % slots] * LINE;
    if (chase(base, slots) != (void *)base)
        s.bad = 1;
    double *ns = malloc(reps * sizeof *ns), lowest = 1e300;
    void *at = base;
    for (size_t j = 0; j < reps; j++) {
        uint64_t t0 = now_ns();
        at = chase(at, accesses);
        uint64_t t1 = now_ns();
        ns[j] = (double)(t1 - t0) / (double)accesses;
        lowest = ns[j] < lowest ? ns[j] : lowest;
    }
    if (at != base + order[(reps * accesses) % slots] * LINE)
        s.bad = 1;
    printf("latency %.4f %.4f\n", lowest, median(ns, reps));
    if (s.bad)
        fprintf(stderr, "numa_ref: a check failed (sums, pinning or the chase's end)\n");
    return s.bad;
}
