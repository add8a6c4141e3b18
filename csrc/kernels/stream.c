/* stream.c - STREAM's four kernels on a team of pinned threads; see stream.h. */
#include "stream.h"

#include <math.h>
#include <stdio.h>

#include "../runtime/memory.h"
#include "../runtime/phase.h"
#include "../runtime/timer.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HPCB_X86 1
#endif

/* Every loop handles one 64-byte line (8 doubles) per iteration. */
#define LINE_DOUBLES 8
#define LARGEST_ARRAY ((size_t)1 << 40)

static const char *const isa_names[] = {HPCB_ISAS(HPCB_ENUM_NAME)};
static const char *const store_names[] = {HPCB_STREAM_STORES(HPCB_ENUM_NAME)};

/* ---- the loops ------------------------------------------------------------ */

/* The four kernels of one instruction set and store kind. */
struct stream_loops {
    void (*copy)(double *restrict c, const double *restrict a, size_t n);
    void (*scale)(double *restrict b, const double *restrict c, double s, size_t n);
    void (*add)(double *restrict c, const double *restrict a, const double *restrict b, size_t n);
    void (*triad)(double *restrict a, const double *restrict b, const double *restrict c, double s, size_t n);
};

#ifndef HPCB_X86
/* Plain C: any CPU. The empty asm after each line keeps the compiler from
 * vectorising (ISA_SCALAR promises 8-byte accesses) or calling memcpy. */
#define LINE_LOOP(body)                                              \
    for (size_t i = 0; i < n; i += LINE_DOUBLES) {                   \
        for (size_t j = i; j < i + LINE_DOUBLES; j++)                \
            body;                                                    \
        __asm__ __volatile__("" : : "r"(i) : "memory");              \
    }

static void copy_plain(double *restrict c, const double *restrict a, size_t n) { LINE_LOOP(c[j] = a[j]) }
static void scale_plain(double *restrict b, const double *restrict c, double s, size_t n) { LINE_LOOP(b[j] = s * c[j]) }
static void add_plain(double *restrict c, const double *restrict a, const double *restrict b, size_t n)
{
    LINE_LOOP(c[j] = a[j] + b[j])
}
static void triad_plain(double *restrict a, const double *restrict b, const double *restrict c, double s, size_t n)
{
    LINE_LOOP(a[j] = b[j] + s * c[j])
}
#endif

#ifdef HPCB_X86
/* The four kernels of one vector width W (doubles) and store instruction,
 * named <kernel>_<SUFFIX>; arrays are 64-byte aligned (page-aligned regions). */
#define VECTOR_LOOPS(SUFFIX, TARGET, V, W, LOAD, STORE, MUL, ADD, SET1)                                        \
    __attribute__((target(TARGET))) static void copy_##SUFFIX(double *restrict c, const double *restrict a,     \
                                                              size_t n)                                        \
    {                                                                                                          \
        for (size_t i = 0; i < n; i += LINE_DOUBLES)                                                           \
            for (size_t j = i; j < i + LINE_DOUBLES; j += W)                                                   \
                STORE(c + j, LOAD(a + j));                                                                     \
    }                                                                                                          \
    __attribute__((target(TARGET))) static void scale_##SUFFIX(double *restrict b, const double *restrict c,    \
                                                               double s, size_t n)                             \
    {                                                                                                          \
        const V vs = SET1(s);                                                                                  \
        for (size_t i = 0; i < n; i += LINE_DOUBLES)                                                           \
            for (size_t j = i; j < i + LINE_DOUBLES; j += W)                                                   \
                STORE(b + j, MUL(vs, LOAD(c + j)));                                                            \
    }                                                                                                          \
    __attribute__((target(TARGET))) static void add_##SUFFIX(double *restrict c, const double *restrict a,      \
                                                             const double *restrict b, size_t n)               \
    {                                                                                                          \
        for (size_t i = 0; i < n; i += LINE_DOUBLES)                                                           \
            for (size_t j = i; j < i + LINE_DOUBLES; j += W)                                                   \
                STORE(c + j, ADD(LOAD(a + j), LOAD(b + j)));                                                   \
    }                                                                                                          \
    __attribute__((target(TARGET))) static void triad_##SUFFIX(double *restrict a, const double *restrict b,    \
                                                               const double *restrict c, double s, size_t n)   \
    {                                                                                                          \
        const V vs = SET1(s);                                                                                  \
        for (size_t i = 0; i < n; i += LINE_DOUBLES)                                                           \
            for (size_t j = i; j < i + LINE_DOUBLES; j += W)                                                   \
                STORE(a + j, ADD(LOAD(b + j), MUL(vs, LOAD(c + j))));                                          \
    }

