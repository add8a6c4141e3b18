/* load.c - read bandwidth over prefixes of one buffer; see load.h. */
#include "load.h"

#include <string.h>

#include "../runtime/memory.h"
#include "../runtime/timer.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define HPCB_X86 1
#endif

#define LARGEST_BUFFER ((size_t)1 << 40)

static const char *const isa_names[] = {HPCB_ISAS(HPCB_ENUM_NAME)};

int hpcb_load_supported(int isa)
{
    switch (isa) {
    case HPCB_ISA_AUTO:
    case HPCB_ISA_SCALAR:
        return 1;
#ifdef HPCB_X86
    case HPCB_ISA_SSE2:
        return 1;   /* every x86-64 CPU */
    case HPCB_ISA_AVX2:
        return __builtin_cpu_supports("avx2");
    case HPCB_ISA_AVX512:
        return __builtin_cpu_supports("avx512f");
#endif
    default:
        return 0;
    }
}

int hpcb_load_widest(void)
{
    for (int isa = HPCB_ISA_COUNT - 1; isa > HPCB_ISA_SCALAR; isa--)
        if (hpcb_load_supported(isa))
            return isa;
    return HPCB_ISA_SCALAR;
}

int hpcb_load_check(const struct hpcb_load_params *p, struct hpcb_why *why)
{
    int rc;
    if (p == NULL)
        return hpcb_why_set(why, "p", "must point to the parameters, got NULL");
    if (p->buffer_bytes == 0 || p->buffer_bytes % HPCB_LOAD_BLOCK != 0)
        return hpcb_why_set(why, "buffer_bytes", "must be a positive multiple of %zu bytes, got %zu", HPCB_LOAD_BLOCK,
                            p->buffer_bytes);
    if ((rc = hpcb_why_range(why, "buffer_bytes", p->buffer_bytes, 1, LARGEST_BUFFER, " bytes")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "nsizes", p->nsizes, 1, HPCB_LOAD_MAX_SIZES, "")) != HPCB_OK)
        return rc;
    if (p->sizes == NULL)
        return hpcb_why_set(why, "sizes", "must point to nsizes sizes, got NULL");
    for (size_t i = 0; i < p->nsizes; i++)
        if (p->sizes[i] == 0 || p->sizes[i] % HPCB_LOAD_BLOCK != 0 || p->sizes[i] > p->buffer_bytes)
            return hpcb_why_set(why, "sizes", "must each be a positive multiple of %zu bytes and at most buffer_bytes "
                                "(%zu), got %zu at index %zu", HPCB_LOAD_BLOCK, p->buffer_bytes, p->sizes[i], i);
    if ((rc = hpcb_why_range(why, "min_bytes", p->min_bytes, 1, (size_t)1 << 44, " bytes")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "warmup", p->warmup, 0, 1000, "")) != HPCB_OK ||
        (rc = hpcb_why_range(why, "samples", p->samples, 1, HPCB_MAX_SAMPLES / p->nsizes, "")) != HPCB_OK ||
        (rc = hpcb_page_mode_check(p->page_mode, why)) != HPCB_OK ||
        (rc = hpcb_why_choice(why, "isa", p->isa, isa_names, HPCB_ISA_COUNT)) != HPCB_OK)
        return rc;
    if (!hpcb_load_supported(p->isa))
        return hpcb_why_set(why, "isa", "must be one this CPU supports, got %s", isa_names[p->isa]);
    return HPCB_OK;
}

/* Each loop reads `passes` times the `bytes` (a multiple of 64) from `buf`
 * (64-byte aligned) and adds every 64-bit word into sum[0..7]: word k of
 * each 64-byte block goes to sum[k], whatever the width of the loads, so
 * every loop gives the same sums. */
