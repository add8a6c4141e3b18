/* bandwidth.c - likwid-bench-style streaming kernels; see bandwidth.h. */
#include "bandwidth.h"

#include <string.h>

#include "../runtime/memory.h"
#include "../runtime/phase.h"
#include "../runtime/timer.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HPCB_X86 1
#endif

#define LARGEST_SIZE ((size_t)1 << 40)
#define BLOCK_DOUBLES (HPCB_BW_BLOCK / sizeof(double))
/* Arrays of one member sit in slots of one buffer; each slot is padded by
 * this much more than the last, so that a[i], b[i], c[i] and d[i] never
 * share their address bits below 4 KiB (the load/store aliasing that slows
 * a copy whose arrays are a power of two apart). */
#define SLOT_SKEW ((size_t)1088)

static const char *const kernel_names[] = {HPCB_BW_KERNELS(HPCB_ENUM_NAME)};
static const char *const isa_names[] = {HPCB_ISAS(HPCB_ENUM_NAME)};

/* Arrays each kernel touches, and the arrays it loads plus those it stores
 * (its data volume per element, in arrays: update loads and stores one). */
static const size_t stream_count[HPCB_BW_KERNEL_COUNT] = {1, 1, 2, 1, 4, 3};
static const size_t access_count[HPCB_BW_KERNEL_COUNT] = {1, 1, 2, 2, 4, 3};

size_t hpcb_bandwidth_streams(int kernel)
{
    return kernel >= 0 && kernel < HPCB_BW_KERNEL_COUNT ? stream_count[kernel] : 0;
}

/* ISA_AUTO is the widest, as the read kernel of load.c chooses it. */
static int resolved_isa(int isa)
{
    return isa == HPCB_ISA_AUTO ? hpcb_load_widest() : isa;
}

static size_t array_bytes_of(int kernel, size_t size)
{
    return size / stream_count[kernel] / HPCB_BW_BLOCK * HPCB_BW_BLOCK;
}

static int check_nontemporal(const struct hpcb_bandwidth_params *p, struct hpcb_why *why)
{
    if (p->nontemporal != 0 && p->nontemporal != 1)
        return hpcb_why_set(why, "nontemporal", "must be 0 or 1, got %d", p->nontemporal);
    if (p->nontemporal && (p->kernel == HPCB_BW_LOAD || p->kernel == HPCB_BW_UPDATE))
        return hpcb_why_set(why, "nontemporal", "must be 0 for %s (only store, copy, triad and stream triad have "
                            "non-temporal stores), got 1", kernel_names[p->kernel]);
    if (p->nontemporal && resolved_isa(p->isa) == HPCB_ISA_SCALAR)
        return hpcb_why_set(why, "nontemporal", "must be 0 with ISA_SCALAR loops (non-temporal stores need SSE2 "
                            "or wider), got 1");
    return HPCB_OK;
}

int hpcb_bandwidth_check_sizes(const struct hpcb_bandwidth_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if ((rc = hpcb_why_choice(why, "kernel", p->kernel, kernel_names, HPCB_BW_KERNEL_COUNT)) != HPCB_OK ||
        (rc = hpcb_why_choice(why, "isa", p->isa, isa_names, HPCB_ISA_COUNT)) != HPCB_OK)
        return rc;
    if (!hpcb_load_supported(p->isa))
        return hpcb_why_set(why, "isa", "must be one this CPU supports, got %s", isa_names[p->isa]);
    if ((rc = check_nontemporal(p, why)) != HPCB_OK ||
        (rc = hpcb_why_range(why, "nsizes", p->nsizes, 1, HPCB_BW_MAX_SIZES, "")) != HPCB_OK)
        return rc;
    if (p->sizes == NULL)
        return hpcb_why_set(why, "sizes", "must point to nsizes sizes, got NULL");
    size_t smallest = stream_count[p->kernel] * HPCB_BW_BLOCK;
    for (size_t i = 0; i < p->nsizes; i++)
        if (p->sizes[i] < smallest || p->sizes[i] > LARGEST_SIZE)
            return hpcb_why_set(why, "sizes", "must each be %zu..%zu bytes for %s (%zu arrays of whole %zu-byte "
                                "blocks), got %zu at index %zu", smallest, LARGEST_SIZE, kernel_names[p->kernel],
                                stream_count[p->kernel], HPCB_BW_BLOCK, p->sizes[i], i);
    if ((rc = hpcb_why_range(why, "min_bytes", p->min_bytes, 1, (size_t)1 << 44, " bytes")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "warmup", p->warmup, 0, 1000, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "samples", p->samples, 1, HPCB_MAX_SAMPLES / p->nsizes, "")) != HPCB_OK)
        return rc;
    return hpcb_page_mode_check(p->page_mode, why);
}

