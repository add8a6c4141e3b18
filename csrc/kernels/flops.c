/* flops.c - peak FLOP/s of FMA chains on a team; see flops.h. */
#include "flops.h"

#include <math.h>
#include <string.h>

#include "../runtime/phase.h"
#include "../runtime/timer.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HPCB_X86 1
#endif

/* A chain's value is opaque to the compiler after every step: otherwise it
 * would see that all chains start from 0 and do the same steps, keep one
 * and copy it (or pack scalar chains into a vector). The empty asm emits no
 * instruction. "v" is any SSE/AVX register (zmm16-31 too with AVX-512). */
#if defined(HPCB_X86)
#define OPAQUE(v) __asm__("" : "+v"(v))
#elif defined(__aarch64__)
#define OPAQUE(v) __asm__("" : "+w"(v))
#else
#define OPAQUE(v) __asm__("" : "+g"(v))
#endif

/* The loops that multiply, then add must stay two roundings: no contraction
 * into an FMA by the compiler, in the loop and in its replay alike. */
#if defined(__clang__)
#define NO_CONTRACT
#elif defined(__GNUC__)
#define NO_CONTRACT __attribute__((optimize("fp-contract=off")))
#else
#define NO_CONTRACT
#endif

static const char *const isa_names[] = {HPCB_ISAS(HPCB_ENUM_NAME)};
static const char *const precision_names[] = {HPCB_FLOPS_PRECISIONS(HPCB_ENUM_NAME)};
static const char *const fault_names[] = {HPCB_FLOPS_FAULTS(HPCB_ENUM_NAME)};
static const size_t chain_counts[] = HPCB_FLOPS_CHAIN_COUNTS;
#define NCOUNTS (sizeof chain_counts / sizeof chain_counts[0])
#define MAX_CHAINS 16
#define MAX_LANES 16

int hpcb_flops_scalar_fma(void)
{
#ifdef HPCB_X86
    return __builtin_cpu_supports("fma") != 0;
#else
    return 0;
#endif
}

int hpcb_flops_supported(int isa)
{
    if (isa == HPCB_ISA_AVX2)   /* AVX2 without FMA3 (no CPU ships it, a VM may hide it): no FMA loop */
        return hpcb_load_supported(isa) != 0 && hpcb_flops_scalar_fma();
    return hpcb_load_supported(isa) != 0;
}

static int widest_isa(void)
{
    for (int isa = HPCB_ISA_COUNT - 1; isa > HPCB_ISA_SCALAR; isa--)
        if (hpcb_flops_supported(isa))
            return isa;
    return HPCB_ISA_SCALAR;
}

size_t hpcb_flops_lanes(int isa, int precision)
{
    static const size_t bytes[] = {8, 8, 16, 32, 64};   /* a register, by enum hpcb_isa; ISA_AUTO as scalar */
    if (isa < 0 || isa >= HPCB_ISA_COUNT)
        return 0;
    if (isa <= HPCB_ISA_SCALAR)
        return 1;   /* one double or one float */
    return bytes[isa] / (precision == HPCB_FLOPS_SINGLE ? sizeof(float) : sizeof(double));
}

static int chain_index(size_t chains)
{
    for (size_t i = 0; i < NCOUNTS; i++)
        if (chain_counts[i] == chains)
            return (int)i;
    return -1;
}

int hpcb_flops_check_sizes(const struct hpcb_flops_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if ((rc = hpcb_why_range(why, "iterations", p->iterations, 2, HPCB_FLOPS_MAX_ITERATIONS, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "samples", p->samples, 1, 1000000, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "warmup", p->warmup, 0, 1000, "")) != HPCB_OK)
        return rc;
    if (chain_index(p->chains) < 0)
        return hpcb_why_set(why, "chains", "must be 8, 12 or 16, got %zu", p->chains);
    if ((rc = hpcb_why_choice(why, "isa", p->isa, isa_names, HPCB_ISA_COUNT)) != HPCB_OK ||
        (rc = hpcb_why_choice(why, "precision", p->precision, precision_names, HPCB_FLOPS_PRECISION_COUNT)) !=
            HPCB_OK ||
        (rc = hpcb_why_choice(why, "fault", p->fault, fault_names, HPCB_FLOPS_FAULT_COUNT)) != HPCB_OK)
        return rc;
    if (!hpcb_flops_supported(p->isa))
        return hpcb_why_set(why, "isa", "must be one this CPU supports, got %s", isa_names[p->isa]);
    return HPCB_OK;
}