static void sum_scalar(const uint64_t *buf, size_t bytes, size_t passes, uint64_t sum[8])
{
    size_t words = bytes / sizeof(uint64_t);
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
    for (size_t r = 0; r < passes; r++) {
        for (size_t i = 0; i < words; i += 8) {
            s0 += buf[i]; s1 += buf[i + 1]; s2 += buf[i + 2]; s3 += buf[i + 3];
            s4 += buf[i + 4]; s5 += buf[i + 5]; s6 += buf[i + 6]; s7 += buf[i + 7];
        }
        HPCB_COMPILER_BARRIER();   /* one pass after another, not folded into a multiply */
    }
    uint64_t s[8] = {s0, s1, s2, s3, s4, s5, s6, s7};
    memcpy(sum, s, sizeof s);
}

#ifdef HPCB_X86
__attribute__((target("sse2"))) static void sum_sse2(const uint64_t *buf, size_t bytes, size_t passes,
                                                     uint64_t sum[8])
{
    __m128i a0 = _mm_setzero_si128(), a1 = a0, a2 = a0, a3 = a0;
    const char *end = (const char *)buf + bytes;
    for (size_t r = 0; r < passes; r++) {
        for (const char *q = (const char *)buf; q < end; q += 64) {
            a0 = _mm_add_epi64(a0, _mm_load_si128((const __m128i *)q));
            a1 = _mm_add_epi64(a1, _mm_load_si128((const __m128i *)(q + 16)));
            a2 = _mm_add_epi64(a2, _mm_load_si128((const __m128i *)(q + 32)));
            a3 = _mm_add_epi64(a3, _mm_load_si128((const __m128i *)(q + 48)));
        }
        HPCB_COMPILER_BARRIER();
    }
    _mm_storeu_si128((__m128i *)sum, a0);
    _mm_storeu_si128((__m128i *)(sum + 2), a1);
    _mm_storeu_si128((__m128i *)(sum + 4), a2);
    _mm_storeu_si128((__m128i *)(sum + 6), a3);
}

__attribute__((target("avx2"))) static void sum_avx2(const uint64_t *buf, size_t bytes, size_t passes,
                                                     uint64_t sum[8])
{
    /* Two blocks per iteration, four independent accumulators. */
    __m256i a0 = _mm256_setzero_si256(), a1 = a0, a2 = a0, a3 = a0;
    const char *end = (const char *)buf + bytes, *pairs_end = (const char *)buf + bytes / 128 * 128;
    for (size_t r = 0; r < passes; r++) {
        const char *q = (const char *)buf;
        for (; q < pairs_end; q += 128) {
            a0 = _mm256_add_epi64(a0, _mm256_load_si256((const __m256i *)q));
            a1 = _mm256_add_epi64(a1, _mm256_load_si256((const __m256i *)(q + 32)));
            a2 = _mm256_add_epi64(a2, _mm256_load_si256((const __m256i *)(q + 64)));
            a3 = _mm256_add_epi64(a3, _mm256_load_si256((const __m256i *)(q + 96)));
        }
        for (; q < end; q += 64) {
            a0 = _mm256_add_epi64(a0, _mm256_load_si256((const __m256i *)q));
            a1 = _mm256_add_epi64(a1, _mm256_load_si256((const __m256i *)(q + 32)));
        }
        HPCB_COMPILER_BARRIER();
    }
    __m256i lo = _mm256_add_epi64(a0, a2), hi = _mm256_add_epi64(a1, a3);
    _mm256_storeu_si256((__m256i *)sum, lo);
    _mm256_storeu_si256((__m256i *)(sum + 4), hi);
}