int hpcb_bandwidth_check(const struct hpcb_bandwidth_params *p, struct hpcb_why *why)
{
    int rc = hpcb_bandwidth_check_sizes(p, why);
    if (rc != HPCB_OK || (rc = hpcb_team_check(&p->team, why)) != HPCB_OK)
        return rc;
    return hpcb_why_range(why, "samples", p->samples, 1, HPCB_MAX_SAMPLES / p->nsizes / p->team.npus,
                          " (with this many sizes and members)");
}

/* ---- the loops ------------------------------------------------------------
 *
 * One set per ISA, from one template: the vector types are GCC vector
 * extensions whose width is the ISA's register (a 1-element "vector" is a
 * plain double for scalar), so each statement compiles to one instruction
 * of that width. Every loop handles one HPCB_BW_BLOCK of each array per
 * iteration, unrolled; n is the doubles of each array, a multiple of
 * BLOCK_DOUBLES; `passes` whole passes. Non-temporal stores are followed by
 * one sfence per call, inside the timed region, so a sample includes their
 * drain. */
struct bw_arrays {
    double *a, *b, *c, *d;
    double s;
    uint64_t sum[8];   /* load: word k of every 64-byte line summed into sum[k] */
};

typedef void (*bw_loop)(struct bw_arrays *x, size_t n, size_t passes);

#define PLAIN_STORE(p, v) (*(p) = (v))

/* Four independent accumulators (eight for 64-bit scalars) keep the adds off
 * the critical path: with n_acc * lanes a multiple of 8, accumulator j's
 * lane l always holds word (j * lanes + l) % 8 of a line. */
#define BW_LOAD_LOOP(NAME, ATTR, VI, LANES)                                                                \
    ATTR static void NAME(struct bw_arrays *x, size_t n, size_t passes)                                \
    {                                                                                                      \
        enum { NACC = (LANES) == 1 ? 8 : 4, PER_BLOCK = BLOCK_DOUBLES / (LANES) };                          \
        VI acc[NACC];                                                                                      \
        memset(acc, 0, sizeof acc);                                                                        \
        const char *base = (const char *)x->a;                                                             \
        for (size_t r = 0; r < passes; r++) {                                                              \
            for (size_t i = 0; i < n; i += BLOCK_DOUBLES) {                                                \
                const VI *q = (const VI *)(base + i * sizeof(double));                                     \
                _Pragma("GCC unroll 32") for (size_t k = 0; k < PER_BLOCK; k++) acc[k % NACC] += q[k];     \
            }                                                                                              \
            /* The next pass reads `base` anew (the compiler cannot fold passes), and the sums stay   \
             * in registers (a memory clobber would spill them every pass: 6% of L1's rate). */        \
            __asm__ __volatile__("" : "+r"(base));                                                         \
        }                                                                                                  \
        uint64_t lanes[NACC * (LANES)];                                                                    \
        memcpy(lanes, acc, sizeof lanes);                                                                  \
        memset(x->sum, 0, sizeof x->sum);                                                                  \
        for (size_t w = 0; w < NACC * (size_t)(LANES); w++)                                                \
            x->sum[w % 8] += lanes[w];                                                                     \
    }