int hpcb_flops_check(const struct hpcb_flops_params *p, struct hpcb_why *why)
{
    int rc = hpcb_flops_check_sizes(p, why);
    return rc != HPCB_OK ? rc : hpcb_team_check(&p->team, why);
}

/* ---- the loops ---------------------------------------------------------------
 * One function per ISA, precision and chain count N: N chains in registers,
 * x = x * a + b on each, `iters` times, then the chains stored to `out`
 * (N x lanes values of type T). STEP(x, a, b) is one step of one register. */
#define DEFINE_LOOP(NAME, ATTR, T, V, SET1, STEP, STORE, N)                        \
    ATTR static void NAME(size_t iters, double a_, double b_, void *out_)          \
    {                                                                              \
        T *out = out_;                                                             \
        V va = SET1((T)a_), vb = SET1((T)b_), x[N];                                \
        OPAQUE(va);                                                                \
        OPAQUE(vb);                                                                \
        _Pragma("GCC unroll 16") for (int k = 0; k < (N); k++)                     \
        {                                                                          \
            x[k] = SET1((T)0);                                                     \
            OPAQUE(x[k]);                                                          \
        }                                                                          \
        for (size_t i = 0; i < iters; i++) {                                       \
            _Pragma("GCC unroll 16") for (int k = 0; k < (N); k++)                 \
            {                                                                      \
                x[k] = STEP(x[k], va, vb);                                         \
                OPAQUE(x[k]);                                                      \
            }                                                                      \
        }                                                                          \
        _Pragma("GCC unroll 16") for (int k = 0; k < (N); k++)                     \
            STORE(out + (size_t)k * (sizeof(V) / sizeof(T)), x[k]);               \
    }