/* The ordinary 8- and 16-byte stores are written in asm: with the
 * intrinsics GCC 12 -O2 recognises Copy's line as a 64-byte memcpy and
 * emits `rep movsq` per line (5-9 GB/s here instead of 40: docs/stream.md),
 * which is neither the ISA asked for nor STREAM's loop. */
__attribute__((target("sse2"))) static inline void store_sd(double *p, __m128d v)
{
    __asm__("movsd %1, %0" : "=m"(*p) : "x"(v));
}

__attribute__((target("sse2"))) static inline void store_pd(double *p, __m128d v)
{
    __asm__("movapd %1, %0" : "=m"(*(__m128d *)p) : "x"(v));
}

/* ISA_SCALAR on x86: one double per load and store (movsd). */
VECTOR_LOOPS(scalar, "sse2", __m128d, 1, _mm_load_sd, store_sd, _mm_mul_sd, _mm_add_sd, _mm_set_sd)
VECTOR_LOOPS(sse2, "sse2", __m128d, 2, _mm_load_pd, store_pd, _mm_mul_pd, _mm_add_pd, _mm_set1_pd)
VECTOR_LOOPS(sse2_nt, "sse2", __m128d, 2, _mm_load_pd, _mm_stream_pd, _mm_mul_pd, _mm_add_pd, _mm_set1_pd)
VECTOR_LOOPS(avx2, "avx2", __m256d, 4, _mm256_load_pd, _mm256_store_pd, _mm256_mul_pd, _mm256_add_pd,
             _mm256_set1_pd)
VECTOR_LOOPS(avx2_nt, "avx2", __m256d, 4, _mm256_load_pd, _mm256_stream_pd, _mm256_mul_pd, _mm256_add_pd,
             _mm256_set1_pd)
VECTOR_LOOPS(avx512, "avx512f", __m512d, 8, _mm512_load_pd, _mm512_store_pd, _mm512_mul_pd, _mm512_add_pd,
             _mm512_set1_pd)
VECTOR_LOOPS(avx512_nt, "avx512f", __m512d, 8, _mm512_load_pd, _mm512_stream_pd, _mm512_mul_pd, _mm512_add_pd,
             _mm512_set1_pd)

#endif

#define LOOPS_OF(SUFFIX) {copy_##SUFFIX, scale_##SUFFIX, add_##SUFFIX, triad_##SUFFIX}

/* [isa][stores]; ISA_AUTO is resolved before, an empty entry breaks a rule
 * the check states (non-temporal stores need SSE2). */
static const struct stream_loops loops_table[HPCB_ISA_COUNT][HPCB_STREAM_STORES_COUNT] = {
#ifdef HPCB_X86
    [HPCB_ISA_SCALAR] = {LOOPS_OF(scalar), {0}},
    [HPCB_ISA_SSE2] = {LOOPS_OF(sse2), LOOPS_OF(sse2_nt)},
    [HPCB_ISA_AVX2] = {LOOPS_OF(avx2), LOOPS_OF(avx2_nt)},
    [HPCB_ISA_AVX512] = {LOOPS_OF(avx512), LOOPS_OF(avx512_nt)},
#else
    [HPCB_ISA_SCALAR] = {LOOPS_OF(plain), {0}},
#endif
};

/* Non-temporal stores are weakly ordered: the kernel is done when they are. */
static void store_fence(int stores)
{
#ifdef HPCB_X86
    if (stores == HPCB_STREAM_NONTEMPORAL)
        _mm_sfence();
#endif
}