/* The store loops, with the store statement STORE(pointer, value). */
#define BW_STORE_LOOPS(SUFFIX, ATTR, VD, LANES, STORE)                                                     \
    ATTR static void store_##SUFFIX(struct bw_arrays *x, size_t n, size_t passes)                          \
    {                                                                                                      \
        VD *restrict a = (VD *)x->a;                                                                       \
        VD v = (VD){0} + x->s;                                                                             \
        for (size_t r = 0; r < passes; r++) {                                                              \
            for (size_t i = 0; i < n / (LANES); i += BLOCK_DOUBLES / (LANES)) {                            \
                _Pragma("GCC unroll 32") for (size_t k = 0; k < BLOCK_DOUBLES / (LANES); k++)              \
                    STORE(a + i + k, v);                                                                   \
            }                                                                                              \
            HPCB_COMPILER_BARRIER();                                                                       \
        }                                                                                                  \
    }                                                                                                      \
    ATTR static void copy_##SUFFIX(struct bw_arrays *x, size_t n, size_t passes)                           \
    {                                                                                                      \
        VD *restrict a = (VD *)x->a;                                                                       \
        const VD *restrict b = (const VD *)x->b;                                                           \
        for (size_t r = 0; r < passes; r++) {                                                              \
            for (size_t i = 0; i < n / (LANES); i += BLOCK_DOUBLES / (LANES)) {                            \
                _Pragma("GCC unroll 32") for (size_t k = 0; k < BLOCK_DOUBLES / (LANES); k++)              \
                    STORE(a + i + k, b[i + k]);                                                            \
            }                                                                                              \
            HPCB_COMPILER_BARRIER();                                                                       \
        }                                                                                                  \
    }                                                                                                      \
    ATTR static void triad_##SUFFIX(struct bw_arrays *x, size_t n, size_t passes)                          \
    {                                                                                                      \
        VD *restrict a = (VD *)x->a;                                                                       \
        const VD *restrict b = (const VD *)x->b, *restrict c = (const VD *)x->c, *restrict d = (const VD *)x->d; \
        for (size_t r = 0; r < passes; r++) {                                                              \
            for (size_t i = 0; i < n / (LANES); i += BLOCK_DOUBLES / (LANES)) {                            \
                _Pragma("GCC unroll 32") for (size_t k = 0; k < BLOCK_DOUBLES / (LANES); k++)              \
                    STORE(a + i + k, b[i + k] + c[i + k] * d[i + k]);                                      \
            }                                                                                              \
            HPCB_COMPILER_BARRIER();                                                                       \
        }                                                                                                  \
    }                                                                                                      \
    ATTR static void stream_triad_##SUFFIX(struct bw_arrays *x, size_t n, size_t passes)                   \
    {                                                                                                      \
        VD *restrict a = (VD *)x->a;                                                                       \
        const VD *restrict b = (const VD *)x->b, *restrict c = (const VD *)x->c;                           \
        VD s = (VD){0} + x->s;                                                                             \
        for (size_t r = 0; r < passes; r++) {                                                              \
            for (size_t i = 0; i < n / (LANES); i += BLOCK_DOUBLES / (LANES)) {                            \
                _Pragma("GCC unroll 32") for (size_t k = 0; k < BLOCK_DOUBLES / (LANES); k++)              \
                    STORE(a + i + k, b[i + k] + s * c[i + k]);                                             \
            }                                                                                              \
            HPCB_COMPILER_BARRIER();                                                                       \
        }                                                                                                  \
    }

/* update: s alternates with 1/s pass by pass, across calls too (x->s is
 * left as the next pass's factor), so with s a power of two every element is
 * exactly its start times s^(k mod 2) after k passes in all. */
#define BW_UPDATE_LOOP(SUFFIX, ATTR, VD, LANES)                                                            \
    ATTR static void update_##SUFFIX(struct bw_arrays *x, size_t n, size_t passes)                         \
    {                                                                                                      \
        VD *restrict a = (VD *)x->a;                                                                       \
        VD s = (VD){0} + x->s, inv = (VD){0} + 1.0 / x->s;                                                 \
        for (size_t r = 0; r < passes; r++) {                                                              \
            VD f = r % 2 == 0 ? s : inv;                                                                   \
            for (size_t i = 0; i < n / (LANES); i += BLOCK_DOUBLES / (LANES)) {                            \
                _Pragma("GCC unroll 32") for (size_t k = 0; k < BLOCK_DOUBLES / (LANES); k++)              \
                    a[i + k] = f * a[i + k];                                                               \
            }                                                                                              \
            HPCB_COMPILER_BARRIER();                                                                       \
        }                                                                                                  \
        if (passes % 2)                                                                                    \
            x->s = 1.0 / x->s;                                                                             \
    }