#define DEFINE_LOOPS(PREFIX, ATTR, T, V, SET1, STEP, STORE)          \
    DEFINE_LOOP(PREFIX##_8, ATTR, T, V, SET1, STEP, STORE, 8)        \
    DEFINE_LOOP(PREFIX##_12, ATTR, T, V, SET1, STEP, STORE, 12)      \
    DEFINE_LOOP(PREFIX##_16, ATTR, T, V, SET1, STEP, STORE, 16)

/* Scalar: plain C types. The multiply-add keeps its product opaque, so the
 * two roundings stay two even where the compiler may contract. */
#define SET_SCALAR(v) (v)
#define STORE_SCALAR(p, v) (*(p) = (v))
static inline double mul_add_d(double x, double a, double b)
{
    double t = x * a;
    OPAQUE(t);
    return t + b;
}
static inline float mul_add_f(float x, float a, float b)
{
    float t = x * a;
    OPAQUE(t);
    return t + b;
}
DEFINE_LOOPS(scalar_muladd_d, NO_CONTRACT, double, double, SET_SCALAR, mul_add_d, STORE_SCALAR)
DEFINE_LOOPS(scalar_muladd_f, NO_CONTRACT, float, float, SET_SCALAR, mul_add_f, STORE_SCALAR)

#ifdef HPCB_X86
#define FMA_SD(x, a, b) _mm_cvtsd_f64(_mm_fmadd_sd(_mm_set_sd(x), _mm_set_sd(a), _mm_set_sd(b)))
#define FMA_SS(x, a, b) _mm_cvtss_f32(_mm_fmadd_ss(_mm_set_ss(x), _mm_set_ss(a), _mm_set_ss(b)))
DEFINE_LOOPS(scalar_fma_d, __attribute__((target("fma"))), double, double, SET_SCALAR, __builtin_fma, STORE_SCALAR)
DEFINE_LOOPS(scalar_fma_f, __attribute__((target("fma"))), float, float, SET_SCALAR, __builtin_fmaf, STORE_SCALAR)

/* SSE2 has no FMA: a multiply, then an add (2 flops per lane as well). */
#define SSE2_MULADD_PD(x, a, b) _mm_add_pd(_mm_mul_pd((x), (a)), (b))
#define SSE2_MULADD_PS(x, a, b) _mm_add_ps(_mm_mul_ps((x), (a)), (b))
DEFINE_LOOPS(sse2_d, NO_CONTRACT __attribute__((target("sse2"))), double, __m128d, _mm_set1_pd, SSE2_MULADD_PD,
             _mm_storeu_pd)
DEFINE_LOOPS(sse2_f, NO_CONTRACT __attribute__((target("sse2"))), float, __m128, _mm_set1_ps, SSE2_MULADD_PS,
             _mm_storeu_ps)
DEFINE_LOOPS(avx2_d, __attribute__((target("avx2,fma"))), double, __m256d, _mm256_set1_pd, _mm256_fmadd_pd,
             _mm256_storeu_pd)
DEFINE_LOOPS(avx2_f, __attribute__((target("avx2,fma"))), float, __m256, _mm256_set1_ps, _mm256_fmadd_ps,
             _mm256_storeu_ps)
DEFINE_LOOPS(avx512_d, __attribute__((target("avx512f"))), double, __m512d, _mm512_set1_pd, _mm512_fmadd_pd,
             _mm512_storeu_pd)
DEFINE_LOOPS(avx512_f, __attribute__((target("avx512f"))), float, __m512, _mm512_set1_ps, _mm512_fmadd_ps,
             _mm512_storeu_ps)
#endif

typedef void (*flops_loop)(size_t iters, double a, double b, void *out);
#define LOOP_SET(PREFIX) {PREFIX##_8, PREFIX##_12, PREFIX##_16}

/* The loop of an ISA (not ISA_AUTO), precision and chain count. */
static flops_loop loop_of(int isa, int precision, int chains_at)
{
    static const flops_loop muladd[2][NCOUNTS] = {LOOP_SET(scalar_muladd_d), LOOP_SET(scalar_muladd_f)};
#ifdef HPCB_X86
    static const flops_loop table[HPCB_ISA_COUNT][2][NCOUNTS] = {
        [HPCB_ISA_SCALAR] = {LOOP_SET(scalar_fma_d), LOOP_SET(scalar_fma_f)},
        [HPCB_ISA_SSE2] = {LOOP_SET(sse2_d), LOOP_SET(sse2_f)},
        [HPCB_ISA_AVX2] = {LOOP_SET(avx2_d), LOOP_SET(avx2_f)},
        [HPCB_ISA_AVX512] = {LOOP_SET(avx512_d), LOOP_SET(avx512_f)},
    };
    if (isa != HPCB_ISA_SCALAR || hpcb_flops_scalar_fma())
        return table[isa][precision][chains_at];
#endif
    return muladd[precision][chains_at];
}

/* ---- the check after timing ---------------------------------------------------- */

/* s of a = 1 - 2^-s, b = 2^-s: about log2 of the steps, so a^n stays near
 * e^-1 and every step still moves the value (a chain at its fixed point
 * would hide skipped steps); at most the precision's fraction bits, so a
 * is exact. */
static int contraction_shift(size_t steps, int precision)
{
    int s = 1, most = precision == HPCB_FLOPS_SINGLE ? 23 : 52;
    while (s < most && ((size_t)1 << s) < steps)
        s++;
    return s;
}

#ifdef HPCB_X86
/* The replay's FMAs as instructions, inline: a call of libm's fma() per
 * step would make the check take twice as long as a sample. */
__attribute__((target("fma"))) static double replay_fma(size_t n, double a, double b, int precision)
{
    if (precision == HPCB_FLOPS_SINGLE) {
        float x = 0.0f, af = (float)a, bf = (float)b;
        for (size_t i = 0; i < n; i++)
            x = __builtin_fmaf(x, af, bf);
        return x;
    }
    double x = 0.0;
    for (size_t i = 0; i < n; i++)
        x = __builtin_fma(x, a, b);
    return x;
}
#endif

/* The same n steps on one scalar, with the loop's operations: C's fma()
 * (correctly rounded, as the FMA instructions are) or a multiply then an add. */
NO_CONTRACT static double replay(size_t n, double a, double b, int precision, int fused)
{
#ifdef HPCB_X86
    if (fused && hpcb_flops_scalar_fma())
        return replay_fma(n, a, b, precision);
#endif
    if (precision == HPCB_FLOPS_SINGLE) {
        float x = 0.0f, af = (float)a, bf = (float)b;
        for (size_t i = 0; i < n; i++)
            x = fused ? fmaf(x, af, bf) : mul_add_f(x, af, bf);
        return x;
    }
    double x = 0.0;
    for (size_t i = 0; i < n; i++)
        x = fused ? fma(x, a, b) : mul_add_d(x, a, b);
    return x;
}

/* Every lane of every chain after n steps: all equal, equal to the replay,
 * and within (n + 2) units of roundoff of 1 - a^n (each step rounds at most
 * twice by half a unit of a value below 1, and the contraction only shrinks
 * earlier errors). */
static int verify_chains(const void *values, size_t count, size_t n, double a, double b, int precision, int fused)
{
    double first = precision == HPCB_FLOPS_SINGLE ? ((const float *)values)[0] : ((const double *)values)[0];
    for (size_t i = 1; i < count; i++) {
        double v = precision == HPCB_FLOPS_SINGLE ? ((const float *)values)[i] : ((const double *)values)[i];
        if (memcmp(&v, &first, sizeof v) != 0)
            return HPCB_ECHECK;
    }
    double again = replay(n, a, b, precision, fused);
    if (memcmp(&again, &first, sizeof again) != 0)
        return HPCB_ECHECK;
    double unit = precision == HPCB_FLOPS_SINGLE ? 0x1p-24 : 0x1p-53;
    long double closed = 1.0L - powl((long double)a, (long double)n);
    return fabsl((long double)first - closed) <= (long double)(n + 2) * unit ? HPCB_OK : HPCB_ECHECK;
}

/* ---- the team ------------------------------------------------------------------ */

struct flops_job {
    struct hpcb_team_job team;
    flops_loop loop;
    int fused;            /* the loop's steps are FMAs */
    double a, b;
};

static int flops_member(void *arg, size_t member)
{
    struct flops_job *job = arg;
    const struct hpcb_flops_params *p = job->team.params;
    struct hpcb_flops_out *out = job->team.out;
    _Alignas(64) unsigned char values[MAX_CHAINS * MAX_LANES * sizeof(double)];

    for (size_t w = 0; w < p->warmup; w++)   /* the clock ramps up; wide units power on */
        job->loop(p->iterations, job->a, job->b, values);
    size_t done = 0;
    for (size_t j = 0; j < p->samples; j++) {
        /* Spin, not sleep: the members must start each sample together. */
        if (!hpcb_phase_wait(&job->team.phase, 1))
            break;
        size_t n = p->iterations;
        if (p->fault == HPCB_FLOPS_FAULT_SHORT && member == 0 && j + 1 == p->samples)
            n--;
        HPCB_COMPILER_BARRIER();
        uint64_t n0 = hpcb_now_ns();
        job->loop(n, job->a, job->b, values);
        uint64_t n1 = hpcb_now_ns();
        HPCB_COMPILER_BARRIER();
        size_t at = member * p->samples + j;
        out->ns[at] = (double)(n1 - n0);
        out->start_ns[at] = (double)(n0 - out->origin_ns);
        out->end_ns[at] = (double)(n1 - out->origin_ns);
        done++;
    }
    if (done != p->samples)
        return HPCB_OK;   /* another member failed: its status is the team's */
    /* The check replays the steps the parameters ask for, not those run. */
    size_t count = p->chains * hpcb_flops_lanes((int)out->isa, p->precision);
    return verify_chains(values, count, p->iterations, job->a, job->b, p->precision, job->fused);
}

int hpcb_flops_run(const struct hpcb_flops_params *p, struct hpcb_flops_out *out)
{
    int rc = hpcb_contract_start(hpcb_flops_check(p, NULL),
                                 out != NULL && out->ns != NULL && out->start_ns != NULL && out->end_ns != NULL);
    if (rc != HPCB_OK)
        return rc;
    int isa = p->isa == HPCB_ISA_AUTO ? widest_isa() : p->isa;
    out->isa = (size_t)isa;
    out->scalar_fma = (size_t)hpcb_flops_scalar_fma();
    size_t lanes = hpcb_flops_lanes(isa, p->precision);
    out->flops_per_sample = 2.0 * (double)lanes * (double)p->chains * (double)p->iterations;
    int s = contraction_shift(p->iterations, p->precision);
    struct flops_job job = {.team = {.params = p, .out = out},
                            .loop = loop_of(isa, p->precision, chain_index(p->chains)),
                            .fused = isa == HPCB_ISA_AVX2 || isa == HPCB_ISA_AVX512 ||
                                     (isa == HPCB_ISA_SCALAR && hpcb_flops_scalar_fma()),
                            .a = 1.0 - ldexp(1.0, -s), .b = ldexp(1.0, -s)};
    out->origin_ns = hpcb_now_ns();
    return hpcb_team_run(&p->team, flops_member, &job, &job.team.phase);
}