static int widest_isa(void)
{
    for (int isa = HPCB_ISA_COUNT - 1; isa > HPCB_ISA_SCALAR; isa--)
        if (hpcb_load_supported(isa))
            return isa;
    return HPCB_ISA_SCALAR;
}

static int chosen_isa(int isa)
{
    return isa == HPCB_ISA_AUTO ? widest_isa() : isa;
}

/* ---- the check ------------------------------------------------------------ */

/* "SCALAR, SSE2, AVX2": the instruction sets this CPU runs, for the rule. */
static void supported_list(char *text, size_t size)
{
    size_t used = 0;
    text[0] = '\0';
    for (int isa = HPCB_ISA_SCALAR; isa < HPCB_ISA_COUNT && used < size; isa++)
        if (hpcb_load_supported(isa))
            used += (size_t)snprintf(text + used, size - used, "%s%s", used ? ", " : "", isa_names[isa]);
}

int hpcb_stream_check_sizes(const struct hpcb_stream_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if (p->array_bytes == 0 || p->array_bytes % (LINE_DOUBLES * sizeof(double)) != 0)
        return hpcb_why_set(why, "array_bytes", "must be a positive multiple of %zu bytes (a cache line of "
                            "doubles), got %zu", LINE_DOUBLES * sizeof(double), p->array_bytes);
    if ((rc = hpcb_why_range(why, "array_bytes", p->array_bytes, 1, LARGEST_ARRAY, " bytes")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "repetitions", p->repetitions, 1, HPCB_STREAM_MAX_REPETITIONS, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "warmup", p->warmup, 0, 1000, "")) != HPCB_OK ||
        (rc = hpcb_page_mode_check(p->page_mode, why)) != HPCB_OK ||
        (rc = hpcb_why_choice(why, "isa", p->isa, isa_names, HPCB_ISA_COUNT)) != HPCB_OK ||
        (rc = hpcb_why_choice(why, "stores", p->stores, store_names, HPCB_STREAM_STORES_COUNT)) != HPCB_OK)
        return rc;
    if (p->plant_fault != 0 && p->plant_fault != 1)
        return hpcb_why_set(why, "plant_fault", "must be 0 or 1, got %d", p->plant_fault);
    if (!hpcb_load_supported(p->isa)) {
        char have[128];
        supported_list(have, sizeof have);
        return hpcb_why_set(why, "isa", "must be one this CPU runs (%s), got %s", have, isa_names[p->isa]);
    }
    if (loops_table[chosen_isa(p->isa)][p->stores].copy == NULL)
        return hpcb_why_set(why, "stores", "STREAM_NONTEMPORAL needs isa ISA_SSE2 or wider on an x86-64 CPU, got "
                            "%s", isa_names[chosen_isa(p->isa)]);
    return HPCB_OK;
}

int hpcb_stream_check(const struct hpcb_stream_params *p, struct hpcb_why *why)
{
    int rc = hpcb_stream_check_sizes(p, why);
    return rc != HPCB_OK ? rc : hpcb_team_check(&p->team, why);
}

/* ---- one member ------------------------------------------------------------- */

struct stream_arrays {
    double *a, *b, *c;
    size_t n;
};

static void run_kernel(const struct stream_loops *loops, int kernel, const struct stream_arrays *x)
{
    switch (kernel) {
    case 0: loops->copy(x->c, x->a, x->n); break;
    case 1: loops->scale(x->b, x->c, HPCB_STREAM_SCALAR, x->n); break;
    case 2: loops->add(x->c, x->a, x->b, x->n); break;
    default: loops->triad(x->a, x->b, x->c, HPCB_STREAM_SCALAR, x->n); break;
    }
}

/* STREAM's check: the values every element of a, b and c should hold after
 * `rounds` rounds, from the same recurrence on scalars; every element
 * within HPCB_STREAM_EPSILON of them, relatively. */