__attribute__((target("avx512f"))) static void sum_avx512(const uint64_t *buf, size_t bytes, size_t passes,
                                                          uint64_t sum[8])
{
    __m512i a0 = _mm512_setzero_si512(), a1 = a0, a2 = a0, a3 = a0;
    const char *end = (const char *)buf + bytes, *quads_end = (const char *)buf + bytes / 256 * 256;
    for (size_t r = 0; r < passes; r++) {
        const char *q = (const char *)buf;
        for (; q < quads_end; q += 256) {
            a0 = _mm512_add_epi64(a0, _mm512_load_si512((const void *)q));
            a1 = _mm512_add_epi64(a1, _mm512_load_si512((const void *)(q + 64)));
            a2 = _mm512_add_epi64(a2, _mm512_load_si512((const void *)(q + 128)));
            a3 = _mm512_add_epi64(a3, _mm512_load_si512((const void *)(q + 192)));
        }
        for (; q < end; q += 64)
            a0 = _mm512_add_epi64(a0, _mm512_load_si512((const void *)q));
        HPCB_COMPILER_BARRIER();
    }
    __m512i all = _mm512_add_epi64(_mm512_add_epi64(a0, a1), _mm512_add_epi64(a2, a3));
    _mm512_storeu_si512((void *)sum, all);
}
#endif

typedef void (*sum_loop)(const uint64_t *, size_t, size_t, uint64_t[8]);

static sum_loop loop_of(int isa)
{
    switch (isa) {
#ifdef HPCB_X86
    case HPCB_ISA_SSE2: return sum_sse2;
    case HPCB_ISA_AVX2: return sum_avx2;
    case HPCB_ISA_AVX512: return sum_avx512;
#endif
    default: return sum_scalar;
    }
}

void hpcb_load_sum(int isa, const uint64_t *buf, size_t bytes, size_t passes, uint64_t sum[8])
{
    loop_of(isa == HPCB_ISA_AUTO ? hpcb_load_widest() : isa)(buf, bytes, passes, sum);
}

/* Time one size: warm-up passes, then samples of whole passes, each checked
 * against `passes` times the sums of one pass. */
static int time_size(const uint64_t *buf, size_t bytes, const struct hpcb_load_params *p, sum_loop loop,
                     double *ns, double *ticks, double *read)
{
    size_t passes = (p->min_bytes + bytes - 1) / bytes;
    uint64_t once[8], got[8];
    sum_scalar(buf, bytes, 1, once);
    *read = (double)passes * (double)bytes;
    if (p->warmup > 0)
        loop(buf, bytes, p->warmup, got);
    for (size_t j = 0; j < p->samples; j++) {
        HPCB_COMPILER_BARRIER();
        uint64_t n0 = hpcb_now_ns();
        uint64_t t0 = hpcb_ticks();
        loop(buf, bytes, passes, got);
        uint64_t t1 = hpcb_ticks();
        uint64_t n1 = hpcb_now_ns();
        HPCB_COMPILER_BARRIER();
        for (int k = 0; k < 8; k++)
            if (got[k] != once[k] * (uint64_t)passes)   /* modulo 2^64 on both sides */
                return HPCB_ECHECK;
        ns[j] = (double)(n1 - n0);
        ticks[j] = (double)(t1 - t0);
    }
    return HPCB_OK;
}

int hpcb_load_run(const struct hpcb_load_params *p, struct hpcb_load_out *out)
{
    int rc = hpcb_contract_start(hpcb_load_check(p, NULL),
                                 out != NULL && out->ns != NULL && out->ticks != NULL && out->bytes != NULL);
    if (rc != HPCB_OK)
        return rc;
    int isa = p->isa == HPCB_ISA_AUTO ? hpcb_load_widest() : p->isa;
    out->isa = (size_t)isa;
    struct hpcb_region region = {0};
    if ((rc = hpcb_region_alloc(&region, p->buffer_bytes, p->page_mode)) != HPCB_OK)
        return rc;
    /* Distinct words (i * odd constant), so a skipped or repeated load
     * changes the sums. */
    uint64_t *buf = region.data;
    for (size_t i = 0; i < p->buffer_bytes / sizeof(uint64_t); i++)
        buf[i] = (uint64_t)i * 0x9E3779B97F4A7C15ull + 1;
    sum_loop loop = loop_of(isa);
    for (size_t i = 0; rc == HPCB_OK && i < p->nsizes; i++)
        rc = time_size(buf, p->sizes[i], p, loop, out->ns + i * p->samples, out->ticks + i * p->samples,
                       out->bytes + i);
    hpcb_region_free(&region);
    return rc;
}