/* Scalar: plain doubles and 64-bit integers, kept scalar (GCC would
 * otherwise vectorise them with SSE2 and the "scalar" row would not be). */
#if defined(__GNUC__) && !defined(__clang__)
#define SCALAR_ATTR __attribute__((optimize("no-tree-vectorize", "no-tree-slp-vectorize")))
#else
#define SCALAR_ATTR
#endif
typedef double bw_d1 __attribute__((may_alias));
typedef uint64_t bw_i1 __attribute__((may_alias));
BW_LOAD_LOOP(load_scalar, SCALAR_ATTR, bw_i1, 1)
BW_STORE_LOOPS(scalar, SCALAR_ATTR, bw_d1, 1, PLAIN_STORE)
BW_UPDATE_LOOP(scalar, SCALAR_ATTR, bw_d1, 1)

#ifdef HPCB_X86
#define NT_SSE2(p, v) _mm_stream_pd((double *)(p), (v))
#define NT_AVX(p, v) _mm256_stream_pd((double *)(p), (v))
#define NT_AVX512(p, v) _mm512_stream_pd((double *)(p), (v))
#define NT_LOOPS(SUFFIX, ATTR, VD, LANES, NT) \
    BW_STORE_LOOPS(SUFFIX##_nt_body, ATTR, VD, LANES, NT)
/* A non-temporal loop is its body then one sfence. */
#define NT_WRAP(KERNEL, SUFFIX, ATTR)                                                                      \
    ATTR static void KERNEL##_##SUFFIX##_nt(struct bw_arrays *x, size_t n, size_t passes)                  \
    {                                                                                                      \
        KERNEL##_##SUFFIX##_nt_body(x, n, passes);                                                         \
        _mm_sfence();                                                                                      \
    }
#define ISA_LOOPS(SUFFIX, ATTR, VD, VI, LANES, NT)                                                         \
    BW_LOAD_LOOP(load_##SUFFIX, ATTR, VI, LANES)                                                           \
    BW_STORE_LOOPS(SUFFIX, ATTR, VD, LANES, PLAIN_STORE)                                                   \
    BW_UPDATE_LOOP(SUFFIX, ATTR, VD, LANES)                                                                \
    NT_LOOPS(SUFFIX, ATTR, VD, LANES, NT)                                                                  \
    NT_WRAP(store, SUFFIX, ATTR) NT_WRAP(copy, SUFFIX, ATTR) NT_WRAP(triad, SUFFIX, ATTR)                  \
    NT_WRAP(stream_triad, SUFFIX, ATTR)

typedef double bw_d2 __attribute__((vector_size(16), may_alias));
typedef uint64_t bw_i2 __attribute__((vector_size(16), may_alias));
typedef double bw_d4 __attribute__((vector_size(32), may_alias));
typedef uint64_t bw_i4 __attribute__((vector_size(32), may_alias));
typedef double bw_d8 __attribute__((vector_size(64), may_alias));
typedef uint64_t bw_i8 __attribute__((vector_size(64), may_alias));
/* No fused multiply-add (AVX-512F brings FMA with it): the triads are a
 * multiply then an add in every ISA, as likwid-bench's triad_<isa> tests. */
#if defined(__GNUC__) && !defined(__clang__)
#define NO_FMA __attribute__((optimize("fp-contract=off")))
#else
#define NO_FMA
#endif
ISA_LOOPS(sse2, __attribute__((target("sse2"))) NO_FMA, bw_d2, bw_i2, 2, NT_SSE2)
ISA_LOOPS(avx2, __attribute__((target("avx2"))) NO_FMA, bw_d4, bw_i4, 4, NT_AVX)
ISA_LOOPS(avx512, __attribute__((target("avx512f"))) NO_FMA, bw_d8, bw_i8, 8, NT_AVX512)
#endif

#define LOOP_ROW(SUFFIX)                                                                                   \
    {{load_##SUFFIX, store_##SUFFIX, copy_##SUFFIX, update_##SUFFIX, triad_##SUFFIX, stream_triad_##SUFFIX}, \
     {NULL, store_##SUFFIX##_nt, copy_##SUFFIX##_nt, NULL, triad_##SUFFIX##_nt, stream_triad_##SUFFIX##_nt}}

/* [isa][nontemporal][kernel]; NULL where the check refuses the pair. */
static const bw_loop loops[HPCB_ISA_COUNT][2][HPCB_BW_KERNEL_COUNT] = {
    [HPCB_ISA_SCALAR] = {{load_scalar, store_scalar, copy_scalar, update_scalar, triad_scalar,
                          stream_triad_scalar}, {NULL}},
#ifdef HPCB_X86
    [HPCB_ISA_SSE2] = LOOP_ROW(sse2),
    [HPCB_ISA_AVX2] = LOOP_ROW(avx2),
    [HPCB_ISA_AVX512] = LOOP_ROW(avx512),
#endif
};

/* ---- one member ----------------------------------------------------------- */

/* Values that keep every result exact: small integers and halves. */
#define STORE_VALUE 3.0
#define UPDATE_FACTOR 2.0
#define STREAM_SCALAR 3.0

static double start_value(size_t i, size_t array)
{
    /* A mask, not a modulo: filling and checking 128 MiB stays cheap. */
    return (double)((i * 7 + array * 13) & 1023) + 0.5 * (double)(array % 2);
}

/* Fill the arrays of one size before its passes; a load fills the buffer
 * with distinct words, so a skipped or repeated load changes the sums. */
static void fill(struct bw_arrays *x, int kernel, size_t n, uint64_t expect[8])
{
    if (kernel == HPCB_BW_LOAD) {
        uint64_t *w = (uint64_t *)x->a;
        memset(expect, 0, 8 * sizeof *expect);
        for (size_t i = 0; i < n; i++) {
            w[i] = (uint64_t)i * 0x9E3779B97F4A7C15ull + 1;
            expect[i % 8] += w[i];
        }
        return;
    }
    double *arrays[4] = {x->a, x->b, x->c, x->d};
    if (kernel == HPCB_BW_UPDATE)   /* each size's passes start with the factor s */
        x->s = UPDATE_FACTOR;
    for (size_t k = 0; k < stream_count[kernel]; k++)
        for (size_t i = 0; i < n; i++)
            arrays[k][i] = k == 0 && kernel != HPCB_BW_UPDATE ? -1.0 : start_value(i, k);
    if (kernel == HPCB_BW_TRIAD)   /* d: powers of two, so c * d is exact */
        for (size_t i = 0; i < n; i++)
            x->d[i] = i % 2 ? 0.5 : 2.0;
}

/* Whether the arrays hold what `passes` passes (in all) must leave. */
static int verify(const struct bw_arrays *x, int kernel, size_t n, size_t passes)
{
    for (size_t i = 0; i < n; i++) {
        double want;
        switch (kernel) {
        case HPCB_BW_STORE: want = x->s; break;
        case HPCB_BW_COPY: want = x->b[i]; break;
        case HPCB_BW_UPDATE: want = start_value(i, 0) * (passes % 2 ? UPDATE_FACTOR : 1.0); break;
        case HPCB_BW_TRIAD: want = x->b[i] + x->c[i] * x->d[i]; break;
        default: want = x->b[i] + x->s * x->c[i]; break;
        }
        if (x->a[i] != want)
            return HPCB_ECHECK;
    }
    return HPCB_OK;
}

static int verify_load(const struct bw_arrays *x, size_t passes, const uint64_t once[8])
{
    for (int k = 0; k < 8; k++)
        if (x->sum[k] != once[k] * (uint64_t)passes)   /* modulo 2^64 on both sides */
            return HPCB_ECHECK;
    return HPCB_OK;
}

struct bw_job {
    struct hpcb_team_job team;
    bw_loop loop;
};

/* One size on one member: fill, warm up, time the samples in step with
 * the other members, verify. Returns 0 if the team stopped (a member failed). */
static int member_size(struct bw_job *job, struct bw_arrays *x, size_t member, size_t si, int *rc)
{
    const struct hpcb_bandwidth_params *p = job->team.params;
    struct hpcb_bandwidth_out *out = job->team.out;
    size_t arr = array_bytes_of(p->kernel, p->sizes[si]), n = arr / sizeof(double);
    size_t volume = access_count[p->kernel] * arr, passes = (p->min_bytes + volume - 1) / volume;
    uint64_t once[8] = {0};
    if (*rc == HPCB_OK) {
        fill(x, p->kernel, n, once);
        if (p->warmup > 0)
            job->loop(x, n, p->warmup);
    }
    for (size_t j = 0; j < p->samples; j++) {
        if (!hpcb_phase_wait_idle(&job->team.phase, *rc == HPCB_OK))
            return 0;
        HPCB_COMPILER_BARRIER();
        uint64_t n0 = hpcb_now_ns();
        job->loop(x, n, passes);
        uint64_t n1 = hpcb_now_ns();
        HPCB_COMPILER_BARRIER();
        size_t at = (member * p->nsizes + si) * p->samples + j;
        out->start_ns[at] = (double)(n0 - out->origin_ns);
        out->end_ns[at] = (double)(n1 - out->origin_ns);
        if (p->kernel == HPCB_BW_LOAD && verify_load(x, passes, once) != HPCB_OK)
            *rc = HPCB_ECHECK;
    }
    if (*rc == HPCB_OK && p->kernel != HPCB_BW_LOAD)
        *rc = verify(x, p->kernel, n, p->warmup + p->samples * passes);
    if (member == 0) {
        out->bytes[si] = (double)(passes * volume);
        out->array_bytes[si] = (double)arr;
    }
    return 1;
}

static int bw_member(void *arg, size_t member)
{
    struct bw_job *job = arg;
    const struct hpcb_bandwidth_params *p = job->team.params;
    size_t largest = 0;
    for (size_t i = 0; i < p->nsizes; i++)
        if (array_bytes_of(p->kernel, p->sizes[i]) > largest)
            largest = array_bytes_of(p->kernel, p->sizes[i]);
    size_t streams = stream_count[p->kernel], slot = largest + SLOT_SKEW;
    struct hpcb_region region = {0};
    /* First touch (fill) by this pinned thread places the pages locally. */
    int rc = hpcb_region_alloc(&region, streams * slot + streams * SLOT_SKEW, p->page_mode);
    struct bw_arrays x = {.s = p->kernel == HPCB_BW_UPDATE ? UPDATE_FACTOR
                               : p->kernel == HPCB_BW_STORE ? STORE_VALUE : STREAM_SCALAR};
    if (rc == HPCB_OK) {
        double *slots[4] = {NULL, NULL, NULL, NULL};
        for (size_t k = 0; k < streams; k++)   /* SLOT_SKEW is a multiple of 64: slots stay line-aligned */
            slots[k] = (double *)((char *)region.data + k * (slot + SLOT_SKEW));
        x.a = slots[0], x.b = slots[1], x.c = slots[2], x.d = slots[3];
    }
    for (size_t si = 0; si < p->nsizes; si++)
        if (!member_size(job, &x, member, si, &rc))
            break;
    hpcb_region_free(&region);
    return rc;
}

int hpcb_bandwidth_run(const struct hpcb_bandwidth_params *p, struct hpcb_bandwidth_out *out)
{
    int rc = hpcb_contract_start(hpcb_bandwidth_check(p, NULL), out != NULL && out->start_ns != NULL &&
                                                                   out->end_ns != NULL && out->bytes != NULL &&
                                                                   out->array_bytes != NULL);
    if (rc != HPCB_OK)
        return rc;
    int isa = resolved_isa(p->isa);
    out->isa = (size_t)isa;
    out->origin_ns = hpcb_now_ns();   /* before the members exist, so every start is later */
    struct bw_job job = {.team = {.params = p, .out = out}, .loop = loops[isa][p->nontemporal][p->kernel]};
    return hpcb_team_run(&p->team, bw_member, &job, &job.team.phase);
}