static int verify(const struct stream_arrays *x, size_t rounds)
{
    double a = 1.0, b = 2.0, c = 0.0;
    for (size_t r = 0; r < rounds; r++) {
        c = a;
        b = HPCB_STREAM_SCALAR * c;
        c = a + b;
        a = b + HPCB_STREAM_SCALAR * c;
    }
    for (size_t i = 0; i < x->n; i++)
        if (!(fabs(x->a[i] - a) <= HPCB_STREAM_EPSILON * fabs(a)) ||
            !(fabs(x->b[i] - b) <= HPCB_STREAM_EPSILON * fabs(b)) ||
            !(fabs(x->c[i] - c) <= HPCB_STREAM_EPSILON * fabs(c)))
            return HPCB_ECHECK;
    return HPCB_OK;
}

/* Allocate and first-touch (from this pinned thread) a = 1, b = 2, c = 0. */
static int prepare(struct hpcb_region r[3], const struct hpcb_stream_params *p, struct stream_arrays *x)
{
    int rc = HPCB_OK;
    for (int k = 0; k < 3 && rc == HPCB_OK; k++)
        rc = hpcb_region_alloc(&r[k], p->array_bytes, p->page_mode);
    if (rc != HPCB_OK)
        return rc;
    *x = (struct stream_arrays){r[0].data, r[1].data, r[2].data, p->array_bytes / sizeof(double)};
    for (size_t i = 0; i < x->n; i++) {
        x->a[i] = 1.0;
        x->b[i] = 2.0;
        x->c[i] = 0.0;
    }
    return HPCB_OK;
}

static int stream_member(void *arg, size_t member)
{
    struct hpcb_team_job *job = arg;
    const struct hpcb_stream_params *p = job->params;
    struct hpcb_stream_out *out = job->out;
    const struct stream_loops *loops = &loops_table[out->isa][p->stores];
    size_t reps = p->repetitions, row = member * reps * HPCB_STREAM_KERNELS;
    struct hpcb_region regions[3] = {{0}};
    struct stream_arrays x = {0};

    int rc = prepare(regions, p, &x);
    for (size_t w = 0; rc == HPCB_OK && w < p->warmup; w++)
        for (int k = 0; k < HPCB_STREAM_KERNELS; k++)
            run_kernel(loops, k, &x);
    store_fence(p->stores);

    /* A member that stops because another failed keeps its own status (OK),
     * so the team reports the failure of the member that had it. */
    size_t done = 0;
    for (size_t r = 0; r < reps; r++) {
        int k = 0;
        for (; k < HPCB_STREAM_KERNELS; k++) {
            /* Sleep, not spin, while a slower member finishes (phase.h). */
            if (!hpcb_phase_wait_idle(&job->phase, rc == HPCB_OK))
                break;
            HPCB_COMPILER_BARRIER();
            uint64_t n0 = hpcb_now_ns();
            run_kernel(loops, k, &x);
            store_fence(p->stores);
            uint64_t n1 = hpcb_now_ns();
            HPCB_COMPILER_BARRIER();
            size_t at = row + r * HPCB_STREAM_KERNELS + (size_t)k;
            /* Differences of whole ns since origin_ns, exact in a double for 104 days. */
            out->start_ns[at] = (double)(n0 - out->origin_ns);
            out->end_ns[at] = (double)(n1 - out->origin_ns);
        }
        if (k < HPCB_STREAM_KERNELS)
            break;
        done++;
    }

    if (rc == HPCB_OK && done == reps) {
        if (p->plant_fault && member == 0)
            x.a[x.n / 2] *= 1.5;
        rc = verify(&x, p->warmup + reps);
    }
    for (int k = 0; k < 3; k++)
        hpcb_region_free(&regions[k]);
    return rc;
}

int hpcb_stream_run(const struct hpcb_stream_params *p, struct hpcb_stream_out *out)
{
    int rc = hpcb_contract_start(hpcb_stream_check(p, NULL),
                                 out != NULL && out->start_ns != NULL && out->end_ns != NULL);
    if (rc != HPCB_OK)
        return rc;
    out->isa = (size_t)chosen_isa(p->isa);
    /* Read before the members exist (creating them orders this write before
     * their reads), so every start and end is later. */
    out->origin_ns = hpcb_now_ns();
    struct hpcb_team_job job = {.params = p, .out = out};
    return hpcb_team_run(&p->team, stream_member, &job, &job.phase);
}
